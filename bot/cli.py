"""`shbot`: the command line. Without a Discord token it runs a spectated demo game."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from engine import Variant

from .demo import AGENTS, play_demo

SPEEDS = {"fast": 0.0, "normal": 0.6}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `shbot`."""
    parser = argparse.ArgumentParser(prog="shbot", description="Secret Hitler for Discord.")
    commands = parser.add_subparsers(dest="command")
    demo = commands.add_parser("demo", help="watch a bot-only game in the terminal")
    demo.add_argument("--players", type=int, default=7, choices=range(5, 11), metavar="5-10")
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--speed", choices=sorted(SPEEDS), default=None)
    demo.add_argument("--agent", choices=sorted(AGENTS), default="selfish")
    demo.add_argument("--variant", choices=["standard", "rebalanced"], default="standard")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `shbot` console script."""
    args = build_parser().parse_args(argv)
    if args.command is None:
        if os.environ.get("DISCORD_TOKEN"):
            print(
                "shbot: DISCORD_TOKEN is set, but the Discord front-end is not built yet; "
                "run `shbot demo` to watch a bot-only game.",
                file=sys.stderr,
            )
            return 2
        print("No DISCORD_TOKEN set: showing a bot-only demo game (see `shbot demo --help`).\n")
        args = build_parser().parse_args(["demo"])
    speed = args.speed or ("normal" if sys.stdout.isatty() else "fast")
    try:
        play_demo(
            args.players,
            args.seed,
            agent=args.agent,
            variant=Variant(args.variant),
            out=sys.stdout,
            delay=SPEEDS[speed],
        )
    except (BrokenPipeError, KeyboardInterrupt):  # `shbot demo | head`, or Ctrl-C
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
