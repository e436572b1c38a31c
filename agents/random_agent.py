"""Random: uniform among the distinct legal actions of the seat's view."""

from __future__ import annotations

import random

from engine import Action, PlayerView

from .base import AgentBase


class RandomAgent(AgentBase):
    """The baseline of the SO-ISMCTS paper: every distinct legal action equally likely."""

    name = "random"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        return rng.choice(view.legal_actions)
