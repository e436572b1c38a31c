"""`shbot`: the command line.

With `DISCORD_TOKEN` set, `shbot` runs the Discord bot; without it, a spectated bot-only
demo game in the terminal. Subcommands play in the terminal (`demo`, `play`) and read
the database (`replay`, `stats`, `backup`). Every game is stored in the database given by
`--db` (default: `$DATABASE_PATH`, else `shbot.db` in the working directory).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from engine import Variant

from .demo import check_agent, play_terminal, run_demo
from .narrate import narrate
from .render import reveal_text
from .storage import GameSummary, Storage, StorageError

SPEEDS = {"fast": 0.0, "normal": 0.6}
DEFAULT_DB = "data/shbot.db"  # the same default as the Discord bot (bot.config)


def _players(text: str) -> int:
    value = int(text)
    if not 5 <= value <= 10:
        raise argparse.ArgumentTypeError("Secret Hitler takes 5 to 10 players.")
    return value


def _agent(text: str) -> str:
    try:
        return check_agent(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `shbot`."""
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help=f"the database file (default: $DATABASE_PATH, else {DEFAULT_DB})",
    )
    parser = argparse.ArgumentParser(
        prog="shbot",
        description="Secret Hitler for Discord. Without DISCORD_TOKEN: a demo game here.",
        parents=[db],
    )
    commands = parser.add_subparsers(dest="command")

    demo = commands.add_parser("demo", parents=[db], help="watch a bot-only game in the terminal")
    demo.add_argument("--players", type=_players, default=7, metavar="5-10")
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--speed", choices=sorted(SPEEDS), default=None)
    demo.add_argument("--agent", type=_agent, default="belief", metavar="SPEC")
    demo.add_argument("--variant", choices=["standard", "rebalanced"], default="standard")

    play = commands.add_parser("play", parents=[db], help="play one seat against AI players")
    play.add_argument("--players", type=_players, default=7, metavar="5-10")
    play.add_argument("--seat", type=int, default=0, help="your seat (0 = first)")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--agent", type=_agent, default="belief", metavar="SPEC")
    play.add_argument("--variant", choices=["standard", "rebalanced"], default="standard")
    play.add_argument("--name", default="You", help="your name at the table")

    replay = commands.add_parser("replay", parents=[db], help="show a stored game")
    replay.add_argument("game_id", type=int, metavar="GAME_ID")

    stats = commands.add_parser("stats", parents=[db], help="leaderboard, or one player's record")
    stats.add_argument("--user", type=int, default=None, metavar="ID")

    backup = commands.add_parser("backup", parents=[db], help="copy the database safely")
    backup.add_argument("path", metavar="PATH")
    return parser


def database_path(args: argparse.Namespace) -> str:
    """`--db`, else `$DATABASE_PATH`, else data/shbot.db; its directory is created."""
    path = Path(getattr(args, "db", None) or os.environ.get("DATABASE_PATH") or DEFAULT_DB)
    if str(path) != ":memory:":
        path.parent.mkdir(parents=True, exist_ok=True)
    return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `shbot` console script."""
    args = build_parser().parse_args(argv)
    try:
        if args.command is None:
            if _token_configured():
                return _discord(args)
            print("No DISCORD_TOKEN set: showing a bot-only demo game (see `shbot demo --help`).\n")
            args = build_parser().parse_args([*_db_args(args), "demo"])
        if args.command == "demo":
            return _demo(args)
        if args.command == "play":
            return _play(args)
        return asyncio.run(_database_command(args))
    except StorageError as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `shbot replay 1 | head`
        _silence_stdout()
        return 1
    except KeyboardInterrupt:
        return 130


def _db_args(args: argparse.Namespace) -> list[str]:
    return ["--db", args.db] if getattr(args, "db", None) else []


def _token_configured() -> bool:
    """Whether DISCORD_TOKEN is set, in the environment or in a `.env` file."""
    if os.environ.get("DISCORD_TOKEN"):
        return True
    try:
        from .config import ConfigError, load_config
    except ImportError:
        return False
    try:
        return bool(load_config().discord_token)
    except ConfigError:
        return True  # a broken .env: `_discord` reports what is wrong with it


def _discord(args: argparse.Namespace) -> int:
    try:
        from .config import ConfigError, load_config
        from .discord.app import run
    except ImportError as exc:
        print(
            f"shbot: DISCORD_TOKEN is set, but the Discord front-end cannot start ({exc}). "
            "Run `shbot demo` to watch a bot-only game.",
            file=sys.stderr,
        )
        return 2
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "db", None):
        config = replace(config, database_path=Path(args.db))
    import aiohttp
    import discord

    try:
        run(config)
    except discord.LoginFailure:
        print("shbot: Discord refused the token; check DISCORD_TOKEN.", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        print(f"shbot: cannot reach Discord ({exc}).", file=sys.stderr)
        return 1
    return 0


def _demo(args: argparse.Namespace) -> int:
    speed = args.speed or ("normal" if sys.stdout.isatty() else "fast")
    session = asyncio.run(
        run_demo(
            args.players,
            args.seed,
            agent=args.agent,
            variant=Variant(args.variant),
            out=sys.stdout,
            delay=SPEEDS[speed],
            db_path=database_path(args),
        )
    )
    if getattr(session.frontend, "broken", False):
        _silence_stdout()
        return 1
    return 0


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so exiting does not complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _play(args: argparse.Namespace) -> int:
    if not 0 <= args.seat < args.players:
        print(
            f"shbot: seat {args.seat} does not exist with {args.players} players.", file=sys.stderr
        )
        return 2
    asyncio.run(
        play_terminal(
            args.players,
            args.seat,
            args.seed,
            agent=args.agent,
            name=args.name,
            variant=Variant(args.variant),
            out=sys.stdout,
            db_path=database_path(args),
        )
    )
    return 0


async def _database_command(args: argparse.Namespace) -> int:
    async with await Storage.open(database_path(args)) as store:
        if args.command == "replay":
            print(await replay_text(store, args.game_id))
        elif args.command == "stats":
            print(await stats_text(store, args.user))
        elif args.command == "backup":
            await store.backup(args.path)
            print(f"Backed up {store.path} to {args.path}.")
    return 0


async def replay_text(store: Storage, game_id: int) -> str:
    """A stored game as the table saw it; the reveal too once it is finished."""
    stored = await store.load_game(game_id)
    game = stored.record.replay()
    labels = [f"{s.name} (seat {s.seat})" for s in stored.seats]
    out = [
        f"Game #{stored.id} · {game.players} players · {game.variant.name} rules · "
        f"{stored.status}" + (f" · seed {stored.record.seed}" if game.is_over else "")
        # the seed decides every role and the deck: only once the game is over
    ]
    out += [line for e in game.events if e.audience is None and (line := narrate(e, labels))]
    if stored.status == "finished" and game.is_over:
        out += ["", reveal_text(game.events, game.roles, labels)]
    else:  # hidden information stays hidden until the game has really ended
        out += ["", f"The game is {stored.status}: roles and hidden policies stay secret."]
    return "\n".join(out)


async def stats_text(store: Storage, user_id: int | None) -> str:
    """One player's record, or the leaderboard and the latest games."""
    if user_id is not None:
        stats = await store.player_stats(user_id)
        roles = ", ".join(f"{role} {wins}/{games}" for role, (games, wins) in stats.by_role.items())
        out = [
            f"Player {user_id}: {stats.games} finished games, {stats.wins} wins "
            f"({stats.win_rate:.0%}). Wins by role: {roles}."
        ]
        out += [_summary(g) for g in stats.recent]
        return "\n".join(out)
    rows = await store.leaderboard(None)
    out = ["Leaderboard (finished games, humans only):"]
    out += [
        f"  {i}. {r.name} (id {r.user_id}): {r.wins}/{r.games} wins ({r.win_rate:.0%})"
        for i, r in enumerate(rows, 1)
    ] or ["  nobody has finished a game yet."]
    out.append("Latest games:")
    out += [_summary(g) for g in await store.recent_games(limit=10)] or ["  none yet."]
    return "\n".join(out)


def _summary(game: GameSummary) -> str:
    ending = f", {game.winner} win ({game.reason})" if game.winner else ""
    return f"  #{game.id}: {game.players} players, {game.status}{ending}"


if __name__ == "__main__":
    sys.exit(main())
