"""The bot's door to the agents: one async call per decision, always answered in time.

`AgentService.decide(spec, view, seed=..., budget_s=2.0)` runs the agent's decision in a
worker process and returns a legal action within `budget_s` seconds, whatever happens:

- the worker rebuilds the agent from (spec, seat, seed) and calls `act(view)`; agents are
  deterministic given their seed and the view (see `agents.base`), so nothing else needs
  to travel. The agent's own time budget is the spec's, capped at `budget_s` minus a
  safety margin for the trip there and back;
- if no answer arrives in time, or the worker crashes, or the agent raises or answers
  something illegal, the service answers with the `selfish` agent's decision for the
  same view, computed in-process (cheap and legal), and logs a WARNING naming only the
  agent, the seat and the phase: never roles, hands, peeks or beliefs;
- a broken pool (a crashed worker), or one whose worker is still busy long after its
  deadline (a hung agent), is replaced by a fresh one.

Why `forkserver` (or `spawn` where it does not exist) and never `fork`: the bot's process
runs an asyncio loop and threads (discord.py, aiosqlite, the executor's own manager
thread). `fork` copies only the calling thread, so a lock another thread held at that
instant (logging, the allocator, a database) stays locked forever in the child, and the
child inherits the bot's sockets. The fork server is a fresh single-threaded process
that has imported the engine and agents once; workers fork from it quickly and cleanly.

Nothing here blocks the event loop: the pool is built and its workers started in a
thread, submitting a decision is a queue put, and results come back through the
executor's manager thread. `workers=0` decides in threads of this process instead (for
tests and the terminal): deadlines still hold, but a thread cannot be killed, so a hung
agent there keeps its thread.

`python -m agents.service` measures the event loop's lag while games are decided
through the service.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, replace
from multiprocessing.context import BaseContext
from types import TracebackType
from typing import Any, TypeVar

from engine import Action, Claim, Game, PlayerView

from .base import AgentBase, Budget
from .registry import AGENTS, AgentSpec
from .selfish import SelfishAgent

logger = logging.getLogger(__name__)

DEFAULT_BUDGET_S = 2.0
DEFAULT_CLAIM_BUDGET_S = 1.0
FALLBACK = "selfish"
FALLBACK_RESERVE_S = 0.05  # kept back from the deadline to compute the fallback
MIN_THINKING_S = 0.05  # the least an agent is given, however tight the budget
RESTART_BACKOFF_S = 1.0  # a pool that cannot start is retried at most this often
STARTUP_TIMEOUT_S = 60.0  # for a new pool's workers to start and import the agents
WARM_PAUSE_S = 0.05  # each warm-up task lingers so that every worker gets one
# Imported once by the fork server, so each worker starts with the engine loaded.
_FORKSERVER_PRELOAD = ["engine", "agents.registry", "agents.selfish"]

T = TypeVar("T")


def process_context() -> BaseContext:
    """The start method for agent worker processes: forkserver, else spawn (see above)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # A hint, and process-wide: it only takes effect if the server is not running yet.
        context.set_forkserver_preload(_FORKSERVER_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def install_registry(agents: dict[str, str]) -> None:
    """Worker initializer: give the worker the registry the parent had (spec -> class)."""
    AGENTS.clear()
    AGENTS.update(agents)


def _init_worker(agents: dict[str, str], preload: tuple[str, ...]) -> None:
    install_registry(agents)
    for name in preload:
        # Import each agent's code now rather than during a timed decision. Any failure
        # is left for the decision itself to report (an exception here would break the
        # whole pool, and an agent still being written may fail in any way).
        with contextlib.suppress(Exception):
            AgentSpec(name).build(0, 0)


def _warm(pause_s: float) -> int:
    time.sleep(pause_s)
    return os.getpid()


def _build(spec: str, seat: int, seed: int, thinking_s: float) -> AgentBase:
    """The agent of `spec`, its seconds budget capped at `thinking_s`."""
    parsed = AgentSpec.parse(spec)
    budget = parsed.budget
    seconds = thinking_s if budget.seconds is None else min(budget.seconds, thinking_s)
    return replace(parsed, budget=Budget(budget.iterations, seconds)).build(seat, seed)


def worker_act(spec: str, view: PlayerView, seed: int, thinking_s: float) -> Action:
    """In a worker: rebuild the seat's agent and decide (picklable, module level)."""
    assert view.seat is not None
    return _build(spec, view.seat, seed, thinking_s).act(view)


def worker_claim(spec: str, view: PlayerView, seed: int, thinking_s: float) -> Claim | None:
    """In a worker: rebuild the seat's agent and maybe claim."""
    assert view.seat is not None
    return _build(spec, view.seat, seed, thinking_s).claim(view)


def _stop_pool(pool: ProcessPoolExecutor, grace_s: float) -> None:
    """Shut a pool down, killing workers still busy after `grace_s` (blocking: a thread)."""
    # ProcessPoolExecutor (before 3.14) has no public way to stop a running task; its
    # worker processes are the only handle on a hung or overrunning agent.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace_s
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join(5.0)


class _PoolUnavailable(Exception):
    """The worker pool could not be started, or was being replaced."""


@dataclass(slots=True)
class ServiceStats:
    """What the service has done so far (for logs, tests and the lag script)."""

    decisions: int = 0  # decide() calls
    claims: int = 0  # claim() calls that asked an agent
    answered: int = 0  # agent answers used as is
    fallbacks: int = 0
    timeouts: int = 0
    crashes: int = 0  # broken pools seen
    errors: int = 0  # agents that raised or answered illegally
    restarts: int = 0


class AgentService:
    """Agent decisions off the event loop, in worker processes, each within a deadline.

    Use as `async with AgentService(workers=2) as service: await service.decide(...)`.
    `workers=0` decides in threads of this process instead (tests, the terminal).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        safety_margin_s: float = 0.3,
        stuck_after_s: float = 5.0,
        preload: Sequence[str] | None = None,
    ) -> None:
        self.workers = max(1, (os.cpu_count() or 2) - 1) if workers is None else workers
        if self.workers < 0:
            raise ValueError("workers must be 0 (in-process) or more.")
        self.safety_margin_s = safety_margin_s  # for pickling, queues and scheduling
        self.stuck_after_s = stuck_after_s  # past its deadline, a busy worker is hung
        self.preload = tuple(AGENTS) if preload is None else tuple(preload)
        self.stats = ServiceStats()
        self._registry: dict[str, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._pool_task: asyncio.Future[ProcessPoolExecutor] | None = None
        self._generation = 0  # bumped whenever the pool is replaced
        self._last_restart = float("-inf")
        self._background: set[asyncio.Future[Any]] = set()
        self._watchdogs: set[asyncio.TimerHandle] = set()
        self._closed = False

    # --- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers and wait until they are ready (they import the agents)."""
        if self._loop is not None:
            return
        self._loop = asyncio.get_running_loop()
        if self.workers == 0:
            self._threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="agent")
            return
        self._registry = dict(AGENTS)  # workers see agents registered until now
        self._pool_task = self._new_pool()
        with contextlib.suppress(Exception):  # a pool that cannot start: decisions fall back
            await asyncio.shield(self._pool_task)

    async def close(self) -> None:
        """Stop the workers (busy ones are killed after a short grace) and the threads."""
        if self._closed or self._loop is None:
            self._closed = True
            return
        self._closed = True
        for handle in self._watchdogs:
            handle.cancel()
        self._watchdogs.clear()
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
        if self._pool_task is not None:
            await self._dispose(self._pool_task, grace_s=1.0)
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def __aenter__(self) -> AgentService:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # --- decisions -------------------------------------------------------------------

    async def decide(
        self, spec: str, view: PlayerView, *, seed: int, budget_s: float = DEFAULT_BUDGET_S
    ) -> Action:
        """A legal action for `view`'s seat from the agent of `spec`, within `budget_s`.

        Raises ValueError at once for a spec naming no agent or a view with nothing to
        decide (caller bugs); everything else that goes wrong gives the fallback.
        """
        name = self._check(spec, view, budget_s)
        if not view.legal_actions:
            raise ValueError(f"Seat {view.seat} has nothing to decide now.")
        self.stats.decisions += 1
        answer, problem = await self._ask(worker_act, spec, view, seed, budget_s)
        if problem is None:
            if isinstance(answer, Action) and answer in view.legal_actions:
                self.stats.answered += 1
                return answer
            self.stats.errors += 1
            problem = "the agent answered an illegal action"
        self._warn(name, view, problem)
        return _fallback_action(view, seed)

    async def claim(
        self, spec: str, view: PlayerView, *, seed: int, budget_s: float = DEFAULT_CLAIM_BUDGET_S
    ) -> Claim | None:
        """One of `view.legal_claims` or None (silence, also the fallback), within `budget_s`."""
        name = self._check(spec, view, budget_s)
        if not view.legal_claims:
            return None
        self.stats.claims += 1
        answer, problem = await self._ask(worker_claim, spec, view, seed, budget_s)
        if problem is None:
            if answer is None or (isinstance(answer, Claim) and answer in view.legal_claims):
                self.stats.answered += 1
                return answer
            self.stats.errors += 1
            problem = "the agent answered an illegal claim"
        self._warn(name, view, problem)
        return None

    def _check(self, spec: str, view: PlayerView, budget_s: float) -> str:
        if self._loop is None or self._closed:
            raise RuntimeError("The AgentService is not running: use `async with` or start().")
        if view.seat is None:
            raise ValueError("A spectator's view has no seat to decide for.")
        if budget_s <= 0:
            raise ValueError(f"The budget must be positive, not {budget_s}.")
        return AgentSpec.parse(spec).name

    async def _ask(
        self,
        fn: Callable[[str, PlayerView, int, float], T],
        spec: str,
        view: PlayerView,
        seed: int,
        budget_s: float,
    ) -> tuple[T | None, str | None]:
        """The agent's answer, or None and why there is none (free of hidden information)."""
        thinking_s = max(MIN_THINKING_S, budget_s - self.safety_margin_s)
        wait_s = max(0.0, budget_s - FALLBACK_RESERVE_S)
        try:
            answer = await asyncio.wait_for(self._call(fn, spec, view, seed, thinking_s), wait_s)
        except TimeoutError:
            self.stats.timeouts += 1
            return None, f"no answer within {budget_s:g} s"
        except BrokenProcessPool:
            self.stats.crashes += 1
            return None, "the worker process crashed"
        except _PoolUnavailable:
            return None, "the worker pool is unavailable"
        except Exception as exc:
            # The type only: an agent's message may quote its hand or its beliefs.
            self.stats.errors += 1
            return None, f"the agent raised {type(exc).__name__}"
        return answer, None

    async def _call(
        self,
        fn: Callable[[str, PlayerView, int, float], T],
        spec: str,
        view: PlayerView,
        seed: int,
        thinking_s: float,
    ) -> T:
        loop = self._running_loop()
        if self._threads is not None:
            return await loop.run_in_executor(self._threads, fn, spec, view, seed, thinking_s)
        assert self._pool_task is not None
        generation = self._generation
        try:
            pool = await asyncio.shield(self._pool_task)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._restart(generation, "it could not start")
            raise _PoolUnavailable from exc
        try:
            future: Future[T] = pool.submit(fn, spec, view, seed, thinking_s)
        except BrokenProcessPool:
            self._restart(generation, "a worker process died")
            raise
        except RuntimeError as exc:  # submitted while the pool was being replaced
            raise _PoolUnavailable from exc
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._restart(generation, "a worker process died")
            raise
        except asyncio.CancelledError:
            if not future.done():  # the worker is still thinking: watch for a hang
                self._watch(future, generation)
            raise

    # --- the pool --------------------------------------------------------------------

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        assert self._loop is not None
        return self._loop

    def _new_pool(self) -> asyncio.Future[ProcessPoolExecutor]:
        """Build and warm a pool in a thread: starting processes must not block the loop."""
        registry, preload, workers = self._registry, self.preload, self.workers

        def build() -> ProcessPoolExecutor:
            pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=process_context(),
                initializer=_init_worker,
                initargs=(registry, preload),
            )
            try:
                # Non-fork pools start a worker per submit while none is idle, so
                # overlapping warm-up tasks start them all now, not during a decision.
                warm = [pool.submit(_warm, WARM_PAUSE_S) for _ in range(workers)]
                for future in warm:
                    future.result(timeout=STARTUP_TIMEOUT_S)
            except BaseException:
                _stop_pool(pool, grace_s=0.0)
                raise
            return pool

        return self._running_loop().run_in_executor(None, build)

    def _restart(self, generation: int, reason: str) -> None:
        """Replace the pool of `generation` (once: later reports of it are ignored)."""
        loop = self._running_loop()
        if self._closed or generation != self._generation:
            return
        if loop.time() - self._last_restart < RESTART_BACKOFF_S:
            return
        self._last_restart = loop.time()
        self._generation += 1
        self.stats.restarts += 1
        logger.warning("Restarting the agent worker pool: %s.", reason)
        old = self._pool_task
        self._pool_task = self._new_pool()
        if old is not None:
            self._spawn(self._dispose(old, grace_s=0.0))

    async def _dispose(
        self, pool_task: asyncio.Future[ProcessPoolExecutor], grace_s: float
    ) -> None:
        try:
            pool = await asyncio.shield(pool_task)
        except Exception:
            return  # it never started: nothing to stop
        await asyncio.to_thread(_stop_pool, pool, grace_s)

    def _watch(self, future: Future[Any], generation: int) -> None:
        """Restart the pool if `future` is still running `stuck_after_s` from now."""
        loop = self._running_loop()

        def check() -> None:
            self._watchdogs.discard(handle)
            if not future.done():
                self._restart(
                    generation, f"a decision overran its deadline by {self.stuck_after_s:g} s"
                )

        handle = loop.call_later(self.stuck_after_s, check)
        self._watchdogs.add(handle)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = self._running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _warn(self, name: str, view: PlayerView, problem: str) -> None:
        # Public facts only: the agent's name, the seat, the phase and what went wrong.
        self.stats.fallbacks += 1
        logger.warning(
            "Agent %s at seat %s (phase %s): %s; playing the %s fallback.",
            name,
            view.seat,
            view.phase.value,
            problem,
            FALLBACK,
        )


def _fallback_action(view: PlayerView, seed: int) -> Action:
    """The selfish agent's choice for `view`: instant, legal, and not absurd."""
    assert view.seat is not None
    try:
        return SelfishAgent(view.seat, seed).act(view)
    except Exception:  # never expected; the deadline matters more than the choice
        return view.legal_actions[0]


# --- the loop-lag measurement: python -m agents.service ---------------------------------


async def _ticker(period_s: float, lags: list[float], stop: asyncio.Event) -> None:
    """Sleep `period_s` again and again, recording how late each wake-up is."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(period_s)
        lags.append(loop.time() - start - period_s)


async def _play_through(service: AgentService, spec: str, seed: int, budget_s: float) -> int:
    """Play one game with every decision and claim going through the service."""
    game = Game(7, seed=seed)
    decisions = 0
    while not game.is_over:
        seats = game.awaiting()
        views = [game.view(seat) for seat in seats]
        actions = await asyncio.gather(
            *(service.decide(spec, v, seed=seed + v.players, budget_s=budget_s) for v in views)
        )
        for action in actions:
            game.apply(action)
            decisions += 1
            if game.is_over:
                break
            for seat in range(game.players):
                if game.legal_claims(seat):
                    claim = await service.claim(spec, game.view(seat), seed=seed, budget_s=budget_s)
                    if claim is not None:
                        game.apply(claim)
    return decisions


def _lag_summary(lags: list[float]) -> dict[str, float]:
    ordered = sorted(lags)
    return {
        "ticks": len(ordered),
        "median": 1000 * statistics.median(ordered),
        "p99": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
        "max": 1000 * ordered[-1],
    }


async def _measure(workers: int, games: int, spec: str, budget_s: float) -> dict[str, Any]:
    stop = asyncio.Event()
    idle: list[float] = []  # the machine's own jitter, before the service exists
    ticker = asyncio.create_task(_ticker(0.005, idle, stop))
    await asyncio.sleep(2.0)
    stop.set()
    await ticker
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(0.005, lags, stop))
    started = time.perf_counter()
    async with AgentService(workers) as service:
        startup_s = time.perf_counter() - started
        started = time.perf_counter()
        counts: list[int] = await asyncio.gather(
            *(_play_through(service, spec, seed, budget_s) for seed in range(games))
        )
        elapsed = time.perf_counter() - started
        stats = asdict(service.stats)
    stop.set()
    await ticker
    return {
        "workers": workers,
        "games": games,
        "spec": spec,
        "decisions": sum(counts),
        "startup_s": startup_s,
        "seconds": elapsed,
        "decisions_per_s": sum(counts) / elapsed,
        "loop_lag_ms_idle": _lag_summary(idle),
        "loop_lag_ms": _lag_summary(lags),
        "stats": stats,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the event loop's lag while games are decided through the service."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.service",
        description="Event-loop lag while agents decide through the AgentService.",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=8, help="games played concurrently")
    parser.add_argument("--spec", default="selfish")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(_measure(args.workers, args.games, args.spec, args.budget))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
