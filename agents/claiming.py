"""What a seat saw, and what it chooses to claim about it.

Claims are optional public talk (`engine.claims`). A Liberal has every reason to tell
the truth; a Fascist (or Hitler) lies when a lie covers a Fascist policy or frames a
Liberal. These helpers read the seat's private events from its view and return claims
from `view.legal_claims` only. The Belief agent speaks through them and the
belief-ISMCTS agent can reuse them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import (
    ChancellorClaim,
    Claim,
    InvestigationClaim,
    Party,
    PeekClaim,
    PlayerView,
    Policy,
    PresidentClaim,
    Role,
)
from engine import events as ev

L, F = Policy.LIBERAL, Policy.FASCIST


def tiles(liberal: int, size: int) -> tuple[Policy, ...]:
    """`size` tiles, `liberal` of them Liberal, Liberal first (the claims' canonical order)."""
    return (L,) * liberal + (F,) * (size - liberal)


def liberal_count(policies: tuple[Policy, ...]) -> int:
    """Liberal tiles among `policies`."""
    return sum(1 for t in policies if t is L)


@dataclass(frozen=True, slots=True)
class Seen:
    """What the seat privately saw that an open claim window is about (None if unseen)."""

    drew: int | None = None  # Liberal tiles among the three drawn as president
    passed: int | None = None  # Liberal tiles passed on as president
    received: int | None = None  # Liberal tiles received as chancellor
    enacted: Policy | None = None  # what the last session enacted (None: vetoed or none)
    peeked: int | None = None  # Liberal tiles among the three peeked
    investigated: tuple[int, Party] | None = None  # (target, party seen)


def seen(view: PlayerView) -> Seen:
    """Read the seat's last draw, hand, peek and investigation result from its view."""
    seat = view.seat
    drew = passed = received = peeked = None
    enacted: Policy | None = None
    investigated: tuple[int, Party] | None = None
    discard_after_draw: Policy | None = None
    for event in view.events:
        match event:
            case ev.PoliciesDrawn(seat=s, tiles=t) if s == seat:
                drew, passed, discard_after_draw = liberal_count(t), None, None
                enacted = None
            case ev.PolicyDiscarded(seat=s, policy=policy) if s == seat:
                if drew is not None and passed is None and discard_after_draw is None:
                    discard_after_draw = policy
                    passed = drew - (policy is L)
            case ev.PoliciesReceived(seat=s, tiles=t) if s == seat:
                received, enacted = liberal_count(t), None
            case ev.PolicyEnacted(chaos=False, policy=policy):
                enacted = policy
            case ev.PolicyPeeked(seat=s, tiles=t) if s == seat:
                peeked = liberal_count(t)
            case ev.InvestigationResult(seat=s, target=target, party=party) if s == seat:
                investigated = (target, party)
            case _:
                pass
    return Seen(drew, passed, received, enacted, peeked, investigated)


def truthful_claims(view: PlayerView) -> list[Claim]:
    """The truthful claim for each window open to the seat (every one is legal)."""
    info = seen(view)
    out: list[Claim] = []
    for claim in view.legal_claims:
        match claim:
            case PresidentClaim() if info.drew is not None and info.passed is not None:
                truth: Claim = PresidentClaim(
                    claim.seat, tiles(info.drew, 3), tiles(info.passed, 2)
                )
            case ChancellorClaim() if info.received is not None:
                truth = ChancellorClaim(claim.seat, tiles(info.received, 2))
            case PeekClaim() if info.peeked is not None:
                truth = PeekClaim(claim.seat, tiles(info.peeked, 3))
            case InvestigationClaim() if info.investigated is not None:
                truth = InvestigationClaim(claim.seat, *info.investigated)
            case _:
                continue
        if truth in view.legal_claims and truth not in out:
            out.append(truth)
    return out


def _teammate(view: PlayerView, seat: int | None) -> bool:
    """Whether the seat knows `seat` is on the Fascist team (Hitler at 7+ knows nobody)."""
    if seat is None or seat == view.seat:
        return False
    role = view.known_roles[seat]
    return role is not None and role is not Role.LIBERAL


def _last_government(view: PlayerView) -> tuple[int | None, int | None]:
    for event in reversed(view.events):
        if isinstance(event, ev.ElectionResult) and event.elected:
            return event.president, event.chancellor
    return None, None


def fascist_claim(view: PlayerView, rng: random.Random) -> Claim | None:
    """A Fascist's (or Hitler's) claim: a covering lie or a framing one when useful.

    - President after a Fascist policy: with a teammate chancellor, both say the deck
      was all Fascist; having discarded a Liberal to force a Fascist policy, claim "drew
      three Fascists"; now and then frame a Liberal chancellor ("I passed a Liberal").
    - Chancellor who enacted Fascist from Liberal+Fascist: "I received two Fascists".
    - Peek: sometimes report one Liberal fewer. Investigation: clear a teammate, and
      sometimes call a Liberal Fascist.
    Otherwise the truth (lies that fit nothing only out a Fascist).
    """
    info = seen(view)
    truths = truthful_claims(view)
    _, chancellor = _last_government(view)
    options: list[Claim] = []
    for truth in truths:
        lie: Claim | None = None
        match truth:
            case PresidentClaim(seat=seat) if info.drew is not None and info.passed is not None:
                if info.enacted is F:
                    if _teammate(view, chancellor) or (info.passed == 0 and info.drew > 0):
                        if rng.random() < 0.85:
                            lie = PresidentClaim(seat, tiles(0, 3), tiles(0, 2))
                    elif info.passed == 0 and rng.random() < 0.3:
                        lie = PresidentClaim(seat, tiles(1, 3), tiles(1, 2))  # frame
            case ChancellorClaim(seat=seat) if info.received == 1 and info.enacted is F:
                if rng.random() < 0.85:
                    lie = ChancellorClaim(seat, tiles(0, 2))
            case PeekClaim(seat=seat) if info.peeked:
                if rng.random() < 0.5:
                    lie = PeekClaim(seat, tiles(info.peeked - 1, 3))
            case InvestigationClaim(seat=seat, target=target, party=party):
                if party is Party.FASCIST and (_teammate(view, target) or rng.random() < 0.6):
                    lie = InvestigationClaim(seat, target, Party.LIBERAL)
                elif party is Party.LIBERAL and rng.random() < 0.4:
                    lie = InvestigationClaim(seat, target, Party.FASCIST)
        options.append(lie if lie is not None and lie in view.legal_claims else truth)
    return options[0] if options else None


def claim_for(view: PlayerView, rng: random.Random) -> Claim | None:
    """The claim a heuristic player makes now: the truth as a Liberal, else `fascist_claim`."""
    if view.role is Role.LIBERAL:
        truths = truthful_claims(view)
        return truths[0] if truths else None
    return fascist_claim(view, rng)
