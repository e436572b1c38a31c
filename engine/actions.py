"""Typed player decisions. Each action names the seat that takes it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .errors import RecordError
from .roles import Party, Policy


@dataclass(frozen=True, slots=True)
class Action:
    """A decision by one seat. `kind` is the stable name used in records."""

    kind: ClassVar[str] = "action"
    seat: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the kind plus every field."""
        out: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):  # a claim's tiles, e.g. "LFF"
                value = "".join(p.value for p in value)
            out[f.name] = value.value if isinstance(value, Policy | Party) else value
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Action:
        """Inverse of `to_dict`; raises `RecordError` on anything unknown."""
        try:
            cls = ACTION_TYPES[data["type"]]
            kwargs = {f.name: data[f.name] for f in fields(cls)}
        except (KeyError, TypeError) as exc:
            raise RecordError(f"Not an action: {data!r}") from exc
        try:
            if "policy" in kwargs:
                kwargs["policy"] = Policy(kwargs["policy"])
            if "party" in kwargs:
                kwargs["party"] = Party(kwargs["party"])
            for name in _TILE_FIELDS.intersection(kwargs):
                kwargs[name] = tiles_from_letters(kwargs[name])
        except (ValueError, TypeError) as exc:
            raise RecordError(f"Not an action: {data!r}") from exc
        return cls(**kwargs)


def tiles_from_letters(letters: str) -> tuple[Policy, ...]:
    """Tiles from their letters, e.g. "LFF" (raises ValueError on anything else)."""
    return tuple(Policy(letter) for letter in letters)


@dataclass(frozen=True, slots=True)
class Nominate(Action):
    """The presidential candidate nominates a chancellor."""

    kind: ClassVar[str] = "nominate"
    chancellor: int


@dataclass(frozen=True, slots=True)
class Vote(Action):
    """A living player's ballot on the proposed government (Ja is True)."""

    kind: ClassVar[str] = "vote"
    ja: bool


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """The president discards one of the three drawn tiles."""

    kind: ClassVar[str] = "discard"
    policy: Policy


@dataclass(frozen=True, slots=True)
class Enact(Action):
    """The chancellor enacts one of the two tiles (the other is discarded)."""

    kind: ClassVar[str] = "enact"
    policy: Policy


@dataclass(frozen=True, slots=True)
class ProposeVeto(Action):
    """The chancellor proposes to veto the agenda (veto power unlocked only)."""

    kind: ClassVar[str] = "propose_veto"


@dataclass(frozen=True, slots=True)
class VetoReply(Action):
    """The president agrees to or refuses the proposed veto."""

    kind: ClassVar[str] = "veto_reply"
    agree: bool


@dataclass(frozen=True, slots=True)
class Investigate(Action):
    """The president investigates a player's party membership."""

    kind: ClassVar[str] = "investigate"
    target: int


@dataclass(frozen=True, slots=True)
class CallSpecialElection(Action):
    """The president chooses the next presidential candidate."""

    kind: ClassVar[str] = "special_election"
    target: int


@dataclass(frozen=True, slots=True)
class Execute(Action):
    """The president executes a player."""

    kind: ClassVar[str] = "execute"
    target: int


# --- claims: public talk, rule-neutral -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Claim(Action):
    """What a player says they saw. Claims never change the game; they may be lies.

    Claims are optional and absent from `Game.legal_actions`; `Game.legal_claims(seat)`
    lists the ones a seat may make now. Tiles are given as a tuple of policies.
    """

    kind: ClassVar[str] = "claim"


@dataclass(frozen=True, slots=True)
class PresidentClaim(Claim):
    """The president of the last session says what they drew and what they passed."""

    kind: ClassVar[str] = "president_claim"
    drew: tuple[Policy, ...]
    passed: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class ChancellorClaim(Claim):
    """The chancellor of the last session says what they received."""

    kind: ClassVar[str] = "chancellor_claim"
    received: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class PeekClaim(Claim):
    """The president says what the policy peek showed (top of the pile first)."""

    kind: ClassVar[str] = "peek_claim"
    tiles: tuple[Policy, ...]


@dataclass(frozen=True, slots=True)
class InvestigationClaim(Claim):
    """The president says which party the investigated player belongs to."""

    kind: ClassVar[str] = "investigation_claim"
    target: int
    party: Party


_TILE_FIELDS = frozenset(("drew", "passed", "received", "tiles"))

ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        Nominate,
        Vote,
        Discard,
        Enact,
        ProposeVeto,
        VetoReply,
        Investigate,
        CallSpecialElection,
        Execute,
        PresidentClaim,
        ChancellorClaim,
        PeekClaim,
        InvestigationClaim,
    )
}
