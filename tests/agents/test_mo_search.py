"""Multiple-observer trees (agents.mo_search): every other seat searches a tree of its
own, keyed by what it knows; play stays legal and deterministic."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

from agents.base import Budget
from agents.belief_ismcts import BeliefISMCTSAgent
from agents.ismcts import Node
from agents.mo_search import Forest
from agents.model_search import model_tree_iterate
from agents.playouts import FASCIST, HITLER, LIBERAL
from agents.registry import AgentSpec
from agents.selfish import SelfishAgent
from engine import Game
from tests.agents.test_belief_ismcts import positions


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children.values():
        yield from _nodes(child)


def _agent(seat: int, iterations: int, seed: int = 5) -> BeliefISMCTSAgent:
    return BeliefISMCTSAgent(seat, seed, Budget(iterations=iterations), mo_tree=True)


def test_other_seats_search_trees_keyed_by_their_own_knowledge() -> None:
    grown = 0
    for view in positions(6, seed=21):
        assert view.seat is not None
        searcher = _agent(view.seat, 300)
        searcher.observe(view)
        root = Node(view.seat, max(view.players, 3))
        sampler = searcher.make_sampler(view)
        assert searcher.model is not None
        forest: Forest = {}
        done = model_tree_iterate(
            root,
            sampler,
            random.Random(1),
            searcher.model,
            True,
            0.7,
            300,
            None,
            time.perf_counter,
            forest,
        )
        assert sum(root.visits) == done and 300 - len(root.tried()) < done <= 300
        for (seat, role, team), tree in forest.items():
            assert seat != view.seat and role in (LIBERAL, FASCIST, HITLER)
            # Only a seat that knows its team keys its tree by it.
            knows = role == FASCIST or (role == HITLER and view.players <= 6)
            assert (team is not None) is knows
            assert team is None or seat in team
            assert all(node.seat == seat for node in _nodes(tree))
            for node in _nodes(tree):
                for child in node.children.values():
                    assert sum(child.visits) <= sum(node.visits) or node is tree
            grown += sum(sum(c.visits) for c in tree.children.values()) > 0
    assert grown > 10  # other seats did decide in their trees


def test_legal_and_deterministic_in_whole_games() -> None:
    for players in (5, 8, 10):
        records = []
        for _ in range(2):
            game = Game(players, seed=40 + players)
            seats = [
                _agent(s, 40, seed=s) if s % 2 == 0 else SelfishAgent(s, s) for s in range(players)
            ]
            while not game.is_over:
                seat = game.awaiting()[0]
                view = game.view(seat)
                action = seats[seat].act(view)
                assert action in view.legal_actions
                game.apply(action)
            records.append(game.actions)
        assert records[0] == records[1]


def test_the_spec_switches_it_on() -> None:
    agent = AgentSpec.parse("belief-ismcts:iterations=10,mo_tree=1").build(0, 1)
    assert isinstance(agent, BeliefISMCTSAgent) and agent.mo_tree
    assert not AgentSpec.parse("belief-ismcts").build(0, 1).mo_tree  # type: ignore[attr-defined]
