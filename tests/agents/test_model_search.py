"""The model-guided tree (agents.model_search): only the searcher's decisions are nodes,
the counts add up, and decisive positions come out right."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from agents.base import Budget
from agents.belief_ismcts import BeliefISMCTSAgent
from agents.tree import Node
from engine import Game, Phase, Vote
from tests.agents.test_belief_ismcts import positions
from tests.engine.helpers import deck, fixed_game, play


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children.values():
        yield from _nodes(child)


def _agent(seat: int, iterations: int) -> BeliefISMCTSAgent:
    return BeliefISMCTSAgent(seat, 5, Budget(iterations=iterations))


@pytest.mark.parametrize("index", range(6))
def test_the_tree_holds_only_the_searchers_decisions(index: int) -> None:
    view = positions(6, seed=21)[index]
    assert view.seat is not None
    searcher = _agent(view.seat, 400)
    searcher.observe(view)
    result = searcher.search(view, random.Random(index))
    nodes = list(_nodes(result.root))
    assert all(node.seat == view.seat for node in nodes)
    # Paired root: every root move is played on every determinization, so the moves'
    # visits are equal and add up to the iterations run (whole rounds within the
    # decision's limit: 400, or BALLOT_ITERATIONS for a ballot).
    limit, _ = searcher.iteration_limit(view)
    assert limit is not None
    moves = result.moves
    assert len({result.root.visits[m] for m in moves}) == 1
    assert sum(result.root.visits) == result.iterations
    assert limit - len(moves) < result.iterations <= limit
    # Below the root, a node is visited at most as often as the move that leads to it.
    for node in nodes:
        for child in node.children.values():
            assert sum(child.visits) <= sum(node.visits)
    assert result.best_action() in view.legal_actions


def _hitler_nominated_in_the_zone() -> Game:
    """5 players (seat 1 Fascist, seat 2 Hitler), three Fascist policies down by chaos,
    then Hitler nominated chancellor: a Ja majority ends the game for the Fascists."""
    game = fixed_game("LFHLL", deck("FFF FFF"))
    for _ in range(9):  # three Fascist chaos top-decks
        nominee = next(s for s in game.eligible_chancellors() if s != 2)
        play(game, f"nominate {nominee}", "nein")
    while 2 not in game.eligible_chancellors() or game.president == 2:
        nominee = next(s for s in game.eligible_chancellors() if s != 2)
        play(game, f"nominate {nominee}", "nein")
        assert not game.is_over
    play(game, "nominate 2")
    assert game.phase is Phase.VOTE and game.fascist_policies == 3
    return game


def test_a_fascist_backs_hitler_in_the_zone() -> None:
    game = _hitler_nominated_in_the_zone()
    for seed in range(2):
        searcher = BeliefISMCTSAgent(1, seed, Budget(iterations=300))
        assert searcher.act(game.view(1)) == Vote(1, True)


def test_a_ballot_is_scored_on_paired_games() -> None:
    """Ja and Nein are played on the same determinizations: equal visits, and a Fascist's
    Ja for Hitler in the zone wins every game in which the ballot mattered."""
    game = _hitler_nominated_in_the_zone()
    searcher = BeliefISMCTSAgent(1, 3, Budget(iterations=200))
    searcher.observe(game.view(1))
    result = searcher.search(game.view(1), random.Random(0))
    visits, wins = result.root.visits, result.root.wins
    assert visits[1] == visits[0] == 100 and result.iterations == 200
    assert wins[1] > wins[0]
