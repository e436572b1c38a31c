"""Beliefs kept between one worker's decisions: only new events read, nothing changed."""

from __future__ import annotations

import numpy as np

from agents.belief import Belief
from agents.belief_cache import BeliefCache, reused_beliefs, reusing_beliefs, thread_cache
from agents.runner import play_game
from agents.workers import worker_answer
from engine import Game, PlayerView, Variant


def _views(players: int, seed: int) -> list[PlayerView]:
    """Every view a seat decided from in one game of rule agents that claim."""
    record = play_game(["belief"] * players, seed=seed).record
    game = Game(record.players, seed=record.seed, variant=record.variant)
    views = []
    for action in record.actions:
        seat = action.seat
        views.append(game.view(seat))
        game.apply(action)
    return views


def _same(a: Belief, b: Belief) -> None:
    assert a.events_seen == b.events_seen
    np.testing.assert_allclose(a.probabilities(), b.probabilities(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(
        a.draw_liberal_distribution(), b.draw_liberal_distribution(), rtol=1e-12, atol=0
    )
    np.testing.assert_allclose(a.style_ll, b.style_ll, rtol=1e-12, atol=0)


def test_a_cached_belief_reads_only_new_events_and_equals_a_fresh_replay() -> None:
    views = _views(8, 5)
    setup = Variant(views[0].variant).setup(8)
    cache = BeliefCache()
    seat = views[-1].seat
    own = [v for v in views if v.seat == seat]
    assert len(own) >= 3
    for view in own:
        _same(cache.belief_after(setup, seat, view.events), Belief.for_view(view))
    # Every event was read once over all the decisions, not once per decision.
    assert cache.read == sum(1 for e in own[-1].events if e.visible_to(seat))


def test_the_tables_belief_is_read_once_for_every_seat_of_a_game() -> None:
    record = play_game(["belief"] * 10, seed=3).record
    game = Game(record.players, seed=record.seed, variant=record.variant)
    for action in record.actions[: len(record.actions) // 2]:
        game.apply(action)
    setup = Variant(record.variant.name).setup(10)
    cache = BeliefCache()
    tables = [cache.belief_after(setup, None, game.view(seat).events) for seat in range(10)]
    assert all(table is tables[0] for table in tables)
    assert cache.read == sum(1 for e in game.events if e.visible_to(None))
    _same(tables[0], Belief.for_view(game.spectator_view()))
    other = cache.belief_after(setup, None, Game(10, seed=4).events)
    assert other is not tables[0]


def test_a_worker_decides_the_same_with_a_warm_cache_as_with_a_cold_one() -> None:
    views = [v for v in _views(7, 11) if len(v.legal_actions) > 1]
    for spec in ("belief-ismcts:iterations=40", "belief"):
        thread_cache().clear()
        warm = [worker_answer("act", spec, v, 7, float("inf")) for v in views]
        cold = []
        for view in views:
            thread_cache().clear()
            cold.append(worker_answer("act", spec, view, 7, float("inf")))
        assert [move for move, _ in warm] == [move for move, _ in cold], spec
    thread_cache().clear()


def test_only_decisions_wrapped_for_reuse_take_cached_beliefs() -> None:
    assert not reusing_beliefs()
    with reused_beliefs():
        assert reusing_beliefs()
    assert not reusing_beliefs()
