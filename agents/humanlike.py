"""Humanlike: scripted play in the style of people at a real table, never fitted on.

The belief's behaviour model is fitted on the project's own bots; this agent exists to
test it against play nobody fitted it on (`bench/belief_bench.py --test-on humanlike`).
It reasons the way people do, with a running suspicion score per seat rather than a
posterior (a government that enacts a Fascist policy looks bad, a seat called Fascist
by an investigation looks bad, a Liberal policy clears a little), and it has the habits
every experienced player knows, each firing at a configurable rate (a share in [0, 1]):

- `test`: a Liberal president holding two Liberals and a Fascist passes L+F on
  purpose, to see what the chancellor does with it;
- `trust`: a Fascist-team chancellor handed L+F enacts the Liberal before the Hitler
  zone, to earn trust;
- `honest`: a Fascist president who investigated a teammate tells the truth about
  them ("Fascist"), to look honest;
- `lie`: a Liberal makes a false claim (to bait, or by mistake);
- `late`: a seat keeps quiet when its claim window opens and claims once the table has
  moved on (after the next nomination);
- `silent`: a seat never claims in that window;
- `distance`: a Fascist votes Nein on a government holding a teammate, to look apart;
- `chaos`: anyone votes Ja when the election tracker stands at 2 (a third failure
  enacts the top policy).

Hitler at 7+ players (who knows nobody) plays the Liberal's part, enacts like a
Fascist once it is safe, and backs himself in the Hitler zone. Every decision draws
from the base RNG (seed, seat, events seen); whether a claim window is silent or late
is drawn once per window, so a rebuilt agent decides exactly as a long-lived one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import (
    Action,
    CallSpecialElection,
    Claim,
    Discard,
    Enact,
    Execute,
    Investigate,
    InvestigationClaim,
    Nominate,
    Party,
    Phase,
    PlayerView,
    Policy,
    ProposeVeto,
    Role,
    VetoReply,
    Vote,
)
from engine import events as ev
from engine.variants import HITLER_ZONE

from .base import AgentBase, Budget
from .claiming import fascist_claim, truthful_claims

L, F = Policy.LIBERAL, Policy.FASCIST

# The habits and their default rates (what a lively table of people does, roughly).
HABITS: dict[str, float] = {
    "test": 0.35,
    "trust": 0.4,
    "honest": 0.35,
    "lie": 0.1,
    "late": 0.2,
    "silent": 0.1,
    "distance": 0.2,
    "chaos": 0.8,
}


def suspicion(view: PlayerView) -> list[float]:
    """A person's running suspicion per seat from the public record (and own result).

    +1 to both members of a government that enacted a Fascist policy, -0.5 for a
    Liberal one; +3 to a seat an investigation claim calls Fascist, -1 if it clears
    them; a claimed "passed a Liberal" answered by "received none" costs both +1 (one
    of them lies). The seat's own investigation result is certain: +10 or -10.
    """
    score = [0.0] * view.players
    government: tuple[int, int] | None = None
    passed_liberal: bool | None = None
    for event in view.events:
        match event:
            case ev.ElectionResult(elected=True, president=p, chancellor=c):
                government, passed_liberal = (p, c), None
            case ev.PolicyEnacted(chaos=False, policy=policy) if government is not None:
                for seat in government:
                    score[seat] += 1.0 if policy is F else -0.5
            case ev.PresidentClaimed(passed=passed):
                passed_liberal = L in passed
            case ev.ChancellorClaimed(received=received) if government is not None:
                if passed_liberal and L not in received:
                    for seat in government:
                        score[seat] += 1.0
            case ev.InvestigationClaimed(target=target, party=party):
                score[target] += 3.0 if party is Party.FASCIST else -1.0
            case ev.InvestigationResult(seat=s, target=target, party=party) if s == view.seat:
                score[target] += 10.0 if party is Party.FASCIST else -10.0
            case _:
                pass
    return score


class HumanlikeAgent(AgentBase):
    """Scripted human-style play with configurable habits (see the module docstring)."""

    name = "humanlike"

    def __init__(
        self,
        seat: int,
        seed: int | None = None,
        budget: Budget | None = None,
        **habits: float,
    ) -> None:
        super().__init__(seat, seed, budget)
        unknown = set(habits) - set(HABITS)
        if unknown:
            raise ValueError(f"Unknown humanlike habits: {', '.join(sorted(unknown))}.")
        self.habits = {**HABITS, **habits}

    # --- who is who -------------------------------------------------------------------

    def _team(self, view: PlayerView) -> set[int]:
        """Fascist-team seats this seat knows, itself excluded (empty for a Liberal)."""
        if view.role is Role.LIBERAL:
            return set()
        return {
            s
            for s, r in enumerate(view.known_roles)
            if s != self.seat and r is not None and r is not Role.LIBERAL
        }

    def _fascist_mind(self, view: PlayerView) -> bool:
        """Plays for the Fascists knowingly: a Fascist, or a Hitler who knows his team."""
        return view.role is Role.FASCIST or (view.role is Role.HITLER and bool(self._team(view)))

    def _hitler(self, view: PlayerView) -> int | None:
        return next((s for s, r in enumerate(view.known_roles) if r is Role.HITLER), None)

    @staticmethod
    def _pick(options: Sequence[int], key: list[float], rng: random.Random, low: bool) -> int:
        """The option with the lowest (or highest) score, ties broken at random."""
        sign = 1.0 if low else -1.0
        return min(options, key=lambda s: (sign * key[s], rng.random()))

    # --- decisions --------------------------------------------------------------------

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Choose by phase."""
        match view.phase:
            case Phase.NOMINATE:
                return self._nominate(view, rng)
            case Phase.VOTE:
                return Vote(self.seat, self._ballot(view, rng))
            case Phase.PRESIDENT_DISCARD:
                return self._discard(view, rng)
            case Phase.CHANCELLOR_ENACT:
                return self._enact(view, rng)
            case Phase.VETO_REPLY:
                return self._veto_reply(view)
            case Phase.INVESTIGATE | Phase.SPECIAL_ELECTION | Phase.EXECUTE:
                return self._power(view, rng)
        return rng.choice(view.legal_actions)

    def _nominate(self, view: PlayerView, rng: random.Random) -> Action:
        options = [a.chancellor for a in view.legal_actions if isinstance(a, Nominate)]
        score = suspicion(view)
        if self._fascist_mind(view):
            team = [s for s in options if s in self._team(view)]
            hitler = self._hitler(view)
            if view.fascist_policies >= HITLER_ZONE and hitler in options:
                assert hitler is not None
                return Nominate(self.seat, hitler)
            if team and rng.random() < 0.5:
                return Nominate(self.seat, rng.choice(team))
        return Nominate(self.seat, self._pick(options, score, rng, low=True))

    def _ballot(self, view: PlayerView, rng: random.Random) -> bool:
        president, chancellor = view.president, view.chancellor
        assert chancellor is not None
        if self.seat in (president, chancellor):
            return True
        zone = view.fascist_policies >= HITLER_ZONE
        team = self._team(view)
        if self._fascist_mind(view):
            if zone and chancellor == self._hitler(view):
                return True
            if president in team or chancellor in team:
                return rng.random() >= self.habits["distance"]
        elif view.role is Role.HITLER and zone and chancellor == self.seat:
            return True
        if view.election_tracker >= 2 and rng.random() < self.habits["chaos"]:
            return True
        score = suspicion(view)
        living = [s for s in range(view.players) if view.alive[s] and s != self.seat]
        typical = sorted(score[s] for s in living)[len(living) // 2]
        worst = max(score[president], score[chancellor])
        if zone and chancellor not in view.not_hitler and score[chancellor] > typical:
            return False
        if worst > typical + 0.75:
            return rng.random() < 0.15
        return rng.random() < 0.8

    def _discard(self, view: PlayerView, rng: random.Random) -> Action:
        liberals = view.hand.count(L)
        if liberals in (0, 3):
            return Discard(self.seat, view.hand[0])
        if view.role is Role.LIBERAL or not self._fascist_mind(view):
            # Keep Liberals; with L+L+F, now and then pass L+F to test the chancellor.
            if liberals == 2 and rng.random() < self.habits["test"]:
                return Discard(self.seat, L)
            if view.role is Role.HITLER and view.fascist_policies >= HITLER_ZONE:
                return Discard(self.seat, L if rng.random() < 0.5 else F)
            return Discard(self.seat, F)
        teammate = view.chancellor in self._team(view)
        return Discard(self.seat, L if rng.random() < (0.95 if teammate else 0.7) else F)

    def _enact(self, view: PlayerView, rng: random.Random) -> Action:
        liberals = view.hand.count(L)
        if (
            view.veto_unlocked
            and not view.veto_refused
            and ProposeVeto(self.seat) in view.legal_actions
        ):
            unwanted = 2 if view.role is not Role.LIBERAL else 0  # all the other side's
            if liberals == unwanted:
                return ProposeVeto(self.seat)
        if liberals in (0, 2):
            return Enact(self.seat, view.hand[0])
        if view.role is Role.LIBERAL:
            return Enact(self.seat, L)
        if view.fascist_policies < HITLER_ZONE and rng.random() < self.habits["trust"]:
            return Enact(self.seat, L)  # earn trust early
        if view.role is Role.HITLER and not self._fascist_mind(view):
            return Enact(self.seat, F if view.fascist_policies >= HITLER_ZONE - 1 else L)
        return Enact(self.seat, F)

    def _veto_reply(self, view: PlayerView) -> Action:
        unwanted = F if view.role is Role.LIBERAL else L
        return VetoReply(self.seat, all(t is unwanted for t in view.hand))

    def _power(self, view: PlayerView, rng: random.Random) -> Action:
        targets = [a.target for a in view.legal_actions if hasattr(a, "target")]
        score = suspicion(view)
        team = self._team(view)
        fascist = self._fascist_mind(view)
        outsiders = [s for s in targets if s not in team] or targets
        match view.phase:
            case Phase.INVESTIGATE:
                # A Fascist looks at someone, now and then a teammate (to clear them).
                if fascist:
                    inside = [s for s in targets if s in team]
                    pool = inside if inside and rng.random() < 0.35 else outsiders
                    return Investigate(self.seat, rng.choice(pool))
                return Investigate(self.seat, self._pick(targets, score, rng, low=False))
            case Phase.SPECIAL_ELECTION:
                inside = [s for s in targets if s in team]
                if fascist and inside:
                    return CallSpecialElection(self.seat, rng.choice(inside))
                return CallSpecialElection(self.seat, self._pick(targets, score, rng, low=True))
            case _:
                if fascist:  # shoot the Liberal the table trusts most
                    return Execute(self.seat, self._pick(outsiders, score, rng, low=True))
                return Execute(self.seat, self._pick(targets, score, rng, low=False))

    # --- claims -----------------------------------------------------------------------

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        """Truth, a Fascist's lie or a Liberal's, late or not at all, by habit."""
        truths = truthful_claims(view)
        if not truths:
            return None
        truth = truths[0]
        opened = _window_opened(view, truth)
        window = random.Random(f"humanlike-window:{self.seed}:{self.seat}:{opened}:{truth.kind}")
        roll = window.random()
        if roll < self.habits["silent"]:
            return None
        if roll < self.habits["silent"] + self.habits["late"] and not _table_moved_on(view, opened):
            return None
        if view.role is Role.LIBERAL:
            if window.random() < self.habits["lie"]:
                lies = [
                    c
                    for c in view.legal_claims
                    if type(c) is type(truth) and c != truth and _same_window(c, truth)
                ]
                if lies:
                    return window.choice(lies)
            return truth
        if isinstance(truth, InvestigationClaim) and truth.target in self._team(view):
            if window.random() < self.habits["honest"]:
                return truth  # a teammate called Fascist: "look how honest I am"
            cleared = InvestigationClaim(self.seat, truth.target, Party.LIBERAL)
            return cleared if cleared in view.legal_claims else truth
        return fascist_claim(view, rng)


def _same_window(claim: Claim, truth: Claim) -> bool:
    """Claims about the same thing (an investigation claim names its target)."""
    if isinstance(claim, InvestigationClaim) and isinstance(truth, InvestigationClaim):
        return claim.target == truth.target
    return True


def _window_opened(view: PlayerView, claim: Claim) -> int:
    """Index of the event that opened the window `claim` answers."""
    for index in range(len(view.events) - 1, -1, -1):
        event = view.events[index]
        match claim.kind, event:
            case ("president_claim" | "chancellor_claim", ev.PolicyEnacted(chaos=False)):
                return index
            case ("president_claim" | "chancellor_claim", ev.VetoReplied(agreed=True)):
                return index
            case ("peek_claim", ev.PolicyPeeked()):
                return index
            case ("investigation_claim", ev.InvestigationResult()):
                return index
            case _:
                pass
    return 0


def _table_moved_on(view: PlayerView, opened: int) -> bool:
    """Whether a nomination (or an election) came after the window opened."""
    return any(
        isinstance(e, ev.ChancellorNominated | ev.ElectionResult) for e in view.events[opened:]
    )
