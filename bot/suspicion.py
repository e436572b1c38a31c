"""How suspicion of each seat evolved, as the reveal shows it.

The game session records a snapshot of a belief's marginals after every legislative
session (one track per AI player, plus the table's observer); the renderers draw them.
Nothing here may be shown before the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.belief import Marginals  # per seat: P(Liberal), P(Fascist), P(Hitler)

__all__ = ["Marginals", "SuspicionSnapshot", "SuspicionTrack"]


@dataclass(frozen=True, slots=True)
class SuspicionSnapshot:
    """One moment of a belief, e.g. label "Session 3"."""

    label: str
    marginals: Marginals


@dataclass(slots=True)
class SuspicionTrack:
    """Every snapshot of one observer: "The table" or an AI player's name and seat."""

    observer: str
    seat: int | None  # None for the table's observer (public information only)
    snapshots: list[SuspicionSnapshot] = field(default_factory=list)
