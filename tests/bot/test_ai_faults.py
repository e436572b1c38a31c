"""No game waits forever: whole games through the real AgentService and its worker processes
while AI seats crash their workers, raise, hang, fail to claim, or see their pool restarted.

Each game must reach its end with legal moves only (the stored record replays to the same
game), the cause must be in the log, and the game's own fallback count must show it.
The faulty agents below fault on a fixed share of their decisions (by the number of
events they have seen), so every run meets the same faults.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import time

import pytest

from agents.registry import AGENTS
from agents.selfish import SelfishAgent
from agents.service import AgentService
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.session import GameSession, SessionOptions
from bot.storage import Storage
from bot.timers import Timers
from engine import Action, Claim, PlayerView

BUDGET_S = 0.4  # each AI decision's budget: short, so that faulty games end quickly
GAME_TIMEOUT_S = 240.0  # a frozen game fails the test instead of hanging it


def _faults_here(view: PlayerView, every: int) -> bool:
    """Whether this decision is one of the faulty ones, and we run in a worker process
    (never in pytest's own process: the service may run an agent here as a last resort)."""
    return multiprocessing.parent_process() is not None and len(view.events) % every == 0


class WorkerKiller(SelfishAgent):
    """Kills its worker process on one decision in five."""

    name = "worker-killer"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if _faults_here(view, 5):
            os._exit(13)
        return super().decide(view, rng)


class Raiser(SelfishAgent):
    """Raises on one decision in four."""

    name = "raiser"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if _faults_here(view, 4):
            raise RuntimeError("an agent bug")
        return super().decide(view, rng)


class Hanger(SelfishAgent):
    """Hangs far past its deadline on one decision in nine."""

    name = "hanger"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if _faults_here(view, 9):
            time.sleep(3600)
        return super().decide(view, rng)


class BadClaimer(SelfishAgent):
    """Its claims raise or kill the worker; its decisions are fine."""

    name = "bad-claimer"

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        if multiprocessing.parent_process() is not None:
            if len(view.events) % 2:
                os._exit(13)
            raise RuntimeError("a claim bug")
        return None


class Thinker(SelfishAgent):
    """Takes most of its time on every decision, so that a restart finds it busy."""

    name = "thinker"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if multiprocessing.parent_process() is not None:
            time.sleep(min(0.2, self.budget.seconds or 0.2))
        return super().decide(view, rng)


FAULTY = (WorkerKiller, Raiser, Hanger, BadClaimer, Thinker)


@pytest.fixture(autouse=True)
def faulty_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the agents above before any service starts (its workers get the registry)."""
    for agent in FAULTY:
        monkeypatch.setitem(AGENTS, agent.name, f"{__name__}:{agent.__name__}")


OPTIONS = SessionOptions(timers=Timers.off(), ai_budget_s=BUDGET_S, suspicion=False)


async def _play(
    store: Storage, service: AgentService, spec: str, *, players: int = 5, seed: int = 1
) -> GameSession:
    """A game of AI seats playing `spec`, run to its end through `service`."""
    manager = SessionManager(store, FakeFrontend(answer=scripted), service)
    session = await manager.create(
        [], players=players, fill_with_ai=True, ai_spec=spec, seed=seed, options=OPTIONS
    )
    await asyncio.wait_for(session.run(), GAME_TIMEOUT_S)
    return session


async def _assert_ended_legally(store: Storage, session: GameSession) -> None:
    game = session.game
    assert game.is_over and session.failure is None
    stored = await store.load_game(session.game_id)
    assert stored.status == "finished"
    assert stored.record.actions == game.actions
    assert stored.record.replay().events == game.events  # every move was legal


@pytest.mark.parametrize(
    ("spec", "cause"),
    [
        ("worker-killer", "the worker process died"),
        ("raiser", "the agent raised RuntimeError"),
        ("hanger", "no answer by its deadline"),
    ],
)
async def test_a_game_ends_when_its_ai_workers_crash_raise_or_hang(
    spec: str, cause: str, session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with AgentService(1, hang_grace_s=0.3) as service:
        session = await _play(session_store, service, spec, seed=11)
    await _assert_ended_legally(session_store, session)
    assert session.fallbacks > 0
    logged = [r.getMessage() for r in caplog.records if cause in r.getMessage()]
    assert any(f"game {session.game_id}" in line for line in logged), logged


async def test_a_game_ends_when_every_ai_claim_fails(
    session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with AgentService(1) as service:
        session = await _play(session_store, service, "bad-claimer", players=7, seed=5)
        assert service.stats.claims > 0
    await _assert_ended_legally(session_store, session)
    assert not [a for a in session.game.actions if isinstance(a, Claim)]  # silence
    assert session.fallbacks >= 1
    assert any(f"game {session.game_id}" in r.getMessage() for r in caplog.records)


async def test_games_end_while_the_pool_is_restarted_under_them(
    session_store: Storage,
) -> None:
    async with AgentService(1) as service:
        games = [
            asyncio.create_task(_play(session_store, service, "thinker", seed=seed))
            for seed in (21, 22)
        ]

        async def restart_now_and_then() -> None:
            for _ in range(3):
                await asyncio.sleep(1.5)
                await service.restart("a test restart")

        restarts = asyncio.create_task(restart_now_and_then())
        sessions = await asyncio.gather(*games)
        await restarts
        assert service.stats.restarts == 3
    for session in sessions:
        await _assert_ended_legally(session_store, session)
    # A decision in flight during a restart was handed to the new pool (and counted).
    assert sum(s.fallbacks for s in sessions) >= 1
