"""Random: uniform among the distinct legal actions of the seat's view."""

from __future__ import annotations

import random

from engine import Action, PlayerView


class RandomAgent:
    """The baseline of the SO-ISMCTS paper: every distinct legal action equally likely."""

    name = "random"

    def __init__(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self.rng = random.Random(seed)

    def act(self, view: PlayerView) -> Action:
        if not view.legal_actions:
            raise ValueError(f"Seat {self.seat} has nothing to decide now.")
        return self.rng.choice(view.legal_actions)
