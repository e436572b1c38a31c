"""Benchmark SO-ISMCTS (or belief-ISMCTS) decisions on real mid-game positions.

    python bench/ismcts_bench.py --players 10 --iterations 10000 --decisions 30 --seed 1
        [--json] [--mix balanced|natural] [--exploration 0.7] [--profile]
        [--agent ismcts|belief-ismcts] [--options wild=0.7,fit=behaviour_fitted.json]

`--agent belief-ismcts` times our agent as the bot's worker runs it: a fresh agent
reads the whole view (both beliefs updated with every event), then searches; the
timing covers both. `--options` sets its own options as an agent spec writes them
(`agents.registry.OPTIONS`), to time a variant from main.

Positions come from seeded games of Selfish players (game i is dealt from seed S + i):
every decision with two or more distinct options is a candidate (any voter's, in a
vote), and the D positions are taken in turn from each kind of decision (nominations,
votes, discards, enactments, veto replies, powers), spread over the games and seats;
with `--mix natural`, at random among all of them (mostly votes, as in play). Each decision is
timed whole, as a seat would take it: building the determinization sampler from the
view, then the search. Prints the median and 90th percentile wall seconds per
decision, the median CPU seconds (steadier on a shared machine), microseconds per
iteration, and the median per kind of decision; `--json` prints one JSON line with the
same figures. On a shared machine timings are noisy: check the load (`uptime`).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Mapping

from agents.base import Budget
from agents.belief_ismcts import BeliefISMCTSAgent
from agents.ismcts import SOISMCTSAgent
from agents.registry import AgentSpec
from agents.selfish import SelfishAgent
from engine import Game, Phase, PlayerView


def collect_positions(
    players: int, decisions: int, seed: int, mix: str = "balanced"
) -> list[PlayerView]:
    """`decisions` views of seats facing a real choice.

    "balanced" takes them in turn from each kind of decision; "natural" at random from
    all of them, so as often as games ask them (mostly votes).
    """
    by_phase: dict[Phase, list[PlayerView]] = defaultdict(list)
    picker = random.Random(f"positions:{seed}")
    game_index = 0
    # Enough games that the rarer decisions (powers, vetoes) turn up too.
    while game_index < 5 or (sum(map(len, by_phase.values())) < 4 * decisions and game_index < 400):
        game = Game(players, seed=seed + game_index)
        agents = [SelfishAgent(s, seed * 1000 + game_index * 10 + s) for s in range(players)]
        while not game.is_over:
            seat = game.awaiting()[0]
            if game.phase is Phase.VOTE:
                seat = picker.choice(game.awaiting())  # any voter, not only the first
            view = game.view(seat)
            if len(view.legal_actions) > 1:
                by_phase[view.phase].append(view)
            game.apply(agents[seat].act(view))
        game_index += 1
    if mix == "natural":
        every = [view for phase in Phase for view in by_phase[phase]]
        return picker.sample(every, min(decisions, len(every)))
    pools = [by_phase[phase] for phase in Phase if by_phase[phase]]
    for pool in pools:
        picker.shuffle(pool)
    chosen: list[PlayerView] = []
    while len(chosen) < decisions and any(pools):
        for pool in pools:
            if pool and len(chosen) < decisions:
                chosen.append(pool.pop())
    return chosen


def time_decisions(
    views: list[PlayerView],
    iterations: int,
    seed: int,
    exploration: float,
    agent_name: str = "ismcts",
    options: Mapping[str, object] | None = None,
) -> list[tuple[Phase, float, float, int]]:
    """(kind of decision, wall seconds, CPU seconds, iterations run) per view's search."""
    out = []
    kind = BeliefISMCTSAgent if agent_name == "belief-ismcts" else SOISMCTSAgent
    settings = dict(options or {})
    for view in views:
        assert view.seat is not None
        agent = kind(
            view.seat, seed, Budget(iterations=iterations), exploration=exploration, **settings
        )
        rng = agent.rng(view)
        start, cpu = time.perf_counter(), time.process_time()
        agent.observe(view)  # belief-ISMCTS reads the events; SO-ISMCTS keeps nothing
        result = agent.search(view, rng)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        out.append((view.phase, wall, cpu, result.iterations))
    return out


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` quantile, interpolated (statistics.quantiles needs two values)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Benchmark SO-ISMCTS decisions.")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--iterations", type=int, default=10000)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exploration", type=float, default=0.7)
    parser.add_argument(
        "--mix",
        choices=("balanced", "natural"),
        default="balanced",
        help="positions in turn per kind of decision, or as often as games ask them",
    )
    parser.add_argument("--agent", choices=("ismcts", "belief-ismcts"), default="ismcts")
    parser.add_argument("--options", default="", help="the agent's own options, e.g. wild=0.7")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top lines")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.iterations < 1:
        parser.error("--decisions and --iterations must be positive")

    try:
        spec = AgentSpec.parse(f"{args.agent}:{args.options}")
    except ValueError as exc:
        parser.error(str(exc))
    if spec.budget != Budget():
        parser.error("--options takes the agent's own options; the budget is --iterations")
    options = spec.settings()
    views = collect_positions(args.players, args.decisions, args.seed, args.mix)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    timings = time_decisions(
        views, args.iterations, args.seed, args.exploration, args.agent, options
    )
    if profiler is not None:
        profiler.disable()

    seconds = [s for _, s, _, _ in timings]
    cpu_seconds = [c for _, _, c, _ in timings]
    per_iteration = [s / n * 1e6 for _, s, _, n in timings]
    by_phase: dict[str, list[float]] = defaultdict(list)
    for phase, s, _, _ in timings:
        by_phase[phase.value].append(s)
    figures = {
        "agent": args.agent,
        "options": args.options,
        "players": args.players,
        "iterations": args.iterations,
        "median_s": round(statistics.median(seconds), 4),
        "p90_s": round(percentile(seconds, 0.9), 4),
        "max_s": round(max(seconds), 4),
        "median_cpu_s": round(statistics.median(cpu_seconds), 4),
        "median_us_per_iteration": round(statistics.median(per_iteration), 1),
        "decisions": len(timings),
        "by_phase_median_s": {k: round(statistics.median(v), 4) for k, v in by_phase.items()},
        "by_phase_count": {k: len(v) for k, v in by_phase.items()},
        "seed": args.seed,
        "mix": args.mix,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{args.agent}, {args.players} players, {args.iterations} iterations, "
            f"{len(timings)} decisions ({args.mix}) from Selfish games seeded {args.seed}+"
        )
        print(
            f"  median {figures['median_s']:.3f} s/decision, p90 {figures['p90_s']:.3f} s, "
            f"max {figures['max_s']:.3f} s, {figures['median_us_per_iteration']:.1f} us/iteration"
        )
        print(f"  median CPU time {figures['median_cpu_s']:.3f} s/decision")
        for phase_name, values in by_phase.items():
            print(
                f"  {phase_name:<18} {len(values):3d} x  median {statistics.median(values):.3f} s"
            )
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
