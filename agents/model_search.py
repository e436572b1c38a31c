"""A searcher's-own-decisions tree: ISMCTS where everyone else follows the opponent model.

`ModelTree` is a tree policy of the search driver (`agents.search`), the one
belief-ISMCTS (`agents.belief_ismcts`) configures it with.

SO-ISMCTS (`agents.so_tree`) puts every seat's decisions in the searcher's tree and picks
other seats' moves by UCB over statistics pooled across determinizations. In a
hidden-role game that pools a seat's moves as a Liberal with its moves as a Fascist:
the node's "best" ballot is the one that does best for whichever team the seat
happened to be on, averaged, and it is chosen without knowing that seat's role. Here
the tree holds only the searcher's own decisions; in each determinization every other
seat acts by `agents.playouts.ModelPlayers`, which does act on the role it was dealt
there (a Fascist backs its teammates, a Liberal the governments the table trusts).

**Paired root.** Each determinization is played once per root move, every copy from
the same random stream (the model's choices, the wild seats, reshuffles). One
decision moves the odds of winning by a few points at most, while the luck of the
determinization (who the Fascists are, what the pile holds) moves them by far more; on
paired games that luck cancels out of the comparison, and a move that changes nothing
(a ballot that is not pivotal) scores exactly like its alternative. Root statistics
therefore hold equal visits per move and the choice is the most wins.

**Ballots that cannot matter are not played.** At a ballot the copies part ways only
if this seat's ballot decides the count: the other seats' ballots come from the same
stream in both copies, so unless exactly one Ja is missing for a majority both copies
reach the same game, and whatever they score apart is the noise of their subtrees. Such
a determinization is counted (a visit to each ballot, no win to either: the margin,
the ballot's only measure, is unchanged) but not played; a ballot search spends its
time on the games its ballot decides.

**Below the root**, each copy descends the tree: at a node (a later decision of the
searcher) UCB1 over availability counts (`agents.tree.select`); between nodes the game
runs with the model until the searcher must decide again or the game ends. The next
node is keyed by what the searcher saw in between: public outcomes (nominations,
election results, enacted tiles, chaos, powers' targets; never another seat's discard)
and its own hand if the decision is about tiles. A newly tried move ends the descent
and the same model players finish the game (`play_model`): the opponent model is this
policy's playout policy too, so the wild seats drawn for a game stay wild to its end.
Rewards are the searcher's team's win (1) or loss (0).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from engine.fastsim import DISCARD, ENACT, VETO_REPLY, VOTE, FastGame

from .determinize import Sampler
from .playouts import ModelPlayers, TableModel, play_model
from .tree import LIBERALS_WON, Node, select, ucb_tables

_HAND_PHASES = (DISCARD, ENACT, VETO_REPLY)
_DICE_BITS = 64


def root_moves(game: FastGame) -> tuple[int, ...]:
    """The searcher's moves at the root: a ballot (Ja, Nein) or the legal moves."""
    return (1, 0) if game.phase == VOTE else game.legal_moves()


@dataclass(frozen=True, slots=True)
class ModelTree:
    """The tree policy of the searcher's own decisions: `model` plays every other seat
    (in the tree and in the playout) and `exploration` is UCB1's c below the root."""

    model: TableModel
    exploration: float

    def iterate(
        self,
        root: Node,
        sampler: Sampler,
        rng: random.Random,
        iterations: int | None,
        deadline: float | None,
    ) -> int:
        """Play paired determinizations from `root` until a limit; return the games played.

        A determinization costs one game per root move, and only whole rounds are played:
        with k root moves, `iterations` runs floor(iterations / k) rounds (at least one).
        """
        model = self.model
        exploration = self.exploration
        clock = time.perf_counter
        size = min(iterations or 4096, 1 << 20) + 2
        done = 0
        per_round: int | None = None
        while per_round is None or iterations is None or done + per_round <= iterations:
            if deadline is not None and done and clock() >= deadline:
                break
            while done + 64 >= size:
                size *= 2
            bonus, root_inv = ucb_tables(exploration, size)
            game = sampler.game(rng)
            seed = rng.getrandbits(_DICE_BITS)
            moves = root_moves(game)  # the same in every determinization: public + own hand
            per_round = len(moves)
            if game.phase == VOTE and not _pivotal(game, root.seat, model, seed):
                done += per_round
                for move in moves:
                    root.avail[move] += 1
                    root.visits[move] += 1
                continue
            for move in moves:
                dice = random.Random(seed)
                copy = game.clone()
                won = _descend(root, move, copy, dice, model, bonus, root_inv)
                done += 1
                root.avail[move] += 1
                root.visits[move] += 1
                root.wins[move] += won
        return done


def _pivotal(game: FastGame, me: int, model: TableModel, seed: int) -> bool:
    """Whether `me`'s ballot decides `game`'s running vote, the other ballots drawn from
    `seed` exactly as `_descend` draws them (so both copies would share them)."""
    rand = random.Random(seed).random
    players = ModelPlayers(game, model, rand, me)
    others = players.ballots(game, rand, skip=me)
    return others == game.majority - 1


def _descend(
    root: Node,
    first: int,
    game: FastGame,
    dice: random.Random,
    model: TableModel,
    bonus: list[float],
    root_inv: list[float],
) -> bool:
    """Play `first` at the root, then down the tree and out; back up; True if won."""
    me = root.seat
    width = len(root.visits)
    rand = dice.random
    players = ModelPlayers(game, model, rand, me)
    node = root
    move = first
    untried = 0
    path: list[tuple[Node, int]] = []
    while True:
        if node is not root:
            # The searcher's later decision at `node`: UCB1 over availability counts.
            move, untried = select(node, root_moves(game), rand, bonus, root_inv)
            path.append((node, move))
        if game.phase == VOTE:
            game.votes[me] = bool(move)
            seen = [game.tally(players.ballots(game, rand))]
        else:
            seen = [move << 3 | game.step(move)]
        if untried:
            break  # expanded: the playout finishes the game
        # Everyone else, by the model, until the searcher decides again.
        while game.reason is None:
            phase = game.phase
            if phase == VOTE:
                if game.alive[me] and me not in game.votes:
                    break
                seen.append(game.tally(players.ballots(game, rand)))
                continue
            if game.to_move() == me:
                break
            other = players.move(game, rand)
            outcome = game.step(other)
            # Another seat's discard is private: only its effects are seen later.
            seen.append(outcome if phase == DISCARD else (other << 3 | outcome) + 64)
        if game.reason is not None:
            break
        phase = game.phase
        seen.append(phase)
        if phase in _HAND_PHASES:
            seen.append(game.hand_fascists)
        key = hash(tuple(seen))
        child = node.children.get(key)
        if child is None:
            child = node.children[key] = Node(me, width)
        node = child
    reason = game.reason
    if reason is None:
        reason = play_model(game, dice, model, players=players)
    liberals_won = LIBERALS_WON[reason]
    won = (game.roles[me] == 0) is liberals_won
    for node, move in path:
        node.visits[move] += 1
        if won:
            node.wins[move] += 1
    return won
