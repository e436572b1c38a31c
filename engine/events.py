"""Events: what an action caused, each with the audience allowed to see it.

A front-end routes events by `audience` alone (None means the whole table), so it never
needs to know which facts are secret. Private events name the seat that learns them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, ClassVar

from .roles import Party, Policy, Power, Role, WinReason


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in the game. Public unless it is a `PrivateEvent`."""

    kind: ClassVar[str] = "event"

    @property
    def audience(self) -> frozenset[int] | None:
        """Seats allowed to see this event while the game runs; None means everyone."""
        return None

    def visible_to(self, seat: int | None) -> bool:
        """Whether `seat` (None: a spectator) may see this event during the game."""
        audience = self.audience
        return audience is None or (seat is not None and seat in audience)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class PrivateEvent(Event):
    """An event only `seat` may see until the game ends."""

    seat: int

    @property
    def audience(self) -> frozenset[int] | None:
        return frozenset((self.seat,))


# --- public -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """The table is set: player count, variant, Fascist policies already on the board."""

    kind: ClassVar[str] = "game_started"
    players: int
    variant: str
    fascist_policies: int


@dataclass(frozen=True, slots=True)
class PresidentialCandidate(Event):
    """The candidacy moves to a seat, who must now nominate a chancellor."""

    kind: ClassVar[str] = "presidential_candidate"
    president: int


@dataclass(frozen=True, slots=True)
class ChancellorNominated(Event):
    """A government is proposed; the table votes next."""

    kind: ClassVar[str] = "chancellor_nominated"
    president: int
    chancellor: int


@dataclass(frozen=True, slots=True)
class VoteCast(Event):
    """A player has voted (or changed their vote); the ballot stays hidden."""

    kind: ClassVar[str] = "vote_cast"
    voter: int
    changed: bool


@dataclass(frozen=True, slots=True)
class ElectionResult(Event):
    """Every ballot revealed at once. `votes[s]` is None for a dead seat."""

    kind: ClassVar[str] = "election_result"
    president: int
    chancellor: int
    votes: tuple[bool | None, ...]
    elected: bool


@dataclass(frozen=True, slots=True)
class ElectionTrackerAdvanced(Event):
    """A failed election or an agreed veto moved the tracker."""

    kind: ClassVar[str] = "election_tracker_advanced"
    election_tracker: int


@dataclass(frozen=True, slots=True)
class ChancellorNotHitler(Event):
    """Elected after three Fascist policies with the game going on: not Hitler."""

    kind: ClassVar[str] = "chancellor_not_hitler"
    chancellor: int


@dataclass(frozen=True, slots=True)
class PolicyHandPassed(Event):
    """The president discarded one tile and passed two to the chancellor."""

    kind: ClassVar[str] = "policy_hand_passed"
    president: int
    chancellor: int


@dataclass(frozen=True, slots=True)
class VetoProposed(Event):
    """The chancellor asks to veto this agenda."""

    kind: ClassVar[str] = "veto_proposed"
    chancellor: int


@dataclass(frozen=True, slots=True)
class VetoReplied(Event):
    """The president agrees to the veto (both tiles discarded) or refuses it."""

    kind: ClassVar[str] = "veto_replied"
    president: int
    agreed: bool


@dataclass(frozen=True, slots=True)
class PolicyEnacted(Event):
    """A policy goes on the board, by a government or by chaos (`chaos`)."""

    kind: ClassVar[str] = "policy_enacted"
    policy: Policy
    chaos: bool
    liberal_policies: int
    fascist_policies: int


@dataclass(frozen=True, slots=True)
class TermLimitsCleared(Event):
    """Chaos: every term limit is forgotten."""

    kind: ClassVar[str] = "term_limits_cleared"


@dataclass(frozen=True, slots=True)
class DeckReshuffled(Event):
    """Draw and discard piles shuffled together into a new draw pile."""

    kind: ClassVar[str] = "deck_reshuffled"
    draw_pile: int


@dataclass(frozen=True, slots=True)
class PowerGranted(Event):
    """The president gains a power and (except a peek) must now use it."""

    kind: ClassVar[str] = "power_granted"
    president: int
    power: Power


@dataclass(frozen=True, slots=True)
class PowerSkipped(Event):
    """A power with no legal target (possible only with custom tracks) lapses."""

    kind: ClassVar[str] = "power_skipped"
    president: int
    power: Power


@dataclass(frozen=True, slots=True)
class PlayerInvestigated(Event):
    """The target of a loyalty investigation (the result is private)."""

    kind: ClassVar[str] = "player_investigated"
    president: int
    target: int


@dataclass(frozen=True, slots=True)
class SpecialElectionCalled(Event):
    """The president picked the next presidential candidate."""

    kind: ClassVar[str] = "special_election_called"
    president: int
    target: int


@dataclass(frozen=True, slots=True)
class PlayerExecuted(Event):
    """The president executed a player (role stays secret unless it was Hitler)."""

    kind: ClassVar[str] = "player_executed"
    president: int
    target: int


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over; every role is revealed."""

    kind: ClassVar[str] = "game_ended"
    winner: Party
    reason: WinReason
    roles: tuple[Role, ...]


@dataclass(frozen=True, slots=True)
class PresidentClaimed(Event):
    """The last session's president claims what they drew and passed (maybe a lie)."""

    kind: ClassVar[str] = "president_claimed"
    president: int
    drew: tuple[Policy, ...]
    passed: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class ChancellorClaimed(Event):
    """The last session's chancellor claims what they received (maybe a lie)."""

    kind: ClassVar[str] = "chancellor_claimed"
    chancellor: int
    received: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class PeekClaimed(Event):
    """The president claims what the policy peek showed (maybe a lie)."""

    kind: ClassVar[str] = "peek_claimed"
    president: int
    tiles: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class InvestigationClaimed(Event):
    """The president claims the investigated player's party (maybe a lie)."""

    kind: ClassVar[str] = "investigation_claimed"
    president: int
    target: int
    party: Party


# --- private ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoleDealt(PrivateEvent):
    """A seat's role and the roles it knows of others (team knowledge)."""

    kind: ClassVar[str] = "role_dealt"
    role: Role
    known: tuple[tuple[int, Role], ...]


@dataclass(frozen=True, slots=True)
class PoliciesDrawn(PrivateEvent):
    """The president's three tiles, top of the pile first."""

    kind: ClassVar[str] = "policies_drawn"
    tiles: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class PolicyDiscarded(PrivateEvent):
    """The tile this seat discarded face down."""

    kind: ClassVar[str] = "policy_discarded"
    policy: Policy


@dataclass(frozen=True, slots=True)
class PoliciesReceived(PrivateEvent):
    """The two tiles the chancellor received."""

    kind: ClassVar[str] = "policies_received"
    tiles: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class PolicyPeeked(PrivateEvent):
    """The top three tiles of the draw pile, seen by the president."""

    kind: ClassVar[str] = "policy_peeked"
    tiles: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class InvestigationResult(PrivateEvent):
    """The party of the investigated player, seen by the president."""

    kind: ClassVar[str] = "investigation_result"
    target: int
    party: Party
