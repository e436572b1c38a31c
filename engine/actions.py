"""Typed player decisions. Each action names the seat that takes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .errors import MalformedAction, RecordError
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


# --- well-formedness: the engine's one door check ------------------------------------
# Dataclasses do not enforce field types, and wrong values slip through the rules
# unnoticed: the string 'nein' is truthy (a Ja), True == 1 (a seat), and "F" equals
# Policy.FASCIST (a StrEnum), so a str would end up in the piles. `Game.apply` therefore
# runs `check_well_formed` on every action before any rule. Types are tested exactly
# (`type(v) is int`): bool is an int subclass, and nothing else belongs in a seat field.


def _is_seat_number(value: object) -> bool:
    return type(value) is int


def _is_bool(value: object) -> bool:
    return type(value) is bool


def _is_policy(value: object) -> bool:
    return type(value) is Policy


def _is_party(value: object) -> bool:
    return type(value) is Party


def _is_tiles(value: object) -> bool:
    return type(value) is tuple and all(type(tile) is Policy for tile in value)


# Field annotation (a string: annotations are postponed) -> (test, what it must be).
_TYPE_TESTS: dict[str, tuple[Callable[[object], bool], str]] = {
    "int": (_is_seat_number, "a seat number"),
    "bool": (_is_bool, "true or false"),
    "Policy": (_is_policy, "a Liberal or Fascist policy"),
    "Party": (_is_party, "the Liberal or Fascist party"),
    "tuple[Policy, ...]": (_is_tiles, "a list of Liberal and Fascist policies"),
}

_FIELD_WORDS = {
    "seat": "The seat",
    "chancellor": "The nominee",
    "target": "The target",
    "ja": "A vote (Ja or Nein)",
    "agree": "A veto reply",
    "policy": "The policy",
    "drew": "The tiles drawn",
    "passed": "The tiles passed",
    "received": "The tiles received",
    "tiles": "The tiles seen",
    "party": "The party",
}

# What a wrong value is, in words (never its repr: it may be anything, even huge).
_KIND_WORDS: dict[type, str] = {
    bool: "true/false",
    int: "a number",
    float: "a decimal number",
    str: "text",
    bytes: "bytes",
    type(None): "an empty value",
    list: "a list",
    tuple: "a list",
    dict: "an object",
    Policy: "a policy",
    Party: "a party",
}

_Check = tuple[str, Callable[[object], bool], str]


def _checks_of(cls: type[Action]) -> tuple[_Check, ...]:
    """One (field, test, message start) per field; a KeyError here means a new field type
    needs a test in `_TYPE_TESTS`."""
    out = []
    for f in fields(cls):
        test, want = _TYPE_TESTS[str(f.type)]
        out.append((f.name, test, f"{_FIELD_WORDS.get(f.name, f.name)} must be {want}"))
    return tuple(out)


_FIELD_CHECKS: dict[type, tuple[_Check, ...]] = {
    cls: _checks_of(cls) for cls in ACTION_TYPES.values()
}
_MISSING = object()


def check_well_formed(action: object, players: int) -> None:
    """Raise `MalformedAction` unless `action` is one of the engine's actions, every field
    has its declared type, and the acting seat exists in a game of `players`."""
    checks = _FIELD_CHECKS.get(type(action))  # exact classes only: no foreign subclasses
    if checks is None or not isinstance(action, Action):
        raise MalformedAction("That is not a game action.")
    for name, test, message in checks:
        value = getattr(action, name, _MISSING)
        if not test(value):
            raise MalformedAction(f"{message}, not {_KIND_WORDS.get(type(value), 'that')}.")
    if not 0 <= action.seat < players:
        raise MalformedAction(f"There is no seat {action.seat}.")
