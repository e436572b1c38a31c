"""The one search driver: a decision's limits, deadline and collector pause around a tree
policy, and the tree it hands back.

Every search agent decides the same way: from the view, build the decision's
determinization source and tree policy; run the policy's iterations from a root node
of the searcher's (the seat deciding) until the iteration limit or the deadline; return
the tree (`SearchResult`). What differs between agents is injected, once per decision
and never per iteration (the policies' loops keep what they use in locals):

- the determinization source, a `SamplerFactory` (view -> `agents.determinize.Sampler`):
  uniform among the hidden states the searcher's hard knowledge allows
  (`UniformSampler`), or drawn from its posterior (`agents.belief_ismcts.BeliefSampler`);
- the tree policy, a `TreeFactory` (view -> `TreePolicy`): every seat's decisions in one
  tree, chosen by UCB1 (`agents.so_tree.SOTree`, Single-Observer ISMCTS), or only the
  searcher's own decisions while everyone else follows an opponent model
  (`agents.model_search.ModelTree`);
- the playout policy, a `Playout` the tree policy finishes games with: `SOTree` takes one
  (uniformly random, `FastGame.play_random`, by default); `ModelTree` finishes with the
  opponent model's players (`agents.playouts.play_model`), the ones that moved in its tree.

`agents.search_agent.SearchAgent` is the agent that runs the driver; `agents.ismcts` and
`agents.belief_ismcts` configure it.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from engine import Action, PlayerView, WinReason
from engine.fastsim import FastGame, move_of

from .determinize import Sampler
from .tree import Node

# The least a search runs once set up, whatever its deadline: about 400 iterations of a
# 10-player belief-ISMCTS decision (an answer is then up to this late; the service allows
# for it in its hang grace).
MIN_SEARCH_S = 0.02

# Finishes a game from a leaf and says how it ended.
Playout = Callable[[FastGame, random.Random], WinReason]
# The determinization source for one decision.
SamplerFactory = Callable[[PlayerView], Sampler]


class TreePolicy(Protocol):
    """How a search grows its tree: descent, expansion, playout and backup."""

    def iterate(
        self,
        root: Node,
        sampler: Sampler,
        rng: random.Random,
        iterations: int | None,
        deadline: float | None,
    ) -> int:
        """Run iterations from `root` (the searcher's decision), each on a determinization
        from `sampler`, until `iterations` ran or `time.perf_counter()` passed `deadline`
        (None: no such limit); return how many ran."""
        ...


# The tree policy for one decision.
TreeFactory = Callable[[PlayerView], TreePolicy]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off Python's cycle collector while a search runs.

    A search allocates hundreds of thousands of small nodes and games, and each burst of
    allocations made the collector walk the whole growing tree again: a quarter of a
    Multiple-Observer ISMCTS search's time at 10 players (commit 13e9ba3). Nothing a
    search builds is a reference cycle, so reference counting frees it all the same;
    a cycle made elsewhere meanwhile waits for the next collection.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A finished search: its tree, the iterations run and the time taken."""

    root: Node
    iterations: int
    seconds: float
    moves: tuple[int, ...]  # the root's legal moves
    actions: tuple[Action, ...]  # the same, as the view's legal actions

    def best_move(self) -> int:
        """The root move with the most visits (ties: more wins, then listing order)."""
        root = self.root
        return max(self.moves, key=lambda m: (root.visits[m], root.wins[m]))

    def best_action(self) -> Action:
        """`best_move` as one of the view's legal actions."""
        return self.actions[self.moves.index(self.best_move())]


@dataclass(frozen=True, slots=True)
class Search:
    """The driver, configured: where determinizations come from and how the tree grows."""

    sampler: SamplerFactory
    tree: TreeFactory

    def run(
        self,
        view: PlayerView,
        rng: random.Random,
        iterations: int | None,
        seconds: float | None,
        due: float | None = None,
    ) -> SearchResult:
        """Search `view`'s decision for its seat: at most `iterations` iterations and
        `seconds` seconds (None: no such limit), finished by `due` (a `time.monotonic()`
        time) if given. The factories run inside the timed window: building a sampler
        is part of a decision's cost."""
        if view.seat is None or not view.legal_actions:
            raise ValueError("This view has no decision to search.")
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        if due is not None:  # the answer is due then, whatever the seconds allow
            at = start + (due - time.monotonic())
            deadline = at if deadline is None else min(deadline, at)
        sampler = self.sampler(view)
        tree = self.tree(view)
        actions = tuple(view.legal_actions)
        moves = tuple(move_of(a) for a in actions)
        # Move codes are seats, tiles (0, 1) and the veto (2): at least 3 wide.
        root = Node(view.seat, max(view.players, 3))
        if deadline is not None:
            # However late it starts (its beliefs took the time, its queue was long), a
            # search gets a floor: one round of a few playouts per move is a coin toss.
            deadline = max(deadline, time.perf_counter() + MIN_SEARCH_S)
        with gc_paused():
            done = tree.iterate(root, sampler, rng, iterations, deadline)
        return SearchResult(root, done, time.perf_counter() - start, moves, actions)
