"""Benchmark full random games on the fast simulator or the clean engine.

    python bench/engine_bench.py --players 7 --games 20000 --seed 1 [--json]
        [--engine fast|clean] [--variant standard|rebalanced] [--repeat 5]

Game i is dealt from chance seed S + i; every decision comes from one decision RNG
seeded from S (see `engine.fastsim` for the random players' rule). Both engines consume
chance and decisions identically, so for the same arguments they report the very same
endings; only the speed differs. Each repeat replays the same G games; games/s is the
median over the repeats.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter

from engine.fastsim import FastGame, play_clean_random
from engine.game import Game
from engine.roles import WinReason
from engine.variants import REBALANCED, STANDARD, Variant

VARIANTS: dict[str, Variant] = {"standard": STANDARD, "rebalanced": REBALANCED}


def decision_rng(seed: int) -> random.Random:
    """The random players' generator for a run seeded `seed` (apart from chance seeds)."""
    return random.Random(f"decisions:{seed}")


def run_fast(players: int, games: int, seed: int, variant: Variant = STANDARD) -> Counter[str]:
    """Play `games` random games on `FastGame`; count the endings."""
    chance = random.Random()  # reseeded per game: cheaper than a new generator
    decisions = decision_rng(seed)
    new = FastGame.new
    endings: Counter[str] = Counter()
    for i in range(games):
        endings[new(players, seed + i, variant, rng=chance).play_random(decisions)] += 1
    return endings


def run_clean(players: int, games: int, seed: int, variant: Variant = STANDARD) -> Counter[str]:
    """The same games on the clean `Game`."""
    decisions = decision_rng(seed)
    endings: Counter[str] = Counter()
    for i in range(games):
        game = Game(players, variant=variant, seed=seed + i)
        endings[play_clean_random(game, decisions)] += 1
    return endings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Benchmark full random games.")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=("fast", "clean"), default="fast")
    parser.add_argument("--variant", choices=tuple(VARIANTS), default="standard")
    parser.add_argument("--repeat", type=int, default=5, help="runs; games/s is their median")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        parser.error("--games and --repeat must be positive")

    run = run_fast if args.engine == "fast" else run_clean
    variant = VARIANTS[args.variant]
    rates: list[float] = []
    endings: Counter[str] = Counter()
    for _ in range(args.repeat):
        start = time.perf_counter()
        endings = run(args.players, args.games, args.seed, variant)
        rates.append(args.games / (time.perf_counter() - start))
    median = statistics.median(rates)
    fractions = {reason.value: endings[reason] / args.games for reason in WinReason}

    if args.json:
        print(
            json.dumps(
                {
                    "players": args.players,
                    "games": args.games,
                    "games_per_s": round(median, 1),
                    "endings": fractions,
                    "engine": args.engine,
                    "variant": args.variant,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "runs_games_per_s": [round(r, 1) for r in rates],
                }
            )
        )
        return
    print(
        f"{args.engine} engine, {args.players} players, {args.variant}: {args.games} games "
        f"x {args.repeat} runs, seeds {args.seed}..{args.seed + args.games - 1}"
    )
    print(f"  median {median:,.0f} games/s  (runs: {', '.join(f'{r:,.0f}' for r in rates)})")
    for reason in WinReason:
        print(f"  {reason.value:<16} {fractions[reason.value]:7.2%}")


if __name__ == "__main__":
    main()
