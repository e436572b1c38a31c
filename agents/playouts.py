"""Opponent-model playouts: cheap, role-aware players on the fast simulator.

Belief-ISMCTS finishes each iteration's game with these players instead of uniformly
random ones, so a leaf's value reflects how a table of sensible players would go on.
Every simulated seat acts on its own role in the determinization (a Fascist knows its
team; Hitler knows it only with 5 or 6 players) and on the *public* suspicion the table
had when the search began (`TableModel`, from the public Bayesian belief). The model is
fixed for one decision: nothing is re-estimated inside a playout, which keeps a
playout at a few tens of microseconds.

- President's discard and chancellor's enactment: Selfish (keep your party's tiles).
  A Liberal chancellor holding two Fascist tiles proposes a veto when it may; a
  Fascist chancellor holding two Liberal tiles does the same. A president agrees to a
  veto that blocks the other party's policy.
- Votes: a candidate backs their own government. A seat that knows its team backs
  governments holding a teammate, and always a Hitler chancellor in the Hitler zone;
  other governments get a coin weighted by `FASCIST_JA_OTHERWISE`. Liberals (and Hitler
  when blind) vote by how suspicious the government looks to the table, laxer when the
  election tracker is at 2 (chaos threatens); in the Hitler zone they shun chancellors
  the table thinks may be Hitler.
- Nominations: a Fascist president nominates Hitler in the Hitler zone, otherwise a
  teammate half the time; everyone else picks by public trust.
- Wild seats: with `TableModel.wild` > 0, that share of the seats (drawn once per
  game, never the searcher) votes and picks nominees and targets at random, as
  careless players do; their tiles stay Selfish.
- Powers: Fascists execute Liberals and call special elections on teammates; Liberals
  execute the seats the table suspects most and call special elections on the seats it
  trusts most. Investigations have no effect inside a playout: uniform.

Moves go through `FastGame.step` and the ballot box (`votes` + `count_votes`), the
step API tests/engine/test_fastsim_step.py checks against the clean engine move by
move, so a playout is always a legal game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import Action, Vote, WinReason
from engine.fastsim import (
    DISCARD,
    ENACT,
    EXECUTE,
    FASCIST_ROLE,
    HITLER_ROLE,
    LIBERAL_ROLE,
    NOMINATE,
    SPECIAL_ELECTION,
    VETO,
    VETO_REPLY,
    VOTE,
    FastGame,
)
from engine.variants import HITLER_ZONE, VETO_AT

FASCIST_TO_MATE = 0.5  # a Fascist president nominates a teammate this often (outside the zone)
FASCIST_JA_OTHERWISE = 0.4  # a Fascist's Ja for a government with no teammate
TEAM_JA = 0.95  # a Fascist's Ja for a government holding a teammate
CANDIDATE_JA = 0.97  # a candidate backs their own government
LAX_JA = 0.75  # a Liberal's least Ja when the tracker is at 2


@dataclass(frozen=True, slots=True)
class TableModel:
    """What the table publicly believes, per seat: P(Fascist party) and P(Hitler).

    `uniform(players, fascists)` is the prior (nothing seen yet). `liberal_ja[zone]` is
    the precomputed chance that a Liberal backs government (president, chancellor),
    flattened as president * players + chancellor; `trust` and `suspect` weight
    nominations / special elections and executions.
    """

    players: int
    suspicion: tuple[float, ...]
    hitler: tuple[float, ...]
    liberal_ja: tuple[tuple[float, ...], tuple[float, ...]]
    trust: tuple[tuple[float, ...], tuple[float, ...]]  # [zone][seat] nomination weight
    suspect: tuple[float, ...]  # execution weight
    wild: float = 0.0  # the share of other seats that vote and pick targets at random

    @classmethod
    def build(
        cls,
        suspicion: Sequence[float],
        hitler: Sequence[float],
        wild: float = 0.0,
    ) -> TableModel:
        """The model from public P(Fascist party) and P(Hitler) per seat."""
        n = len(suspicion)
        base = sum(suspicion) / n  # the Fascist team's share of the table
        typical = 1.0 - (1.0 - base) ** 2  # P(a random pair holds a Fascist)
        ja: list[list[float]] = [[], []]
        for zone in (0, 1):
            for p in range(n):
                for c in range(n):
                    risk = 1.0 - (1.0 - suspicion[p]) * (1.0 - suspicion[c])
                    chance = 0.5 + 2.0 * (typical - risk)
                    if zone:
                        chance -= 3.0 * hitler[c]
                    ja[zone].append(min(0.95, max(0.05, chance)))
        trust = (
            tuple((1.0 - s) ** 2 + 1e-3 for s in suspicion),
            tuple(
                (1.0 - s) ** 2 * (1.0 - h) ** 4 + 1e-3
                for s, h in zip(suspicion, hitler, strict=True)
            ),
        )
        suspect = tuple(h + 0.5 * s + 1e-3 for s, h in zip(suspicion, hitler, strict=True))
        return cls(
            n,
            tuple(suspicion),
            tuple(hitler),
            (tuple(ja[0]), tuple(ja[1])),
            trust,
            suspect,
            wild,
        )

    @classmethod
    def uniform(cls, players: int, fascists: int, wild: float = 0.0) -> TableModel:
        """The prior: every seat equally suspicious, Hitler anywhere."""
        party = (fascists + 1) / players
        return cls.build([party] * players, [1.0 / players] * players, wild)


def _weighted(options: Sequence[int], weights: Sequence[float], rand: float) -> int:
    """The option a roulette wheel picks for `rand` in [0, 1), by `weights[option]`."""
    total = 0.0
    for s in options:
        total += weights[s]
    point = rand * total
    for s in options:
        point -= weights[s]
        if point < 0.0:
            return s
    return options[-1]


def _recording(game: FastGame, record: list[Action]) -> Callable[[int], int]:
    """`game.step` that first appends the move as a clean `Action` to `record`."""

    def step(move: int) -> int:
        record.append(game.to_action(move))
        return game.step(move)

    return step


class ModelPlayers:
    """The opponent model's players for one determinized game, decision by decision.

    `fill_ballots` casts every missing ballot of the running vote; `move` answers any
    other decision for the seat to move. `play_model` plays whole games with them and
    the model-guided tree (`agents.model_search`) plays everyone but the searcher.
    """

    __slots__ = ("hitler", "kind", "knows", "model", "n", "roles", "wild")

    def __init__(
        self,
        game: FastGame,
        model: TableModel,
        rand: Callable[[], float] | None = None,
        searcher: int = -1,
    ) -> None:
        self.roles = roles = game.roles
        # Who acts on team knowledge: Fascists always, Hitler only with 5 or 6 players.
        self.knows = [r == FASCIST_ROLE or (r == HITLER_ROLE and game.players <= 6) for r in roles]
        self.hitler = game.hitler
        self.model = model
        self.n = n = game.players
        # Wild seats (drawn once per game, never the searcher) vote and pick at random:
        # a real table has careless players, and a model of only careful ones trusts
        # the table to stop a bad government more than it will.
        wild = model.wild
        self.wild = [
            bool(wild and rand is not None and s != searcher and rand() < wild) for s in range(n)
        ]
        # How each seat votes, as `_ja_chances` indexes it: 0 wild, 1 knows the team, 2 other.
        self.kind = [0 if self.wild[s] else 1 if self.knows[s] else 2 for s in range(n)]

    def _ja_chances(self, game: FastGame) -> tuple[float, float, float]:
        """The Ja chances on the running vote's government of a wild seat, a seat that
        knows the team and any other, indexed by `kind` (candidates aside)."""
        roles = self.roles
        pres, chanc = game.president, game.chancellor
        zone = game.fascist_policies >= HITLER_ZONE
        lib_chance = self.model.liberal_ja[zone][pres * self.n + chanc]
        if game.election_tracker >= 2 and lib_chance < LAX_JA:
            lib_chance = LAX_JA
        # What a knowing Fascist casts on this government (the same for all of them).
        if zone and chanc == self.hitler:
            team_chance = 1.0
        elif roles[pres] != LIBERAL_ROLE or roles[chanc] != LIBERAL_ROLE:
            team_chance = TEAM_JA
        else:
            team_chance = FASCIST_JA_OTHERWISE
        return 0.5, team_chance, lib_chance

    def fill_ballots(
        self, game: FastGame, rand: Callable[[], float], record: list[Action] | None = None
    ) -> None:
        """Cast the ballot of every living seat that has not voted (none is counted)."""
        chances = self._ja_chances(game)
        kind = self.kind
        candidates = (game.president, game.chancellor)
        votes = game.votes
        for s in game.voters():
            if s in votes:
                continue
            k = kind[s]
            chance = CANDIDATE_JA if k and s in candidates else chances[k]
            votes[s] = ballot = rand() < chance
            if record is not None:
                record.append(Vote(s, ballot))

    def ballots(self, game: FastGame, rand: Callable[[], float], skip: int = -1) -> int:
        """The Ja ballots of the running vote: those cast in `game.votes` and those of the
        other living seats but `skip`, drawn exactly as `fill_ballots` draws them (same
        order, same chances) but counted instead of cast, which a playout's vote needs."""
        chances = self._ja_chances(game)
        kind = self.kind
        candidates = (game.president, game.chancellor)
        votes = game.votes
        ja = 0
        for s in game.voters():
            cast = votes.get(s)
            if cast is not None:
                ja += cast
            elif s != skip:
                k = kind[s]
                if rand() < (CANDIDATE_JA if k and s in candidates else chances[k]):
                    ja += 1
        return ja

    def move(self, game: FastGame, rand: Callable[[], float]) -> int:
        """The model's move for the seat to move in any phase but a vote."""
        roles = self.roles
        phase = game.phase
        if phase == DISCARD:
            hand_f = game.hand_fascists
            # Move = the tile discarded: a Liberal drops a Fascist tile if it has one.
            if hand_f == 0:
                return 0
            if hand_f == 3:
                return 1
            return 1 if roles[game.president] == LIBERAL_ROLE else 0
        if phase == ENACT:
            hand_f = game.hand_fascists
            liberal = roles[game.chancellor] == LIBERAL_ROLE
            can_veto = game.fascist_policies >= VETO_AT and not game.veto_refused
            if hand_f == 1:
                return 0 if liberal else 1
            if can_veto and (hand_f == 2) == liberal:
                return VETO  # only the other party's tiles: try to block them
            return hand_f >> 1  # both tiles alike: enact that one
        if phase == VETO_REPLY:
            liberal = roles[game.president] == LIBERAL_ROLE
            return int(game.hand_fascists == (2 if liberal else 0))
        pres = game.president
        options = game.legal_moves()
        if self.wild[pres]:
            return options[int(rand() * len(options))]
        knows = self.knows[pres]
        if phase == NOMINATE:
            zone = game.fascist_policies >= HITLER_ZONE
            if knows and roles[pres] == FASCIST_ROLE:
                if zone and self.hitler in options:
                    return self.hitler
                if rand() < FASCIST_TO_MATE:
                    mates = [s for s in options if roles[s] != LIBERAL_ROLE]
                    if mates:
                        return mates[int(rand() * len(mates))]
            return _weighted(options, self.model.trust[zone], rand())
        if phase == SPECIAL_ELECTION:
            if knows:
                mates = [s for s in options if roles[s] != LIBERAL_ROLE]
                if mates:
                    return mates[int(rand() * len(mates))]
            return _weighted(options, self.model.trust[0], rand())
        if phase == EXECUTE:
            if knows:
                targets = [s for s in options if roles[s] == LIBERAL_ROLE] or list(options)
                return targets[int(rand() * len(targets))]
            return _weighted(options, self.model.suspect, rand())
        # INVESTIGATE: no effect inside a playout, so uniform.
        return options[int(rand() * len(options))]


def play_model(
    game: FastGame,
    rng: random.Random,
    model: TableModel,
    record: list[Action] | None = None,
    players: ModelPlayers | None = None,
) -> WinReason:
    """Play `game` to its end with the opponent model; return how it ended.

    `players` continues with the players a search already drew for this game.
    With `record`, every decision is appended as the `Action` the clean engine takes
    (ballots one `Vote` per seat, in seat order), so a test can replay it on `Game`.
    """
    rand = rng.random
    step = game.step if record is None else _recording(game, record)
    if players is None:
        players = ModelPlayers(game, model, rand)
    move = players.move
    if record is not None:  # every ballot as an `Action`: through the ballot box
        while game.reason is None:
            if game.phase == VOTE:
                players.fill_ballots(game, rand, record)
                game.count_votes()
            else:
                step(move(game, rand))
        return game.reason
    ballots = players.ballots
    tally = game.tally
    while game.reason is None:
        if game.phase == VOTE:
            tally(ballots(game, rand))
        else:
            step(move(game, rand))
    return game.reason
