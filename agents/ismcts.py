"""SO-ISMCTS: Single-Observer Information Set Monte Carlo Tree Search, the paper's baseline.

Cowling, Powley and Whitehouse's SO-ISMCTS as the SO-ISMCTS paper applies it to Secret
Hitler (Reinhardt, 2020), without its code's mistakes. One tree, the observer's: every
player's decisions are its nodes. Each iteration

1. samples a fresh determinization of the observer's view (`make_sampler`: by default
   uniform among the hidden states its hard knowledge allows, see `agents.determinize`),
   with its own seed for future reshuffles, so a path replays identically;
2. descends with UCB1 over *availability* counts: a move's availability is the number of
   times it was legal when its node was visited, so moves legal only in some
   determinizations are not starved (`w/n + c * sqrt(ln(avail)/n)`, rewards in [0, 1]);
3. expands one untried move (chosen uniformly) and plays out (`playout`: by default
   uniformly random, `FastGame.play_random`);
4. backs up, along the path, 1 or 0 for the team of the seat that moved at each node.

A vote is one node per voter, each with two moves (Ja, Nein), and every voter's node is
reached whatever the earlier ballots were: ballots are simultaneous and hidden, so a
voter cannot condition on them (and the tree holds 2 moves per voter, not 2^n joint
ballots). Other moves lead to a child per move and per what the table then sees by
chance (the election's result, a chaos top-deck). The final choice is the root move
with the most visits; with one distinct legal move the agent answers at once.

`SOISMCTSAgent` keeps the tree code in `search`; a subclass changes the determinization
sampler (`make_sampler`) or the playout policy (`playout`) and keeps the rest.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

from engine import Action, PlayerView, Variant, WinReason
from engine.fastsim import VOTE, FastGame, move_of

from .base import AgentBase, Budget
from .determinize import Sampler, UniformSampler

DEFAULT_ITERATIONS = 10_000  # the paper's setting
DEFAULT_EXPLORATION = 0.7  # UCB1's c for rewards in [0, 1]

# Whether the Liberals won, by ending: a dict lookup beats the enum property.
_LIBERALS_WON: dict[WinReason, bool] = {
    WinReason.FIVE_LIBERAL: True,
    WinReason.HITLER_EXECUTED: True,
    WinReason.SIX_FASCIST: False,
    WinReason.HITLER_ELECTED: False,
}


class Node:
    """One decision in the observer's tree: the seat to move and its moves' statistics.

    Statistics are per move code (see `engine.fastsim`: a seat, a tile, a ballot...):
    `visits` and `wins` (the mover's team won) of each move tried from here, and
    `avail`, how often it was legal when this node was visited. `children` maps what
    the observer saw happen (the move itself, except a ballot, and any chance result)
    to the next decision.
    """

    __slots__ = ("avail", "children", "seat", "visits", "wins")

    def __init__(self, seat: int, width: int) -> None:
        self.seat = seat
        self.visits = [0] * width
        self.wins = [0] * width
        self.avail = [0] * width
        self.children: dict[int, Node] = {}

    def tried(self) -> list[int]:
        """The moves tried from this node, in move-code order."""
        return [m for m, n in enumerate(self.visits) if n]

    def size(self) -> int:
        """Nodes in the subtree rooted here."""
        return 1 + sum(child.size() for child in self.children.values())


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off Python's cycle collector while a search runs.

    A search allocates hundreds of thousands of small nodes and games, and each burst of
    allocations made the collector walk the whole growing tree again: a quarter of a
    multiple-observer search's time at 10 players (commit 13e9ba3). Nothing a
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


class SOISMCTSAgent(AgentBase):
    """SO-ISMCTS with uniform determinizations and uniformly random playouts.

    `exploration` is UCB1's c (rewards are 0 or 1). The budget's iterations default to
    10,000; with `seconds` too, the search stops at whichever limit comes first.
    `variant` is only needed for custom decks (views name the variant, not its deck).
    """

    name: ClassVar[str] = "ismcts"

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

    # --- what a subclass may change -------------------------------------------------

    def make_sampler(self, view: PlayerView) -> Sampler:
        """The determinization sampler for this decision (uniform by default)."""
        return UniformSampler(view, self.variant)

    def playout(self, game: FastGame, rng: random.Random) -> WinReason:
        """Finish `game` from a leaf and say how it ended (uniformly random players)."""
        return game.play_random(rng)

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
        """Run SO-ISMCTS from `view` within the budget; return the tree."""
        if view.seat != self.seat or not view.legal_actions:
            raise ValueError(f"Seat {self.seat} has nothing to decide in this view.")
        start = time.perf_counter()
        iterations, seconds = self.iteration_limit(view)
        deadline = None if seconds is None else start + seconds
        if self.budget.deadline is not None:  # the answer is due then, whatever came before
            due = start + (self.budget.deadline - time.monotonic())
            deadline = due if deadline is None else min(deadline, due)
        sampler = self.make_sampler(view)
        actions = tuple(view.legal_actions)
        moves = tuple(move_of(a) for a in actions)
        root = Node(self.seat, max(view.players, 3))
        # The root is the watcher's own decision, so in a vote its ballot comes first.
        with gc_paused():
            done = self._iterate(root, sampler, rng, iterations, deadline)
        self.iterations = done
        return SearchResult(root, done, time.perf_counter() - start, moves, actions)

    # --- the tree search --------------------------------------------------------------

    def _iterate(
        self,
        root: Node,
        sampler: Sampler,
        rng: random.Random,
        iterations: int | None,
        deadline: float | None,
    ) -> int:
        """Run iterations until a limit; return how many ran."""
        # Everything the loop touches lives in locals: attribute lookups cost more.
        c = self.exploration
        width = len(root.visits)
        new_game = sampler.game
        playout = self.playout
        rand = rng.random
        clock = time.perf_counter
        liberals_won = _LIBERALS_WON
        # UCB1's terms from tables: bonus[a] = c * sqrt(ln a), root_inv[n] = 1 / sqrt(n).
        # Counts never exceed the iterations run, so the tables grow with them.
        size = min(iterations or 4096, 1 << 20) + 2
        bonus, root_inv = _ucb_tables(c, size)
        done = 0
        move: int  # a ballot is a bool (True is Ja, 1); other moves are ints
        while iterations is None or done < iterations:
            if deadline is not None and not done & 15 and clock() >= deadline:
                break
            if done + 2 >= size:
                size *= 2
                bonus, root_inv = _ucb_tables(c, size)
            done += 1
            game = new_game(rng)
            node = root
            path: list[tuple[Node, int]] = []
            voters = 0  # ballots the running vote needs (0: not counted yet)
            reason = None
            while True:
                visits = node.visits
                avail = node.avail
                if game.phase == VOTE:
                    # A ballot: both moves are always legal, so this is UCB1 on two arms.
                    total = avail[1] + 1
                    avail[1] = avail[0] = total
                    ja = visits[1]
                    nein = visits[0]
                    if ja and nein:
                        untried = 0
                        wins = node.wins
                        b = bonus[total]
                        move = (
                            wins[1] / ja + b * root_inv[ja] >= wins[0] / nein + b * root_inv[nein]
                        )
                    elif ja or nein:
                        untried = 1
                        move = not ja
                    else:
                        untried = 2
                        move = rand() < 0.5
                    path.append((node, move))
                    # Cast it straight into the game's ballot box; the last one counts.
                    votes = game.votes
                    votes[node.seat] = move
                    if not voters:
                        voters = len(game.voters())
                    if len(votes) < voters:
                        key = 0  # the next voter's node, whatever this ballot was
                    else:
                        voters = 0
                        key = game.count_votes()
                        if game.reason is not None:
                            reason = game.reason
                            break
                else:
                    move, untried = select(node, game.legal_moves(), rand, bonus, root_inv)
                    path.append((node, move))
                    key = move << 3 | game.step(move)
                    if game.reason is not None:
                        reason = game.reason
                        break
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = Node(game.to_move(), width)
                node = child
                if untried:
                    break
            if reason is None:
                reason = playout(game, rng)
            # Back up: each node's mover scores 1 if its team (in this determinization) won.
            liberal = liberals_won[reason]
            roles = game.roles
            for node, move in path:
                node.visits[move] += 1
                if (roles[node.seat] == 0) is liberal:
                    node.wins[move] += 1
        return done


def select(
    node: Node,
    moves: tuple[int, ...],
    rand: Callable[[], float],
    bonus: list[float],
    root_inv: list[float],
) -> tuple[int, int]:
    """(move, untried moves) at `node`: counts each move available, then expands one
    untried move (uniformly) or picks the best UCB1 score over availability counts.

    `bonus[a]` is c * sqrt(ln a) and `root_inv[n]` 1 / sqrt(n) (see `_ucb_tables`).
    """
    visits = node.visits
    avail = node.avail
    untried = 0
    for m in moves:
        avail[m] += 1
        if not visits[m]:
            untried += 1
    if untried:
        pick = int(rand() * untried) if untried > 1 else 0
        for m in moves:
            if not visits[m]:
                if not pick:
                    return m, untried
                pick -= 1
    wins = node.wins
    best = -1.0
    move = moves[0]
    for m in moves:
        n = visits[m]
        score = wins[m] / n + bonus[avail[m]] * root_inv[n]
        if score > best:
            best = score
            move = m
    return move, 0


_TABLES: dict[float, tuple[list[float], list[float]]] = {}


def _ucb_tables(c: float, size: int) -> tuple[list[float], list[float]]:
    """c * sqrt(ln a) and 1 / sqrt(n) for a, n < size (index 0 unused), cached per c."""
    tables = _TABLES.get(c)
    if tables is None or len(tables[0]) < size:
        size = max(size, 4096)
        bonus = [0.0] + [c * math.sqrt(math.log(a)) for a in range(1, size)]
        root_inv = [0.0] + [1 / math.sqrt(n) for n in range(1, size)]
        tables = _TABLES[c] = (bonus, root_inv)
    return tables
