"""Multiple-observer trees: other seats' own trees, for the model-guided search.

An experiment the AI issue asks for ("try multiple-observer ISMCTS if it pays"), run by
`agents.model_search.model_tree_iterate` when it is given a forest: the searcher's own
decisions are the same paired root and UCB tree, but every other seat also keeps a
tree of its own, keyed by what *that* seat observes (Cowling, Powley and Whitehouse's
MO-ISMCTS): its role and, when it knows it, its team; its own moves and hands; its own
investigations' results; public outcomes; never another seat's discard. While a seat's
tree has statistics it chooses by UCB1 in it; from its first untried move on, and
once the searcher's own descent ends, it plays by the opponent model, as everyone does
in the playout.

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

from .ismcts import Node
from .playouts import FASCIST, HITLER, LIBERAL

_HAND_PHASES = (DISCARD, ENACT, VETO_REPLY)
_BALLOTS = (1, 0)


class Forest:
    """Every other seat's tree for one decision, per (seat, role, the team it knows).

    The searcher's root is paired: each determinization is played once per root move
    from the same dice. For that to stay a fair comparison the other seats must choose
    alike in every copy until what they see differs, so their trees are frozen during
    a round: choices read the statistics as they stood at its start, and the round's
    counts (`pending`) are added by `settle` once all its copies are played.
    """

    __slots__ = ("pending", "trees")

    def __init__(self) -> None:
        self.trees: dict[tuple[int, int, tuple[int, ...] | None], Node] = {}
        # (node, move, the moves legal there, won) of the round being played
        self.pending: list[tuple[Node, int, tuple[int, ...], bool]] = []

    def walkers(self, game: FastGame, me: int, width: int) -> list[Observer | None]:
        """Every other living seat's walk, from its tree for what it knows here."""
        roles = game.roles
        team = tuple(s for s, r in enumerate(roles) if r != LIBERAL)
        walkers: list[Observer | None] = []
        for seat, role in enumerate(roles):
            if seat == me or not game.alive[seat]:
                walkers.append(None)
                continue
            knows = role == FASCIST or (role == HITLER and game.players <= 6)
            key = (seat, role, team if knows else None)
            tree = self.trees.get(key)
            if tree is None:
                tree = self.trees[key] = Node(seat, width)
            walkers.append(Observer(tree))
        return walkers

    def back_up(self, others: list[Observer | None], roles: list[int], liberals: bool) -> None:
        """Hold each other seat's moves with its team's result (`liberals`: they won)."""
        pending = self.pending
        for walker in others:
            if walker is None or not walker.path:
                continue
            won = (roles[walker.path[0][0].seat] == LIBERAL) is liberals
            pending.extend((node, move, moves, won) for node, move, moves in walker.path)

    def settle(self) -> None:
        """Add the round's counts to the trees (as `agents.ismcts.select` would have)."""
        for node, move, moves, won in self.pending:
            avail = node.avail
            for m in moves:
                avail[m] += 1
            node.visits[move] += 1
            if won:
                node.wins[move] += 1
        self.pending.clear()


class Observer:
    """Another seat's walk down its own tree during one game: where it is, what it
    saw since its last decision, and the moves it chose (for the back-up)."""

    __slots__ = ("node", "path", "seen")

    def __init__(self, node: Node) -> None:
        self.node: Node | None = node
        self.seen: list[int] = []
        self.path: list[tuple[Node, int, tuple[int, ...]]] = []

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
        move, untried = _choose(child, moves, rand, bonus, root_inv)
        self.path.append((child, move, moves))
        self.node = None if untried else child
        self.seen = []
        return move


def _choose(
    node: Node,
    moves: tuple[int, ...],
    rand: Callable[[], float],
    bonus: list[float],
    root_inv: list[float],
) -> tuple[int, int]:
    """`agents.ismcts.select` on the node as it stood at the round's start: the same
    choice and random draws, without counting anything (`Forest.settle` does)."""
    visits = node.visits
    untried = sum(1 for m in moves if not visits[m])
    if untried:
        pick = int(rand() * untried) if untried > 1 else 0
        for m in moves:
            if not visits[m]:
                if not pick:
                    return m, untried
                pick -= 1
    wins = node.wins
    avail = node.avail
    best = -1.0
    move = moves[0]
    for m in moves:
        n = visits[m]
        score = wins[m] / n + bonus[avail[m] + 1] * root_inv[n]
        if score > best:
            best = score
            move = m
    return move, 0


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
