"""How close do a Liberal's ballots come to perfect ones, and could the belief do better?

    python bench/ballot_read.py S1:DIR_S1 S2/9-10:DIR_S2 ... [--folds 2] [--json]

(runs as in `bench/agent_styles.py`: an arena run's seed, its `--players` if not 5-10,
and its `--records` directory.)

Perfect ballots (Ja for an all-Liberal government, Nein otherwise) lift the omniscient
Liberal's win rate by about 11 points over the agent's own (`bench/liberal_bound.py
--perfect vote`, bench/results/README.md), as much as perfect executions. A ballot is
the one Liberal decision the belief makes without a search (`liberal_ballot`): how
often does it cast the perfect ballot, and would a sharper belief or another rule from
the same belief cast it more often? For every ballot a Liberal cast in saved games, each
belief model is brought up to date on the voter's view and gives P(the government is
all Liberal) (`pair_liberal`); scored against the truth:

- `rule`: the share of ballots where the shipped rule (`liberal_ballot`) on that model's
  belief casts the perfect ballot; `pivotal_rule` the same over the ballots that decided
  their election (flipped, the election's result flips: the ones that matter);
- `auc`: how well P(all Liberal) ranks clean governments above the others;
- `best_threshold`: the best share any one threshold on P(all Liberal) reaches (chosen
  on these very ballots: optimistic), and that threshold; the same over pivotal ballots.

Models: `shipped`, and `agents` (one fitted style per agent of the pool, as in
`bench/agent_styles.py`, cross-fitted over `--folds`). Analysis only.

Read the agreement with care: most governments hold a Fascist, so a rule that says Nein
more often agrees more often. The best threshold here (about 0.5) agreed 8 points more
often than the shipped rule and lost 12 points as a Liberal in play (bench/results).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.belief import Belief
from agents.belief_agent import liberal_ballot
from engine import Game, GameRecord, Role, Vote
from engine import events as ev

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_styles import FittedModel, Run, build_models, cross_fitted_main
from hitler_read import Model


@dataclass(slots=True)
class Ballots:
    """One model's reads of every Liberal ballot."""

    p_clean: list[float] = field(default_factory=list)
    rule: list[bool] = field(default_factory=list)  # the shipped rule's ballot (Ja)


@dataclass(slots=True)
class Truth:
    """What every ballot should have been, and whether it decided its election."""

    clean: list[bool] = field(default_factory=list)
    pivotal: list[bool] = field(default_factory=list)


def read_game(
    record: GameRecord, models: Sequence[Model | FittedModel], reads: dict[str, Ballots]
) -> list[tuple[bool, int]]:
    """Add each model's read of every Liberal ballot of `record` to `reads`; return per
    ballot (clean, index of its election) for the truth."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    roles = game.roles
    setup = record.variant.setup(record.players)
    beliefs: dict[tuple[str, int], Belief] = {}
    out: list[tuple[bool, int]] = []
    election = 0
    for action in record.actions:
        if isinstance(action, Vote) and roles[action.seat] is Role.LIBERAL:
            view = game.view(action.seat)
            assert view.chancellor is not None
            clean = roles[view.president] is Role.LIBERAL and roles[view.chancellor] is Role.LIBERAL
            for model in models:
                key = (model.name, action.seat)
                if key not in beliefs:
                    beliefs[key] = Belief(setup, action.seat, model.behaviour(record.players))
                belief = beliefs[key]
                belief.sync(view)
                trust = belief.pair_liberal()
                tally = reads[model.name]
                tally.p_clean.append(float(trust[view.president, view.chancellor]))
                tally.rule.append(liberal_ballot(view, action.seat, trust, belief.hitler()))
            out.append((clean, election))
        before = len(game.events)
        game.apply(action)
        if any(isinstance(e, ev.ElectionResult) for e in game.events[before:]):
            election += 1
    return out


def pivotal_ballots(record: GameRecord) -> dict[tuple[int, int], bool]:
    """(election index, seat) -> whether that seat's ballot decided its election: cast
    the other way, the election's result would have been the other."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    out: dict[tuple[int, int], bool] = {}
    election = 0
    for action in record.actions:
        for event in game.apply(action):
            if isinstance(event, ev.ElectionResult):
                cast = [(s, v) for s, v in enumerate(event.votes) if v is not None]
                ja = sum(v for _, v in cast)
                for seat, ballot in cast:
                    flipped = ja - 1 if ballot else ja + 1
                    out[(election, seat)] = event.elected != (2 * flipped > len(cast))
                election += 1
    return out


def _auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """Probability a clean government scores above a dirty one (ties half)."""
    pos, neg = scores[labels], scores[~labels]
    if not len(pos) or not len(neg):
        return None
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    values = np.concatenate([pos, neg])
    for v in np.unique(values):  # average ranks of ties
        tied = values == v
        ranks[tied] = ranks[tied].mean()
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def _best_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(share agreeing with the truth, threshold) of the best rule `Ja iff score >= t`."""
    best = (float(np.mean(~labels)), 1.01)  # Nein always
    for t in np.unique(scores):
        share = float(np.mean((scores >= t) == labels))
        if share > best[0]:
            best = (share, float(t))
    return best


def summarise(reads: dict[str, Ballots], truth: Truth, games: int) -> dict[str, Any]:
    """The report: per model, the rule's agreement, the AUC and the best threshold."""
    clean = np.array(truth.clean, dtype=bool)
    pivotal = np.array(truth.pivotal, dtype=bool)
    report: dict[str, Any] = {
        "games": games,
        "ballots": len(clean),
        "pivotal": int(pivotal.sum()),
        "clean_share": float(clean.mean()) if len(clean) else None,
        "models": {},
    }
    for name, tally in reads.items():
        p = np.array(tally.p_clean)
        rule = np.array(tally.rule, dtype=bool)
        share, threshold = _best_threshold(p, clean)
        pivotal_share, pivotal_threshold = _best_threshold(p[pivotal], clean[pivotal])
        report["models"][name] = {
            "rule": float(np.mean(rule == clean)),
            "pivotal_rule": float(np.mean(rule[pivotal] == clean[pivotal])),
            "rule_ja": float(rule.mean()),
            "auc": _auc(p, clean),
            "best_threshold": share,
            "threshold": threshold,
            "pivotal_best_threshold": pivotal_share,
            "pivotal_threshold": pivotal_threshold,
        }
    return report


def analyse(runs: Sequence[Run], names: Sequence[str], folds: int) -> dict[str, Any]:
    """Cross-fitted reads: fold k's runs read by models fitted on every other fold."""
    per_run = [run.games(names) for run in runs]
    reads = {name: Ballots() for name in ("shipped", "agents")}
    truth = Truth()
    games = 0
    for k in range(folds):
        fit_games = [g for i, run in enumerate(per_run) if i % folds != k for g in run]
        agents = next(m for m in build_models(fit_games, names) if m.name == "agents_sharp")
        models = [Model("shipped"), FittedModel("agents", agents.styles)]
        for i, run in enumerate(per_run):
            if i % folds != k:
                continue
            for record, _ in run:
                decided = pivotal_ballots(record)
                ballots = read_game(record, models, reads)
                voters = _liberal_voters(record)
                for (clean, election), seat in zip(ballots, voters, strict=True):
                    truth.clean.append(clean)
                    truth.pivotal.append(decided.get((election, seat), False))
                games += 1
    return summarise(reads, truth, games)


def _liberal_voters(record: GameRecord) -> list[int]:
    """The seat of every Liberal ballot of `record`, in order."""
    roles = Game(record.players, variant=record.variant, seed=record.seed).roles
    return [a.seat for a in record.actions if isinstance(a, Vote) and roles[a.seat] is Role.LIBERAL]


def render(report: dict[str, Any]) -> str:
    """The report as text."""
    lines = [
        f"{report['ballots']} Liberal ballots in {report['games']} games "
        f"({report['pivotal']} decided their election; {report['clean_share']:.3f} of the "
        "governments were all Liberal):"
    ]
    for name, e in report["models"].items():
        lines.append(
            f"  {name:8s} rule {e['rule']:.3f} (pivotal {e['pivotal_rule']:.3f}, Ja "
            f"{e['rule_ja']:.3f})  auc {e['auc']:.3f}  best threshold {e['best_threshold']:.3f}"
            f" at {e['threshold']:.3f} (pivotal {e['pivotal_best_threshold']:.3f} at "
            f"{e['pivotal_threshold']:.3f})"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    return cross_fitted_main(argv, "ballot_read", __doc__.splitlines()[0], analyse, render)


if __name__ == "__main__":
    sys.exit(main())
