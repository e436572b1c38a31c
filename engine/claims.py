"""Claims: which ones are open, which are allowed, and the public event each makes.

A claim is talk. The rules never depend on it, but the table reads it, so the engine
records claims (they are actions in the move stack and replay with the game) and
publishes them. A claim window opens when a seat learns something it may talk about:

- after a legislative session (a policy enacted or the agenda vetoed): the president
  may claim what they drew and passed, the chancellor what they received;
- after a policy peek, and after an investigation: the president may claim what they saw.

Each window allows one claim and closes when the next legislative session draws its
tiles, or when the game ends. A claim the public record already refutes (say, passing
two Fascist policies when a Liberal one was enacted) is rejected: it is not a lie
anyone could believe, only a mistake.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from . import events as ev
from .actions import ChancellorClaim, Claim, InvestigationClaim, PeekClaim, PresidentClaim
from .errors import IllegalClaim
from .roles import Party, Policy

_L, _F = Policy.LIBERAL, Policy.FASCIST
# Every multiset of three and of two tiles, Liberal first: the claims a front-end offers.
THREE_TILES: tuple[tuple[Policy, ...], ...] = (
    (_L, _L, _L),
    (_L, _L, _F),
    (_L, _F, _F),
    (_F, _F, _F),
)
TWO_TILES: tuple[tuple[Policy, ...], ...] = ((_L, _L), (_L, _F), (_F, _F))


def _word(policy: Policy) -> str:
    return "Liberal" if policy is _L else "Fascist"


@dataclass(frozen=True, slots=True)
class OpenClaims:
    """The claim windows open right now (immutable: a change makes a new value)."""

    president: int | None = None  # of the last legislative session
    chancellor: int | None = None
    enacted: Policy | None = None  # what that session enacted; None if it was vetoed
    peek: int | None = None  # the president who peeked
    investigation: tuple[int, int] | None = None  # (president, target)

    def with_session(self, president: int, chancellor: int, enacted: Policy | None) -> OpenClaims:
        """A session ended: both members of the government may claim."""
        return replace(self, president=president, chancellor=chancellor, enacted=enacted)

    def options(self, seat: int) -> list[Claim]:
        """Every claim `seat` may make now, tiles Liberal first."""
        out: list[Claim] = []
        if seat == self.president:
            for drew in THREE_TILES:
                for passed in TWO_TILES:
                    claim = PresidentClaim(seat, drew, passed)
                    if self._refutation(claim) is None:
                        out.append(claim)
        if seat == self.chancellor:
            out.extend(
                ChancellorClaim(seat, received)
                for received in TWO_TILES
                if self.enacted is None or self.enacted in received
            )
        if seat == self.peek:
            out.extend(PeekClaim(seat, tiles) for tiles in THREE_TILES)
        if self.investigation is not None and seat == self.investigation[0]:
            target = self.investigation[1]
            out.extend(InvestigationClaim(seat, target, party) for party in Party)
        return out

    def check(self, claim: Claim) -> None:
        """Raise `IllegalClaim` with a player-readable reason unless `claim` may be made."""
        seat = claim.seat
        match claim:
            case PresidentClaim():
                if seat != self.president:
                    raise IllegalClaim("Only the president of the last session can claim its draw.")
            case ChancellorClaim():
                if seat != self.chancellor:
                    raise IllegalClaim(
                        "Only the chancellor of the last session can claim what they received."
                    )
            case PeekClaim():
                if seat != self.peek:
                    raise IllegalClaim("Only the president who just peeked can claim the peek.")
            case InvestigationClaim():
                if self.investigation is None or seat != self.investigation[0]:
                    raise IllegalClaim(
                        "Only the president who just investigated can claim the result."
                    )
                if claim.target != self.investigation[1]:
                    raise IllegalClaim(
                        f"You investigated seat {self.investigation[1]}, not seat {claim.target}."
                    )
            case _:
                raise IllegalClaim(f"Unknown claim {claim!r}.")
        reason = self._refutation(claim)
        if reason is not None:
            raise IllegalClaim(reason)

    def without(self, claim: Claim) -> OpenClaims:
        """`claim` was made: its window closes (one claim per window)."""
        match claim:
            case PresidentClaim():
                return replace(self, president=None)
            case ChancellorClaim():
                return replace(self, chancellor=None)
            case PeekClaim():
                return replace(self, peek=None)
        return replace(self, investigation=None)

    def _refutation(self, claim: Claim) -> str | None:
        """Why the tiles of `claim` are impossible on the public record, or None."""
        match claim:
            case PresidentClaim(drew=drew, passed=passed):
                if len(drew) != 3 or len(passed) != 2:
                    return "A president draws three policies and passes two."
                if Counter(passed) - Counter(drew):
                    return "You can only pass policies you drew."
                if self.enacted is not None and self.enacted not in passed:
                    return (
                        f"A {_word(self.enacted)} policy was enacted, so you must have passed one."
                    )
            case ChancellorClaim(received=received):
                if len(received) != 2:
                    return "A chancellor receives two policies."
                if self.enacted is not None and self.enacted not in received:
                    return (
                        f"You enacted a {_word(self.enacted)} policy, so you must have "
                        "received one."
                    )
            case PeekClaim(tiles=tiles):
                if len(tiles) != 3:
                    return "A policy peek shows three policies."
        return None


def claim_event(claim: Claim) -> ev.Event:
    """The public event announcing `claim`."""
    match claim:
        case PresidentClaim(seat=seat, drew=drew, passed=passed):
            return ev.PresidentClaimed(seat, drew, passed)
        case ChancellorClaim(seat=seat, received=received):
            return ev.ChancellorClaimed(seat, received)
        case PeekClaim(seat=seat, tiles=tiles):
            return ev.PeekClaimed(seat, tiles)
        case InvestigationClaim(seat=seat, target=target, party=party):
            return ev.InvestigationClaimed(seat, target, party)
    raise IllegalClaim(f"Unknown claim {claim!r}.")
