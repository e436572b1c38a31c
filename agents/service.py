"""The bot's door to the agents: one async call per decision, always answered in time.

`AgentService.decide(spec, view, seed=..., budget_s=2.0)` returns an `Answer` holding a
legal action for the view's seat, whatever happens (`claim` the same for claims):

- Decisions wait in one queue, shared by every game of the process, and run one per
  worker (`agents.workers`). Nothing waits unseen inside the pool, so when a decision
  starts, the service knows how long it may think: as long as every decision queued
  behind it keeps an equal share of the time before its own deadline (`thinking_share`;
  several AI seats voting at once are planned as one set and share the vote's window
  instead of racing for it). Decisions that stop on their own (belief-ISMCTS caps a
  ballot's search) are counted at what such decisions took lately (`ShortDecisions`),
  so the rest of the window goes to the nominations, hands and powers. A caller that
  names the decision's `table` (its game) lets the service tell when that table is the
  only one it has served lately: then nothing else waits for the machine, and a search
  may lift such a cap within its share (`Budget.alone`).
  The worker's search stops by that instant (it checks the clock in its loop), so a
  late start costs iterations, not a fallback. The queue runs earliest deadline first
  (a retry before all; at equal deadlines a nomination, the legislature, a power or a
  claim before ballots).
- A worker that dies fails only its own decision, which is tried again in a fresh
  worker if enough time is left. A worker still busy `hang_grace_s` after its deadline
  is terminated. A forced pool restart hands every decision in flight to the new pool.
  The pool's shutdown never cancels a caller: only the caller's own cancellation does.
- When the agent cannot answer in time (its worker died or hung, it raised, it answered
  something illegal), the answer is degraded, never random: the same agent with a tiny
  budget in this process if it is one of the shipped agents (their code keeps its
  deadline), else the rule agents of `agents.fallback`. `Answer.fallback` says why, and
  the service logs it at INFO naming only the agent, the seat and the phase: never
  roles, hands, peeks or beliefs.

`workers=0` decides in threads of this process instead (tests and the terminal):
deadlines still hold, but a thread cannot be stopped, so a hung agent keeps its thread.
`pools=` replaces the local processes by any other `agents.workers.DecisionPool`, e.g.
`agents.ray_backend.ray_pools(address)` for a Ray cluster: everything above holds
unchanged, only where a decision runs differs.

`python -m agents.service` measures the event loop's lag while games are decided
through the service (`--backend ray`: on Ray).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import logging
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Coroutine, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from enum import IntEnum
from types import TracebackType
from typing import Any

from pebble import ProcessExpired

from engine import Action, Claim, Game, Phase, PlayerView, Role

from .base import Answer, Budget
from .fallback import rule_action
from .registry import AGENTS, AgentSpec
from .workers import (
    MIN_THINKING_S,
    DecisionPool,
    Kind,
    PoolFactory,
    WorkerLost,
    WorkerPool,
)

logger = logging.getLogger(__name__)

DEFAULT_BUDGET_S = 2.0
DEFAULT_CLAIM_BUDGET_S = 1.0
HANG_GRACE_S = 0.5  # past its deadline, a worker still busy is hung and is terminated
QUEUE_GRACE_S = 3.0  # past its deadline, a decision still queued is answered here
RETRY_MIN_S = 0.3  # a failed attempt runs again in a worker only with this much time left
MAX_ATTEMPTS = 2
DEGRADED_ITERATIONS = 200  # a degraded answer's search, in this process
DEGRADED_S = 0.1
RESTART_BACKOFF_S = 1.0  # a pool that cannot start is tried again this often
# Shipped agents keep their deadline and cannot crash the process: only they may give a
# degraded answer in this process. Anything else registered later is not trusted.
TRUSTED = frozenset({"random", "selfish", "belief", "ismcts", "belief-ismcts"})


class Priority(IntEnum):
    """Which of two queued decisions due at the same instant goes first (lowest first).

    A retry goes before everything; otherwise the queue runs earliest deadline first:
    a nomination due in two seconds waits behind ballots due in half a second, which
    take a few hundredths each, and then has the rest of its window to think (first by
    priority, it would have started with a sliver: the ballots' deadlines were near).
    """

    RETRY = 0  # already late: it failed once
    TABLE = 1  # one seat's decision or claim that the whole table waits on
    BALLOT = 2  # one of several at once, sharing the vote's window


# Set aside this many times what the short decisions queued are expected to need: more
# decisions arrive while one thinks (other tables' ballots, claims) and estimates vary.
NEED_MARGIN = 2.0
# A table that asked for a decision this recently is still playing: while any other
# table has, a decision is not alone and keeps its self-imposed caps. Under four busy
# tables, Fascist ballots let think to their share took most of the nominations'
# iterations (bench/results/README.md, "A larger Fascist-ballot cap"); a table waiting
# on its people for longer than this leaves the machine to the others.
TABLE_ACTIVE_S = 15.0


def thinking_share(
    now: float, due: float, waiting: Sequence[tuple[float, float | None]], slots: int
) -> float:
    """How long a decision due at `due` may think from `now`, with decisions still queued
    behind it for `slots` workers: as long as every queued one can still have its part of
    the time before its own deadline.

    `waiting` holds each queued decision's deadline and its need: the seconds it is
    expected to take when it stops on its own before its share (a ballot capped in
    iterations, see `ShortDecisions`), or None when it thinks as long as it is let.
    For each queued deadline d, twice the needs of the decisions due by d (`NEED_MARGIN`)
    are set aside, and this decision (it starts now) and the k - 1 open-ended ones due by
    d share the rest,
    `slots` at a time: this one takes at most (d - now - 2 needs / slots) / ceil(k / slots).
    Nine open-ended ballots asked together (due a few microseconds apart) thus get a
    ninth of the window each on one worker; a nomination due in a minute does not
    shorten a ballot due in two seconds; twenty-seven capped ballots queued behind a
    nomination leave it all but twice the time they need.
    """
    share = due - now
    needs = 0.0
    open_ended = 1
    for other, need in sorted(waiting, key=lambda item: item[0]):
        if need is None:
            open_ended += 1
        else:
            needs += need
        free = other - now - NEED_MARGIN * needs / slots
        share = min(share, max(0.0, free) / math.ceil(open_ended / slots))
    return share


class ShortDecisions:
    """What decisions that stop on their own take, by agent, kind, phase and role.

    A search capped in iterations (belief-ISMCTS's ballots) ends well before the share of
    time it was given; the service then plans the queue with what such decisions took
    lately (worker round trip included) instead of an equal share for each. A kind of
    decision that used its whole share is open-ended again.
    """

    # A decision that ends this long before its share ran out stopped on its own.
    EARLY_S = 0.02
    # Weight of the newest duration in the running estimate.
    WEIGHT = 0.2
    # Cut short after this many times its known need: it no longer stops on its own.
    OVER = 2.0

    def __init__(self) -> None:
        # By agent, kind, phase and the deciding seat's role (a Fascist's ballot searches
        # longer than a Liberal's); held in memory only, never logged.
        self._seconds: dict[tuple[str, Kind, Phase, Role | None], float] = {}

    def need(self, spec: str, kind: Kind, view: PlayerView) -> float | None:
        """The expected seconds of such a decision, None if it thinks as long as let."""
        return self._seconds.get((spec, kind, view.phase, view.role))

    def ended(
        self,
        spec: str,
        kind: Kind,
        view: PlayerView,
        took: float,
        left: float,
        *,
        alone: bool = False,
    ) -> None:
        """A decision took `took` seconds and ended `left` seconds before its share did.

        Cut short by its share, it says nothing about its need unless the share was well
        over the need known: then this kind of decision no longer stops on its own. One
        whose table was alone says nothing either: it may lift its cap (`Budget.alone`),
        and the need planned for is the capped one, for when other tables wait.
        """
        if alone:
            return
        key = (spec, kind, view.phase, view.role)
        known = self._seconds.get(key)
        if left >= self.EARLY_S:
            self._seconds[key] = took if known is None else known + self.WEIGHT * (took - known)
        elif known is not None and took > self.OVER * known:
            del self._seconds[key]


class _NoAnswer(Exception):
    """The agent gave no usable answer; the message is the cause (no hidden information)."""


@dataclass(eq=False)
class _Job:
    """One decision on its way through the queue and the workers."""

    kind: Kind
    spec: str
    view: PlayerView
    seed: int
    due: float  # time.monotonic() by which the answer is due
    priority: Priority
    seq: int
    outcome: asyncio.Future[tuple[Any, int | None]]
    patience: float = QUEUE_GRACE_S  # past `due`, how long it may still wait for a worker
    attempts: int = 0
    cause: str | None = None  # what went wrong first, if anything
    generation: int = -1  # the pool it runs in
    watchdog: asyncio.TimerHandle | None = None
    started: float = 0.0  # time.monotonic() when a worker took it
    think_until: float = 0.0  # when its search had to stop
    alone: bool = False  # its table was the only one served lately (`Budget.alone`)
    table: Hashable | None = None  # the game it is for, if its caller said

    def key(self) -> tuple[bool, float, int, int]:
        return (self.priority is not Priority.RETRY, self.due, self.priority, self.seq)


@dataclass(slots=True)
class ServiceStats:
    """What the service has done so far (for logs, tests and benchmarks)."""

    decisions: int = 0  # decide() calls
    claims: int = 0  # claim() calls that asked an agent
    answered: int = 0  # agent answers used as they came
    fallbacks: int = 0  # answers with a cause (a retry's, a degraded one, a rule agent's)
    retries: int = 0  # attempts run again in a worker
    degraded: int = 0  # answered in this process after the workers could not
    timeouts: int = 0  # workers terminated past their deadline, or decisions never started
    crashes: int = 0  # worker processes that died
    errors: int = 0  # agents that raised or answered illegally
    restarts: int = 0  # pools replaced


class AgentService:
    """Agent decisions off the event loop, in worker processes, each within a deadline.

    Use as `async with AgentService(workers=2) as service: await service.decide(...)`.
    `workers=None` sizes the pool to the machine (cores - 1, at least 1); `workers=0`
    decides in threads of this process instead (tests, the terminal). `pools` builds
    the pool instead (then `workers` is unused): e.g. `agents.ray_backend.ray_pools()`.
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        margin_s: float = 0.15,
        hang_grace_s: float = HANG_GRACE_S,
        queue_grace_s: float = QUEUE_GRACE_S,
        preload: Sequence[str] | None = None,
        pools: PoolFactory | None = None,
    ) -> None:
        self.workers = max(1, (os.cpu_count() or 2) - 1) if workers is None else workers
        if self.workers < 0:
            raise ValueError("workers must be 0 (in-process) or more.")
        self._pools = pools or self._local_pool
        self.margin_s = margin_s  # kept back from the budget for the answer's trip back
        self.hang_grace_s = hang_grace_s
        self.queue_grace_s = queue_grace_s  # past its deadline, still no worker: answer here
        self.preload = tuple(AGENTS) if preload is None else tuple(preload)
        self.stats = ServiceStats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool: DecisionPool | None = None
        self._generation = 0  # bumped whenever the pool is replaced
        self._queue: list[tuple[tuple[bool, float, int, int], _Job]] = []
        self._running: dict[_Job, Future[Any]] = {}
        self._seq = 0
        self._spare: ThreadPoolExecutor | None = None  # degraded answers, off the loop
        self._background: set[asyncio.Task[Any]] = set()
        self._starting: asyncio.Task[None] | None = None
        self._restarting = False
        self._dispatch_pending = False  # a `_dispatch_now` is scheduled
        self._short = ShortDecisions()
        self._tables: dict[Hashable, float] = {}  # when each named table last asked
        self._closed = False

    # --- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers and wait until they are ready (they import the agents)."""
        if self._loop is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._spare = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-fallback")
        await self._replace_pool()

    async def close(self) -> None:
        """Stop the workers; decisions still waiting get degraded answers."""
        if self._closed or self._loop is None:
            self._closed = True
            return
        self._closed = True
        for job in [job for _, job in self._queue] + list(self._running):
            self._give_up(job, "the AI service stopped")
        self._queue.clear()
        self._running.clear()
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.stop)
        if self._starting is not None:
            self._starting.cancel()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        if self._spare is not None:
            self._spare.shutdown(wait=False, cancel_futures=True)

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

    @property
    def worker_pids(self) -> tuple[int, ...]:
        """The current pool's worker processes, as started (none with threads)."""
        return self._pool.pids if self._pool is not None else ()

    async def restart(self, reason: str) -> None:
        """Replace the worker pool now; the decisions it was running go to the new one."""
        if self._closed or self._loop is None:
            return
        self.stats.restarts += 1
        logger.warning("Restarting the agent worker pool: %s.", reason)
        self._restarting = True
        old, self._pool = self._pool, None
        self._generation += 1
        for job in list(self._running):
            del self._running[job]
            self._failed(job, "the worker pool was restarted", retry=True)
        if old is not None:
            self._spawn(asyncio.to_thread(old.stop))
        try:
            await self._replace_pool()
        finally:
            self._restarting = False

    async def _replace_pool(self) -> None:
        """Build a pool in a thread (starting processes must not block the loop)."""
        registry = dict(AGENTS)  # workers see the agents registered until now
        pool = self._pools(registry, self.preload)
        generation = self._generation
        try:
            await asyncio.to_thread(pool.build)
        except Exception as exc:
            logger.error("The agent worker pool cannot start (%s).", type(exc).__name__)
            self._retry_start_later()
            return
        if self._closed or generation != self._generation:
            await asyncio.to_thread(pool.stop)
            return
        self._pool = pool
        self._dispatch()

    def _local_pool(self, registry: dict[str, str], preload: tuple[str, ...]) -> DecisionPool:
        return WorkerPool(self.workers, registry, preload)

    def _retry_start_later(self) -> None:
        def again() -> None:
            if not self._closed and self._pool is None:
                self._starting = self._running_loop().create_task(self._replace_pool())

        self._running_loop().call_later(RESTART_BACKOFF_S, again)

    # --- decisions -------------------------------------------------------------------

    async def decide(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = DEFAULT_BUDGET_S,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Action]:
        """A legal action for `view`'s seat from the agent of `spec`, within `budget_s`.

        `patience_s`: how long past `budget_s` the table can still wait for this seat's
        own agent (its timer) when every worker is busy; the search then starts late and
        is thinner, rather than a fallback answering (default: `queue_grace_s`).
        `table`: the game the decision is for (any hashable), so the service can tell
        when it serves that table alone (see the module doc); None: never alone.
        Raises ValueError at once for a spec naming no agent or a view with nothing to
        decide (caller bugs); anything else that goes wrong gives a degraded answer.
        """
        name = self._check(spec, view, budget_s)
        if not view.legal_actions:
            raise ValueError(f"Seat {view.seat} has nothing to decide now.")
        self.stats.decisions += 1
        priority = Priority.BALLOT if view.phase is Phase.VOTE else Priority.TABLE

        def legal(move: Any) -> bool:
            return isinstance(move, Action) and move in view.legal_actions

        return await self._answer(
            "act", name, spec, view, seed, (budget_s, patience_s), priority, legal, table
        )

    async def claim(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = DEFAULT_CLAIM_BUDGET_S,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Claim | None]:
        """One of `view.legal_claims` or None (silence), within `budget_s` (`patience_s`,
        `table`: as for `decide`)."""
        name = self._check(spec, view, budget_s)
        if not view.legal_claims:
            return Answer(None, name)
        self.stats.claims += 1

        def legal(move: Any) -> bool:
            return move is None or (isinstance(move, Claim) and move in view.legal_claims)

        return await self._answer(
            "claim", name, spec, view, seed, (budget_s, patience_s), Priority.TABLE, legal, table
        )

    async def _answer(
        self,
        kind: Kind,
        name: str,
        spec: str,
        view: PlayerView,
        seed: int,
        budget: tuple[float, float | None],
        priority: Priority,
        legal: Callable[[Any], bool],
        table: Hashable | None,
    ) -> Answer[Any]:
        """The agent's answer if it is `legal`, else a degraded one, with its cause.
        `budget`: the seconds to think and the patience past them (see `decide`)."""
        started = time.monotonic()
        try:
            move, iterations, cause, until = await self._ask(
                kind, spec, view, seed, budget, priority, table
            )
            if not legal(move):
                self.stats.errors += 1
                what = "action" if kind == "act" else "claim"
                raise _NoAnswer(f"the agent answered an illegal {what}")
            seconds = time.monotonic() - started
            return self._answered(Answer(move, name, iterations, seconds, cause, until))
        except _NoAnswer as failure:
            cause = str(failure)
        move, by, iterations = await self._degraded(kind, spec, view, seed)
        self._warn(name, view, cause, by)
        return Answer(move, by, iterations, time.monotonic() - started, cause)

    def _answered(self, answer: Answer[Any]) -> Answer[Any]:
        if answer.fallback is None:
            self.stats.answered += 1
        else:
            self.stats.fallbacks += 1
            logger.info(
                "AI answer after a retry: agent %s (%s)", answer.answered_by, answer.fallback
            )
        return answer

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
        kind: Kind,
        spec: str,
        view: PlayerView,
        seed: int,
        budget: tuple[float, float | None],
        priority: Priority,
        table: Hashable | None,
    ) -> tuple[Any, int | None, str | None, float]:
        """The agent's answer, its iterations, what went wrong on the way (if it was
        retried) and the instant its worker was told to stop thinking (`think_until`);
        raises `_NoAnswer` with the cause when there is none."""
        loop = self._running_loop()
        budget_s, patience_s = budget
        now = time.monotonic()
        due = now + max(MIN_THINKING_S, budget_s - self.margin_s)
        self._seq += 1
        job = _Job(kind, spec, view, seed, due, priority, self._seq, loop.create_future())
        job.patience = max(self.queue_grace_s, patience_s or 0.0)
        job.table = table
        if table is not None:
            self._tables[table] = now
        # Whatever befalls the pool, the job is settled: a decision still waiting for a
        # worker `patience` past its deadline is answered here (a late start only thins
        # its search); once started, the watchdog moves behind the worker's own.
        self._enqueue(job)
        self._dispatch_soon()
        try:
            move, iterations = await job.outcome  # our caller's cancellation cancels it
        finally:
            if job.watchdog is not None:
                job.watchdog.cancel()
        return move, iterations, job.cause, job.think_until

    # --- the queue and the workers -----------------------------------------------------

    def _enqueue(self, job: _Job) -> None:
        """Queue `job`, its watchdog set for the longest it may wait for a worker."""
        if job.watchdog is not None:
            job.watchdog.cancel()
        job.watchdog = self._running_loop().call_later(
            job.due - time.monotonic() + job.patience, self._overdue, job
        )
        heapq.heappush(self._queue, (job.key(), job))

    def _dispatch_soon(self) -> None:
        """Dispatch on the loop's next turn, once: decisions asked in the same turn (the
        AI seats of a vote, asked together) are then queued together and planned as one
        set. Dispatched at once, the first would see an empty queue and take the whole
        window, leaving the others the minimum."""
        if not self._dispatch_pending:
            self._dispatch_pending = True
            self._running_loop().call_soon(self._dispatch_now)

    def _dispatch_now(self) -> None:
        self._dispatch_pending = False
        self._dispatch()

    def _dispatch(self) -> None:
        """Start queued decisions while a worker is free, each with its share of time."""
        pool = self._pool
        if pool is None or self._closed:
            return
        while self._queue and len(self._running) < pool.slots:
            _, job = heapq.heappop(self._queue)
            if job.outcome.done():
                continue  # its caller left
            now = time.monotonic()
            waiting = [
                (other.due, self._short.need(other.spec, other.kind, other.view))
                for _, other in self._queue
                if not other.outcome.done()
            ]
            think_until = now + max(
                MIN_THINKING_S, thinking_share(now, job.due, waiting, pool.slots)
            )
            alone = self._alone(job.table, now)
            try:
                future = pool.answer(
                    job.kind,
                    job.spec,
                    job.view,
                    job.seed,
                    think_until,
                    think_until - now + self.hang_grace_s,
                    alone=alone,
                )
            except Exception as exc:  # the pool is shut or broken
                heapq.heappush(self._queue, (job.key(), job))
                if not self._restarting:
                    self._spawn(self.restart(f"it refused work ({type(exc).__name__})"))
                return
            job.generation = self._generation
            job.started, job.think_until, job.alone = now, think_until, alone
            self._running[job] = future
            if job.watchdog is not None:
                job.watchdog.cancel()
            job.watchdog = self._running_loop().call_later(
                think_until - now + 2 * self.hang_grace_s, self._overdue, job
            )
            future.add_done_callback(self._callback(job))

    def _alone(self, table: Hashable | None, now: float) -> bool:
        """Whether `table` is the only table that asked for a decision lately (tables
        quiet for `TABLE_ACTIVE_S` are forgotten)."""
        for other, asked in list(self._tables.items()):
            if now - asked > TABLE_ACTIVE_S:
                del self._tables[other]
        return table is not None and self._tables.keys() == {table}

    def _callback(self, job: _Job) -> Any:
        loop, generation = self._running_loop(), job.generation

        def done(future: Future[Any]) -> None:  # in a pool thread
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(self._finished, future, job, generation)

        return done

    def _finished(self, future: Future[Any], job: _Job, generation: int) -> None:
        """A worker is done with `job` (on the loop)."""
        if generation != self._generation or self._running.get(job) is not future:
            return  # already settled (a restart handed it on, or its watchdog fired)
        del self._running[job]
        try:
            if job.outcome.done():
                return  # its caller left; the worker is free again
            if future.cancelled():
                self._failed(job, "the worker pool stopped", retry=True)
                return
            exc = future.exception()
            if exc is None:
                now = time.monotonic()
                self._short.ended(
                    job.spec,
                    job.kind,
                    job.view,
                    now - job.started,
                    job.think_until - now,
                    alone=job.alone,
                )
                job.outcome.set_result(future.result())
            elif isinstance(exc, TimeoutError):
                self.stats.timeouts += 1
                self._failed(job, "no answer by its deadline (the worker was stopped)")
            elif isinstance(exc, (ProcessExpired, WorkerLost)):
                self.stats.crashes += 1
                self._failed(job, "the worker process died", retry=True)
            else:
                # The type only: an agent's message may quote its hand or its beliefs.
                self.stats.errors += 1
                self._failed(job, f"the agent raised {type(exc).__name__}")
        finally:
            self._dispatch()

    def _failed(self, job: _Job, cause: str, *, retry: bool = False) -> None:
        """Try `job` again in a worker if that can still help, else give it up."""
        job.cause = job.cause or cause
        left = job.due - time.monotonic()
        if retry and not self._closed and job.attempts + 1 < MAX_ATTEMPTS and left >= RETRY_MIN_S:
            job.attempts += 1
            job.priority = Priority.RETRY
            self.stats.retries += 1
            self._enqueue(job)
            return
        self._give_up(job, job.cause)

    def _give_up(self, job: _Job, cause: str) -> None:
        if not job.outcome.done():
            job.outcome.set_exception(_NoAnswer(job.cause or cause))

    def _overdue(self, job: _Job) -> None:
        """Well past its deadline and still unsettled: a hung thread, or no pool at all."""
        if job.outcome.done():
            return
        self.stats.timeouts += 1
        was_running = self._running.pop(job, None) is not None
        self._give_up(job, "no answer by its deadline" if was_running else "no worker in time")
        self._dispatch()

    async def _degraded(
        self, kind: Kind, spec: str, view: PlayerView, seed: int
    ) -> tuple[Any, str, int | None]:
        """A degraded answer in this process, off the loop: (move, answered by, iterations)."""
        self.stats.degraded += 1
        spare = self._spare
        try:
            if spare is None:
                raise RuntimeError("no spare thread")
            work = self._running_loop().run_in_executor(
                spare, degraded_answer, kind, spec, view, seed
            )
            # asyncio.timeout, not wait_for: in 3.11 wait_for can swallow a cancellation
            # of our caller that races the result.
            async with asyncio.timeout(10 * DEGRADED_S + 1.0):
                return await work
        except (RuntimeError, TimeoutError):
            return degraded_answer(kind, "selfish", view, seed)

    # --- plumbing ----------------------------------------------------------------------

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        assert self._loop is not None
        return self._loop

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = self._running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _warn(self, name: str, view: PlayerView, problem: str, by: str) -> None:
        # Public facts only: the agent's name, the seat, the phase and what went wrong.
        self.stats.fallbacks += 1
        logger.info(
            "AI fallback: agent %s at seat %s (phase %s): %s; answered by %s.",
            name,
            view.seat,
            view.phase.value,
            problem,
            by,
        )


def degraded_answer(
    kind: Kind, spec: str, view: PlayerView, seed: int
) -> tuple[Any, str, int | None]:
    """The move of the agent of `spec` on a tiny budget if it is a shipped agent, else a
    rule agent's (a claim: silence); with who answered and the iterations searched."""
    assert view.seat is not None
    parsed = AgentSpec.parse(spec)
    if parsed.name in TRUSTED:
        due = time.monotonic() + DEGRADED_S
        budget = Budget(DEGRADED_ITERATIONS, DEGRADED_S, due)
        try:
            agent = replace(parsed, budget=budget).build(view.seat, seed)
            if kind == "claim":
                claim = agent.claim(view)
                if claim is None or claim in view.legal_claims:
                    return claim, parsed.name, agent.iterations
            else:
                action = agent.act(view)
                if action in view.legal_actions:
                    return action, parsed.name, agent.iterations
        except Exception:  # the rule agents below
            logger.debug("degraded %s answer failed", parsed.name, exc_info=False)
    if kind == "claim":
        return None, "silence", None
    action, by = rule_action(view, seed)
    return action, by, None


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
        answers = await asyncio.gather(
            *(service.decide(spec, v, seed=seed + v.players, budget_s=budget_s) for v in views)
        )
        for action in (answer.move for answer in answers):
            game.apply(action)
            decisions += 1
            if game.is_over:
                break
            for seat in range(game.players):
                if game.legal_claims(seat):
                    said = await service.claim(spec, game.view(seat), seed=seed, budget_s=budget_s)
                    if (claim := said.move) is not None:
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


async def _measure(
    workers: int, games: int, spec: str, budget_s: float, backend: str = "local"
) -> dict[str, Any]:
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
    pools = None
    if backend == "ray":
        from .ray_backend import ray_pools  # the [scale] extra

        pools = ray_pools()  # RAY_ADDRESS, else a local Ray instance
    async with AgentService(workers, pools=pools) as service:
        startup_s = time.perf_counter() - started
        slots = len(service.worker_pids)  # one per worker process (or Ray CPU)
        started = time.perf_counter()
        counts: list[int] = await asyncio.gather(
            *(_play_through(service, spec, seed, budget_s) for seed in range(games))
        )
        elapsed = time.perf_counter() - started
        stats = asdict(service.stats)
    stop.set()
    await ticker
    return {
        "backend": backend,
        "workers": slots if backend == "ray" else workers,
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
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local worker processes (--workers) or Ray (RAY_ADDRESS, else a local Ray)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(_measure(args.workers, args.games, args.spec, args.budget, args.backend))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
