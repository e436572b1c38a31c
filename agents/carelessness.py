"""Which seats vote without reading the table: a per-seat estimate for the opponent model.

Belief-ISMCTS's opponent model (`agents.playouts`) lets some of the other seats vote
and pick at random, as careless players do. How many are careless differs from table
to table (a table of baseline bots votes by coin; friends who read the claims mostly
do not), and which ones they are shows in their ballots. So the share is learned per
seat: at every election, each voter's ballot is compared with what a careful player
would have cast (the model's own vote rules, `ModelPlayers.fill_ballots`, averaged
over this seat's posterior on the roles) and with a coin toss, and Bayes' rule moves
that seat's odds of being careless. A seat is taken to be careless or careful for the
whole game, independently of its role.

The estimate is a pure function of the public ballots and of this seat's own belief,
fed event by event like the beliefs are; it is secret while the game runs (it is part
of an agent's reading of the table) and nothing here logs it.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from engine import events as ev
from engine.variants import HITLER_ZONE

from .playouts import (
    CANDIDATE_JA,
    FASCIST,
    FASCIST_JA_OTHERWISE,
    HITLER,
    LAX_JA,
    LIBERAL,
    TEAM_JA,
    TableModel,
)

LEAST_LIKELIHOOD = 0.02  # a careful ballot's least chance: no single vote is proof
MOST_CARELESS = 0.95  # estimates stay inside [1 - MOST_CARELESS, MOST_CARELESS]


class Carelessness:
    """Per seat, the probability that it votes and picks at random (`shares()`)."""

    def __init__(self, players: int, prior: float, seat: int | None = None) -> None:
        if not 0.0 <= prior <= 1.0:
            raise ValueError(f"A careless share is a probability, not {prior}.")
        self.players = players
        self.prior = prior
        self.seat = seat  # the observer: never careless in its own eyes
        self.log_odds = [0.0] * players  # evidence so far, on top of the prior's odds
        self.ballots = [0] * players  # ballots read per seat
        self.election_tracker = 0
        self.fascist_policies = 0

    def shares(self) -> tuple[float, ...]:
        """P(careless) per seat; 0 for the observer itself (it knows how it plays)."""
        if self.prior in (0.0, 1.0):
            return tuple(0.0 if s == self.seat else self.prior for s in range(self.players))
        base = math.log(self.prior / (1.0 - self.prior))
        low, high = 1.0 - MOST_CARELESS, MOST_CARELESS
        return tuple(
            0.0 if s == self.seat else min(high, max(low, 1.0 / (1.0 + math.exp(-base - odds))))
            for s, odds in enumerate(self.log_odds)
        )

    def track(self, event: ev.Event) -> None:
        """Follow the board and the tracker (the careful rules depend on them)."""
        match event:
            case ev.GameStarted(fascist_policies=fascist):
                self.fascist_policies = fascist
            case ev.ElectionTrackerAdvanced(election_tracker=tracker):
                self.election_tracker = tracker
            case ev.PolicyEnacted(fascist_policies=fascist):
                self.fascist_policies = fascist
                self.election_tracker = 0

    def read_ballots(
        self,
        result: ev.ElectionResult,
        model: TableModel,
        roles: npt.NDArray[np.int8],
        weights: npt.NDArray[np.float64],
    ) -> None:
        """Weigh every ballot of `result` (careless: a coin; careful: the model's rules).

        `model` is the table's model *before* this result; `roles` (assignments x
        seats, role codes) and `weights` (their probabilities) are the observer's
        posterior, so a Fascist observer reads its teammates' ballots knowingly.
        """
        total = float(weights.sum())
        if self.prior in (0.0, 1.0) or not total > 0.0:
            return
        weights = weights / total
        president, chancellor = result.president, result.chancellor
        zone = self.fascist_policies >= HITLER_ZONE
        liberal_ja = model.liberal_ja[zone][president * self.players + chancellor]
        if self.election_tracker >= 2:
            liberal_ja = max(liberal_ja, LAX_JA)
        # Per assignment: is the government a teammate's, is the chancellor Hitler.
        team_gov = (roles[:, president] != LIBERAL) | (roles[:, chancellor] != LIBERAL)
        hitler_chancellor = roles[:, chancellor] == HITLER
        fascist_ja = np.where(
            zone & hitler_chancellor,
            1.0,
            np.where(team_gov, TEAM_JA, FASCIST_JA_OTHERWISE),
        )
        small_game = self.players <= 6
        for voter, ballot in enumerate(result.votes):
            if ballot is None or voter == self.seat:
                continue
            if voter in (president, chancellor):
                careful_ja: float | npt.NDArray[np.float64] = CANDIDATE_JA
            else:
                role = roles[:, voter]
                knows = (role == FASCIST) | ((role == HITLER) & small_game)
                careful_ja = np.where(knows, fascist_ja, liberal_ja)
            chance = careful_ja if ballot else 1.0 - np.asarray(careful_ja)
            careful = float(np.sum(weights * np.maximum(chance, LEAST_LIKELIHOOD)))
            self.log_odds[voter] += math.log(0.5 / careful)
            self.ballots[voter] += 1
