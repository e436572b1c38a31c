"""When a player's time runs out: the deadlines of a game's prompts.

A deadline comes from the phase's timer (`bot.timers`), is stored whenever it changes,
and starts only once the table can see the prompt: a slow front-end (Discord retrying,
rate limits) moves it by the delay. Time the bot was down is not the player's fault: a
clean stop (a deploy) or a pause *stops the clock*, storing the time left, and the
resumed decision gets that time; a killed bot could not, and its stored deadline holds.
Either way a restart grants a grace period at least (the prompt is shown anew). The
deadline is wall-clock time (stored, shown to members as a time), but the running one
counts down on the monotonic clock from when it was set: a step of the wall clock (NTP,
a resumed VM) neither freezes a decision for the step's length nor ends it at once. A
deadline is cleared once its prompts are over (with the answer that ends the decision,
at the end of a claim window): a restart resumes whatever deadline is stored, and one
left behind would cut the next prompts' time to the grace period. `GameSession` asks
this collaborator and keeps none of that arithmetic itself.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)

# A prompt shown within this long of being queued keeps its deadline.
VISIBLE_SLACK_S = 0.5
# A prompt still not shown after this long: its clock runs anyway (the front-end is
# failing, and the game must not wait forever on it).
MAX_UNSEEN_S = 300.0
# A stopped clock with more than this left is damage: no timer comes near a day.
MAX_LEFT_S = 86_400.0


class DeadlineStore(Protocol):
    """Where a game's current deadline is kept (`bot.storage.Storage`)."""

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        """Store the deadline of the game's open decision (None: none)."""
        ...


class Visibility(Protocol):
    """What tells when the table has seen everything queued (`bot.outbox.Outbox`)."""

    def seen(self) -> asyncio.Future[float]:
        """Resolves (`time.monotonic`) once everything queued so far is shown."""
        ...


class Deadlines:
    """The deadlines of one game's prompts (see the module docstring)."""

    def __init__(
        self,
        game_id: int,
        *,
        store: DeadlineStore | None,
        shown: Visibility,
        lock: asyncio.Lock,
        grace: float,
        clock: Callable[[], float] = time.time,
        steady: Callable[[], float] = time.monotonic,
        resumed: float | None = None,
        resuming: bool = False,
        left: float | None = None,
    ) -> None:
        self.game_id = game_id
        self.clock = clock
        self._steady = steady
        # The running deadline, and when it falls on `steady` (None: none is running).
        self._running: tuple[float, float] | None = None
        self._store = store
        self._shown = shown
        self._lock = lock  # the session's: a stored deadline is part of its state
        self._grace = grace
        self._resuming = resuming  # the next deadline is the one that was running
        self.stored: float | None = resumed  # the deadline in the database now
        self._asked_at = 0.0  # when the prompts being timed were queued (monotonic)
        self._asked_wall = 0.0  # the same, on `clock`
        self._watched: asyncio.Future[float] | None = None  # they are shown once it is done
        # The stored deadline's clock, stopped with `left` seconds on it (None: running).
        self._left = left if resumed is not None else None

    @property
    def stopped(self) -> dict[str, float] | None:
        """The stopped clock, JSON-ready for the session's bookkeeping: the deadline it
        belongs to and the seconds that were left on it (None: no clock stopped)."""
        if self._left is None or self.stored is None:
            return None
        return {"deadline": self.stored, "left": self._left}

    def stop_clock(self) -> bool:
        """The game stops being driven (a clean stop, a pause): keep the time left on the
        running deadline, saying whether that stopped a clock (False: none ran, or it
        was stopped already: a paused game stopped later was not played meanwhile)."""
        if self.stored is None or self._left is not None:
            return False
        # Prompts never shown: the player has lost none of their time yet.
        unseen = self._watched is not None and not self._watched.done()
        if unseen:
            self._left = max(0.0, self.stored - self._asked_wall)
        else:
            self._left = self.remaining(self.stored)
        return True

    def next(self, limit: float | None) -> float | None:
        """The deadline of the prompts about to be issued, `limit` seconds from now
        (None: no limit); right after a restart, the one that was running, unless it
        was cleared since (its prompts are over)."""
        now = self.clock()
        deadline = None if limit is None else now + limit
        if self._resuming:
            self._resuming = False
            stored = self.stored
            if stored is not None and limit is not None:
                # Never more than the whole timer: a damaged row may say a day.
                running = stored if self._left is None else now + min(self._left, limit)
                deadline = max(running, now + self._grace)
        self._run(deadline)
        return deadline

    def _run(self, deadline: float | None) -> None:
        """`deadline` is the running one: it falls as far from now on the steady clock as
        it does on the wall clock now."""
        if deadline is None:
            self._running = None
        elif self._running is None or self._running[0] != deadline:
            self._running = (deadline, self._steady() + deadline - self.clock())

    async def store(self, deadline: float | None) -> None:
        """Keep `deadline` as the game's current one (written only when it changes)."""
        if deadline == self.stored:
            return
        self.stored = deadline
        self._left = None  # a new deadline: its clock runs
        self._run(deadline)
        if self._store is not None:
            await self._store.set_deadline(self.game_id, deadline)

    def forget(self) -> None:
        """The stored deadline was cleared with the action that ended its decision."""
        self.stored = None
        self._left = None
        self._running = None

    def watch(self, wake: Callable[[], None]) -> asyncio.Future[float]:
        """A future that resolves when the table can see every prompt queued so far;
        `wake` is called then (the waiting loop looks at the clock again)."""
        seen = self._shown.seen()
        self._asked_at, self._asked_wall, self._watched = time.monotonic(), self.clock(), seen
        seen.add_done_callback(lambda _: wake())
        return seen

    async def from_seen(self, seen: asyncio.Future[float], deadline: float | None) -> float | None:
        """The deadline that holds once `seen` resolved: the stored `deadline`, moved
        (and stored) by how late the prompts were shown, beyond a small slack; unchanged
        if it is no longer the stored one when this has the lock (its prompts are over)."""
        late = seen.result() - self._asked_at
        if deadline is None or late <= VISIBLE_SLACK_S:
            return deadline
        async with self._lock:
            if self.stored != deadline:
                # The answer that held the lock ended the decision and cleared the
                # deadline: stored now, a restart would hand it to the next decision.
                return deadline
            if self._running is not None and self._running[0] == deadline:
                self._running = (deadline + late, self._running[1] + late)
            await self.store(deadline + late)
        log.info("game %d: the prompt was shown %.1f s late: the clock waits", self.game_id, late)
        return deadline + late

    def unseen(self, seen: asyncio.Future[float] | None) -> bool:
        """Whether the prompts `seen` watches are still not shown (and not for so long
        that the clock runs anyway)."""
        return seen is not None and time.monotonic() - self._asked_at < MAX_UNSEEN_S

    def remaining(self, deadline: float | None) -> float | None:
        """Seconds left until `deadline` (None: no limit): on the steady clock for the
        running deadline, else on the wall clock."""
        if deadline is None:
            return None
        if self._running is not None and self._running[0] == deadline:
            return max(0.0, self._running[1] - self._steady())
        return max(0.0, deadline - self.clock())


def time_left(game_id: int, stopped: object, deadline: float | None) -> float | None:
    """The seconds left on `deadline`'s clock when the game stopped being driven, read
    from a stored `Deadlines.stopped`: none stored (the bot was killed), or stored for
    another deadline, is none (the stored deadline holds); a value that does not read is
    none too, with a warning that names the game, never the value."""
    if stopped is None or deadline is None:
        return None
    fields = stopped if isinstance(stopped, dict) else {}
    left, at = _seconds(fields.get("left")), _seconds(fields.get("deadline"))
    if left is None or at is None or not 0.0 <= left <= MAX_LEFT_S:
        log.warning("game %d: the stored stopped clock does not read; read as running", game_id)
        return None
    # Kept as JSON beside the deadline's own column: equal to the bit, a margin costs nothing.
    return left if abs(at - deadline) < 1e-3 else None


def _seconds(value: object) -> float | None:
    """`value` as a finite number of seconds, None if it is not one (a bool, text, a
    number too large for a float, an infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return seconds if math.isfinite(seconds) else None
