"""How sharp is a belief's read of Hitler where a Liberal needs it: at each execution?

    python -m agents.arena --pool random,selfish,ismcts,belief-ismcts \\
        --budget ismcts:iterations=1000 --budget belief-ismcts:iterations=1000 \\
        --games 20 --seed S --records DIR_S
    python bench/hitler_read.py DIR_S... [--readers president|liberals] \\
        [--model NAME=fit | NAME=styles:A/B/C/D ...] [--json]

Issue 21's analysis puts a Liberal's missing points in whom it executes (perfect
executions: +11 points as a Liberal; `bench/results/README.md`), and the belief's
Hitler read there is the limit. This scores that read on saved arena games, for
several belief models on the very same views (a paired comparison): before every
execution, each reader (the president who executes, if Liberal; with `--readers
liberals`, every living Liberal) brings each model up to date on its view and reads
P(Hitler) over the living seats other than itself:

- `top1`: the share of reads whose likeliest Hitler is Hitler (a president who
  executes that seat wins on the spot);
- `log_p`: the mean natural log of the probability given to the true Hitler;
- `confidence`: the mean probability of the likeliest seat (`top1` against it is
  the read's calibration at the top); `chance_top1` is a blind guess's `top1`;
- against the first model: the paired difference of `top1` and of `log_p`, with its
  standard error over the reads.

Models: `shipped` (always first: the robust style mixture every agent reads with),
`NAME=fit` (the shipped fit alone: the exact belief before issue 21), and
`NAME=styles:A/B/C/D` (the mixture under another style prior, in `bot/human/chaotic/
noise` order). Analysis only: it reads finished games' roles.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.behaviour import FITTED_PATH, Behaviour, Styles, parse_style_prior, reading_model
from agents.belief import Belief
from agents.stats import wilson_interval
from engine import Execute, Game, GameRecord, Role

FLOOR = 1e-12  # a zero probability reads as this in log_p (the robust belief has none)


@dataclass(frozen=True, slots=True)
class Model:
    """A belief model to score: its name and its `reading_model` arguments."""

    name: str
    fit: bool = False  # the shipped fit alone
    prior: tuple[float, ...] | None = None  # a style prior for the mixture

    def behaviour(self, players: int) -> Behaviour | Styles | None:
        """What `Belief` reads the table with, for a game of `players`."""
        if self.fit:
            return reading_model(players, fit=FITTED_PATH)
        return reading_model(players, prior=self.prior)


def parse_model(text: str) -> Model:
    """`NAME=fit` or `NAME=styles:A/B/C/D`; a ValueError says what is wrong."""
    name, sep, spec = text.partition("=")
    if not sep or not name:
        raise ValueError(f"a model is NAME=fit or NAME=styles:A/B/C/D, not {text!r}")
    if spec == "fit":
        return Model(name, fit=True)
    if spec.startswith("styles:"):
        return Model(name, prior=parse_style_prior(spec.removeprefix("styles:")))
    raise ValueError(f"unknown model {spec!r}: fit, or styles:A/B/C/D")


@dataclass(slots=True)
class Reads:
    """One model's reads: per read, whether its top seat was Hitler and log P(Hitler)."""

    top: list[bool] = field(default_factory=list)
    log_p: list[float] = field(default_factory=list)
    confidence: list[float] = field(default_factory=list)
    chance: list[float] = field(default_factory=list)  # a blind guess's odds, per read


def read_game(
    record: GameRecord, models: Sequence[Model], reads: dict[str, Reads], everyone: bool
) -> int:
    """Add the Hitler reads before every execution of `record` to `reads`; return how
    many executions there were."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    roles = game.roles
    hitler = roles.index(Role.HITLER)
    setup = record.variant.setup(record.players)
    beliefs: dict[tuple[str, int], Belief] = {}
    executions = 0
    for action in record.actions:
        if isinstance(action, Execute):
            executions += 1
            view = game.view(action.seat)
            readers = (
                [s for s, r in enumerate(roles) if r is Role.LIBERAL and view.alive[s]]
                if everyone
                else [action.seat] * (roles[action.seat] is Role.LIBERAL)
            )
            for seat in readers:
                view = game.view(seat)
                others = [s for s in range(record.players) if s != seat and view.alive[s]]
                for model in models:
                    key = (model.name, seat)
                    if key not in beliefs:
                        beliefs[key] = Belief(setup, seat, model.behaviour(record.players))
                    belief = beliefs[key]
                    belief.sync(view)
                    p = belief.hitler()
                    top = max(others, key=lambda s: p[s])
                    tally = reads[model.name]
                    tally.top.append(top == hitler)
                    tally.log_p.append(math.log(max(float(p[hitler]), FLOOR)))
                    tally.confidence.append(float(p[top]) / float(sum(p[s] for s in others)))
                    tally.chance.append(1.0 / len(others))
        game.apply(action)
    return executions


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def analyse(directories: Sequence[Path], models: Sequence[Model], everyone: bool) -> dict[str, Any]:
    """Score every record in `directories` (game-*.json, as the arena writes them)."""
    reads = {m.name: Reads() for m in models}
    games = executions = 0
    for directory in directories:
        for path in sorted(directory.glob("game-*.json")):
            record = GameRecord.from_json(path.read_text(encoding="utf-8"))
            executions += read_game(record, models, reads, everyone)
            games += 1
    return summarise(reads, [m.name for m in models], games, executions, everyone)


def summarise(
    reads: dict[str, Reads], names: Sequence[str], games: int, executions: int, everyone: bool
) -> dict[str, Any]:
    """The report of `reads` per model name, each paired against the first."""
    base = reads[names[0]]
    report: dict[str, Any] = {
        "games": games,
        "executions": executions,
        "readers": "liberals" if everyone else "president",
        "reads": len(base.top),
        "chance_top1": _mean_se(base.chance)[0] if base.chance else None,
        "models": {},
    }
    for name in names:
        tally = reads[name]
        n, hits = len(tally.top), sum(tally.top)
        entry: dict[str, Any] = {
            "top1": hits / n if n else None,
            "top1_interval": list(wilson_interval(hits, n)) if n else None,
            "log_p": _mean_se(tally.log_p)[0] if n else None,
            "confidence": _mean_se(tally.confidence)[0] if n else None,
        }
        if name != names[0] and n > 1:
            top_diff = [float(a) - float(b) for a, b in zip(tally.top, base.top, strict=True)]
            log_diff = [a - b for a, b in zip(tally.log_p, base.log_p, strict=True)]
            entry["top1_diff"], entry["top1_diff_se"] = _mean_se(top_diff)
            entry["log_p_diff"], entry["log_p_diff_se"] = _mean_se(log_diff)
        report["models"][name] = entry
    return report


def render(report: dict[str, Any]) -> str:
    """The report as text: one line per model."""
    lines = [
        f"Hitler read before {report['executions']} executions in {report['games']} games "
        f"({report['reads']} reads, readers: {report['readers']}; a blind guess's top1 "
        f"{report['chance_top1'] or 0:.3f}):"
    ]
    for name, e in report["models"].items():
        if e["top1"] is None:
            lines.append(f"  {name:12s} no reads")
            continue
        lo, hi = e["top1_interval"]
        line = (
            f"  {name:12s} top1 {e['top1']:.3f} [{lo:.3f}, {hi:.3f}]  log_p {e['log_p']:.3f}"
            f"  confidence {e['confidence']:.3f}"
        )
        if "top1_diff" in e:
            line += (
                f"  vs first: top1 {e['top1_diff']:+.3f} +- {e['top1_diff_se']:.3f},"
                f" log_p {e['log_p_diff']:+.3f} +- {e['log_p_diff_se']:.3f}"
            )
        lines.append(line)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, nargs="+", help="arena --records directories")
    parser.add_argument("--readers", choices=("president", "liberals"), default="president")
    parser.add_argument(
        "--model", action="append", default=[], help="NAME=fit or NAME=styles:A/B/C/D"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        models = [Model("shipped"), *(parse_model(text) for text in args.model)]
    except ValueError as exc:
        print(f"hitler_read: {exc}", file=sys.stderr)
        return 2
    if len({m.name for m in models}) != len(models):
        print("hitler_read: model names must differ (and not be 'shipped')", file=sys.stderr)
        return 2
    missing = [str(d) for d in args.records if not any(d.glob("game-*.json"))]
    if missing:
        print(f"hitler_read: no game-*.json records in {', '.join(missing)}", file=sys.stderr)
        return 2
    report = analyse(args.records, models, args.readers == "liberals")
    print(json.dumps(report) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
