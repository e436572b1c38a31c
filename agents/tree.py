"""The search tree's parts both tree policies share: nodes, UCB1 selection, rewards.

`Node` holds one decision's per-move statistics; `select` picks a move at a node by
UCB1 over *availability* counts (a move's availability is how often it was legal when
its node was visited, so moves legal only in some determinizations are not starved:
`w/n + c * sqrt(ln(avail)/n)`, rewards in [0, 1]); `ucb_tables` precomputes its terms;
`LIBERALS_WON` scores a finished game. The tree policies that walk the tree are
`agents.so_tree` (every seat's decisions) and `agents.model_search` (the searcher's own).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine import WinReason

# Whether the Liberals won, by ending: a dict lookup beats the enum property.
LIBERALS_WON: dict[WinReason, bool] = {
    WinReason.FIVE_LIBERAL: True,
    WinReason.HITLER_EXECUTED: True,
    WinReason.SIX_FASCIST: False,
    WinReason.HITLER_ELECTED: False,
}


class Node:
    """One decision in the searcher's tree: the seat to move and its moves' statistics.

    Statistics are per move code (see `engine.fastsim`: a seat, a tile, a ballot...):
    `visits` and `wins` (the mover's team won) of each move tried from here, and
    `avail`, how often it was legal when this node was visited. `children` maps what
    the searcher saw happen (how depends on the tree policy) to the next decision.
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


def select(
    node: Node,
    moves: tuple[int, ...],
    rand: Callable[[], float],
    bonus: list[float],
    root_inv: list[float],
) -> tuple[int, int]:
    """(move, untried moves) at `node`: counts each move available, then expands one
    untried move (uniformly) or picks the best UCB1 score over availability counts.

    `bonus[a]` is c * sqrt(ln a) and `root_inv[n]` 1 / sqrt(n) (see `ucb_tables`).
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


def ucb_tables(c: float, size: int) -> tuple[list[float], list[float]]:
    """c * sqrt(ln a) and 1 / sqrt(n) for a, n < size (index 0 unused), cached per c.

    Tables instead of math calls in the hot loop; a policy doubles `size` as counts grow.
    """
    tables = _TABLES.get(c)
    if tables is None or len(tables[0]) < size:
        size = max(size, 4096)
        bonus = [0.0] + [c * math.sqrt(math.log(a)) for a in range(1, size)]
        root_inv = [0.0] + [1 / math.sqrt(n) for n in range(1, size)]
        tables = _TABLES[c] = (bonus, root_inv)
    return tables
