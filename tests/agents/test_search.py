"""The search driver (agents.search): it runs whatever parts it is given, within the
limits and the deadline, and any tree policy pairs with any determinization source."""

from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass, field

import pytest

from agents.determinize import Sampler, UniformSampler
from agents.model_search import ModelTree
from agents.playouts import TableModel, play_model
from agents.search import MIN_SEARCH_S, Search, TreePolicy
from agents.so_tree import SOTree
from agents.tree import Node
from engine import Game, PlayerView, WinReason
from engine.fastsim import FastGame, move_of, view_variant
from tests.agents.test_ismcts import first_vote, positions


@dataclass
class Recording:
    """A fake tree policy: notes what the driver handed it and claims `runs` iterations."""

    runs: int
    calls: list[tuple[Node, Sampler, int | None, float | None, bool]] = field(default_factory=list)

    def iterate(
        self,
        root: Node,
        sampler: Sampler,
        rng: random.Random,
        iterations: int | None,
        deadline: float | None,
    ) -> int:
        self.calls.append((root, sampler, iterations, deadline, gc.isenabled()))
        root.visits[1] += self.runs
        return self.runs


def _uniform_model(view: PlayerView) -> TableModel:
    fascists = view_variant(view).setup(view.players).fascists
    return TableModel.uniform(view.players, fascists)


def test_the_driver_runs_the_injected_parts_once_per_decision() -> None:
    view = first_vote(7, seed=3).view(2)
    policy = Recording(runs=7)
    seen: list[PlayerView] = []

    def sampler(v: PlayerView) -> Sampler:
        seen.append(v)
        return UniformSampler(v)

    def tree(v: PlayerView) -> TreePolicy:
        seen.append(v)
        return policy

    assert gc.isenabled()
    result = Search(sampler, tree).run(view, random.Random(0), 123, None)
    assert seen == [view, view] and len(policy.calls) == 1
    root, made, iterations, deadline, collecting = policy.calls[0]
    assert isinstance(made, UniformSampler)
    assert iterations == 123 and deadline is None
    assert not collecting and gc.isenabled()  # paused for the search only
    assert root is result.root and root.seat == view.seat and len(root.visits) == 7
    assert result.iterations == 7
    assert result.actions == tuple(view.legal_actions)
    assert result.moves == tuple(move_of(a) for a in view.legal_actions)
    assert result.best_move() == 1  # the fake policy's only visited move


def test_the_deadline_is_the_earlier_of_the_seconds_and_the_due_time() -> None:
    view = first_vote(5, seed=1).view(0)
    policy = Recording(runs=1)
    driver = Search(UniformSampler, lambda v: policy)
    before = time.perf_counter()
    driver.run(view, random.Random(0), None, 30.0)
    driver.run(view, random.Random(0), None, 30.0, due=time.monotonic() + 1.0)
    driver.run(view, random.Random(0), 5, None, due=time.monotonic() + 2.0)
    after = time.perf_counter()
    (_, _, _, by_seconds, _), (_, _, _, by_due, _), (_, _, _, due_only, _) = policy.calls
    assert by_seconds is not None and before + 30 <= by_seconds <= after + 30
    assert by_due is not None and before + 0.5 < by_due <= after + 1.0
    assert due_only is not None and before + 1.5 < due_only <= after + 2.0


def test_a_search_that_starts_past_its_due_time_still_gets_a_floor() -> None:
    view = first_vote(5, seed=1).view(0)
    policy = Recording(runs=1)
    driver = Search(UniformSampler, lambda v: policy)
    before = time.perf_counter()
    driver.run(view, random.Random(0), None, 30.0, due=time.monotonic() - 5.0)
    (_, _, _, late, _) = policy.calls[0]
    assert late is not None and late >= before + MIN_SEARCH_S
    # A real search past its due time: more than one round of playouts.
    real = Search(UniformSampler, lambda v: SOTree(0.7, FastGame.play_random))
    result = real.run(view, random.Random(0), None, None, due=time.monotonic() - 5.0)
    assert result.iterations > 10


def test_a_view_without_a_decision_is_refused() -> None:
    game = Game(5, seed=1)
    waiting = next(s for s in range(5) if s not in game.awaiting())
    driver = Search(UniformSampler, lambda v: Recording(runs=1))
    with pytest.raises(ValueError):
        driver.run(game.view(waiting), random.Random(0), 10, None)


@pytest.mark.parametrize("index", range(4))
def test_the_model_tree_on_a_uniform_sampler(index: int) -> None:
    """Belief-ISMCTS's tree policy without its belief: only the searcher's decisions are
    nodes, paired rounds at the root, the same tree again under the same seed."""
    view = positions(4)[index]
    assert view.seat is not None
    driver = Search(UniformSampler, lambda v: ModelTree(_uniform_model(v), 0.7))
    result = driver.run(view, random.Random(index), 120, None)
    again = driver.run(view, random.Random(index), 120, None)
    assert result.root.visits == again.root.visits and result.root.wins == again.root.wins
    stack = [result.root]
    while stack:
        node = stack.pop()
        assert node.seat == view.seat
        stack.extend(node.children.values())
    assert len({result.root.visits[m] for m in result.moves}) == 1
    assert 120 - len(result.moves) < result.iterations <= 120
    assert result.best_action() in view.legal_actions


def test_the_every_seat_tree_takes_any_playout_policy() -> None:
    """SO-ISMCTS's tree finished by the opponent model: a configuration no agent uses."""
    view = first_vote(7, seed=3).view(4)
    model = _uniform_model(view)
    finished: list[FastGame] = []

    def playout(game: FastGame, rng: random.Random) -> WinReason:
        finished.append(game)
        return play_model(game, rng, model)

    driver = Search(UniformSampler, lambda v: SOTree(0.7, playout))
    result = driver.run(view, random.Random(1), 80, None)
    assert result.iterations == 80 and 0 < len(finished) <= 80
    assert all(game.reason is not None for game in finished)
    assert sum(result.root.visits) == 80
