"""Typed player decisions. Each action names the seat that takes it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .errors import RecordError
from .roles import Policy


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
            out[f.name] = value.value if isinstance(value, Policy) else value
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Action:
        """Inverse of `to_dict`; raises `RecordError` on anything unknown."""
        try:
            cls = ACTION_TYPES[data["type"]]
            kwargs = {f.name: data[f.name] for f in fields(cls)}
        except (KeyError, TypeError) as exc:
            raise RecordError(f"Not an action: {data!r}") from exc
        if "policy" in kwargs:
            kwargs["policy"] = Policy(kwargs["policy"])
        return cls(**kwargs)


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
    )
}
