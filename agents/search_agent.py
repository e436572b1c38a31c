"""The agent that decides by the search driver (`agents.search.Search`).

`SearchAgent` holds what every search agent shares: its options (UCB1's exploration
constant, the variant for custom decks), the budget's limits, answering a lone option
at once, and taking the most visited root move. A subclass is a configuration of the
driver: it gives the decision's determinization source (`make_sampler`) and tree policy
(`tree_policy`, which carries the playout policy), and may spend less on some decisions
(`iteration_limit`) or choose among the searched moves itself (`decide`).
"""

from __future__ import annotations

import random

from engine import Action, PlayerView, Variant

from .base import AgentBase, Budget
from .determinize import Sampler, UniformSampler
from .search import Search, SearchResult, TreePolicy

DEFAULT_ITERATIONS = 10_000  # the paper's setting
DEFAULT_EXPLORATION = 0.7  # UCB1's c for rewards in [0, 1]


class SearchAgent(AgentBase):
    """A seat that searches each decision within its budget.

    `exploration` is UCB1's c (rewards are 0 or 1). The budget's iterations default to
    10,000; with `seconds` too, the search stops at whichever limit comes first.
    `variant` is only needed for custom decks (views name the variant, not its deck).
    """

    def __init__(
        self,
        seat: int,
        seed: int | None = None,
        budget: Budget | None = None,
        *,
        exploration: float = DEFAULT_EXPLORATION,
        variant: Variant | None = None,
    ) -> None:
        super().__init__(seat, seed, budget)
        if exploration < 0:
            raise ValueError("The exploration constant cannot be negative.")
        self.exploration = exploration
        self.variant = variant

    # --- the driver's parts, per decision ---------------------------------------------

    def make_sampler(self, view: PlayerView) -> Sampler:
        """The determinization source for this decision (uniform by default)."""
        return UniformSampler(view, self.variant)

    def tree_policy(self, view: PlayerView) -> TreePolicy:
        """The tree policy for this decision (with its playout policy)."""
        raise NotImplementedError

    # --- the agent --------------------------------------------------------------------

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """One distinct option: take it. Otherwise search and take the most visited."""
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        return self.search(view, rng).best_action()

    def iteration_limit(self, view: PlayerView | None = None) -> tuple[int | None, float | None]:
        """(iterations, seconds) from the budget; iterations default to 10,000.

        `view` is the decision's (a subclass may spend less on some decisions)."""
        iterations, seconds = self.budget.iterations, self.budget.seconds
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        return iterations, seconds

    def search(self, view: PlayerView, rng: random.Random) -> SearchResult:
        """Search `view`'s decision within the budget; return the tree."""
        if view.seat != self.seat or not view.legal_actions:
            raise ValueError(f"Seat {self.seat} has nothing to decide in this view.")
        iterations, seconds = self.iteration_limit(view)
        # Configured per decision (bound methods, so a subclass's overrides count); not
        # kept, so the agent holds no reference cycle through its own driver.
        driver = Search(self.make_sampler, self.tree_policy)
        result = driver.run(view, rng, iterations, seconds, self.budget.deadline)
        self.iterations = result.iterations
        return result
