"""Where AI decisions run: worker processes (or threads), one decision per worker at a time.

`WorkerPool` wraps a `pebble.ProcessPool`. Pebble is used instead of the standard
`ProcessPoolExecutor` because it isolates faults to the one decision that caused them:
a task past its timeout has its worker terminated and replaced, and a worker that dies
fails only its own task. With the standard executor either fault breaks the whole pool,
and every other game's decision in flight with it.

Why `forkserver` (or `spawn` where it does not exist) and never `fork`: the bot's process
runs an asyncio loop and threads (discord.py, aiosqlite, the pool's own threads). `fork`
copies only the calling thread, so a lock another thread held at that instant (logging,
the allocator, a database) stays locked forever in the child, and the child inherits the
bot's sockets. The fork server is a fresh single-threaded process that has imported the
engine and agents once; workers fork from it quickly and cleanly.

`worker_answer` is what runs in a worker: it rebuilds the seat's agent from (spec, seat,
seed) and decides from the view. Agents are deterministic given their seed and the view
(see `agents.base`), so nothing else needs to travel. The beliefs the agents read are
kept in the worker between decisions (`agents.belief_cache`): each decision reads only
the events since the last one, and the table's belief serves every seat of a game.

`DecisionPool` is what `agents.service` asks of a pool: `WorkerPool` here (processes of
this machine) and `agents.ray_backend.RayPool` (a Ray cluster) both satisfy it, so the
service's queue, deadlines and fallbacks are the same whichever runs the decisions.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from multiprocessing.context import BaseContext
from typing import Any, Literal, Protocol

from pebble import ProcessPool

from engine import Action, Claim, PlayerView

from .base import AgentBase, Budget
from .belief_cache import reused_beliefs
from .registry import AGENTS, AgentSpec

Kind = Literal["act", "claim"]
MIN_THINKING_S = 0.05  # the least a search is given, however late it starts
STARTUP_TIMEOUT_S = 60.0  # for a new pool's workers to start and import the agents
WARM_PAUSE_S = 0.05  # each warm-up task lingers so that every worker gets one
# Imported once by the fork server, so each worker starts with the engine loaded.
# The search agents too: a worker replaced after a hang or a crash starts in milliseconds
# instead of importing numpy and the agents while decisions queue behind it.
_FORKSERVER_PRELOAD = [
    "engine",
    "agents.registry",
    "agents.selfish",
    "agents.belief_agent",
    "agents.ismcts",
    "agents.belief_ismcts",
]


class WorkerLost(Exception):
    """The process running a decision died or became unreachable (a pool that is not
    pebble's reports this where pebble reports `ProcessExpired`)."""


class DecisionPool(Protocol):
    """Where `agents.service.AgentService` runs decisions: one per slot at a time."""

    pids: tuple[int, ...]

    def build(self) -> DecisionPool:
        """Start the workers (blocking: the service calls it from a thread)."""
        ...

    @property
    def slots(self) -> int:
        """How many decisions may run at once."""
        ...

    def answer(
        self,
        kind: Kind,
        spec: str,
        view: PlayerView,
        seed: int,
        due: float,
        timeout: float,
        alone: bool = False,
    ) -> Future[tuple[Action | Claim | None, int | None]]:
        """Run `worker_answer(kind, spec, view, seed, due, alone)` (`due`: this process's
        `time.monotonic()`; `alone`: see `Budget.alone`). The future fails with
        TimeoutError if the decision still runs `timeout` seconds after it started (its
        worker is stopped), with `WorkerLost` or `pebble.ProcessExpired` if its worker
        died, with the agent's own exception if it raised; it is cancelled if the pool
        stops first."""
        ...

    def stop(self) -> None:
        """Stop now (blocking: call from a thread); decisions still running fail."""
        ...


# Builds a pool from the registry the workers must see and the agents they preload.
PoolFactory = Callable[[dict[str, str], tuple[str, ...]], DecisionPool]


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
        # is left for the decision itself to report (an exception here would kill the
        # worker, and an agent still being written may fail in any way).
        with contextlib.suppress(Exception):
            AgentSpec(name).build(0, 0)


def _warm(pause_s: float) -> int:
    time.sleep(pause_s)
    return os.getpid()


def build_agent(spec: str, seat: int, seed: int, due: float, alone: bool = False) -> AgentBase:
    """The agent of `spec` for `seat`, its search due by `due` (a `time.monotonic()`
    instant, at least `MIN_THINKING_S` from now) and its seconds capped to match;
    `alone`: its table is the only one the service is serving (`Budget.alone`)."""
    parsed = AgentSpec.parse(spec)
    due = max(due, time.monotonic() + MIN_THINKING_S)
    remaining = due - time.monotonic()
    own = parsed.budget
    seconds = remaining if own.seconds is None else min(own.seconds, remaining)
    budget = Budget(own.iterations, seconds, due, alone)
    return replace(parsed, budget=budget).build(seat, seed)


def worker_answer(
    kind: Kind, spec: str, view: PlayerView, seed: int, due: float, alone: bool = False
) -> tuple[Action | Claim | None, int | None]:
    """Rebuild the seat's agent and answer by `due`: the action or claim and the search
    iterations it ran (runs in a worker; picklable, module level)."""
    assert view.seat is not None
    agent = build_agent(spec, view.seat, seed, due, alone)
    with reused_beliefs():  # the agent lives for this decision: beliefs from the cache
        move = agent.act(view) if kind == "act" else agent.claim(view)
    return move, agent.iterations


class WorkerPool:
    """Worker processes (`workers` > 0) or threads of this process (`workers` == 0).

    `submit` runs `fn(*args)` and returns a concurrent future; with processes, a task
    still running `timeout` seconds after it started has its worker terminated and its
    future fails with TimeoutError, and a worker that dies fails its future with
    `pebble.ProcessExpired`. Threads cannot be stopped: there a timeout is only noticed.
    `build` blocks (it starts processes): call it from a thread.
    """

    def __init__(self, workers: int, registry: dict[str, str], preload: Sequence[str]) -> None:
        self.workers = workers
        self._registry = registry
        self._preload = tuple(preload)
        self._processes: ProcessPool | None = None
        self._threads: ThreadPoolExecutor | None = None
        self.pids: tuple[int, ...] = ()  # the worker processes as started

    def build(self) -> WorkerPool:
        """Start the workers and wait until each has imported the agents."""
        if self.workers == 0:
            # More threads than slots: a hung agent keeps its thread, not the service.
            self._threads = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agent")
            return self
        pool = self._processes = ProcessPool(
            max_workers=self.workers,
            initializer=_init_worker,
            initargs=(self._registry, self._preload),
            context=process_context(),
        )
        # Workers start on demand: overlapping warm-up tasks start them all now, so that
        # no decision pays for a process start and the agents' imports.
        try:
            warm = [pool.schedule(_warm, args=(WARM_PAUSE_S,)) for _ in range(self.workers)]
            self.pids = tuple(future.result(timeout=STARTUP_TIMEOUT_S) for future in warm)
        except BaseException:
            self.stop()
            raise
        return self

    @property
    def slots(self) -> int:
        """How many decisions may run at once."""
        return self.workers or 2

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Future[Any]:
        """Run `fn(*args)`; see the class docstring for `timeout`."""
        if self._processes is not None:
            return self._processes.schedule(fn, args=args, timeout=timeout)
        assert self._threads is not None, "build() the pool first"
        return self._threads.submit(fn, *args)

    def answer(
        self,
        kind: Kind,
        spec: str,
        view: PlayerView,
        seed: int,
        due: float,
        timeout: float,
        alone: bool = False,
    ) -> Future[tuple[Action | Claim | None, int | None]]:
        """`worker_answer` in a worker (see `DecisionPool.answer`); the processes share
        this machine's monotonic clock, so `due` travels as it is."""
        return self.submit(worker_answer, (kind, spec, view, seed, due, alone), timeout)

    def stop(self) -> None:
        """Stop every worker now (blocking: call from a thread); running tasks fail."""
        if self._processes is not None:
            self._processes.stop()  # type: ignore[no-untyped-call]  # pebble: unannotated
            self._processes.join(timeout=5.0)
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
