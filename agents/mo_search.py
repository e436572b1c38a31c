"""Multiple-observer trees: other seats' own trees, for the model-guided search.

An experiment the AI issue asks for ("try multiple-observer ISMCTS if it pays"), run by
`agents.model_search.model_tree_iterate` when it is given a forest: the searcher's own
decisions are the same paired root and UCB tree, but every other seat also keeps a
tree of its own, keyed by what *that* seat observes (Cowling, Powley and Whitehouse's
MO-ISMCTS): its role and, when it knows it, its team; its own moves and hands; its own
investigations' results; public outcomes; never another seat's discard. While a seat's
tree has statistics it chooses by UCB1 in it; from its first untried move on it plays
by the opponent model, as everyone does in the playout.

Unlike SO-ISMCTS, a seat's tree is split by the role it holds in the determinization,
so a seat does not pool its play as a Liberal with its play as a Fascist. Unlike the
model tree, other seats learn from the search's own results instead of following a
fixed model. Each of those trees gets a share of the iterations, split by role, so
their statistics are thin: whether that pays is what the arena measures
(bench/results/README.md).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.fastsim import DISCARD, ENACT, INVESTIGATE, VETO_REPLY, FastGame

from .ismcts import Node, select
from .playouts import FASCIST, HITLER, LIBERAL

_HAND_PHASES = (DISCARD, ENACT, VETO_REPLY)
_BALLOTS = (1, 0)

# Another seat's tree root, per (seat, role, the team it knows or None).
Forest = dict[tuple[int, int, tuple[int, ...] | None], Node]


class Observer:
    """Another seat's walk down its own tree during one game: where it is, what it
    saw since its last decision, and the moves it chose (for the back-up)."""

    __slots__ = ("node", "path", "seen")

    def __init__(self, node: Node) -> None:
        self.node: Node | None = node
        self.seen: list[int] = []
        self.path: list[tuple[Node, int]] = []

    def decide(
        self,
        game: FastGame,
        moves: tuple[int, ...],
        rand: Callable[[], float],
        bonus: list[float],
        root_inv: list[float],
    ) -> int:
        """UCB1 at the node for what this seat saw; after an untried move, leave the tree."""
        node = self.node
        assert node is not None
        seen = self.seen
        seen.append(game.phase)
        if game.phase in _HAND_PHASES:
            seen.append(game.hand_fascists)
        key = hash(tuple(seen))
        child = node.children.get(key)
        if child is None:
            child = node.children[key] = Node(node.seat, len(node.visits))
        move, untried = select(child, moves, rand, bonus, root_inv)
        self.path.append((child, move))
        self.node = None if untried else child
        self.seen = []
        return move


def observers(game: FastGame, me: int, root: Node, forest: Forest) -> list[Observer | None]:
    """Every other seat's tree for its information in this determinization."""
    roles = game.roles
    team = tuple(s for s, r in enumerate(roles) if r != LIBERAL)
    walkers: list[Observer | None] = []
    for seat, role in enumerate(roles):
        if seat == me or not game.alive[seat]:
            walkers.append(None)
            continue
        knows = role == FASCIST or (role == HITLER and game.players <= 6)
        key = (seat, role, team if knows else None)
        tree = forest.get(key)
        if tree is None:
            tree = forest[key] = Node(seat, len(root.visits))
        walkers.append(Observer(tree))
    return walkers


def tree_ballots(
    game: FastGame,
    others: list[Observer | None],
    rand: Callable[[], float],
    bonus: list[float],
    root_inv: list[float],
) -> None:
    """The ballots of the living seats still in their trees (the model casts the rest)."""
    votes = game.votes
    for seat in game.voters():
        walker = others[seat]
        if walker is not None and walker.node is not None and seat not in votes:
            votes[seat] = bool(walker.decide(game, _BALLOTS, rand, bonus, root_inv))


def tell(others: list[Observer | None], mover: int, code: int, hidden: int = -1) -> None:
    """What every other seat in its tree sees of a move: all of it, except that a
    president's discard shows only its `hidden` part to the others."""
    for seat, walker in enumerate(others):
        if walker is None or walker.node is None:
            continue
        walker.seen.append(code if hidden < 0 or seat == mover else hidden)


def back_up(others: list[Observer | None], roles: list[int], liberals_won: bool) -> None:
    """Score every other seat's moves: 1 where its team (in this game) won."""
    for walker in others:
        if walker is None or not walker.path:
            continue
        won = (roles[walker.path[0][0].seat] == LIBERAL) is liberals_won
        for node, move in walker.path:
            node.visits[move] += 1
            if won:
                node.wins[move] += 1


def decide(
    others: list[Observer | None],
    mover: int,
    game: FastGame,
    rand: Callable[[], float],
    bonus: list[float],
    root_inv: list[float],
) -> int:
    """`mover`'s move from its own tree, or -1 when it is out of it (the model plays)."""
    walker = others[mover]
    if walker is None or walker.node is None:
        return -1
    return walker.decide(game, game.legal_moves(), rand, bonus, root_inv)


def witness(
    others: list[Observer | None], game: FastGame, phase: int, mover: int, move: int, outcome: int
) -> None:
    """Tell every other seat what it saw of `mover`'s move (made in `phase`)."""
    tell(others, mover, (move << 3 | outcome) + 64, outcome if phase == DISCARD else -1)
    walker = others[mover]
    if phase == INVESTIGATE and walker is not None and walker.node is not None:
        walker.seen.append(int(game.roles[move] != LIBERAL))  # only the investigator learns it
