"""Which behaviour fit reads a table better? Two fits scored on the same games.

    python bench/fit_compare.py A.json B.json --games 2000 --seed 2 \\
        --pool random,selfish,ismcts:iterations=100,belief-ismcts:iterations=100 [--workers 2]

Plays `--games` games (player counts in turn over 5-10, an agent per seat drawn
uniformly from `--pool`), then replays each one from the seat of *every* Liberal with
two exact beliefs side by side, one per behaviour file (a file written by
`python -m agents.fit_behaviour`), and prints the four metrics of
`bench/belief_bench.py` (Hitler and Fascist log-loss and accuracy, at the same scoring
points) for each. Use games the fits did not see (another seed) to compare them
honestly. The games' own agents play with the installed fit.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from belief_bench import METRICS, score, scoring_points

from agents.behaviour import load_behaviour
from agents.belief import Belief
from agents.runner import play_game
from engine import Game, GameRecord, Role

Sums = dict[str, float]


def play(job: tuple[int, int, tuple[str, ...]]) -> GameRecord:
    """Game number `index` of a run: its size, seats and seed follow from (seed, index)."""
    index, seed, pool = job
    rng = random.Random(f"fit-compare:{seed}:{index}")
    players = 5 + index % 6
    seats = [rng.choice(pool) for _ in range(players)]
    return play_game(seats, seed=rng.getrandbits(62)).record


def score_fits(job: tuple[GameRecord, tuple[Path, ...]]) -> tuple[list[Sums], int]:
    """Metric sums per fit over one game, from every Liberal seat; and the point count."""
    record, fits = job
    game = Game(record.players, variant=record.variant, seed=record.seed)
    liberals = [s for s, r in enumerate(game.roles) if r is Role.LIBERAL]
    behaviours = [load_behaviour(game.setup.players, f) for f in fits]
    # beliefs[i][k]: fit i read from Liberal seat liberals[k]; one replay feeds them all.
    beliefs = [[Belief(game.setup, seat, b) for seat in liberals] for b in behaviours]
    sums: list[Sums] = [dict.fromkeys(METRICS, 0.0) for _ in fits]
    points = 0
    for _ in scoring_points(game, record.actions, [b for row in beliefs for b in row]):
        for total, row in zip(sums, beliefs, strict=True):
            for seat, belief in zip(liberals, row, strict=True):
                for metric, value in score(belief.marginals(), game.roles, seat).items():
                    total[metric] += value
        points += len(liberals)
    return sums, points


def compare(
    fits: Sequence[Path], games: int, seed: int, pool: Sequence[str], workers: int = 1
) -> tuple[list[Sums], int]:
    """Mean metrics per fit over the games of (seed, pool), and the number of points."""
    jobs = [(index, seed, tuple(pool)) for index in range(games)]
    if workers > 1:
        with Pool(workers) as processes:
            records = processes.map(play, jobs)
            parts = processes.map(score_fits, [(r, tuple(fits)) for r in records])
    else:
        parts = [score_fits((play(job), tuple(fits))) for job in jobs]
    points = sum(p for _, p in parts)
    means = [
        {m: sum(part[i][m] for part, _ in parts) / max(points, 1) for m in METRICS}
        for i in range(len(fits))
    ]
    return means, points


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: play, score both fits, print one line per fit."""
    parser = argparse.ArgumentParser(description="Score two behaviour fits on the same games.")
    parser.add_argument("fits", nargs=2, type=Path, help="two behaviour JSON files")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument(
        "--pool", default="random,selfish,ismcts:iterations=100,belief-ismcts:iterations=100"
    )
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    pool = [p.strip() for p in args.pool.split(",") if p.strip()]
    means, points = compare(args.fits, args.games, args.seed, pool, args.workers)
    print(f"{args.games} games, pool {','.join(pool)}, seed {args.seed}: {points} scoring points")
    for fit, metrics in zip(args.fits, means, strict=True):
        print(f"{fit}: " + "  ".join(f"{m} {v:.4f}" for m, v in metrics.items()))


if __name__ == "__main__":
    main()
