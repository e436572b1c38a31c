"""The agent protocol: a seat's decision from that seat's view, never the full state."""

from __future__ import annotations

from typing import Protocol

from engine import Action, PlayerView


class Agent(Protocol):
    """An AI player for one seat."""

    seat: int

    def act(self, view: PlayerView) -> Action:
        """Return one of `view.legal_actions`."""
        ...
