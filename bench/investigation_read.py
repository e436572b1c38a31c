"""What does a Liberal's investigation teach it about Hitler, per way of choosing whom?

    python -m agents.arena --pool random,selfish,ismcts,belief-ismcts \\
        --budget ismcts:iterations=1000 --budget belief-ismcts:iterations=1000 \\
        --games 20 --seed S --records DIR_S
    python bench/investigation_read.py S:DIR_S... --pool random,selfish,ismcts,belief-ismcts \\
        --budget ismcts:iterations=1000 --budget belief-ismcts:iterations=1000 [--json]

Issue 21 puts a Liberal's missing points in whom it executes, which follows its read of
Hitler (`bench/hitler_read.py`). An investigation is the one move that buys a Liberal
information outright, and a search over determinizations cannot value it: in every
determinization the target's party is already known, so the search's choice of target
says nothing about what the result would teach (strategy fusion).

This scores, on saved arena games, every investigation a Liberal president made: its
belief (the shipped model) is brought up to date on its view, and for every legal target
the result the truth would have shown is applied (a party seen is a hard fact). What the
read of Hitler is right after, per way of choosing the target:

- `chosen`: the target the agent picked (split by agent; `all` pools every agent);
- `hitler_focus`: the target whose result leaves the likeliest Hitler most probable, in
  expectation over the results the belief itself expects (a rule any Liberal can play);
- `party_entropy`: the target whose party the belief is least sure of;
- `uniform`: the average over the legal targets (a blind choice);
- `hindsight`: the best target knowing the truth (a bound, not a rule).

Reported per rule: `log_p`, the mean log P(true Hitler) after the result; `top1`, how
often the likeliest Hitler (among living seats other than the president) is Hitler.
Differences against `chosen` are paired (the same decision points). Analysis only: it
reads finished games' roles.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.arena import ArenaError, parse_players, plan_game, resolve_pool
from agents.belief import Belief
from agents.registry import AgentSpec
from engine import Game, GameRecord, Investigate, Role
from engine.fastsim import LIBERAL_ROLE

Array = npt.NDArray[np.float64]
FLOOR = 1e-12  # a zero probability reads as this in log_p
ALL = "all"  # every Liberal president, whatever its agent
RULES = ("chosen", "hitler_focus", "party_entropy", "uniform", "hindsight")


@dataclass(slots=True)
class Scores:
    """Per decision point: log P(true Hitler) and top-1 after the result, per rule."""

    log_p: dict[str, list[float]] = field(default_factory=lambda: {r: [] for r in RULES})
    top1: dict[str, list[float]] = field(default_factory=lambda: {r: [] for r in RULES})
    before_log_p: list[float] = field(default_factory=list)
    before_top1: list[float] = field(default_factory=list)


def _read(
    weights: Array, belief: Belief, hitler: int, others: Sequence[int]
) -> tuple[float, float]:
    """(log P(true Hitler), 1.0 if the likeliest other seat is Hitler) under `weights`."""
    p_hitler = (weights @ belief.is_hitler) / weights.sum()
    top = max(others, key=lambda s: float(p_hitler[s]))
    return math.log(max(float(p_hitler[hitler]), FLOOR)), float(top == hitler)


def _expected_top(weights: Array, belief: Belief, target: int, others: Sequence[int]) -> float:
    """The belief's own expectation of its top Hitler probability after investigating
    `target` (over the two parties it may show)."""
    fascist = belief.roles[:, target] != LIBERAL_ROLE
    total = float(weights.sum())
    value = 0.0
    for shown in (fascist, ~fascist):
        part = weights * shown
        mass = float(part.sum())
        if mass <= 0:
            continue
        p_hitler = (part @ belief.is_hitler) / mass
        value += mass / total * max(float(p_hitler[s]) for s in others)
    return value


def _party_entropy(weights: Array, belief: Belief, target: int) -> float:
    p = float((weights * (belief.roles[:, target] != LIBERAL_ROLE)).sum() / weights.sum())
    return -sum(q * math.log(q) for q in (p, 1 - p) if q > 0)


def score_investigation(
    belief: Belief, roles: Sequence[Role], president: int, chosen: int, alive: Sequence[bool]
) -> dict[str, tuple[float, float]] | None:
    """Each rule's read after the result, at one investigation (None: one legal target)."""
    weights = belief.probabilities()
    hitler = list(roles).index(Role.HITLER)
    targets = [
        s for s in range(len(roles)) if s != president and alive[s] and s not in belief.investigated
    ]
    if len(targets) < 2 or chosen not in targets:
        return None
    others = [s for s in range(len(roles)) if s != president and alive[s]]
    after: dict[int, tuple[float, float]] = {}
    for target in targets:
        fascist = belief.roles[:, target] != LIBERAL_ROLE
        truth = roles[target] is not Role.LIBERAL
        kept = weights * (fascist == truth)
        after[target] = (
            _read(kept, belief, hitler, others)
            if kept.sum() > 0
            else (
                math.log(FLOOR),
                0.0,
            )
        )
    pick: dict[str, Callable[[int], float]] = {
        "hitler_focus": lambda t: _expected_top(weights, belief, t, others),
        "party_entropy": lambda t: _party_entropy(weights, belief, t),
    }
    out = {"chosen": after[chosen]}
    for rule, value in pick.items():
        out[rule] = after[max(targets, key=value)]
    out["uniform"] = (
        sum(a[0] for a in after.values()) / len(after),
        sum(a[1] for a in after.values()) / len(after),
    )
    out["hindsight"] = max(after.values())
    out["before"] = _read(weights, belief, hitler, others)
    return out


def score_game(record: GameRecord, agents: Sequence[str], scores: dict[str, Scores]) -> None:
    """Add every Liberal president's investigation of `record` to `scores[agent]`."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    roles = game.roles
    setup = record.variant.setup(record.players)
    beliefs: dict[int, Belief] = {}
    for action in record.actions:
        if isinstance(action, Investigate) and roles[action.seat] is Role.LIBERAL:
            seat = action.seat
            view = game.view(seat)
            belief = beliefs.setdefault(seat, Belief(setup, seat))
            belief.sync(view)
            result = score_investigation(belief, roles, seat, action.target, view.alive)
            if result is not None:
                # Every rule but `chosen` reads the same belief whoever sits there: "all"
                # pools them over every Liberal president.
                for key in (agents[seat], ALL):
                    tally = scores.setdefault(key, Scores())
                    for rule in RULES:
                        tally.log_p[rule].append(result[rule][0])
                        tally.top1[rule].append(result[rule][1])
                    tally.before_log_p.append(result["before"][0])
                    tally.before_top1.append(result["before"][1])
        game.apply(action)


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def summarise(tally: Scores) -> dict[str, Any]:
    """Per rule: mean log_p and top1, and their paired difference from `chosen`."""
    n = len(tally.before_log_p)
    out: dict[str, Any] = {
        "decisions": n,
        "before": {
            "log_p": _mean_se(tally.before_log_p)[0],
            "top1": _mean_se(tally.before_top1)[0],
        },
    }
    for rule in RULES:
        entry: dict[str, Any] = {
            "log_p": _mean_se(tally.log_p[rule])[0],
            "top1": _mean_se(tally.top1[rule])[0],
        }
        if rule != "chosen":
            for metric in ("log_p", "top1"):
                series = getattr(tally, metric)
                diff = [a - b for a, b in zip(series[rule], series["chosen"], strict=True)]
                entry[f"{metric}_diff"], entry[f"{metric}_diff_se"] = _mean_se(diff)
        out[rule] = entry
    return out


def render(report: dict[str, Any]) -> str:
    """The report as text: one block per agent."""
    lines = [f"Liberal investigations in {report['games']} games, the Hitler read right after:"]
    for agent, entry in report["agents"].items():
        before = entry["before"]
        lines.append(
            f"{agent}: {entry['decisions']} investigations; before: log_p {before['log_p']:.3f}"
            f" top1 {before['top1']:.3f}"
        )
        for rule in RULES:
            e = entry[rule]
            line = f"  {rule:14s} log_p {e['log_p']:.3f}  top1 {e['top1']:.3f}"
            if "log_p_diff" in e:
                line += (
                    f"  vs chosen: log_p {e['log_p_diff']:+.3f} +- {e['log_p_diff_se']:.3f},"
                    f" top1 {e['top1_diff']:+.3f} +- {e['top1_diff_se']:.3f}"
                )
            lines.append(line)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="SEED:DIR, an arena run's seed and --records")
    parser.add_argument("--players", default="5-10", help="the arena runs' --players")
    parser.add_argument("--pool", required=True, help="the arena runs' --pool")
    parser.add_argument("--budget", action="append", default=[], help="the arena's --budget")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        specs = list(resolve_pool(args.pool, args.budget).values())
        players = parse_players(args.players)
        scores: dict[str, Scores] = {}
        games = 0
        for run in args.runs:
            seed_text, sep, directory = run.partition(":")
            if not sep or not seed_text.isdigit():
                raise ArenaError(f"a run is SEED:DIR, not {run!r}")
            paths = sorted(Path(directory).glob("game-*.json"))
            if not paths:
                raise ArenaError(f"No game-*.json records in {directory}.")
            for path in paths:
                index = int(path.stem.removeprefix("game-"))
                planned = plan_game(int(seed_text), index, players, specs).specs
                agents = [AgentSpec.parse(spec).name for spec in planned]
                score_game(GameRecord.from_json(path.read_text(encoding="utf-8")), agents, scores)
                games += 1
    except ArenaError as exc:
        print(f"investigation_read: {exc}", file=sys.stderr)
        return 2
    report = {
        "games": games,
        "agents": {agent: summarise(tally) for agent, tally in sorted(scores.items())},
    }
    print(json.dumps(report) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
