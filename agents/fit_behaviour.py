"""Fit the behaviour model to simulated play: `python -m agents.fit_behaviour`.

Plays games between the project's agents (by default Belief agents at every seat,
claims included, through `agents.runner.play_game`), replays each game record with
full knowledge of the roles and the tiles, and counts what each role actually did:
how often a Fascist president holding L+F+F discarded the Liberal, how often a
Fascist voted Ja for a government holding a Fascist, which claims each role made from
each hand, whom each role nominated, investigated or executed. The counts become the
tables of `agents.behaviour.Behaviour`, one per player count, shrunk towards the fit
pooled over all counts (itself shrunk towards the hand-set defaults) where data is
thin, and are written to `agents/behaviour_fitted.json`.

Belief agents read the table with the model being fitted, so play depends on the
model: round 1 plays with the model installed now (`agents/behaviour_fitted.json`, else
the defaults), each later round with the previous round's fit, and the file written is
the last round's fit. Repeat rounds until play and model agree (`--rounds 2` default).
The shipped file's command (one round of a mix of every project agent) is in
bench/results/README.md.

    python -m agents.fit_behaviour --games 3000 --seed 1
    python -m agents.fit_behaviour --games 600 --mix belief=8,selfish=1,random=1
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import (
    CallSpecialElection,
    ChancellorClaim,
    Discard,
    Enact,
    Execute,
    Game,
    GameRecord,
    Investigate,
    InvestigationClaim,
    Nominate,
    Party,
    PeekClaim,
    Policy,
    PresidentClaim,
    ProposeVeto,
    VetoReply,
    Vote,
)
from engine import events as ev
from engine.fastsim import LIBERAL_ROLE, ROLE_CODE

from .behaviour import (
    CHANCELLOR_POS,
    CHANCELLOR_SILENT,
    CLAIM_FASCIST,
    CLAIM_LIBERAL,
    ENACTED_FASCIST,
    ENACTED_LIBERAL,
    EXECUTION_POWER,
    FITTED_PATH,
    INVESTIGATE_POWER,
    INVESTIGATION_SILENT,
    OTHER_POS,
    PEEK_SILENT,
    PRESIDENT_CLAIM_INDEX,
    PRESIDENT_POS,
    PRESIDENT_SILENT,
    SHAPES,
    SPECIAL_ELECTION_POWER,
    VETOED,
    Behaviour,
    blind_roles,
    clamp_probabilities,
    default_behaviour,
    make_blind,
    normalise_claims,
    pool_blind,
    save_behaviour,
    use_behaviours,
)
from .registry import AgentSpec
from .runner import play_game

POOLED_STRENGTH = 2.0  # pseudo-observations of the defaults behind the pooled fit
COUNT_STRENGTH = 10.0  # pseudo-observations of the pooled fit behind each player count
_PROBABILITY_TABLES = ("vote_ja", "discard_liberal", "enact_fascist", "veto_propose", "veto_agree")
_CLAIM_TABLES = ("president_claim", "chancellor_claim", "peek_claim", "investigation_claim")
_POWER_INDEX = {
    Investigate: INVESTIGATE_POWER,
    CallSpecialElection: SPECIAL_ELECTION_POWER,
    Execute: EXECUTION_POWER,
}

# A choice among options: (chosen role, number of options of each role) -> times seen.
ChoiceCounts = dict[tuple[int, tuple[int, int, int]], int]


def _liberals(tiles: Sequence[Policy]) -> int:
    return sum(1 for t in tiles if t is Policy.LIBERAL)


@dataclass
class Counts:
    """What the players of some games did, counted per behaviour-table cell."""

    hits: dict[str, np.ndarray] = field(
        default_factory=lambda: {n: np.zeros(SHAPES[n]) for n in _PROBABILITY_TABLES}
    )
    trials: dict[str, np.ndarray] = field(
        default_factory=lambda: {n: np.zeros(SHAPES[n]) for n in _PROBABILITY_TABLES}
    )
    claims: dict[str, np.ndarray] = field(
        default_factory=lambda: {n: np.zeros(SHAPES[n]) for n in _CLAIM_TABLES}
    )
    nominations: dict[tuple[int, int], ChoiceCounts] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    targets: dict[tuple[int, int], ChoiceCounts] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    games: int = 0

    def add(self, other: Counts) -> None:
        """Accumulate another set of counts into this one."""
        for name in _PROBABILITY_TABLES:
            self.hits[name] += other.hits[name]
            self.trials[name] += other.trials[name]
        for name in _CLAIM_TABLES:
            self.claims[name] += other.claims[name]
        for mine, theirs in ((self.nominations, other.nominations), (self.targets, other.targets)):
            for key, choices in theirs.items():
                for choice, times in choices.items():
                    mine[key][choice] += times
        self.games += other.games

    def trial(self, table: str, index: tuple[int, ...], hit: bool) -> None:
        """One chance to take the action a probability table describes."""
        self.trials[table][index] += 1
        self.hits[table][index] += hit


@dataclass
class _Window:
    """The last session's open claim windows, with the truth they are about."""

    president: int
    chancellor: int
    drew: int
    passed: int
    enacted: int
    president_open: bool = True
    chancellor_open: bool = True


def count_game(record: GameRecord, counts: Counts, seats: Collection[int] | None = None) -> None:
    """Replay one game with full knowledge and count every decision into `counts`;
    with `seats`, only the decisions those seats made (one agent's seats of a mix)."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    role = [ROLE_CODE[r] for r in game.roles]
    counted = set(range(record.players) if seats is None else seats)
    window: _Window | None = None
    drew = passed = 0
    peek: tuple[int, int] | None = None  # (peeker, Liberal tiles seen)
    investigation: tuple[int, int] | None = None  # (president, target)
    for action in record.actions:
        zone = int(game.fascist_policies >= 3)
        president, chancellor = game.president, game.chancellor
        match action:
            case Nominate() if president in counted:
                options = game.eligible_chancellors()
                _choice(
                    counts.nominations[(role[president], zone)], role, action.chancellor, options
                )
            case Vote() if action.seat in counted:
                assert chancellor is not None
                seat = action.seat
                pos = (
                    PRESIDENT_POS
                    if seat == president
                    else CHANCELLOR_POS
                    if seat == chancellor
                    else OTHER_POS
                )
                cell: tuple[int, ...] = (role[seat], pos, role[president], role[chancellor], zone)
                counts.trial("vote_ja", cell, action.ja)
            case Discard():
                drew = _liberals(game.hand)
                passed = drew - (action.policy is Policy.LIBERAL)
                assert chancellor is not None
                if president in counted:
                    cell = (role[president], role[chancellor], drew, zone)
                    counts.trial("discard_liberal", cell, drew > passed)
            case Enact() | ProposeVeto() if chancellor in counted:
                assert chancellor is not None
                held = _liberals(game.hand)
                if game.veto_unlocked and not game.veto_refused:
                    counts.trial(
                        "veto_propose", (role[chancellor], held), isinstance(action, ProposeVeto)
                    )
                if isinstance(action, Enact) and held == 1:
                    cell = (role[chancellor], role[president], zone)
                    counts.trial("enact_fascist", cell, action.policy is Policy.FASCIST)
            case VetoReply() if president in counted:
                counts.trial("veto_agree", (role[president], _liberals(game.hand)), action.agree)
            case Investigate() | CallSpecialElection() | Execute() if president in counted:
                power = _POWER_INDEX[type(action)]
                options = game.power_targets()
                _choice(counts.targets[(power, role[president])], role, action.target, options)
            case PresidentClaim() if window is not None:
                outcome = PRESIDENT_CLAIM_INDEX[(_liberals(action.drew), _liberals(action.passed))]
                cell = (role[window.president], role[window.chancellor], window.drew)
                counts.claims["president_claim"][
                    (*cell, window.passed, window.enacted, outcome)
                ] += window.president in counted
                window.president_open = False
            case ChancellorClaim() if window is not None:
                cell = (role[window.chancellor], role[window.president], window.passed)
                counts.claims["chancellor_claim"][
                    (*cell, window.enacted, _liberals(action.received))
                ] += window.chancellor in counted
                window.chancellor_open = False
            case PeekClaim() if peek is not None:
                outcome = _liberals(action.tiles)
                counts.claims["peek_claim"][role[peek[0]], peek[1], outcome] += peek[0] in counted
                peek = None
            case InvestigationClaim() if investigation is not None:
                outcome = CLAIM_FASCIST if action.party is Party.FASCIST else CLAIM_LIBERAL
                cell = (role[investigation[0]], role[investigation[1]], outcome)
                counts.claims["investigation_claim"][cell] += investigation[0] in counted
                investigation = None
        events = game.apply(action)
        for event in events:
            match event:
                case ev.PoliciesDrawn():  # the next session draws: open windows close silent
                    if window is not None:
                        _silences(counts, game, role, window, counted)
                    if peek is not None and game.alive[peek[0]] and peek[0] in counted:
                        counts.claims["peek_claim"][role[peek[0]], peek[1], PEEK_SILENT] += 1
                    if (
                        investigation is not None
                        and game.alive[investigation[0]]
                        and investigation[0] in counted
                    ):
                        cell = (role[investigation[0]], role[investigation[1]])
                        counts.claims["investigation_claim"][(*cell, INVESTIGATION_SILENT)] += 1
                    window = peek = investigation = None
                case ev.PolicyEnacted(chaos=False, policy=policy):
                    assert chancellor is not None
                    enacted = ENACTED_LIBERAL if policy is Policy.LIBERAL else ENACTED_FASCIST
                    window = _Window(president, chancellor, drew, passed, enacted)
                case ev.VetoReplied(agreed=True):
                    assert chancellor is not None
                    window = _Window(president, chancellor, drew, passed, VETOED)
                case ev.PolicyPeeked(seat=seat, tiles=tiles):
                    peek = (seat, _liberals(tiles))
                case ev.PlayerInvestigated(president=who, target=target):
                    investigation = (who, target)
    counts.games += 1


def _silences(
    counts: Counts, game: Game, role: list[int], window: _Window, counted: Collection[int]
) -> None:
    pres, chanc = role[window.president], role[window.chancellor]
    cell: tuple[int, ...]
    if window.president_open and game.alive[window.president] and window.president in counted:
        cell = (pres, chanc, window.drew, window.passed, window.enacted, PRESIDENT_SILENT)
        counts.claims["president_claim"][cell] += 1
    if window.chancellor_open and game.alive[window.chancellor] and window.chancellor in counted:
        cell = (chanc, pres, window.passed, window.enacted, CHANCELLOR_SILENT)
        counts.claims["chancellor_claim"][cell] += 1


def _choice(table: ChoiceCounts, role: list[int], chosen: int, options: Sequence[int]) -> None:
    available = [0, 0, 0]
    for s in options:
        available[role[s]] += 1
    table[(role[chosen], (available[0], available[1], available[2]))] += 1


# --- estimation -------------------------------------------------------------------------


def luce_weights(choices: ChoiceCounts, prior: np.ndarray, strength: float) -> np.ndarray:
    """Choice weights per role (Liberal = 1) by the MM algorithm for Luce's choice model.

    `strength` pseudo-choices among one option of each role, split as the `prior`
    weights would, keep roles that were rarely available near their prior.
    """
    prior = np.maximum(np.asarray(prior, dtype=np.float64), 1e-6)
    chosen = strength * prior / prior.sum()
    groups: list[tuple[int, np.ndarray]] = []
    for (role, offered), times in choices.items():
        chosen[role] += times
        groups.append((times, np.array(offered, dtype=np.float64)))
    weights: np.ndarray = prior / prior[0]
    for _ in range(300):
        denominator = strength * np.ones(3) / weights.sum()
        for times, available in groups:
            denominator += times * available / float(available @ weights)
        updated = chosen / denominator
        updated /= updated[0]
        if np.allclose(updated, weights, rtol=1e-9, atol=1e-12):
            weights = updated
            break
        weights = updated
    return weights


def estimate(
    counts: Counts, prior: Behaviour, strength: float, blind: tuple[int, ...] = (LIBERAL_ROLE,)
) -> Behaviour:
    """Tables from counts, each cell shrunk towards `prior` by `strength` observations.

    The rows of `blind` roles (see `agents.behaviour.blind_roles`) are fitted from their
    counts pooled over the other seats' roles, and their choice weights are all 1.
    """
    tables: dict[str, np.ndarray] = {}
    for name in _PROBABILITY_TABLES:
        base = pool_blind(name, getattr(prior, name), blind, mean=True)
        hits = pool_blind(name, counts.hits[name], blind, mean=False)
        trials = pool_blind(name, counts.trials[name], blind, mean=False)
        tables[name] = (hits + strength * base) / (trials + strength)
    for name in _CLAIM_TABLES:
        base = pool_blind(name, getattr(prior, name), blind, mean=True)
        seen = pool_blind(name, counts.claims[name], blind, mean=False)
        tables[name] = seen + strength * base / np.maximum(base.sum(axis=-1, keepdims=True), 1e-12)
    nominate = np.array(prior.nominate_weight, dtype=np.float64)
    for pres in range(3):
        for zone in range(2):
            observed = counts.nominations.get((pres, zone), {})
            nominate[pres, :, zone] = luce_weights(observed, nominate[pres, :, zone], strength)
    target = np.array(prior.target_weight, dtype=np.float64)
    for power in range(3):
        for pres in range(3):
            observed = counts.targets.get((power, pres), {})
            target[power, pres] = luce_weights(observed, target[power, pres], strength)
    tables["nominate_weight"], tables["target_weight"] = nominate, target
    make_blind(tables, blind)
    clamp_probabilities(tables)
    normalise_claims(tables)
    return Behaviour(**tables)


def fit(by_players: dict[int, Counts]) -> tuple[dict[int, Behaviour], Behaviour]:
    """The per-count fits and the pooled fit they are shrunk towards."""
    pooled_counts = Counts()
    for counts in by_players.values():
        pooled_counts.add(counts)
    pooled = estimate(pooled_counts, default_behaviour(), POOLED_STRENGTH)
    fitted = {n: estimate(c, pooled, COUNT_STRENGTH, blind_roles(n)) for n, c in by_players.items()}
    return fitted, pooled


# --- simulation -------------------------------------------------------------------------


def parse_mix(text: str) -> list[tuple[str, float]]:
    """Read "belief" or "belief=8,selfish=1,random=1" (agent spec = relative weight).

    A spec may carry a budget: "ismcts:iterations=200=2" is ismcts at 200 iterations
    with weight 2; "ismcts:iterations=200" alone has weight 1. Items are separated by
    ";" when a spec has several options ("ismcts:iterations=200,seconds=1=2;random").
    """
    mix = []
    separator = ";" if ";" in text else ","
    for item in filter(None, (i.strip() for i in text.split(separator))):
        spec, _, weight = item.rpartition("=")
        try:
            AgentSpec.parse(spec)
            mix.append((spec, float(weight)))
        except ValueError:
            AgentSpec.parse(item)  # a bad spec raises here, with its reason
            mix.append((item, 1.0))
    if not mix or any(w <= 0 for _, w in mix):
        raise ValueError(f"Bad agent mix {text!r}.")
    return mix


def play_round(
    games: int, seed: int, players: Sequence[int], mix: Sequence[tuple[str, float]]
) -> dict[int, Counts]:
    """Play `games` games (player counts in turn, seats drawn from `mix`) and count them."""
    rng = random.Random(f"fit:{seed}")
    specs, weights = [s for s, _ in mix], [w for _, w in mix]
    by_players: dict[int, Counts] = {n: Counts() for n in players}
    for index in range(games):
        n = players[index % len(players)]
        seats = rng.choices(specs, weights, k=n)
        result = play_game(seats, seed=rng.getrandbits(62))
        count_game(result.record, by_players[n])
    return by_players


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: play, count, fit, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="games per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--players", default="5-10", help="a count or a range, e.g. 5-10")
    parser.add_argument("--mix", default="belief", help='e.g. "belief=8,selfish=1,random=1"')
    parser.add_argument("--out", type=Path, default=FITTED_PATH)
    args = parser.parse_args(argv)
    low, _, high = args.players.partition("-")
    players = list(range(int(low), int(high or low) + 1))
    mix = parse_mix(args.mix)
    if any(AgentSpec.parse(spec).name == "humanlike" for spec, _ in mix):
        # The scripted human-style players are the belief's test of play it was never
        # fitted on (bench/belief_bench.py --test-on humanlike): never fit on them.
        parser.error("humanlike seats are for testing the belief, not for fitting it")
    fitted: dict[int, Behaviour] = {}
    pooled = default_behaviour()
    started_from = "installed fit" if FITTED_PATH.exists() else "defaults"
    for round_index in range(args.rounds):
        start = time.perf_counter()
        if round_index:
            use_behaviours(fitted)  # the next round plays with the model just fitted
        by_players = play_round(args.games, args.seed + 1000 * round_index, players, mix)
        fitted, pooled = fit(by_players)
        print(
            f"round {round_index + 1}: {args.games} games in {time.perf_counter() - start:.0f}s",
            file=sys.stderr,
        )
    use_behaviours(None)
    meta = {
        "version": 1,
        "started_from": started_from,
        "games_per_round": args.games,
        "rounds": args.rounds,
        "seed": args.seed,
        "mix": args.mix,
        "players": args.players,
    }
    save_behaviour(fitted, pooled, meta, args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
