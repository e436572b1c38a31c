"""CPU microseconds per model playout, and whether the playouts run compiled.

    python bench/playout_bench.py [--players 10] [--playouts 1500] [--repeats 7] [--json]

Each playout deals a new game (`FastGame.new`, seed i) and plays it to its end with the
opponent model of belief-ISMCTS (`agents.playouts.play_model`, every seat equally
suspicious): the inner loop of every AI decision. Reports the best of `--repeats` runs
in CPU time (steadier than wall time on a shared machine) and `compiled`: whether the
mypyc build of setup.py is the one imported. To compare both builds on one machine, run
it once from an install and once with `PYTHONPATH` set to a checkout with no `.so` files.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from agents import playouts
from agents.playouts import TableModel, play_model
from engine.fastsim import FastGame


def microseconds_per_playout(players: int, count: int, repeats: int) -> float:
    """The best CPU time per playout over `repeats` runs of `count` playouts."""
    fascists = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}[players]
    model = TableModel.uniform(players, fascists)
    rng = random.Random(1)
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for seed in range(count):
            play_model(FastGame.new(players, seed, rng=random.Random()), rng, model)
        best = min(best, (time.process_time() - started) / count * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=10, choices=range(5, 11))
    parser.add_argument("--playouts", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figure = microseconds_per_playout(args.players, args.playouts, args.repeats)
    compiled = not str(playouts.__file__).endswith(".py")
    if args.json:
        print(json.dumps({"players": args.players, "us_per_playout": round(figure, 1),
                          "compiled": compiled}))  # fmt: skip
    else:
        build = "compiled" if compiled else "interpreted"
        print(f"{figure:.1f} CPU us per playout ({args.players} players, {build})")


if __name__ == "__main__":
    main()
