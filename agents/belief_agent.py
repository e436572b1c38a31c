"""Belief: a heuristic player that reads the table with the exact Bayesian belief.

A Liberal nominates and backs the governments its belief trusts most, keeps Liberal
tiles, and uses powers on the seats it suspects (investigate, execute) or trusts
(special election). A Fascist knows its team and keeps a second belief, the table's
(public information only), to see how suspicious each seat looks to everyone else: it
backs governments holding a Fascist when that is not too visible, passes and enacts
Fascist policies when it can explain them, elects Hitler chancellor once three Fascist
policies are down, and executes the Liberal the table trusts most. Hitler plays a
Liberal's part until he can win; at 7+ players he does not know his team.

Claims go through `agents.claiming`: the truth as a Liberal, chosen lies otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine import (
    Action,
    CallSpecialElection,
    Claim,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    Phase,
    PlayerView,
    Policy,
    ProposeVeto,
    Role,
    Variant,
    VetoReply,
    Vote,
)
from engine import events as ev
from engine.variants import FASCIST_TO_WIN, HITLER_ZONE

from .base import AgentBase, Budget
from .behaviour import reading_model
from .belief import Belief
from .belief_cache import belief_after
from .claiming import claim_for, seen

L, F = Policy.LIBERAL, Policy.FASCIST

# A Liberal backs a government only when it is this much more trusted than a typical
# one. Most governments hold a Fascist (at 10 players two other seats are both Liberal
# with probability 5/18), so a typical government is a bad one: backing every government
# at least as trusted as the median (1.0, before 2026-11-26) passed too many of them.
# Measured in bench/results/README.md ("A stricter Liberal ballot"): with every belief
# seat of `random, selfish, belief` games voting so, 0.500 as a Liberal at 1.0, 0.539 at
# 1.2, 0.544 at 1.3, 0.539 at 1.5 (3,000 games each); belief-ismcts in the paper's pool
# at 1,000 iterations, 0.334 at 1.0 and 0.351 at 1.2 or 1.3 (1,600 games, within noise).
STRICTNESS = 1.3


def trusted(view: PlayerView, seat: int, trust: np.ndarray) -> bool:
    """Whether the nominated government is clearly more trusted than a typical one
    (STRICTNESS times it; laxer near chaos), `trust` being P(both Liberal) per pair.

    Typical: the median over governments of other living seats, so the rule reads the
    same whatever this seat's own role (a Hitler who counted his own pairs would vote
    Ja more often than a Liberal, and stand out).
    """
    assert view.chancellor is not None
    living = [s for s in range(view.players) if view.alive[s] and s != seat]
    pairs = [trust[a, b] for i, a in enumerate(living) for b in living[i + 1 :]]
    typical = float(np.median(pairs)) if pairs else 0.0
    this = float(trust[view.president, view.chancellor])
    slack = 0.6 if view.election_tracker >= 2 else 1.0
    return this >= slack * STRICTNESS * typical - 1e-12


def liberal_ballot(view: PlayerView, seat: int, trust: np.ndarray, hitler: np.ndarray) -> bool:
    """A Liberal's sincere ballot: Ja for its own government; in the Hitler zone Nein
    for a chancellor who is Hitler with probability over 1/4; else Ja for a government
    clearly more trusted than a typical one (`trusted`). `hitler` is P(Hitler) per seat.

    Not an absolute threshold on P(all Liberal): "Ja when more likely all Liberal than
    not" casts the perfect ballot 8 points more often (`bench/ballot_read.py`) and lost
    12 points as a Liberal in its A/B (bench/results/README.md, 2026-11-28)."""
    president, chancellor = view.president, view.chancellor
    assert chancellor is not None
    if seat in (president, chancellor):
        return True
    if view.fascist_policies >= HITLER_ZONE and hitler[chancellor] > 0.25:
        return False
    return trusted(view, seat, trust)


class BeliefAgent(AgentBase):
    """Heuristic play from an exact belief; deterministic under its seed."""

    name = "belief"

    def __init__(
        self,
        seat: int,
        seed: int | None = None,
        budget: Budget | None = None,
        *,
        fit: Path | None = None,
        styles: tuple[float, ...] | None = None,
    ) -> None:
        super().__init__(seat, seed, budget)
        self.fit = fit  # a behaviour fit file for the beliefs; None: the shipped fit
        self.styles = styles  # a style prior for the beliefs' mixture; None: the shipped one
        self.belief: Belief | None = None  # this seat's own belief
        self.table: Belief | None = None  # the public belief (non-Liberals only)

    # --- beliefs ----------------------------------------------------------------------

    def observe(self, view: PlayerView) -> None:
        """Build the beliefs on the first view, then feed them every new event."""
        if self.belief is None:
            setup = Variant(view.variant).setup(view.players)
            behaviour = reading_model(setup.players, self.fit, self.styles)
            self.belief = belief_after(setup, self.seat, view.events, behaviour)
            if view.role is not Role.LIBERAL:
                self.table = belief_after(setup, None, view.events, behaviour)
            self.seen = len(view.events)  # the beliefs have read them
        super().observe(view)

    def on_event(self, event: ev.Event, view: PlayerView) -> None:
        """Both beliefs skip what they may not see (the table sees public events only)."""
        assert self.belief is not None
        self.belief.update(event)
        if self.table is not None:
            self.table.update(event)

    def marginals(self) -> tuple[tuple[float, float, float], ...]:
        """This seat's current belief per seat: (P(Liberal), P(Fascist), P(Hitler)).

        Secret while the game runs: for the end-of-game reveal only.
        """
        if self.belief is None:
            raise ValueError("The agent has not seen the game yet.")
        return self.belief.marginals()

    # --- decisions --------------------------------------------------------------------

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Choose an action by phase, from the beliefs."""
        assert self.belief is not None
        handler: dict[Phase, Callable[[PlayerView, random.Random], Action]] = {
            Phase.NOMINATE: self._nominate,
            Phase.VOTE: self._vote,
            Phase.PRESIDENT_DISCARD: self._discard,
            Phase.CHANCELLOR_ENACT: self._enact,
            Phase.VETO_REPLY: self._veto_reply,
            Phase.INVESTIGATE: self._investigate,
            Phase.SPECIAL_ELECTION: self._special_election,
            Phase.EXECUTE: self._execute,
        }
        return handler[view.phase](view, rng)

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        """The truth as a Liberal; a covering or framing lie as a Fascist when useful."""
        return claim_for(view, rng)

    # --- who is who -------------------------------------------------------------------

    def _knows_team(self, view: PlayerView) -> bool:
        """A Fascist, or Hitler in a small game: knows every Fascist."""
        return view.role is not Role.LIBERAL and any(
            r is not None and s != self.seat for s, r in enumerate(view.known_roles)
        )

    def _team(self, view: PlayerView) -> set[int]:
        """Seats this seat knows are Fascist or Hitler (itself included if so)."""
        return {
            s for s, r in enumerate(view.known_roles) if r is not None and r is not Role.LIBERAL
        }

    def _hitler_seat(self, view: PlayerView) -> int | None:
        for s, r in enumerate(view.known_roles):
            if r is Role.HITLER:
                return s
        return None

    def _trust(self, view: PlayerView) -> np.ndarray:
        """P(both seats Liberal) per pair as the table sees it (own belief for a Liberal)."""
        belief = self.table if self.table is not None else self.belief
        assert belief is not None
        return belief.pair_liberal()

    def _liberal_eyes(self, view: PlayerView) -> tuple[np.ndarray, np.ndarray]:
        """(P(both Liberal) per pair, P(Hitler) per seat) as a Liberal here would see them.

        A Liberal's own belief; for anyone else, the table's belief given that this seat
        is Liberal: playing the Liberal's part from it leaves no tell in votes or
        nominations (a blind Hitler reading his own belief would vote differently).
        """
        if view.role is Role.LIBERAL or self.table is None:
            assert self.belief is not None
            return self.belief.pair_liberal(), self.belief.hitler()
        return self.table.pair_liberal(self.seat), self.table.hitler(self.seat)

    def _public_suspicion(self) -> np.ndarray:
        """P(Fascist party) per seat as the table sees it (own belief if no table belief)."""
        belief = self.table if self.table is not None else self.belief
        assert belief is not None
        return belief.party_fascist()

    @staticmethod
    def _best(options: Sequence[int], score: Callable[[int], float], rng: random.Random) -> int:
        """The option with the highest score, ties broken at random."""
        scored = [(score(o), rng.random(), o) for o in options]
        return max(scored)[2]

    # --- nomination and votes ---------------------------------------------------------

    def _nominate(self, view: PlayerView, rng: random.Random) -> Action:
        assert self.belief is not None
        options = [a.chancellor for a in view.legal_actions if isinstance(a, Nominate)]
        zone = view.fascist_policies >= HITLER_ZONE
        if self._knows_team(view):
            team = self._team(view) - {self.seat}
            hitler = self._hitler_seat(view)
            suspicion = self._public_suspicion()
            if zone and hitler in options and hitler != self.seat:
                return Nominate(self.seat, hitler)
            mates = [s for s in options if s in team and suspicion[s] < 0.6]
            if mates and rng.random() < 0.5:
                return Nominate(self.seat, self._best(mates, lambda s: -suspicion[s], rng))
            trust, _ = self._liberal_eyes(view)
            return Nominate(self.seat, self._best(options, lambda s: trust[s, s], rng))
        trust, hitler_p = self._liberal_eyes(view)
        penalty = 2.0 if zone else 0.0
        return Nominate(
            self.seat,
            self._best(options, lambda s: trust[s, s] - penalty * hitler_p[s], rng),
        )

    def _vote(self, view: PlayerView, rng: random.Random) -> Action:
        assert self.belief is not None and view.chancellor is not None
        president, chancellor = view.president, view.chancellor
        zone = view.fascist_policies >= HITLER_ZONE
        if self._knows_team(view):
            team = self._team(view)
            if zone and view.known_roles[chancellor] is Role.HITLER:
                return Vote(self.seat, True)
            if self.seat in (president, chancellor):
                return Vote(self.seat, True)
            if team & {president, chancellor}:
                # Back a Fascist government unless the table already distrusts it.
                public = self._trust(view)[president, chancellor]
                return Vote(self.seat, bool(public > 0.1 or zone))
            return Vote(self.seat, self._liberal_vote(view, self._liberal_eyes(view)[0], rng))
        trust, hitler = self._liberal_eyes(view)
        return Vote(self.seat, liberal_ballot(view, self.seat, trust, hitler))

    def _liberal_vote(self, view: PlayerView, trust: np.ndarray, rng: random.Random) -> bool:
        """Ja for a government clearly more trusted than a typical one (see `trusted`)."""
        return trusted(view, self.seat, trust)

    # --- the legislative session ------------------------------------------------------

    def _fascist_eagerness(self, view: PlayerView) -> float:
        """How readily a Fascist plays a Fascist tile now: more as the game advances."""
        if view.fascist_policies >= FASCIST_TO_WIN - 1:
            return 1.0
        base = 0.55 if view.role is Role.FASCIST else 0.35
        base += 0.1 * view.fascist_policies
        suspicion = self._public_suspicion()[self.seat]
        return float(min(1.0, max(0.0, base - 0.4 * max(0.0, suspicion - 0.5))))

    def _discard(self, view: PlayerView, rng: random.Random) -> Action:
        hand = view.hand
        if view.role is Role.LIBERAL:
            return Discard(self.seat, F if F in hand else L)
        if L not in hand or F not in hand:
            return Discard(self.seat, hand[0])
        chancellor = view.chancellor
        mate = chancellor is not None and chancellor in self._team(view)
        if mate or rng.random() < self._fascist_eagerness(view):
            return Discard(self.seat, L)
        return Discard(self.seat, F)

    def _enact(self, view: PlayerView, rng: random.Random) -> Action:
        hand = view.hand
        veto = ProposeVeto(self.seat)
        if view.role is Role.LIBERAL:
            if L in hand:
                return Enact(self.seat, L)
            return veto if veto in view.legal_actions else Enact(self.seat, F)
        if F not in hand:
            return veto if veto in view.legal_actions else Enact(self.seat, L)
        if L not in hand:
            return Enact(self.seat, F)
        mate = view.president in self._team(view) and view.president != self.seat
        if mate or rng.random() < self._fascist_eagerness(view):
            return Enact(self.seat, F)
        return Enact(self.seat, L)

    def _veto_reply(self, view: PlayerView, rng: random.Random) -> Action:
        passed = seen(view).passed
        if view.role is Role.LIBERAL:
            return VetoReply(self.seat, passed == 0)  # block only an all-Fascist hand
        return VetoReply(self.seat, passed == 2)  # a Fascist blocks only Liberal tiles

    # --- powers -----------------------------------------------------------------------

    def _targets(self, view: PlayerView) -> list[int]:
        return [
            a.target
            for a in view.legal_actions
            if isinstance(a, Investigate | CallSpecialElection | Execute)
        ]

    def _investigate(self, view: PlayerView, rng: random.Random) -> Action:
        assert self.belief is not None
        targets = self._targets(view)
        if self._knows_team(view):
            team = self._team(view)
            suspicion = self._public_suspicion()
            suspected_mates = [t for t in targets if t in team and suspicion[t] > 0.5]
            if suspected_mates and rng.random() < 0.5:  # clear a teammate in trouble
                return Investigate(self.seat, max(suspected_mates, key=lambda t: suspicion[t]))
            liberals = [t for t in targets if t not in team] or targets
            return Investigate(self.seat, self._best(liberals, lambda t: -suspicion[t], rng))
        fascist = self.belief.party_fascist()
        return Investigate(self.seat, self._best(targets, lambda t: fascist[t], rng))

    def _special_election(self, view: PlayerView, rng: random.Random) -> Action:
        assert self.belief is not None
        targets = self._targets(view)
        if self._knows_team(view):
            team = self._team(view)
            suspicion = self._public_suspicion()
            mates = [t for t in targets if t in team and suspicion[t] < 0.6]
            if mates:
                return CallSpecialElection(self.seat, min(mates, key=lambda t: suspicion[t]))
            return CallSpecialElection(self.seat, self._best(targets, lambda t: -suspicion[t], rng))
        fascist = self.belief.party_fascist()
        sign = 1.0 if view.role is Role.HITLER else -1.0  # a blind Hitler seeks his team
        return CallSpecialElection(self.seat, self._best(targets, lambda t: sign * fascist[t], rng))

    def _execute(self, view: PlayerView, rng: random.Random) -> Action:
        assert self.belief is not None
        targets = self._targets(view)
        if self._knows_team(view):
            team = self._team(view)
            suspicion = self._public_suspicion()
            liberals = [t for t in targets if t not in team] or targets
            return Execute(self.seat, self._best(liberals, lambda t: -suspicion[t], rng))
        fascist = self.belief.party_fascist()
        if view.role is Role.HITLER:  # a blind Hitler kills the likeliest Liberal
            return Execute(self.seat, self._best(targets, lambda t: -fascist[t], rng))
        hitler = self.belief.hitler()
        return Execute(self.seat, self._best(targets, lambda t: hitler[t] + 0.25 * fascist[t], rng))
