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

Transfer (`--fit-on A --test-on B`): does a behaviour model fitted on one population
of players read another? Populations: `bots` (belief and belief-ismcts seats),
`random`, `selfish`, `ismcts` (SO-ISMCTS), `humanlike` (agents.humanlike, never used
for the shipped fit), `mixed` (a seat drawn from all of them); the search agents play
at `--iterations`. The behaviour model is fitted (`agents.fit_behaviour`, one round)
on `--fit-games` games of A, then three predictors read `--games` games of B (other
seeds) from one Liberal seat per game:

- `uniform`: every assignment the seat's own role allows, equally likely;
- `fitted`: the exact belief with the fit of A as its only style (the model of old);
- `robust`: the exact belief with the style mixture around the fit of A
  (`agents.behaviour.robust_styles`: bot-like, human, chaotic, noise; per-seat styles).

Per predictor: `log_p_truth`, the mean over scoring points of ln P(true assignment);
`hitler_logloss` as above; `ece`, the expected calibration error of P(Fascist team) over
every other seat at every scoring point (10 equal-width bins); `truth_zero` and
`truth_below_1e-4`, the games whose truth ends (after the last action) with
probability exactly 0, or below 1e-4. A pair passes when `robust` beats `uniform` on
`log_p_truth` and has no zero. A, B may be comma lists or `all`: every pair is run, and
`--out` writes the table as JSON.

    python bench/belief_bench.py --fit-on bots --test-on humanlike --json
    python bench/belief_bench.py --fit-on all --test-on all --games 100 --fit-games 150 \
        --iterations 50 --out bench/results/belief_transfer.json
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

from agents.behaviour import Behaviour, Styles, robust_styles
from agents.belief import Belief, every_deal
from agents.fit_behaviour import Counts, count_game, fit
from agents.runner import GameResult, play_game
from engine import Action, Claim, Game, GameRecord, Role, Setup
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


# --- transfer: fit on one population, read another ---------------------------------------

POPULATIONS = ("bots", "random", "selfish", "ismcts", "humanlike", "mixed")
TRANSFER_PREDICTORS = ("uniform", "fitted", "robust")
TRANSFER_METRICS = ("log_p_truth", "hitler_logloss", "ece")
BINS = 10


def population(name: str, iterations: int) -> list[str]:
    """The agent specs a population's seats are drawn from (uniformly)."""
    search = f"iterations={iterations}"
    specs = {
        "bots": ["belief", f"belief-ismcts:{search}"],
        "random": ["random"],
        "selfish": ["selfish"],
        "ismcts": [f"ismcts:{search}"],
        "humanlike": ["humanlike"],
    }
    if name == "mixed":
        return [spec for group in specs.values() for spec in group]
    if name not in specs:
        raise ValueError(f"unknown population {name!r}; choose from {', '.join(POPULATIONS)}")
    return specs[name]


def play_population(
    name: str, games: int, seed: int, iterations: int, cache_dir: Path | None = None
) -> list[GameRecord]:
    """`games` games of a population (player counts 5-10 in turn), from (name, seed).

    With `cache_dir`, the records are kept there as JSON, so that several runs (each
    under the machine's time limit) score the same games.
    """
    cached = None
    if cache_dir is not None:
        cached = cache_dir / f"{name}_g{games}_s{seed}_i{iterations}.json"
        if cached.exists():
            return [GameRecord.from_dict(r) for r in json.loads(cached.read_text())]
    specs = population(name, iterations)
    rng = random.Random(f"belief-transfer:{name}:{seed}")
    records = []
    for index in range(games):
        seats = [rng.choice(specs) for _ in range(5 + index % 6)]
        records.append(play_game(seats, seed=rng.getrandbits(62)).record)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps([r.to_dict() for r in records]))
    return records


def fit_population(records: Sequence[GameRecord]) -> dict[int, Behaviour]:
    """The behaviour fit (per player count) of these games, as the fitting script does."""
    by_players: dict[int, Counts] = {n: Counts() for n in range(5, 11)}
    for record in records:
        count_game(record, by_players[record.players])
    fitted, _ = fit(by_players)
    return fitted


@dataclass
class TransferTotals:
    """Sums per predictor over scoring points, calibration pairs and end-of-game counts."""

    sums: dict[str, dict[str, float]] = field(
        default_factory=lambda: {
            p: dict.fromkeys(("log_p_truth", "hitler_logloss"), 0.0) for p in TRANSFER_PREDICTORS
        }
    )
    calibration: dict[str, list[tuple[float, float]]] = field(
        default_factory=lambda: {p: [] for p in TRANSFER_PREDICTORS}
    )
    zeros: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TRANSFER_PREDICTORS, 0))
    tiny: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TRANSFER_PREDICTORS, 0))
    points: int = 0
    games: int = 0

    def means(self) -> dict[str, dict[str, float]]:
        """Mean of each metric per predictor, with the calibration error."""
        n = max(self.points, 1)
        return {
            p: {
                **{m: v / n for m, v in self.sums[p].items()},
                "ece": expected_calibration_error(self.calibration[p]),
                "truth_zero": float(self.zeros[p]),
                "truth_below_1e-4": float(self.tiny[p]),
            }
            for p in TRANSFER_PREDICTORS
        }


def expected_calibration_error(pairs: Sequence[tuple[float, float]]) -> float:
    """Mean |confidence - frequency| over `BINS` equal-width bins, weighted by their size."""
    if not pairs:
        return 0.0
    data = np.array(pairs)
    bins = np.minimum((data[:, 0] * BINS).astype(int), BINS - 1)
    error = 0.0
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            error += float(inside.sum()) * abs(data[inside, 0].mean() - data[inside, 1].mean())
    return error / len(data)


def score_transfer(
    record: GameRecord,
    styles: Styles,
    single: Behaviour,
    rng: random.Random,
    totals: TransferTotals,
) -> None:
    """Replay one game from a random Liberal seat, scoring the three predictors."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    roles = game.roles
    seat = rng.choice([s for s, r in enumerate(roles) if r is Role.LIBERAL])
    deals = every_deal(game.setup.players, game.setup.fascists)
    uniform_log = -math.log(int((deals[:, seat] == 0).sum()))
    beliefs = {
        "fitted": Belief(game.setup, seat, single),
        "robust": Belief(game.setup, seat, styles),
    }
    prior = UniformPrior(game.setup, seat)
    others = [s for s in range(len(roles)) if s != seat]
    on_team = [float(roles[s] is not Role.LIBERAL) for s in others]

    def point() -> None:
        totals.points += 1
        for name in TRANSFER_PREDICTORS:
            belief = beliefs.get(name)
            marginals = prior.marginals() if belief is None else belief.marginals()
            truth = uniform_log if belief is None else _log(belief.joint_probability(roles))
            totals.sums[name]["log_p_truth"] += truth
            totals.sums[name]["hitler_logloss"] += score(marginals, roles, seat)["hitler_logloss"]
            team = [marginals[s][1] + marginals[s][2] for s in others]
            totals.calibration[name].extend(zip(team, on_team, strict=True))

    for _ in scoring_points(game, record.actions, list(beliefs.values())):
        point()
    # The end: every event but the reveal, then how likely the truth is.
    visible = [e for e in game.events if e.visible_to(seat) and not isinstance(e, ev.GameEnded)]
    final = {"uniform": math.exp(uniform_log)}
    for name, belief in beliefs.items():
        belief.update_all(visible[belief.events_seen :])
        final[name] = belief.joint_probability(roles)
    totals.games += 1
    for name, probability in final.items():
        totals.zeros[name] += probability == 0.0
        totals.tiny[name] += probability < 1e-4


def _log(probability: float) -> float:
    return math.log(max(probability, 1e-300))


def transfer(
    fit_on: str,
    test_on: str,
    games: int,
    fit_games: int,
    seed: int,
    iterations: int,
    cache: dict[tuple[str, int, int], list[GameRecord]] | None = None,
    cache_dir: Path | None = None,
) -> dict[str, object]:
    """One pair of the transfer table, as the JSON object the bench prints."""
    cache = {} if cache is None else cache
    start = time.perf_counter()

    def records(name: str, count: int, which: int) -> list[GameRecord]:
        key = (name, count, which)
        if key not in cache:
            cache[key] = play_population(name, count, which, iterations, cache_dir)
        return cache[key]

    fitted = fit_population(records(fit_on, fit_games, seed))
    totals = TransferTotals()
    rng = random.Random(f"belief-transfer-score:{seed}:{fit_on}:{test_on}")
    for record in records(test_on, games, seed + 1):  # other seeds than the fit's
        n = record.players
        score_transfer(record, robust_styles(fitted[n], n), fitted[n], rng, totals)
    means = totals.means()
    return {
        "fit_on": fit_on,
        "test_on": test_on,
        "games": games,
        "fit_games": fit_games,
        "seed": seed,
        "iterations": iterations,
        "points": totals.points,
        "means": means,
        "robust_beats_uniform": means["robust"]["log_p_truth"] > means["uniform"]["log_p_truth"],
        "robust_no_zero": means["robust"]["truth_zero"] == 0,
        "seconds": round(time.perf_counter() - start, 1),
    }


def transfer_main(args: argparse.Namespace) -> None:
    """Every (fit-on, test-on) pair asked for: print figures or JSON, maybe write --out."""

    def names(text: str) -> list[str]:
        chosen = list(POPULATIONS) if text == "all" else [t.strip() for t in text.split(",")]
        for name in chosen:
            population(name, args.iterations)  # raises on an unknown name
        return chosen

    cache: dict[tuple[str, int, int], list[GameRecord]] = {}
    rows = []
    for fit_on in names(args.fit_on):
        for test_on in names(args.test_on):
            row = transfer(
                fit_on,
                test_on,
                args.games,
                args.fit_games,
                args.seed,
                args.iterations,
                cache,
                Path(args.cache) if args.cache else None,
            )
            rows.append(row)
            if not args.json:
                m = row["means"]
                assert isinstance(m, dict)
                print(
                    f"fit {fit_on:<9} test {test_on:<9} "
                    + "  ".join(
                        f"{p} lnP {m[p]['log_p_truth']:7.2f} H {m[p]['hitler_logloss']:.3f} "
                        f"ece {m[p]['ece']:.3f} 0:{m[p]['truth_zero']:.0f} "
                        f"<1e-4:{m[p]['truth_below_1e-4']:.0f}"
                        for p in TRANSFER_PREDICTORS
                    )
                    + f"  ({row['seconds']}s)",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows[0] if len(rows) == 1 else rows))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")


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
    parser.add_argument("--fit-on", help="transfer: fit on this population (or a list, all)")
    parser.add_argument("--test-on", help="transfer: read this population (or a list, all)")
    parser.add_argument("--fit-games", type=int, default=300, help="transfer: games to fit on")
    parser.add_argument(
        "--iterations", type=int, default=100, help="transfer: search agents' iterations"
    )
    parser.add_argument("--out", help="transfer: write every pair's JSON here")
    parser.add_argument(
        "--cache", help="transfer: keep the games here (JSON), to split a table over runs"
    )
    args = parser.parse_args(argv)
    if args.fit_on or args.test_on:
        if not (args.fit_on and args.test_on):
            parser.error("--fit-on and --test-on go together")
        transfer_main(args)
        return
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
