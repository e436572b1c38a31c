"""Multiple-observer trees: other seats' own trees, for the model-guided search.

Cowling, Powley and Whitehouse's Multiple-Observer ISMCTS (MO-ISMCTS, "Information Set
Monte Carlo Tree Search", 2012) gives every player a tree of its own, keyed by what
*that* player observes, so that each chooses by what it could know rather than by the
searcher's information set. Here it runs inside `agents.model_search.ModelTree` when the
policy is given a `Forest`: the searcher's own decisions keep their paired root and UCB
tree, but every other seat also keeps a tree, keyed by what it observes: its role and,
when it knows it, its team; its own moves and hands; its own investigations' results;
public outcomes; never another seat's discard. While a seat's tree has statistics it
chooses by UCB1 in it; from its first untried move on, and once the searcher's own
descent ends, it plays by the opponent model, as everyone does in the playout.

Unlike SO-ISMCTS (`agents.so_tree`), a seat's tree is split by the role it holds in the
determinization, so a seat does not pool its play as a Liberal with its play as a
Fascist. Unlike the model tree alone, other seats learn from the search's own results
instead of following a fixed model. Each of those trees gets a share of the
iterations, split by role, so their statistics are thin.

**Only as a Liberal** (belief-ismcts's `mo_liberal` option, off by default). As an
option for every seat (`mo_tree=1`, commits 4200851 to 4ca7be0, removed in 46e90b5)
it lost overall: over 250 games against SO-ISMCTS@10000 it played a much stronger
Liberal (0.449 win rate; on the same games, A/B against the plain model tree, 0.503
against 0.385 as a Liberal) but a much weaker Fascist and Hitler (0.712 and 0.677,
against 0.857 and 0.795 without it), for 0.548 overall, at about twice the time per
decision (bench/results/README.md). A Liberal knows nobody's role, so opponents that
answer its moves as the seats they are dealt matter most to it; a Fascist already
knows its team and the model plays it well. So the forest is grown only for a
Liberal's decisions, where it paid; those figures were measured on the code of
d13f59b, and the search around it has changed since.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.fastsim import (
    DISCARD,
    ENACT,
    FASCIST_ROLE,
    HITLER_ROLE,
    INVESTIGATE,
    LIBERAL_ROLE,
    VETO_REPLY,
    VOTE,
    FastGame,
)

from .tree import Node

_HAND_PHASES = (DISCARD, ENACT, VETO_REPLY)
_BALLOTS = (1, 0)

# A seat's tree: (seat, role code, its team's seats if it knows them, else None).
TreeKey = tuple[int, int, tuple[int, ...] | None]
# One decision of a walk: (node, move, the moves legal there).
Step = tuple[Node, int, tuple[int, ...]]


class Forest:
    """Every other seat's tree for one decision, per (seat, role, the team it knows).

    The searcher's root is paired: each determinization is played once per root move
    from the same dice. For that to stay a fair comparison the other seats must choose
    alike in every copy until what they see differs, so their trees are frozen during
    a round: choices read the statistics as they stood at its start, and the round's
    counts (`pending`) are added by `settle` once all its copies are played.
    """

    __slots__ = ("dealt", "log", "pending", "trees", "walking")

    def __init__(self) -> None:
        self.trees: dict[TreeKey, Node] = {}
        # each walk of the round being played, and whether its seat's team won
        self.pending: list[tuple[list[Step], bool]] = []
        self.walking: list[Observer] = []  # the walks of the game being played
        self.log: list[int] = []  # what every seat saw of the game being played
        self.dealt: list[Node | None] = []  # each seat's tree in this determinization

    def deal(self, game: FastGame, me: int, width: int) -> None:
        """Find every other living seat's tree for what it knows in this determinization
        (once for all the copies of a round)."""
        roles = game.roles
        team = tuple(s for s, r in enumerate(roles) if r != LIBERAL_ROLE)
        alive = game.alive
        knowing = game.players <= 6  # Hitler knows the Fascists only in small games
        trees = self.trees
        dealt: list[Node | None] = []
        for seat, role in enumerate(roles):
            if seat == me or not alive[seat]:
                dealt.append(None)
                continue
            knows = role == FASCIST_ROLE or (knowing and role == HITLER_ROLE)
            key = (seat, role, team if knows else None)
            tree = trees.get(key)
            if tree is None:
                tree = trees[key] = Node(seat, width)
            dealt.append(tree)
        self.dealt = dealt

    def walkers(self) -> list[Observer | None]:
        """A walk for every seat `deal` found a tree for, at the top of it.

        A walk that leaves its tree is taken out of the list (and the list emptied once
        all have left), so that the rest of the game costs what the model alone costs;
        `walking` keeps them all for `back_up`.
        """
        log: list[int] = []
        walking: list[Observer] = []
        self.log = log
        self.walking = walking
        walkers: list[Observer | None] = []
        for tree in self.dealt:
            if tree is None:
                walkers.append(None)
            else:
                walker = Observer(tree, log)
                walkers.append(walker)
                walking.append(walker)
        return walkers

    def back_up(self, walks: Sequence[Observer | None], roles: list[int], liberals: bool) -> None:
        """Hold each walk's moves with its seat's team result (`liberals`: they won)."""
        pending = self.pending
        for walker in walks:
            if walker is None or not walker.path:
                continue
            pending.append((walker.path, (roles[walker.seat] == LIBERAL_ROLE) is liberals))

    def settle(self) -> None:
        """Add the round's counts to the trees (as `agents.tree.select` would have)."""
        for path, won in self.pending:
            for node, move, moves in path:
                avail = node.avail
                if moves is _BALLOTS:  # most of them
                    avail[0] += 1
                    avail[1] += 1
                else:
                    for m in moves:
                        avail[m] += 1
                node.visits[move] += 1
                if won:
                    node.wins[move] += 1
        self.pending.clear()


class Observer:
    """Another seat's walk down its own tree during one game: where it is, what it
    saw since its last decision, and the moves it chose (for the back-up).

    What it saw is the game's public `log` from `since` on, after a private `head`:
    its own discard, which the others see only in part, or its investigation's result.
    (One log for all, rather than a list per seat, because most of what a seat sees
    is what everyone sees.)
    """

    __slots__ = ("head", "log", "node", "path", "seat", "since", "width")

    def __init__(self, node: Node, log: list[int] | None = None) -> None:
        self.seat = node.seat
        self.width = len(node.visits)  # of a node for any decision but a ballot
        self.node: Node | None = node
        self.log: list[int] = [] if log is None else log
        self.head: tuple[int, ...] = ()
        self.since = 0
        self.path: list[Step] = []

    def seen(self) -> list[int]:
        """What this seat saw since its last decision."""
        return [*self.head, *self.log[self.since :]]

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
        log = self.log
        phase = game.phase
        head = self.head
        if phase in _HAND_PHASES:
            key = hash((*head, *log[self.since :], phase, game.hand_fascists))
        else:
            key = hash((*head, *log[self.since :], phase) if head else (*log[self.since :], phase))
        self.head = ()
        self.since = len(log)  # the next entry is this move
        child = node.children.get(key)
        if child is None:
            # A new node: every move is untried, so `_choose` would draw among all.
            child = node.children[key] = Node(self.seat, self.width)
            move = moves[int(rand() * len(moves))] if len(moves) > 1 else moves[0]
            self.path.append((child, move, moves))
            self.node = None
            return move
        move, untried = _choose(child, moves, rand, bonus, root_inv)
        self.path.append((child, move, moves))
        self.node = None if untried else child
        return move

    def ballot(self, rand: Callable[[], float], bonus: list[float], root_inv: list[float]) -> bool:
        """`decide` in a vote (most of the decisions): the same choice, spelt out for two
        moves, Ja (True, move 1) before Nein (False, 0), because it runs for every voter
        in every vote."""
        node = self.node
        assert node is not None
        log = self.log
        head = self.head
        key = hash((*head, *log[self.since :], VOTE) if head else (*log[self.since :], VOTE))
        self.head = ()
        self.since = len(log)  # the next entry is the vote's result
        child = node.children.get(key)
        if child is None:
            # A ballot's node needs room for two moves only. (The keys of what follows a
            # vote and of what follows a tile decision never meet: one ends with VOTE
            # after a nomination's code, the other with the phase and the hand.)
            child = node.children[key] = Node(self.seat, 2)
            self.node = None
            move = rand() * 2 < 1  # (Ja, Nein)[int(rand() * 2)]
        else:
            visits = child.visits
            ja, nein = visits[1], visits[0]
            if ja and nein:
                self.node = child
                wins = child.wins
                avail = child.avail
                nein_score = wins[0] / nein + bonus[avail[0] + 1] * root_inv[nein]
                move = wins[1] / ja + bonus[avail[1] + 1] * root_inv[ja] >= nein_score
            else:
                self.node = None
                # the untried ballot, or a draw between both as `_choose` makes it
                move = not ja if ja or nein else rand() * 2 < 1
        self.path.append((child, move, _BALLOTS))
        return move


def _choose(
    node: Node,
    moves: tuple[int, ...],
    rand: Callable[[], float],
    bonus: list[float],
    root_inv: list[float],
) -> tuple[int, int]:
    """`agents.tree.select` on the node as it stood at the round's start: the same
    choice and random draws, without counting anything (`Forest.settle` does)."""
    visits = node.visits
    untried = [m for m in moves if not visits[m]]
    if untried:
        count = len(untried)
        return (untried[int(rand() * count)] if count > 1 else untried[0]), count
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
    left = False
    for seat in game.voters():
        walker = others[seat]
        if walker is not None and seat not in votes:
            votes[seat] = walker.ballot(rand, bonus, root_inv)
            if walker.node is None:
                others[seat] = None
                left = True
    if left and not any(others):
        others.clear()


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
    if walker is None:
        return -1
    move = walker.decide(game, game.legal_moves(), rand, bonus, root_inv)
    if walker.node is None:
        others[mover] = None
        if not any(others):
            others.clear()
    return move


def witness(
    others: list[Observer | None],
    log: list[int],
    game: FastGame,
    phase: int,
    mover: int,
    move: int,
    outcome: int,
) -> None:
    """Log what every seat saw of `mover`'s move (made in `phase`): all of it, except
    that a president's discard shows others only its outcome, and only the
    investigator learns the party it investigated."""
    code = (move << 3 | outcome) + 64
    walker = others[mover] if phase in (DISCARD, INVESTIGATE) else None
    if walker is not None:
        # the mover's private view: what it saw so far, then its whole move
        walker.head = (*walker.seen(), code)
        if phase == INVESTIGATE:
            walker.head += (int(game.roles[move] != LIBERAL_ROLE),)
        walker.since = len(log) + 1
    log.append(outcome if phase == DISCARD else code)
