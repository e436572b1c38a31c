"""A searcher's-own-decisions tree: ISMCTS where everyone else follows the opponent model.

SO-ISMCTS (`agents.ismcts`) puts every seat's decisions in the observer's tree and picks
other seats' moves by UCB over statistics pooled across determinizations. In a
hidden-role game that pools a seat's moves as a Liberal with its moves as a Fascist:
the node's "best" ballot is the one that does best for whichever team the seat
happened to be on, averaged, and it is chosen without knowing that seat's role. Here
the tree holds only the searcher's own decisions; in each determinization every other
seat acts by `agents.playouts.ModelPlayers`, which does act on the role it was dealt
there (a Fascist backs its teammates, a Liberal the governments the table trusts).

Each iteration samples a determinization and descends: at a node (a decision of the
searcher) UCB1 over availability counts, as in `agents.ismcts`; the game then runs
with the model until the searcher must decide again or the game ends. The next node
is keyed by what the searcher saw in between: public outcomes (nominations, election
results, enacted tiles, chaos, powers' targets; never another seat's discard) and its
own hand if the decision is about tiles. A newly tried move ends the descent and the
game is finished by the same model players (`play_model`), or uniformly at random
when model playouts are switched off. Rewards are the searcher's team's win (1) or loss (0).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import WinReason
from engine.fastsim import DISCARD, ENACT, VETO_REPLY, VOTE

from .determinize import Sampler
from .ismcts import Node, _ucb_tables
from .playouts import ModelPlayers, TableModel, play_model

_HAND_PHASES = (DISCARD, ENACT, VETO_REPLY)
_LIBERAL_WINS = (WinReason.FIVE_LIBERAL, WinReason.HITLER_EXECUTED)


def model_tree_iterate(
    root: Node,
    sampler: Sampler,
    rng: random.Random,
    model: TableModel,
    model_playouts: bool,
    exploration: float,
    iterations: int | None,
    deadline: float | None,
    clock: Callable[[], float],
) -> int:
    """Run iterations from `root` (the searcher's decision) until a limit; return how many."""
    me = root.seat
    width = len(root.visits)
    rand = rng.random
    size = min(iterations or 4096, 1 << 20) + 2
    bonus, root_inv = _ucb_tables(exploration, size)
    done = 0
    while iterations is None or done < iterations:
        if deadline is not None and not done & 15 and clock() >= deadline:
            break
        if done + 2 >= size:
            size *= 2
            bonus, root_inv = _ucb_tables(exploration, size)
        done += 1
        game = sampler.game(rng)
        players = ModelPlayers(game, model, rand, me)
        node = root
        path: list[tuple[Node, int]] = []
        while True:
            # The searcher's decision at `node`.
            voting = game.phase == VOTE
            moves = (1, 0) if voting else game.legal_moves()
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
                            move = m
                            break
                        pick -= 1
            else:
                wins = node.wins
                best = -1.0
                move = moves[0]
                for m in moves:
                    n = visits[m]
                    score = wins[m] / n + bonus[avail[m]] * root_inv[n]
                    if score > best:
                        best = score
                        move = m
            path.append((node, move))
            if voting:
                game.votes[me] = bool(move)
                players.fill_ballots(game, rand)
                seen = [game.count_votes()]
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
                    players.fill_ballots(game, rand)
                    seen.append(game.count_votes())
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
            reason = (
                play_model(game, rng, model, players=players)
                if model_playouts
                else game.play_random(rng)
            )
        won = (game.roles[me] == 0) == (reason in _LIBERAL_WINS)
        for node, move in path:
            node.visits[move] += 1
            if won:
                node.wins[move] += 1
    return done


def paired_ballots(
    root: Node,
    sampler: Sampler,
    rng: random.Random,
    model: TableModel,
    model_playouts: bool,
    iterations: int | None,
    deadline: float | None,
    clock: Callable[[], float],
) -> int:
    """The searcher's ballot, Ja against Nein on the same determinizations and dice.

    A single ballot changes the outcome only when it is pivotal, so separate samples
    for Ja and Nein bury that small difference in noise. Here each determinization is
    played twice from the same random stream, once per ballot: when the ballot is not
    pivotal both games are identical and the difference is exactly zero. Fills the
    root's statistics for moves 1 (Ja) and 0 (Nein); returns the playouts run.
    """
    me = root.seat
    done = 0
    while iterations is None or done + 2 <= max(iterations, 2):
        if deadline is not None and clock() >= deadline:
            break
        game = sampler.game(rng)
        seed = rng.getrandbits(64)
        for ballot in (1, 0):
            copy = game.clone()
            dice = random.Random(seed)
            players = ModelPlayers(copy, model, dice.random, me)
            copy.votes[me] = bool(ballot)
            players.fill_ballots(copy, dice.random)
            copy.count_votes()
            reason = copy.reason
            if reason is None:
                reason = (
                    play_model(copy, dice, model, players=players)
                    if model_playouts
                    else copy.play_random(dice)
                )
            root.avail[ballot] += 1
            root.visits[ballot] += 1
            if (copy.roles[me] == 0) == (reason in _LIBERAL_WINS):
                root.wins[ballot] += 1
        done += 2
    return done
