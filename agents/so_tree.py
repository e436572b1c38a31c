"""Single-Observer ISMCTS's tree policy: every seat's decisions in the searcher's one tree.

Cowling, Powley and Whitehouse's SO-ISMCTS as the SO-ISMCTS paper applies it to Secret
Hitler (Reinhardt, 2020), without its code's mistakes. One tree, the searcher's: every
player's decisions are its nodes. Each iteration

1. takes a fresh determinization from the decision's sampler (with its own seed for
   future reshuffles, so a path replays identically);
2. descends with UCB1 over availability counts (`agents.tree.select`);
3. expands one untried move (chosen uniformly) and finishes the game with the
   injected playout policy (`SOTree.playout`);
4. backs up, along the path, 1 or 0 for the team of the seat that moved at each node.

A vote is one node per voter, each with two moves (Ja, Nein), and every voter's node is
reached whatever the earlier ballots were: ballots are simultaneous and hidden, so a
voter cannot condition on them (and the tree holds 2 moves per voter, not 2^n joint
ballots). Other moves lead to a child per move and per what the table then sees by
chance (the election's result, a chaos top-deck).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from engine.fastsim import VOTE

from .determinize import Sampler
from .search import Playout
from .tree import LIBERALS_WON, Node, select, ucb_tables


@dataclass(frozen=True, slots=True)
class SOTree:
    """The tree policy of SO-ISMCTS: `exploration` is UCB1's c (rewards are 0 or 1) and
    `playout` finishes a game from a leaf."""

    exploration: float
    playout: Playout

    def iterate(
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
        liberals_won = LIBERALS_WON
        # UCB1's terms from tables: bonus[a] = c * sqrt(ln a), root_inv[n] = 1 / sqrt(n).
        # Counts never exceed the iterations run, so the tables grow with them.
        size = min(iterations or 4096, 1 << 20) + 2
        bonus, root_inv = ucb_tables(c, size)
        done = 0
        move: int  # a ballot is a bool (True is Ja, 1); other moves are ints
        while iterations is None or done < iterations:
            if deadline is not None and not done & 15 and clock() >= deadline:
                break
            if done + 2 >= size:
                size *= 2
                bonus, root_inv = ucb_tables(c, size)
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
                        ballot = (
                            wins[1] / ja + b * root_inv[ja] >= wins[0] / nein + b * root_inv[nein]
                        )
                    elif ja or nein:
                        untried = 1
                        ballot = not ja
                    else:
                        untried = 2
                        ballot = rand() < 0.5
                    move = 1 if ballot else 0  # an int: the path's moves index counts
                    path.append((node, move))
                    # Cast it straight into the game's ballot box (a bool, as it holds: a
                    # compiled int would not be one); the last one counts.
                    votes = game.votes
                    votes[node.seat] = ballot
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
