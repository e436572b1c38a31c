"""Selfish: the SO-ISMCTS paper's rule agent.

Enacts its own party's policy and discards the other party's whenever it can; every
other decision is uniformly random. Hitler plays for the Fascists.
"""

from __future__ import annotations

import random

from engine import Action, Discard, Enact, PlayerView, Policy, Role

from .base import AgentBase


class SelfishAgent(AgentBase):
    """Policy choices for its own party, random everything else."""

    name = "selfish"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        own = Policy.LIBERAL if view.role is Role.LIBERAL else Policy.FASCIST
        for action in view.legal_actions:
            if isinstance(action, Discard) and action.policy is not own:
                return action
            if isinstance(action, Enact) and action.policy is own:
                return action
        return rng.choice(view.legal_actions)
