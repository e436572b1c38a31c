"""AI compute on Ray: the AgentService's decisions and the arena's games on a real local
Ray instance (`ray.init(num_cpus=2)`, started once for the module), marked `ray`.

The Ray processes listen on the loopback interface only (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER
set to 0 before Ray is imported: Ray then takes 127.0.0.1 as the node's address instead
of the machine's own). The test agents below kill their worker, hang or raise; the Ray
workers import this module to build them, as pebble's workers do in test_service.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agents.arena import ArenaGameError, GameSetup, run_arena
from agents.arena import main as arena_main
from agents.random_agent import RandomAgent
from agents.registry import AGENTS
from agents.runner import GameResult
from agents.service import AgentService
from bot.agent_port import ai_service
from bot.config import config_from
from engine import Action, Claim, Game, Phase, PlayerView

pytestmark = pytest.mark.ray

DRIVER = "SHBOT_TEST_RAY_DRIVER_PID"  # the test process: agents never kill it
GENEROUS_S = 10.0  # a budget no healthy worker misses, even one Ray has to start first
# Iteration budgets only: a search bounded by seconds plays differently on a busy core.
ARENA_POOL = {
    "random": "random",
    "selfish": "selfish",
    "belief": "belief",
    "ismcts": "ismcts:iterations=30",
    "belief-ismcts": "belief-ismcts:iterations=30",
}


def _in_ray_worker() -> bool:
    return str(os.getpid()) != os.environ.get(DRIVER, str(os.getpid()))


class CrashAgent(RandomAgent):
    """Kills the Ray worker process it runs in (never the test process)."""

    name = "ray-crash"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if not _in_ray_worker():
            raise RuntimeError("CrashAgent runs in Ray workers only")
        os._exit(13)


def _hung_pid_file() -> Path:
    return Path(tempfile.gettempdir()) / f"shbot-ray-hung-{os.environ.get(DRIVER)}"


class HungAgent(RandomAgent):
    """Never answers in any useful time; leaves its worker's pid in `_hung_pid_file()`."""

    name = "ray-hung"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        _hung_pid_file().write_text(str(os.getpid()))
        time.sleep(60)
        return super().decide(view, rng)


def _running(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


class LeakyAgent(RandomAgent):
    """Raises an error whose message holds secrets: they must not reach the log."""

    name = "ray-leaky"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        raise ValueError(f"SECRET role={view.role} hand={view.hand}")


class BrokenAgent(RandomAgent):
    """Fails once the first Fascist policy is on the board (an arena game error)."""

    name = "ray-broken"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if view.fascist_policies:
            raise RuntimeError("the agent broke")
        return super().decide(view, rng)


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[ModuleType]:
    """A local Ray instance on two CPUs, on the loopback interface, for the module."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # read when Ray is imported
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # no report to Ray's makers from a test
    os.environ[DRIVER] = str(os.getpid())  # the workers inherit it
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    # The loopback, as asked above (a Ray imported before this fixture would not be).
    assert "node:127.0.0.1" in ray.cluster_resources()
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(autouse=True)
def test_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the agents above (before any service or arena starts)."""
    for agent in (CrashAgent, HungAgent, LeakyAgent, BrokenAgent):
        monkeypatch.setitem(AGENTS, agent.name, f"{__name__}:{agent.__name__}")


def _service() -> AgentService:
    from agents.ray_backend import ray_pools

    return AgentService(pools=ray_pools())


def _nomination() -> PlayerView:
    game = Game(7, seed=3)
    view = game.view(game.awaiting()[0])
    assert view.phase is Phase.NOMINATE
    return view


def _claim_view() -> PlayerView:
    """A view with a claim window open (a president after a legislative session)."""
    rng = random.Random(5)
    game = Game(7, seed=11)
    while not game.is_over:
        for seat in range(game.players):
            if game.legal_claims(seat):
                return game.view(seat)
        game.apply(rng.choice(game.view(game.awaiting()[0]).legal_actions))
    raise AssertionError("no claim window opened")


async def test_a_decision_on_ray_is_the_real_agents_legal_answer_with_its_iterations(
    ray_instance: ModuleType,
) -> None:
    view = _nomination()
    speaker = _claim_view()
    async with _service() as service:
        assert len(service.worker_pids) == 2  # one warm worker per CPU of the cluster
        answer = await service.decide("belief-ismcts", view, seed=7, budget_s=1.0)
        said = await service.claim("belief-ismcts", speaker, seed=7, budget_s=1.0)
    assert answer.fallback is None and answer.answered_by == "belief-ismcts"
    assert answer.move in view.legal_actions
    assert answer.iterations is not None and answer.iterations > 0  # the search ran
    assert said.fallback is None and said.answered_by == "belief-ismcts"
    assert said.move is None or (isinstance(said.move, Claim) and said.move in speaker.legal_claims)
    assert service.stats.answered == 2 and service.stats.fallbacks == 0


async def test_ai_backend_ray_in_the_config_makes_the_bots_service_decide_on_ray(
    ray_instance: ModuleType,
) -> None:
    config = config_from({"AI_BACKEND": "ray"})
    view = _nomination()
    service = ai_service(config.ai_backend, ray_address=config.ray_address)
    async with service:
        # The workers are Ray's (their process titles say so), not pebble's.
        titles = [Path(f"/proc/{pid}/cmdline").read_text() for pid in service.worker_pids]
        answer = await service.decide("ismcts", view, seed=3, budget_s=1.0)
    assert len(titles) == 2 and all(title.startswith("ray::") for title in titles)
    assert answer.fallback is None and answer.answered_by == "ismcts"
    assert answer.move in view.legal_actions and answer.iterations


UNREACHABLE = """
import asyncio, json, sys
from agents.ray_backend import ray_pools
from agents.service import AgentService
from engine import Game

async def main():
    game = Game(7, seed=1)
    view = game.view(game.awaiting()[0])
    pools = ray_pools(sys.argv[1], startup_timeout_s=2.0)
    async with AgentService(pools=pools, queue_grace_s=1.0) as service:
        answer = await service.decide("belief", view, seed=1, budget_s=0.5)
    print(json.dumps({
        "legal": answer.move in view.legal_actions,
        "fallback": answer.fallback,
        "timeouts": service.stats.timeouts,
    }))

asyncio.run(main())
"""


def test_a_cluster_nobody_answers_at_leaves_the_service_answering_with_fallbacks() -> None:
    # In a process of its own: Ray keeps trying such an address for minutes, and the
    # attempt cannot be stopped (this module's Ray instance must not meet it).
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nobody listens once it is closed
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", UNREACHABLE, f"127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # The service started all the same (the pool gave up connecting after 2 s) and the
    # decision was answered, by a fallback that says why.
    answered = {"legal": True, "fallback": "no worker in time", "timeouts": 1}
    assert json.loads(done.stdout) == answered
    assert "The agent worker pool cannot start (TimeoutError)" in done.stderr


async def test_a_ray_task_whose_worker_dies_falls_back_and_is_counted(
    ray_instance: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    view = _nomination()
    caplog.set_level(logging.INFO, logger="agents.service")
    async with _service() as service:
        answer = await service.decide("ray-crash", view, seed=1, budget_s=3.0)
        # Both workers died (the first try and its retry): Ray starts new ones, which
        # takes seconds on a loaded machine, hence the generous budget.
        after = await service.decide("belief", view, seed=1, budget_s=GENEROUS_S)
    assert answer.move in view.legal_actions and answer.answered_by != "ray-crash"
    assert answer.fallback == "the worker process died"
    assert service.stats.crashes >= 1 and service.stats.fallbacks == 1
    assert service.stats.degraded == 1  # answered in this process, not at random
    assert "AI fallback: agent ray-crash at seat" in caplog.text
    assert "the worker process died" in caplog.text
    # The cluster replaced the worker: the next decision is the agent's own.
    assert after.fallback is None and after.answered_by == "belief"


async def test_a_hung_ray_task_is_cancelled_at_its_deadline_and_falls_back(
    ray_instance: ModuleType,
) -> None:
    view = _nomination()
    _hung_pid_file().unlink(missing_ok=True)
    async with _service() as service:
        answer = await service.decide("ray-hung", view, seed=1, budget_s=0.5)
        hung = int(_hung_pid_file().read_text())
        # The pool force-cancelled the task: Ray kills its worker (asynchronously, so the
        # test waits for that, up to the minute the agent would otherwise sleep).
        for _ in range(300):
            if not _running(hung):
                break
            await asyncio.sleep(0.1)
        assert not _running(hung)
        after = await service.decide("belief", view, seed=1, budget_s=GENEROUS_S)
    assert answer.move in view.legal_actions and answer.answered_by != "ray-hung"
    assert answer.fallback is not None and answer.fallback.startswith("no answer by its deadline")
    assert service.stats.timeouts == 1 and service.stats.fallbacks == 1
    assert after.fallback is None and after.answered_by == "belief"


async def test_a_pool_restart_on_ray_hands_the_decision_in_flight_to_the_new_pool(
    ray_instance: ModuleType,
) -> None:
    view = _nomination()
    async with _service() as service:
        task = asyncio.create_task(service.decide("belief-ismcts", view, seed=4, budget_s=6.0))
        await asyncio.sleep(1.0)  # thinking on Ray by now
        await service.restart("a test")  # its task is cancelled, its worker killed
        answer = await task  # no CancelledError reaches the caller
    assert answer.move in view.legal_actions and answer.answered_by == "belief-ismcts"
    assert answer.fallback == "the worker pool was restarted"
    assert service.stats.restarts == 1 and service.stats.retries == 1


async def test_an_agent_that_raises_on_ray_is_named_by_its_error_type_only(
    ray_instance: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    view = _nomination()
    caplog.set_level(logging.INFO)
    async with _service() as service:
        answer = await service.decide("ray-leaky", view, seed=1, budget_s=3.0)
    assert answer.move in view.legal_actions
    assert answer.fallback == "the agent raised ValueError"
    assert service.stats.errors == 1 and service.stats.fallbacks == 1
    assert "SECRET" not in caplog.text


def _tournament(backend: str) -> tuple[dict[str, Any], list[str]]:
    """A short tournament's report (timings apart) and its games' records."""
    records: list[str] = []

    def keep(setup: GameSetup, result: GameResult) -> None:
        records.append(result.record.to_json())

    report = run_arena(
        games=6, seed=5, players=(5, 7), pool=ARENA_POOL, backend=backend, on_result=keep
    ).to_dict()
    timing = report.pop("timing")
    assert timing["backend"] == backend
    return report, records


def test_the_arena_on_ray_reports_what_a_local_run_with_the_same_seed_reports(
    ray_instance: ModuleType,
) -> None:
    local, local_records = _tournament("local")
    on_ray, ray_records = _tournament("ray")
    assert on_ray == local
    assert ray_records == local_records  # the same games, move for move, in order
    assert local["games"] == 6


def test_the_arena_command_takes_backend_ray(
    ray_instance: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--pool", "random,selfish", "--games", "3", "--players", "5", "--seed", "1"]
    reports = []
    for backend in ("local", "ray"):
        assert arena_main([*args, "--backend", backend, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report.pop("timing")["backend"] == backend
        reports.append(report)
    assert reports[0] == reports[1]


def test_a_failed_game_on_ray_names_the_game_as_a_local_run_does(
    ray_instance: ModuleType,
) -> None:
    pool = {"random": "random", "ray-broken": "ray-broken"}
    with pytest.raises(ArenaGameError) as local:
        run_arena(games=4, seed=2, players=(5, 5), pool=pool)
    with pytest.raises(ArenaGameError) as on_ray:
        run_arena(games=4, seed=2, players=(5, 5), pool=pool, backend="ray")
    assert str(on_ray.value) == str(local.value)
    assert "agents.runner.play_game" in str(on_ray.value)
