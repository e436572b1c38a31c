"""Multiple-observer trees: the model-guided search where other seats search as well.

An experiment the AI issue asks for ("try multiple-observer ISMCTS if it pays"), in
the frame of `agents.model_search`: the searcher's own decisions are the same paired
root and UCB tree, but every other seat also keeps a tree of its own, keyed by what
*that* seat observes (Cowling, Powley and Whitehouse's MO-ISMCTS): its role and, when
it knows it, its team; its own moves and hands; public outcomes; never another seat's
discard. While a seat's tree has statistics it chooses by UCB1 in it; from its first
untried move on it plays by the opponent model, as everyone does in the playout.

Unlike SO-ISMCTS, a seat's tree is split by the role it holds in the determinization,
so a seat does not pool its play as a Liberal with its play as a Fascist. Unlike the
model tree, other seats learn from the search's own results instead of following a
fixed model. Each of those trees gets a share of the iterations, split by role, so
their statistics are thin: whether that pays is what the arena measures
(bench/results/README.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.fastsim import DISCARD, ENACT, INVESTIGATE, VETO_REPLY, VOTE, FastGame

from .determinize import Sampler
from .ismcts import _LIBERALS_WON, Node, _ucb_tables, select
from .model_search import root_moves
from .playouts import FASCIST, HITLER, LIBERAL, ModelPlayers, TableModel, play_model

_HAND_PHASES = (DISCARD, ENACT, VETO_REPLY)
_DICE_BITS = 64
_BALLOTS = (1, 0)

# Another seat's tree root, per (seat, role, the team it knows or None).
Forest = dict[tuple[int, int, tuple[int, ...] | None], Node]


def mo_tree_iterate(
    root: Node,
    sampler: Sampler,
    rng: random.Random,
    model: TableModel,
    model_playouts: bool,
    exploration: float,
    iterations: int | None,
    deadline: float | None,
    clock: Callable[[], float],
    forest: Forest | None = None,
) -> int:
    """As `model_tree_iterate`, with a tree per other seat; return the games played.

    `forest` receives the other seats' trees (a fresh one per decision by default).
    """
    size = min(iterations or 4096, 1 << 20) + 2
    forest = {} if forest is None else forest
    done = 0
    per_round: int | None = None
    while per_round is None or iterations is None or done + per_round <= iterations:
        if deadline is not None and done and clock() >= deadline:
            break
        while done + 64 >= size:
            size *= 2
        bonus, root_inv = _ucb_tables(exploration, size)
        game = sampler.game(rng)
        seed = rng.getrandbits(_DICE_BITS)
        moves = root_moves(game)
        per_round = len(moves)
        for move in moves:
            dice = random.Random(seed)
            won = _descend(
                root, move, game.clone(), dice, model, model_playouts, bonus, root_inv, forest
            )
            done += 1
            root.avail[move] += 1
            root.visits[move] += 1
            root.wins[move] += won
    return done


class _Observer:
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


def _observers(game: FastGame, me: int, root: Node, forest: Forest) -> list[_Observer | None]:
    """Every other seat's tree for its information in this determinization."""
    roles = game.roles
    team = tuple(s for s, r in enumerate(roles) if r != LIBERAL)
    walkers: list[_Observer | None] = []
    for seat, role in enumerate(roles):
        if seat == me or not game.alive[seat]:
            walkers.append(None)
            continue
        knows = role == FASCIST or (role == HITLER and game.players <= 6)
        key = (seat, role, team if knows else None)
        tree = forest.get(key)
        if tree is None:
            tree = forest[key] = Node(seat, len(root.visits))
        walkers.append(_Observer(tree))
    return walkers


def _descend(
    root: Node,
    first: int,
    game: FastGame,
    dice: random.Random,
    model: TableModel,
    model_playouts: bool,
    bonus: list[float],
    root_inv: list[float],
    forest: Forest,
) -> bool:
    """Play `first` at the root, then every tree down and out; back up; True if won."""
    me = root.seat
    rand = dice.random
    players = ModelPlayers(game, model, rand, me)
    others = _observers(game, me, root, forest)
    node = root
    move = first
    untried = 0
    path: list[tuple[Node, int]] = []
    while True:
        if node is not root:
            move, untried = select(node, root_moves(game), rand, bonus, root_inv)
            path.append((node, move))
        if game.phase == VOTE:
            _tree_ballots(game, others, rand, bonus, root_inv)
            game.votes[me] = bool(move)
            players.fill_ballots(game, rand)
            outcome = game.count_votes()
            seen = [outcome]
            _tell(others, -1, outcome)
        else:
            outcome = game.step(move)
            seen = [move << 3 | outcome]
            _tell(others, me, move << 3 | outcome)
        if untried:
            break
        while game.reason is None:
            phase = game.phase
            if phase == VOTE:
                if game.alive[me] and me not in game.votes:
                    break
                _tree_ballots(game, others, rand, bonus, root_inv)
                players.fill_ballots(game, rand)
                outcome = game.count_votes()
                seen.append(outcome)
                _tell(others, -1, outcome)
                continue
            mover = game.to_move()
            if mover == me:
                break
            walker = others[mover]
            if walker is not None and walker.node is not None:
                other = walker.decide(game, game.legal_moves(), rand, bonus, root_inv)
            else:
                other = players.move(game, rand)
            outcome = game.step(other)
            if phase == DISCARD:
                seen.append(outcome)
                _tell(others, mover, other << 3 | outcome, hidden=outcome)
            else:
                code = (other << 3 | outcome) + 64
                seen.append(code)
                if phase == INVESTIGATE and walker is not None:
                    # The investigator alone learns the target's party.
                    walker.seen.append(int(game.roles[other] != LIBERAL))
                _tell(others, mover, code)
        if game.reason is not None:
            break
        phase = game.phase
        seen.append(phase)
        if phase in _HAND_PHASES:
            seen.append(game.hand_fascists)
        key = hash(tuple(seen))
        child = node.children.get(key)
        if child is None:
            child = node.children[key] = Node(me, len(root.visits))
        node = child
    reason = game.reason
    if reason is None:
        if model_playouts:
            reason = play_model(game, dice, model, players=players)
        else:
            reason = game.play_random(dice)
    liberals_won = _LIBERALS_WON[reason]
    roles = game.roles
    won = (roles[me] == LIBERAL) is liberals_won
    for node, move in path:
        node.visits[move] += 1
        if won:
            node.wins[move] += 1
    for walker in others:
        if walker is None or not walker.path:
            continue
        walker_won = (roles[walker.path[0][0].seat] == LIBERAL) is liberals_won
        for node, move in walker.path:
            node.visits[move] += 1
            if walker_won:
                node.wins[move] += 1
    return won


def _tree_ballots(
    game: FastGame,
    others: list[_Observer | None],
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


def _tell(others: list[_Observer | None], mover: int, code: int, hidden: int = -1) -> None:
    """What every other seat in its tree sees of a move: all of it, except that a
    president's discard shows only its `hidden` part to the others."""
    for seat, walker in enumerate(others):
        if walker is None or walker.node is None:
            continue
        walker.seen.append(code if hidden < 0 or seat == mover else hidden)
