"""AI compute on a Ray cluster: the service's decisions and the arena's games.

Optional (`pip install '.[scale]'`): nothing imports this module unless Ray is chosen
(`AI_BACKEND=ray`, `python -m agents.arena --backend ray`).

- `RayPool` is an `agents.workers.DecisionPool`: `AgentService(pools=ray_pools(address))`
  sends each decision to the cluster as one Ray task, and everything else (the queue,
  each decision's share of time, retries, degraded answers, the logged and counted
  fallbacks) stays the service's own. What Ray lacks, the pool adds: a decision still
  running `timeout` seconds after it was sent is force-cancelled (its worker process is
  killed, as pebble kills a hung worker) and fails with TimeoutError; a task whose worker
  or node died fails with `WorkerLost` and is never retried by Ray itself (the service
  decides whether a retry still fits the deadline).
- `ordered_map` runs a function over items as Ray tasks and yields the results in the
  items' order: the arena plays its games with it, so a run on a cluster reports exactly
  what a local run with the same seed reports.

Deadlines travel as seconds left, never as monotonic instants: `time.monotonic()` is one
clock per machine, and a cluster's nodes each have their own. The task takes off the time
it spent on its way (waiting for a worker, a worker starting after one was killed) by the
wall clock, which the nodes of a cluster keep in step (NTP); clamped, so a node whose
clock is off can only thin its search or let the pool's timeout stop it, never outlast
that. A late start so costs iterations, not a fallback, as in a local pool.

Connecting: `connect(address)` calls `ray.init` once per process: to `address`, else
`RAY_ADDRESS`, else a new local Ray instance on this machine's cores; a pool waits for it
at most `startup_timeout_s` (Ray itself tries an unanswered address for minutes, and
the service must start and answer with fallbacks meanwhile). Worker output is not
forwarded to this process (`log_to_driver=False`): an agent's traceback may quote a hand
or a role, and the bot's log must not. Ray's usage statistics stay off (unless
RAY_USAGE_STATS_ENABLED=1). The cluster's nodes need this project installed (the same
image or `pip install .`), as a local pool's workers import it too. Starting a local Ray
instance takes seconds and, though the service builds its pool in a thread, held the
event loop up to about a second on a busy 2-core machine (once, at start; sending a
decision takes about a millisecond of the loop's time).
"""

from __future__ import annotations

import heapq
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import ray
from ray.exceptions import RayError, RayTaskError

from engine import Action, Claim, PlayerView

from .registry import AGENTS, AgentSpec
from .workers import (
    MIN_THINKING_S,
    STARTUP_TIMEOUT_S,
    WARM_PAUSE_S,
    DecisionPool,
    Kind,
    PoolFactory,
    WorkerLost,
    install_registry,
    worker_answer,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
Move = tuple[Action | Claim | None, int | None]


class _Connecting:
    """The one `ray.init` of this process, in a thread of its own: Ray keeps trying an
    address nobody answers at for minutes, and nothing can stop it, so callers wait for
    it at most so long, and a later call waits for the same attempt again."""

    lock = threading.Lock()
    thread: threading.Thread | None = None
    error: BaseException | None = None

    @classmethod
    def attempt(cls, address: str | None) -> threading.Thread:
        with cls.lock:
            if cls.thread is None or not (cls.thread.is_alive() or ray.is_initialized()):
                cls.error = None
                cls.thread = threading.Thread(
                    target=cls._init, args=(address,), name="ray-connect", daemon=True
                )
                cls.thread.start()
            return cls.thread

    @classmethod
    def _init(cls, address: str | None) -> None:
        try:
            if address is None:
                ray.init(include_dashboard=False, log_to_driver=False)
            else:  # an existing cluster's own settings apply: it refuses local-only ones
                ray.init(address=address, log_to_driver=False)
        except BaseException as exc:  # handed to the caller waiting in connect()
            cls.error = exc


def connect(address: str | None = None, timeout_s: float | None = None) -> None:
    """Join the Ray cluster at `address` (else `RAY_ADDRESS`, else start a local one),
    once per process; later calls keep the connection there is. Raises TimeoutError if
    no cluster answered within `timeout_s` (None: wait as long as Ray tries), or what
    `ray.init` raised."""
    if ray.is_initialized():
        return
    # Ray reports usage statistics to its makers unless told not to: a bot sends nothing
    # anywhere unasked. Set RAY_USAGE_STATS_ENABLED=1 to opt in.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    address = address or os.environ.get("RAY_ADDRESS") or None
    attempt = _Connecting.attempt(address)
    attempt.join(timeout_s)
    if attempt.is_alive():
        where = address or "a new local instance"
        raise TimeoutError(f"no Ray cluster answered within {timeout_s:g} s ({where})")
    if _Connecting.error is not None:
        raise _Connecting.error


def cluster_cpus() -> int:
    """The CPUs of the cluster this process is connected to (at least 1)."""
    resources = ray.cluster_resources()  # type: ignore[no-untyped-call]  # ray: unannotated
    return max(1, int(resources.get("CPU", 1)))


def _use_registry(registry: dict[str, str]) -> None:
    """Give this worker the registry of the process that sent the task (test agents,
    agents registered by a caller); a worker keeps it for its next tasks."""
    if registry != AGENTS:
        install_registry(registry)


# --- the tasks (module level: Ray pickles them by reference) -------------------------


@ray.remote(num_cpus=1, max_retries=0)
def _warm(registry: dict[str, str], preload: tuple[str, ...], pause_s: float) -> int:
    """Import the agents' code in this worker now, rather than in a timed decision."""
    _use_registry(registry)
    for name in preload:
        try:
            AgentSpec(name).build(0, 0)
        except Exception:  # left for the decision itself to report, as in agents.workers
            continue
    time.sleep(pause_s)  # each warm-up lingers, so that every worker gets one
    return os.getpid()


@ray.remote(num_cpus=1, max_retries=0)
def _answer(
    registry: dict[str, str],
    kind: Kind,
    spec: str,
    view: PlayerView,
    seed: int,
    seconds: float,
    sent: float,
) -> Move:
    """`worker_answer` due `seconds` after `sent` (the sender's `time.time()`), on this
    node's monotonic clock."""
    on_the_way = min(max(0.0, time.time() - sent), seconds)
    _use_registry(registry)
    return worker_answer(kind, spec, view, seed, time.monotonic() + seconds - on_the_way)


@ray.remote(num_cpus=1)
def _call(registry: dict[str, str], fn: Callable[[Any], Any], item: Any) -> Any:
    _use_registry(registry)
    return fn(item)


# --- the service's pool ---------------------------------------------------------------


@dataclass(eq=False)
class _Task:
    """One decision sent to the cluster."""

    ref: Any  # the task's ray.ObjectRef
    result: Future[Move]
    expired: bool = False  # the pool's timeout fired and cancelled it
    done: bool = False


class _Alarms:
    """One thread that runs callbacks at `time.monotonic()` instants: every decision's
    timeout, without a thread each."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._wake = threading.Condition()
        self._seq = 0
        self._closed = False
        threading.Thread(target=self._run, name="ray-pool-timeouts", daemon=True).start()

    def at(self, when: float, callback: Callable[[], None]) -> None:
        """Run `callback()` at `when` (in the alarms' thread)."""
        with self._wake:
            self._seq += 1
            heapq.heappush(self._heap, (when, self._seq, callback))
            self._wake.notify()

    def close(self) -> None:
        """Drop every alarm still pending and end the thread."""
        with self._wake:
            self._closed = True
            self._heap.clear()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._closed and (not self._heap or self._heap[0][0] > time.monotonic()):
                    self._wake.wait(self._heap[0][0] - time.monotonic() if self._heap else None)
                if self._closed:
                    return
                _, _, callback = heapq.heappop(self._heap)
            try:
                callback()
            except Exception:  # one failed cancel must not end every later timeout
                logger.exception("A Ray pool timeout failed")


class RayPool:
    """A `DecisionPool` on a Ray cluster: one task per decision, `slots` at once.

    `slots=None` takes the cluster's CPUs when the pool is built. `build` connects
    (`connect(address)`) and starts a worker per slot with the agents imported.
    """

    def __init__(
        self,
        registry: dict[str, str],
        preload: tuple[str, ...],
        *,
        address: str | None = None,
        slots: int | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
    ) -> None:
        self._registry = registry
        self.startup_timeout_s = startup_timeout_s
        self._preload = preload
        self.address = address
        self._slots = slots
        self._registry_ref: Any = None
        self._tasks: dict[Any, _Task] = {}  # by ObjectRef, while running
        self._lock = threading.Lock()  # callbacks come from Ray's and the alarms' threads
        self._alarms: _Alarms | None = None
        self._stopped = False
        self.pids: tuple[int, ...] = ()

    def build(self) -> RayPool:
        """Connect and warm one worker per slot (blocking: call from a thread); raises
        if that takes longer than `startup_timeout_s` (the service then answers with
        fallbacks and tries again)."""
        connect(self.address, self.startup_timeout_s)
        if self._slots is None:
            self._slots = cluster_cpus()
        self._registry_ref = ray.put(self._registry)  # sent once, not with every task
        warm = [
            _warm.remote(self._registry_ref, self._preload, WARM_PAUSE_S)
            for _ in range(self._slots)
        ]
        self.pids = tuple(ray.get(warm, timeout=self.startup_timeout_s))
        self._alarms = _Alarms()
        return self

    @property
    def slots(self) -> int:
        """How many decisions may run at once."""
        return self._slots or 1

    def answer(
        self,
        kind: Kind,
        spec: str,
        view: PlayerView,
        seed: int,
        due: float,
        timeout: float,
        alone: bool = False,
    ) -> Future[Move]:
        """Send one decision to the cluster (see `DecisionPool.answer`). `alone` is not
        passed on: the cluster's CPUs are shared by every shard, and one shard's service
        cannot know that no other table is using them."""
        alarms = self._alarms
        if self._stopped or alarms is None:
            raise RuntimeError("The Ray pool is not running.")
        sent = time.monotonic()
        seconds = max(MIN_THINKING_S, due - sent)
        ref = _answer.remote(self._registry_ref, kind, spec, view, seed, seconds, time.time())
        task = _Task(ref, Future())
        with self._lock:
            self._tasks[ref] = task
        alarms.at(sent + timeout, lambda: self._expire(task))
        ref.future().add_done_callback(lambda outcome: self._settle(task, outcome))
        return task.result

    def _expire(self, task: _Task) -> None:
        """Still running past its timeout: kill its worker (in the alarms' thread)."""
        with self._lock:
            if task.done:
                return
            task.expired = True
        ray.cancel(task.ref, force=True)

    def _settle(self, task: _Task, outcome: Future[Any]) -> None:
        """The task is over: pass its result on, its failure translated (Ray's thread)."""
        error = outcome.exception()
        with self._lock:  # stop() cancels results under it: one settles each, never both
            task.done = True
            self._tasks.pop(task.ref, None)
            if task.result.done():
                return  # the pool stopped first
            if error is None:
                task.result.set_result(outcome.result())
            elif task.expired:
                task.result.set_exception(TimeoutError("stopped at the pool's timeout"))
            elif isinstance(error, RayTaskError):
                # The agent raised: pass its own exception on (the service logs its type).
                cause = error.cause
                task.result.set_exception(cause if isinstance(cause, Exception) else error)
            elif isinstance(error, RayError):  # its worker or node died, its result lost
                task.result.set_exception(WorkerLost(type(error).__name__))
            else:
                task.result.set_exception(error)

    def stop(self) -> None:
        """Cancel every decision still running (their workers are killed); the cluster
        and this process's connection to it stay up for the next pool."""
        with self._lock:
            self._stopped = True
            tasks, self._tasks = list(self._tasks.values()), {}
            for task in tasks:
                task.result.cancel()
        if self._alarms is not None:
            self._alarms.close()
        for task in tasks:
            ray.cancel(task.ref, force=True)


def ray_pools(
    address: str | None = None,
    slots: int | None = None,
    startup_timeout_s: float = STARTUP_TIMEOUT_S,
) -> PoolFactory:
    """The `pools=` of an `AgentService` that decides on the Ray cluster at `address`."""

    def build(registry: dict[str, str], preload: tuple[str, ...]) -> DecisionPool:
        return RayPool(
            registry, preload, address=address, slots=slots, startup_timeout_s=startup_timeout_s
        )

    return build


# --- the arena's games ------------------------------------------------------------------


def ordered_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    address: str | None = None,
    window: int | None = None,
) -> Iterator[R]:
    """`fn(item)` for each item as Ray tasks, yielded in the items' order.

    At most `window` tasks are out at once (default: twice the cluster's CPUs), so a
    long run neither floods the scheduler nor holds every result at once. `fn` must
    pickle (a module-level function, or a partial of one). An exception `fn` raised is
    raised here as it was; the tasks still out are then cancelled.
    """
    connect(address)
    window = window or 2 * cluster_cpus()
    registry = ray.put(dict(AGENTS))
    pending: deque[Any] = deque()
    try:
        for item in items:
            pending.append(_call.remote(registry, fn, item))
            if len(pending) >= window:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def _result(ref: Any) -> Any:
    try:
        return ray.get(ref)
    except RayTaskError as error:
        cause = error.cause
        if isinstance(cause, Exception):
            raise cause from None
        raise
