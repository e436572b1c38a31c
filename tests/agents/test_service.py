"""AgentService: legal answers from worker processes, in time whatever the agent does.

The test-only agents below are registered in `agents.registry.AGENTS` before a service
starts; the workers receive that registry and import this module to build them.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import random
import time
from collections.abc import Iterator

import pytest

from agents.random_agent import RandomAgent
from agents.registry import AGENTS, make_agent
from agents.selfish import SelfishAgent
from agents.service import AgentService
from engine import Action, Claim, Game, Nominate, Phase, PlayerView

GENEROUS_S = 10.0  # a budget no healthy worker misses, even on a loaded machine
LATE_S = 1.5  # how far past its budget an answer may come and still count as in time


class SleepyAgent(RandomAgent):
    """Sleeps a second longer than the time it is given."""

    name = "sleepy"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        time.sleep((self.budget.seconds or 0.0) + 1.0)
        return super().decide(view, rng)


class HungAgent(RandomAgent):
    """Never answers in any useful time."""

    name = "hung"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        time.sleep(60)
        return super().decide(view, rng)


class CrashAgent(RandomAgent):
    """Kills the worker process it runs in (only ever in a worker)."""

    name = "crash"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if multiprocessing.parent_process() is None:  # never take pytest down
            raise RuntimeError("CrashAgent runs in worker processes only")
        os._exit(13)


class LeakyAgent(RandomAgent):
    """Raises an error whose message holds secrets: they must not reach the log."""

    name = "leaky"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        raise ValueError(f"SECRET role={view.role} hand={view.hand} known={view.known_roles}")


class IllegalAgent(RandomAgent):
    """Answers a nomination of itself, which is never legal."""

    name = "illegal"

    def act(self, view: PlayerView) -> Action:
        return Nominate(self.seat, self.seat)


class ChattyAgent(RandomAgent):
    """Claims whenever it may."""

    name = "chatty"

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        return rng.choice(view.legal_claims)


@pytest.fixture(autouse=True)
def test_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the agents above (before any service starts)."""
    for agent in (SleepyAgent, HungAgent, CrashAgent, LeakyAgent, IllegalAgent, ChattyAgent):
        monkeypatch.setitem(AGENTS, agent.name, f"{__name__}:{agent.__name__}")


def _decision_views(players: int, seed: int) -> Iterator[PlayerView]:
    """Every view a seat decides from in one random game."""
    game = Game(players, seed=seed)
    agents = [RandomAgent(s, seed) for s in range(players)]
    while not game.is_over:
        for seat in game.awaiting():
            view = game.view(seat)
            yield view
            game.apply(agents[seat].act(view))


def _view_in(phase: Phase, players: int = 7) -> PlayerView:
    return next(v for v in _decision_views(players, 1) if v.phase is phase)


def test_player_views_pickle_and_round_trip_equal() -> None:
    checked = 0
    for players in range(5, 11):
        game = Game(players, seed=players)
        agents = [RandomAgent(s, 3) for s in range(players)]
        step = 0
        while not game.is_over:
            step += 1
            if step % 4 == 1:  # every seat and the spectator, at a quarter of the steps
                views = [game.view(s) for s in range(players)] + [game.spectator_view()]
                for view in views:
                    copy = pickle.loads(pickle.dumps(view))
                    assert copy == view and copy is not view
                    checked += 1
            seat = game.awaiting()[0]
            game.apply(agents[seat].act(game.view(seat)))
    assert checked > 300


@pytest.mark.parametrize("workers", [1, 0])
async def test_answers_are_the_agents_own_legal_choices(workers: int) -> None:
    async with AgentService(workers) as service:
        views = [v for players in (5, 10) for v in _decision_views(players, players)][::3]
        for index, view in enumerate(views):
            spec = ("random", "selfish", "selfish:iterations=3,seconds=5")[index % 3]
            action = await service.decide(spec, view, seed=index, budget_s=GENEROUS_S)
            assert action in view.legal_actions
            # The worker rebuilt the agent from (spec, seat, seed): same choice as here.
            assert view.seat is not None
            assert action == make_agent(spec, view.seat, index).act(view)
        assert service.stats.answered == service.stats.decisions == len(views)
        assert service.stats.fallbacks == 0


async def test_claims_through_the_service() -> None:
    game = Game(7, seed=4)
    agents = [RandomAgent(s, 4) for s in range(7)]
    claims = 0
    async with AgentService(1) as service:
        while not game.is_over:
            seat = game.awaiting()[0]
            game.apply(agents[seat].act(game.view(seat)))
            for other in range(7):
                view = game.view(other)
                claim = await service.claim("chatty", view, seed=5, budget_s=GENEROUS_S)
                if not view.legal_claims:
                    assert claim is None
                    continue
                assert claim in view.legal_claims
                game.apply(claim)
                claims += 1
        assert service.stats.fallbacks == 0
    assert claims > 0


@pytest.mark.parametrize("workers", [1, 0])
async def test_a_slow_agent_gets_the_fallback_in_time(workers: int) -> None:
    view = _view_in(Phase.PRESIDENT_DISCARD)
    budget = 0.5
    async with AgentService(workers) as service:
        start = time.perf_counter()
        action = await service.decide("sleepy", view, seed=1, budget_s=budget)
        elapsed = time.perf_counter() - start
        assert action in view.legal_actions
        assert view.seat is not None
        assert action == SelfishAgent(view.seat, 1).act(view)  # the fallback's choice
        assert elapsed < budget + LATE_S
        assert service.stats.timeouts == service.stats.fallbacks == 1


async def test_a_hung_worker_is_replaced() -> None:
    views = list(_decision_views(6, 2))
    async with AgentService(1, stuck_after_s=0.3) as service:
        start = time.perf_counter()
        action = await service.decide("hung", views[0], seed=1, budget_s=0.4)
        assert action in views[0].legal_actions
        assert time.perf_counter() - start < 0.4 + LATE_S
        for _ in range(200):  # the watchdog restarts the pool 0.3 s past the deadline
            if service.stats.restarts:
                break
            await asyncio.sleep(0.05)
        assert service.stats.restarts == 1
        # The new worker answers at once: the hung one is no longer in the way.
        action = await service.decide("random", views[1], seed=1, budget_s=GENEROUS_S)
        assert action in views[1].legal_actions
        assert service.stats.answered == 1


async def test_the_service_survives_a_crashing_worker() -> None:
    views = list(_decision_views(8, 3))
    async with AgentService(1) as service:
        start = time.perf_counter()
        action = await service.decide("crash", views[0], seed=2, budget_s=GENEROUS_S)
        assert time.perf_counter() - start < GENEROUS_S + LATE_S
        assert action in views[0].legal_actions
        assert service.stats.crashes == service.stats.restarts == 1
        for index, view in enumerate(views[1:30]):
            action = await service.decide("selfish", view, seed=index, budget_s=GENEROUS_S)
            assert action in view.legal_actions
        assert service.stats.answered == 29


async def test_agent_errors_and_illegal_answers_fall_back() -> None:
    view = _view_in(Phase.NOMINATE)
    async with AgentService(0) as service:
        assert await service.decide("illegal", view, seed=1) in view.legal_actions
        assert await service.decide("leaky", view, seed=1) in view.legal_actions
        assert service.stats.errors == service.stats.fallbacks == 2


async def test_the_warning_names_agent_seat_and_phase_and_nothing_hidden(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="agents.service")
    views = [_view_in(Phase.PRESIDENT_DISCARD), _view_in(Phase.CHANCELLOR_ENACT)]
    async with AgentService(0) as service:
        for view in views:
            await service.decide("leaky", view, seed=3)
            await service.decide("sleepy", view, seed=3, budget_s=0.3)
    warnings = [r for r in caplog.records if r.name == "agents.service"]
    assert len(warnings) == 4
    for record, view in zip(warnings, [views[0], views[0], views[1], views[1]], strict=True):
        message = record.getMessage()
        assert record.levelno == logging.WARNING and record.exc_info is None
        assert f"seat {view.seat}" in message and f"phase {view.phase.value}" in message
        assert ("leaky" in message) or ("sleepy" in message)
        lowered = message.lower()
        for secret in ("secret", "liberal", "fascist", "hitler", "hand", "role", "policy"):
            assert secret not in lowered, message
        assert str(view.hand) not in message and repr(view.hand) not in message


async def test_caller_mistakes_are_errors_not_fallbacks() -> None:
    view = _view_in(Phase.NOMINATE)
    service = AgentService(0)
    with pytest.raises(RuntimeError, match="not running"):
        await service.decide("random", view, seed=1)
    async with service:
        with pytest.raises(ValueError, match="Unknown agent"):
            await service.decide("nobody", view, seed=1)
        game = Game(5, seed=1)
        with pytest.raises(ValueError, match="spectator"):
            await service.decide("random", game.spectator_view(), seed=1)
        idle = game.view(next(s for s in range(5) if s not in game.awaiting()))
        with pytest.raises(ValueError, match="nothing to decide"):
            await service.decide("random", idle, seed=1)
        assert await service.claim("chatty", idle, seed=1) is None  # no window: silence
    with pytest.raises(RuntimeError, match="not running"):
        await service.decide("random", view, seed=1)
