"""The model-guided tree (agents.model_search): only the searcher's decisions are nodes,
the counts add up, and decisive positions come out right."""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agents import belief_ismcts, model_search
from agents.base import Budget
from agents.belief_ismcts import BeliefISMCTSAgent
from agents.playouts import ModelPlayers, TableModel
from agents.selfish import SelfishAgent
from agents.tree import Node
from engine import Game, Phase, PlayerView, Vote
from engine.fastsim import FastGame
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


def _ballot_views(count: int) -> list[PlayerView]:
    """Ballots of 10-player Selfish games, one per seat kind (any role, in or out of the
    government)."""
    views: list[PlayerView] = []
    for game_seed in range(40):
        game = Game(10, seed=game_seed)
        seats = [SelfishAgent(s, game_seed) for s in range(10)]
        while not game.is_over and len(views) < count:
            seat = game.awaiting()[0]
            view = game.view(seat)
            if view.phase is Phase.VOTE and game_seed % 10 == seat:
                views.append(view)
            game.apply(seats[seat].act(view))
    return views


def _after_the_count(
    game: FastGame, me: int, ballot: bool, model: TableModel, seed: int
) -> tuple[object, ...]:
    """The public state after `me` casts `ballot` and the rest vote as `_descend` has
    them vote on a copy of `game` played from `seed`."""
    copy = game.clone()
    rand = random.Random(seed).random
    players = ModelPlayers(copy, model, rand, me)
    copy.votes[me] = ballot
    players.fill_ballots(copy, rand)
    outcome = copy.count_votes()
    return (outcome, copy.phase, copy.president, copy.election_tracker, copy.hand_fascists,
            copy.fascist_policies, copy.liberal_policies, copy.reason)  # fmt: skip


def test_a_ballot_parts_the_copies_exactly_when_it_decides_the_count() -> None:
    """What lets a ballot search skip a determinization: the copies of Ja and Nein reach
    the same game unless this ballot decides the count, and `_pivotal` says which."""
    decided = undecided = 0
    for view in _ballot_views(6):
        assert view.seat is not None
        searcher = _agent(view.seat, 100)
        searcher.observe(view)
        searcher.search(view, random.Random(0))
        sampler, model = searcher.sampler, searcher.model
        assert sampler is not None and model is not None
        rng = random.Random(view.seat)
        for _ in range(150):
            game = sampler.game(rng)
            seed = rng.getrandbits(64)
            ja = _after_the_count(game, view.seat, True, model, seed)
            nein = _after_the_count(game, view.seat, False, model, seed)
            cast = dict(game.votes)
            pivotal = model_search._pivotal(game, view.seat, model, seed)
            assert game.votes == cast  # the check casts no ballot on the game it reads
            assert pivotal == (ja != nein)
            decided += pivotal
            undecided += not pivotal
    assert decided > 20 and undecided > 20  # both kinds were met


def interpreted(module: ModuleType) -> ModuleType:
    """A fresh copy of `module` run from its .py source, whether or not it is compiled."""
    package = importlib.import_module(module.__package__ or "")
    source = Path(package.__file__ or "").parent / (module.__name__.rsplit(".", 1)[1] + ".py")
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_interpreted", source)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    copy.__package__ = module.__package__  # its relative imports: the package's modules
    sys.modules[spec.name] = copy  # its dataclasses look themselves up there
    spec.loader.exec_module(copy)
    return copy


def test_a_ballot_search_plays_only_the_games_its_ballot_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each determinization is still counted (a visit per ballot), but only the pivotal
    ones are played, both copies; the others add no win to either ballot.

    The calls are counted on the module's interpreted source: compiled (setup.py), its
    functions call each other natively, past any patch of the module's names."""
    searching = interpreted(model_search)
    monkeypatch.setattr(belief_ismcts, "ModelTree", searching.ModelTree)
    calls = {"pivotal": 0, "decided": 0, "played": 0}
    pivotal, descend = searching._pivotal, searching._descend

    def counted_pivotal(*args: Any) -> bool:
        decides = pivotal(*args)
        calls["pivotal"] += 1
        calls["decided"] += decides
        return decides

    def counted_descend(*args: Any) -> bool:
        calls["played"] += 1
        return descend(*args)

    monkeypatch.setattr(searching, "_pivotal", counted_pivotal)
    monkeypatch.setattr(searching, "_descend", counted_descend)
    view = _ballot_views(1)[0]
    assert view.seat is not None
    searcher = BeliefISMCTSAgent(view.seat, 5, Budget(iterations=400), fascist_ballots=400)
    searcher.observe(view)
    result = searcher.search(view, random.Random(1))
    visits, wins = result.root.visits, result.root.wins
    assert result.iterations == 400 and visits[0] == visits[1] == 200 == calls["pivotal"]
    assert 0 < calls["decided"] < 200
    assert calls["played"] == 2 * calls["decided"]
    assert wins[0] + wins[1] <= calls["played"]
