"""How well does each belief read the table? Exact belief vs the 2-player BN vs the prior.

    python bench/belief_bench.py --games 1000 --players 5-10 --seed 1 [--json]
        [--pool belief | --pool random,selfish,belief]

Plays `--games` games with a Belief agent at every seat (or, with `--pool`, an agent
drawn uniformly per seat: play the model was not fitted on; claims included, through
`agents.runner.play_game`; player counts in turn over the range), then replays each
game and scores three predictors from the seat of one Liberal (drawn per game):

- `prior`: the uniform prior given the seat's own role (P(Hitler) = 1/(n-1) and
  P(Fascist team) = (f+1)/(n-1) for every other seat);
- `bayes_net`: `bench/bayes_net.py`'s `BayesNetBelief`, the two-player network baseline;
- `exact`: `agents.belief.Belief`, the exact posterior with the fitted behaviour model.

Scoring points: after every legislative session (policy enacted or agenda vetoed) and
the claims that follow it, i.e. just before the next action that is not a claim; a
session that ends the game is not scored. At each point, over the other seats (dead
ones included: their role stays secret):

- Hitler log-loss: -ln P(true Hitler's seat), the predictor's P(Hitler) normalised over
  the other seats (floored at 1e-12); Hitler accuracy: 1 if the seat with the highest
  P(Hitler) is Hitler (ties: the expected value of a random tie-break).
- Fascist log-loss: the mean over the other seats of the Bernoulli log-loss of
  P(Fascist team, Hitler included) against the truth; Fascist accuracy: with k the
  team's size, the fraction of the k seats with the highest P(Fascist team) that are
  on the team (ties broken at random, in expectation).

Lower log-loss and higher accuracy are better. Figures are means over all scoring
points. The timing lines (observer belief over whole 10-player games, determinization
sampling, agent decisions) are wall-clock on a shared machine: noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the baseline beside this file

from bayes_net import BayesNetBelief

from agents.belief import Belief
from agents.runner import GameResult, play_game
from engine import Action, Claim, Game, Role, Setup
from engine import events as ev

METRICS = ("hitler_logloss", "hitler_accuracy", "fascist_logloss", "fascist_accuracy")
PREDICTORS = ("prior", "bayes_net", "exact")
FLOOR = 1e-12


class Predictor(Protocol):
    """Anything that reads events and gives per-seat (P(L), P(F), P(H))."""

    def update(self, event: ev.Event) -> None: ...

    def marginals(self) -> tuple[tuple[float, float, float], ...]: ...


class UniformPrior:
    """The prior of a seat that knows only its own role (a Liberal's, here)."""

    def __init__(self, setup: Setup, seat: int) -> None:
        n, team = setup.players, setup.fascists + 1
        hitler, fascist = 1.0 / (n - 1), setup.fascists / (n - 1)
        self._marginals = tuple(
            (1.0, 0.0, 0.0) if s == seat else (1.0 - fascist - hitler, fascist, hitler)
            for s in range(n)
        )
        assert abs(sum(f + h for _, f, h in self._marginals) - team) < 1e-9

    def update(self, event: ev.Event) -> None:
        """The prior learns nothing."""

    def marginals(self) -> tuple[tuple[float, float, float], ...]:
        """Per seat (P(Liberal), P(Fascist), P(Hitler))."""
        return self._marginals


def _top_k_hits(scores: np.ndarray, truth: np.ndarray, k: int) -> float:
    """Expected number of true members among the k highest scores (random tie-break)."""
    order = np.sort(scores)[::-1]
    threshold = order[k - 1]
    above = scores > threshold + 1e-12
    tied = np.abs(scores - threshold) <= 1e-12
    slots = k - int(above.sum())
    hits = float(truth[above].sum())
    if tied.sum():
        hits += slots * float(truth[tied].sum()) / float(tied.sum())
    return hits


def score(
    marginals: Sequence[tuple[float, float, float]], roles: Sequence[Role], seat: int
) -> dict[str, float]:
    """The four metrics of one predictor at one scoring point (see the module docstring)."""
    others = [s for s in range(len(roles)) if s != seat]
    hitler = np.array([marginals[s][2] for s in others])
    team = np.array([marginals[s][1] + marginals[s][2] for s in others])
    is_hitler = np.array([roles[s] is Role.HITLER for s in others], dtype=np.float64)
    on_team = np.array([roles[s] is not Role.LIBERAL for s in others], dtype=np.float64)
    hitler = hitler / hitler.sum()
    hitler_ll = -math.log(max(float(hitler @ is_hitler), FLOOR))
    q = np.clip(team, FLOOR, 1.0 - FLOOR)
    fascist_ll = float(-np.mean(on_team * np.log(q) + (1 - on_team) * np.log(1 - q)))
    k = int(on_team.sum())
    return {
        "hitler_logloss": hitler_ll,
        "hitler_accuracy": _top_k_hits(hitler, is_hitler, 1),
        "fascist_logloss": fascist_ll,
        "fascist_accuracy": _top_k_hits(team, on_team, k) / k,
    }


@dataclass
class Totals:
    """Sums of each metric per predictor, and the number of scoring points."""

    sums: dict[str, dict[str, float]] = field(
        default_factory=lambda: {p: dict.fromkeys(METRICS, 0.0) for p in PREDICTORS}
    )
    points: int = 0

    def add(self, scores: dict[str, dict[str, float]]) -> None:
        """One scoring point's metrics for every predictor."""
        for predictor, metrics in scores.items():
            for metric, value in metrics.items():
                self.sums[predictor][metric] += value
        self.points += 1

    def means(self) -> dict[str, dict[str, float]]:
        """Mean of each metric per predictor."""
        n = max(self.points, 1)
        return {p: {m: v / n for m, v in ms.items()} for p, ms in self.sums.items()}


def score_game(result: GameResult, rng: random.Random, totals: Totals) -> None:
    """Replay one game, scoring the three predictors from a random Liberal seat."""
    record = result.record
    game = Game(record.players, variant=record.variant, seed=record.seed)
    seat = rng.choice([s for s, r in enumerate(game.roles) if r is Role.LIBERAL])
    predictors: dict[str, Predictor] = {
        "prior": UniformPrior(game.setup, seat),
        "bayes_net": BayesNetBelief(game.setup, seat),
        "exact": Belief(game.setup, seat),
    }
    for _ in scoring_points(game, record.actions, list(predictors.values())):
        totals.add({name: score(p.marginals(), game.roles, seat) for name, p in predictors.items()})


def scoring_points(
    game: Game, actions: Sequence[Action], predictors: Sequence[Predictor]
) -> Iterator[None]:
    """Play `actions` on a fresh `game`, feeding every event to each predictor; pause
    (yield) at each scoring point: after a legislative session and its claims, just
    before the next action that is not a claim."""
    feed = list(game.events)
    session_over = False
    for action in actions:
        for event in feed:
            for predictor in predictors:
                predictor.update(event)
        if session_over and not isinstance(action, Claim):
            yield
            session_over = False
        feed = game.apply(action)
        session_over |= any(_ends_session(e) for e in feed)


def _ends_session(event: ev.Event) -> bool:
    """A legislative session is over: a policy enacted by a government, or a veto."""
    if isinstance(event, ev.PolicyEnacted):
        return not event.chaos
    return isinstance(event, ev.VetoReplied) and event.agreed


def timing(results: Sequence[GameResult]) -> dict[str, float]:
    """Wall-clock figures: observer belief per 10-player game, sampling, agent decisions."""
    per_game = []
    for result in results:
        if result.players != 10:
            continue
        record = result.record
        game = record.replay()
        public = [e for e in game.events if e.visible_to(None) and not isinstance(e, ev.GameEnded)]
        start = time.perf_counter()
        belief = Belief(game.setup, None)
        belief.update_all(public)
        belief.marginals()
        per_game.append(time.perf_counter() - start)
        if len(per_game) >= 30:
            break
    out: dict[str, float] = {}
    if per_game:
        out["observer_ms_per_10p_game"] = 1000 * statistics.median(per_game)
        game = results[0].record.replay()
        belief = Belief(game.setup, 0)
        belief.update_all(game.events[: len(game.events) // 2])
        start = time.perf_counter()
        sampler = belief.sampler()
        built = time.perf_counter() - start
        sample_rng = random.Random(0)
        start = time.perf_counter()
        sampler.sample_many(10000, sample_rng)
        out["sampler_build_ms"] = 1000 * built
        out["samples_per_s"] = 10000 / (time.perf_counter() - start)
    decisions = sum(t.decisions + t.claim_offers for r in results for t in r.timings)
    seconds = sum(t.seconds for r in results for t in r.timings)
    out["agent_ms_per_decision"] = 1000 * seconds / max(decisions, 1)
    out["agent_max_ms_per_decision"] = 1000 * max(t.max_seconds for r in results for t in r.timings)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: play, score, print the table (or one JSON line)."""
    parser = argparse.ArgumentParser(description="Score the exact belief against baselines.")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", default="5-10", help="a count or a range, e.g. 5-10")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pool",
        default="belief",
        help="agents the seats are drawn from, uniformly (e.g. random,selfish,belief)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args(argv)
    pool = [p.strip() for p in args.pool.split(",") if p.strip()]
    low, _, high = args.players.partition("-")
    counts = list(range(int(low), int(high or low) + 1))
    if args.games < 1 or not all(5 <= n <= 10 for n in counts):
        parser.error("--games must be positive and players within 5-10")

    rng = random.Random(f"belief-bench:{args.seed}")
    totals = Totals()
    by_players = {n: Totals() for n in counts}
    results: list[GameResult] = []
    start = time.perf_counter()
    for index in range(args.games):
        n = counts[index % len(counts)]
        seats = [rng.choice(pool) for _ in range(n)] if len(pool) > 1 else pool * n
        result = play_game(seats, seed=rng.getrandbits(62))
        results.append(result)
        game_totals = Totals()
        score_game(result, rng, game_totals)
        for target in (totals, by_players[n]):
            for predictor, metrics in game_totals.sums.items():
                for metric, value in metrics.items():
                    target.sums[predictor][metric] += value
            target.points += game_totals.points
    elapsed = time.perf_counter() - start
    means = totals.means()
    figures = timing(results)
    better = all(
        means["exact"][m] < min(means["prior"][m], means["bayes_net"][m])
        if m.endswith("logloss")
        else means["exact"][m] > max(means["prior"][m], means["bayes_net"][m])
        for m in METRICS
    )
    if args.json:
        print(
            json.dumps(
                {
                    "games": args.games,
                    "players": args.players,
                    "pool": pool,
                    "seed": args.seed,
                    "points": totals.points,
                    "means": means,
                    "by_players": {str(n): t.means() for n, t in by_players.items()},
                    "exact_strictly_better": better,
                    "seconds": round(elapsed, 1),
                    "timing": figures,
                }
            )
        )
        return
    print(
        f"{args.games} games, {args.players} players, pool {','.join(pool)}, seed {args.seed}: "
        f"{totals.points} scoring points (after each session's claims), {elapsed:.0f}s"
    )
    header = f"{'predictor':<10}" + "".join(f"{m:>18}" for m in METRICS)
    print(header)
    for predictor in PREDICTORS:
        print(f"{predictor:<10}" + "".join(f"{means[predictor][m]:>18.4f}" for m in METRICS))
    print("exact strictly better than both on every metric:", "yes" if better else "NO")
    print("by player count (exact vs bayes_net, Hitler / Fascist log-loss):")
    for n, t in by_players.items():
        m = t.means()
        cells = "   ".join(
            f"{p} {m[p]['hitler_logloss']:.3f} / {m[p]['fascist_logloss']:.3f}"
            for p in ("exact", "bayes_net", "prior")
        )
        print(f"  {n:>2}p {t.points:>6} points  {cells}")
    print("timing (wall clock, 2 shared cores: noisy):")
    for name, value in figures.items():
        print(f"  {name:<28} {value:,.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
