"""SO-ISMCTS: Single-Observer Information Set Monte Carlo Tree Search, the paper's baseline.

`SOISMCTSAgent` configures the search driver (`agents.search_agent.SearchAgent`) with
the paper's parts: determinizations uniform among the hidden states the searcher's hard
knowledge allows (`make_sampler`, see `agents.determinize`), SO-ISMCTS's tree of every
seat's decisions (`agents.so_tree.SOTree`) and uniformly random playouts (`playout`,
`FastGame.play_random`). The final choice is the root move with the most visits; with
one distinct legal move the agent answers at once. A subclass may swap the sampler or
the playout policy and keep the rest.
"""

from __future__ import annotations

import random
from typing import ClassVar

from engine import PlayerView, WinReason
from engine.fastsim import FastGame

from .search import TreePolicy
from .search_agent import SearchAgent
from .so_tree import SOTree


class SOISMCTSAgent(SearchAgent):
    """SO-ISMCTS with uniform determinizations and uniformly random playouts.

    `exploration` is UCB1's c (rewards are 0 or 1). The budget's iterations default to
    10,000; with `seconds` too, the search stops at whichever limit comes first.
    `variant` is only needed for custom decks (views name the variant, not its deck).
    """

    name: ClassVar[str] = "ismcts"

    def playout(self, game: FastGame, rng: random.Random) -> WinReason:
        """Finish `game` from a leaf and say how it ended (uniformly random players)."""
        return game.play_random(rng)

    def tree_policy(self, view: PlayerView) -> TreePolicy:
        """Every seat's decisions in one tree, finished by `playout`."""
        return SOTree(self.exploration, self.playout)
