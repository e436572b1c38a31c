"""Per-phase timers and the absent-player policy of one game.

A lobby sets them per game (they are stored with the game's options); terminal play
turns them off. When a human's timer runs out an agent decides for that seat once; after
`max_expiries` expiries in a row the seat is handed to an agent until the player is back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine import Phase

_PHASE_TIMER = {
    Phase.NOMINATE: "nominate",
    Phase.VOTE: "vote",
    Phase.PRESIDENT_DISCARD: "policy",
    Phase.CHANCELLOR_ENACT: "policy",
    Phase.VETO_REPLY: "policy",
    Phase.INVESTIGATE: "power",
    Phase.SPECIAL_ELECTION: "power",
    Phase.EXECUTE: "power",
}


@dataclass(frozen=True, slots=True)
class Timers:
    """Seconds a human has per decision (None: no limit), and what absence leads to."""

    nominate: float | None = 120.0
    vote: float | None = 90.0
    policy: float | None = 90.0  # president's discard, chancellor's enact, veto reply
    power: float | None = 120.0  # investigate, special election, execute
    claim: float | None = 20.0  # the optional claim window after a session, peek or probe
    max_expiries: int = 2  # expiries in a row before an agent takes the seat for good
    grace: float = 30.0  # a resumed decision gets at least this much (its prompt is shown anew)

    @classmethod
    def off(cls) -> Timers:
        """No time limits (terminal play): the game waits for every human."""
        return cls(nominate=None, vote=None, policy=None, power=None, claim=None)

    def for_phase(self, phase: Phase) -> float | None:
        """The time a human has to decide in `phase` (None: no limit)."""
        name = _PHASE_TIMER.get(phase)
        if name is None:
            return None
        limit: float | None = getattr(self, name)
        return limit

    def scaled(self, factor: float) -> Timers:
        """Every limit multiplied by `factor` (tests use tiny timers)."""

        def scale(value: float | None) -> float | None:
            return None if value is None else value * factor

        return replace(
            self,
            nominate=scale(self.nominate),
            vote=scale(self.vote),
            policy=scale(self.policy),
            power=scale(self.power),
            claim=scale(self.claim),
            grace=self.grace * factor,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, stored with the game's options."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Timers:
        """Inverse of `to_dict`; unknown keys are ignored, missing ones take the default."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for name, value in values.items():
            if name == "max_expiries":
                if not isinstance(value, int) or value < 1:
                    raise ValueError(f"max_expiries must be a positive integer, not {value!r}.")
            elif value is not None and (not isinstance(value, int | float) or value < 0):
                raise ValueError(f"Timer {name} must be a non-negative number, not {value!r}.")
        return cls(**values)
