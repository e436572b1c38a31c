"""The claim windows of one game: which seats may say what they saw, and which have.

After a legislative session, a policy peek or an investigation, the seats involved may
claim (optional, and they may lie). A `GameSession` offers those windows between two
decisions (`bot.claims_round`): AI seats claim at once, humans get a prompt for a short
window. This keeps the bookkeeping: the windows the last decision opened and not yet
offered (`pending`), the humans whose window is open now (`open_seats`, until
`deadline`), and the seats whose windows of decision `turn` are over (`closed`: claimed,
said nothing or timed out), which is stored so that a restart does not offer them again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.claims import OpenClaims


@dataclass(slots=True)
class ClaimWindows:
    """The claim windows of a game's current decision (see the module docstring)."""

    turn: int  # the decision `closed` belongs to
    pending: set[int] = field(default_factory=set)  # opened, not offered yet
    closed: set[int] = field(default_factory=set)  # over, for decision `turn`
    open_seats: set[int] = field(default_factory=set)  # humans whose prompt is open now
    deadline: float | None = None  # when the open window closes (None: no limit)

    def opened(self, before: OpenClaims, after: OpenClaims) -> None:
        """An action moved the open claims from `before` to `after`: note new windows."""
        self.pending |= new_claim_windows(before, after)

    def take_pending(self) -> list[int]:
        """The windows to offer now, in seat order (no longer pending)."""
        seats = sorted(self.pending)
        self.pending.clear()
        return seats

    def open(self, humans: Iterable[int], deadline: float | None) -> None:
        """Humans' claim prompts are open until `deadline`."""
        self.open_seats, self.deadline = set(humans), deadline

    def shut(self) -> None:
        """The humans' window is over."""
        self.open_seats, self.deadline = set(), None

    def close(self, turn: int, seats: Iterable[int]) -> None:
        """The windows of `seats` for decision `turn` are over."""
        if self.turn != turn:
            self.turn, self.closed = turn, set()
        self.closed.update(seats)

    def state(self) -> dict[str, Any]:
        """The stored part (JSON-ready)."""
        return {"turn": self.turn, "closed": sorted(self.closed)}


def closed_at(state: Mapping[str, Any], turn: int, players: int) -> set[int]:
    """The seats whose windows of decision `turn` a stored `ClaimWindows.state()` says
    are over; anything that does not fit the game is dropped."""
    claims = state.get("claims")
    if not isinstance(claims, dict) or claims.get("turn") != turn:
        return set()
    seats = claims.get("closed")
    if not isinstance(seats, list):
        return set()
    return {s for s in seats if type(s) is int and 0 <= s < players}


def new_claim_windows(before: OpenClaims, after: OpenClaims) -> set[int]:
    """Seats for which a claim window opened between two states of the open claims."""
    seats = set()
    for name in ("president", "chancellor", "peek"):
        seat = getattr(after, name)
        if seat is not None and seat != getattr(before, name):
            seats.add(seat)
    if after.investigation is not None and after.investigation != before.investigation:
        seats.add(after.investigation[0])
    return seats
