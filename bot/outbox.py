"""A game's outbox: everything a session shows its table, delivered in order, once.

The session never calls its front-end directly. It puts each message here, typed (a
`Post`, a `Private`, a `Prompt`, a `Withdrawal`, a `Waiting`, a `Reveal`, `Resumed`), with its
*mark*: how many actions of the game were stored when it was put. One task per game
delivers the messages one at a time, in the order they were put, so the table reads the
story in order however slow the front-end is, and the game never waits for it.

What was delivered is remembered as a cursor, `shown`: the number of stored actions
whose every message reached the front-end (-1 while the game's opening has not: a new
game's session starts it there). The session stores it with its bookkeeping;
after a restart it announces again what the actions past the cursor caused, so a crash
between storing an action and showing it loses nothing.

A front-end retries its own transient failures (the Discord one honours Retry-After);
what reaches the outbox is final, and typed (`bot.ports.DeliveryError`):

- `PlaceLost`: the game cannot be shown anywhere any more (its channel was deleted,
  the bot left the server). The outbox stops and tells the session (`on_fault`).
- `PermissionLost`: the bot may no longer do what the game needs where it plays. The
  outbox tells the session once, keeps the message and tries it again every `probe_s`
  seconds; when it goes through, it tells the session (`on_restored`) and carries on.
  Once closed (the game is cancelled or stopped), it tries once more, then gives up
  what it holds (logged): a restart shows again what the stored cursor says is unshown.
- Anything else is a front-end defect: logged with its traceback and the message is
  skipped (never the game).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .errors import failure_cause
from .ports import (
    DeliveryError,
    Frontend,
    PermissionLost,
    PlaceLost,
    Post,
    Private,
    Prompt,
    Reveal,
    Table,
    Waiting,
)
from .tasks import cancelled_here

log = logging.getLogger(__name__)

PROBE_S = 30.0  # how often a message refused for want of a permission is tried again


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A prompt closed (answered, timed out, superseded), and why."""

    prompt: Prompt
    reason: str


@dataclass(frozen=True, slots=True)
class Flush:
    """Everything queued so far was handed over (`Frontend.flush`); put by the outbox."""


@dataclass(frozen=True, slots=True)
class Resumed:
    """The game carries on after a restart (`Frontend.resume`)."""


Message = Post | Private | Prompt | Withdrawal | Waiting | Reveal | Resumed | Flush


@dataclass(frozen=True, slots=True)
class _Item:
    message: Message
    table: Table
    mark: int


FaultHandler = Callable[[DeliveryError], Awaitable[None]]
ShownHandler = Callable[[int], Awaitable[None]]


async def deliver(frontend: Frontend, table: Table, message: Message) -> None:
    """Hand one message to the front-end method that shows it."""
    match message:
        case Post():
            await frontend.post(table, message)
        case Private():
            await frontend.tell(table, message)
        case Prompt():
            await frontend.ask(table, message)
        case Withdrawal(prompt=prompt, reason=reason):
            await frontend.withdraw(table, prompt, reason)
        case Waiting():
            await frontend.waiting(table, message)
        case Reveal():
            await frontend.reveal(table, message)
        case Resumed():
            await frontend.resume(table)
        case Flush():
            await frontend.flush(table)


class Outbox:
    """The ordered, resumable delivery of one game's messages (see the module docstring)."""

    def __init__(
        self,
        game_id: int,
        frontend: Frontend,
        *,
        shown: int = 0,
        on_fault: FaultHandler | None = None,
        on_restored: Callable[[], Awaitable[None]] | None = None,
        on_shown: ShownHandler | None = None,
        probe_s: float | None = None,
    ) -> None:
        self.game_id = game_id
        self.frontend = frontend
        self.shown = shown  # actions whose every message was delivered
        self.blocked: DeliveryError | None = None  # why delivery waits, if it does
        self.lost: PlaceLost | None = None  # set once the game cannot be shown any more
        self.delivered = 0  # messages taken off the queue once the front-end had them
        self._on_fault = on_fault
        self._on_restored = on_restored
        self._on_shown = on_shown
        self.probe_s = PROBE_S if probe_s is None else probe_s
        self._items: deque[_Item] = deque()
        self._closing = False
        self._wakeup = asyncio.Event()
        self._nudged = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._barriers: list[tuple[int, asyncio.Future[float]]] = []
        self._put_count = 0
        # The mark of the last message put: what a redraw put while the outbox lingers or
        # flushes at the end of a burst (nothing queued) derives from, not the cursor,
        # which moves only once that burst is over.
        self._last_mark = shown
        self._task: asyncio.Task[None] | None = None

    # --- what the session calls -----------------------------------------------------

    def put(self, message: Message, table: Table, mark: int) -> None:
        """Queue `message` (as it reads for `table`), derived from the first `mark` actions."""
        if self.lost is not None:
            return  # nowhere to show it
        self._items.append(_Item(message, table, mark))
        self._last_mark = mark
        self._put_count += 1
        self._idle.clear()
        self._wakeup.set()

    @property
    def queued(self) -> int:
        """Messages put so far: the `delivered` count that says all of them were shown."""
        return self._put_count

    def start(self) -> None:
        """Start delivering (idempotent)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"game-{self.game_id}-out")

    def close(self) -> None:
        """Deliver what is queued, then end (a message held for want of a permission is
        tried once more, then given up: nobody waits for the permission any more)."""
        self._closing = True
        self._wakeup.set()
        self._nudged.set()

    def redraw(self, table: Table) -> None:
        """Have the front-end show again what it holds (`Frontend.flush`), after what is
        queued: a message of the game was deleted, and the outbox, the game's only
        writer, posts it again."""
        # The mark of what was put last: the cursor is not held back by it (the cursor
        # itself lags while a burst ends: a redraw marked with it would keep the burst
        # unshown, and a restart would announce its narration again).
        mark = self._items[-1].mark if self._items else self._last_mark
        self.put(Flush(), table, mark)

    def nudge(self) -> None:
        """Try a message held for want of a permission again now (it may be back)."""
        self._nudged.set()

    @property
    def running(self) -> bool:
        """Whether the delivery task is alive."""
        return self._task is not None and not self._task.done()

    async def join(self) -> None:
        """Wait until everything queued so far was delivered (or dropped: the place is lost)."""
        if self.running:
            await self._idle.wait()

    def seen(self) -> asyncio.Future[float]:
        """A future that resolves with the time (`time.monotonic`) when every message
        queued so far has been delivered: when the table can see it."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if not self._items:
            future.set_result(time.monotonic())
        else:
            self._barriers.append((self._put_count, future))
        return future

    async def finish(self, timeout: float) -> None:
        """Deliver what is queued (for at most `timeout` seconds), then stop."""
        self.close()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    # --- delivering -----------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while True:
                if not self._items:
                    self._idle.set()
                    if self._closing:
                        return
                    self._wakeup.clear()
                    await self._wakeup.wait()
                    continue
                item = self._items[0]
                if not await self._deliver(item):
                    return  # the place is lost, or closing while a permission is missing
                self._items.popleft()
                self.delivered += 1
                await self._linger()
                if not self._items and not await self._deliver(
                    _Item(Flush(), item.table, item.mark)
                ):
                    return  # the burst is over: what the front-end held back is shown now
                self._release_barriers()
                await self._advance(item.mark)
        finally:
            self._items.clear()
            self._idle.set()
            self._release_barriers(everything=True)

    async def _linger(self) -> None:
        """At the end of a burst, wait a moment (`Frontend.linger_s`) for more."""
        linger = self.frontend.linger_s
        if self._items or self._closing or linger <= 0:
            return
        self._wakeup.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(linger):
                await self._wakeup.wait()

    async def _deliver(self, item: _Item) -> bool:
        """Deliver one message, waiting out a missing permission; False if nothing more
        can be shown: the place is lost, or the outbox closes while a permission is missing."""
        while True:
            try:
                await deliver(self.frontend, item.table, item.message)
            except PlaceLost as exc:
                self.lost = exc
                log.warning("game %d: %s", self.game_id, exc)
                await self._fault(exc)
                return False
            except PermissionLost as exc:
                if self.blocked is None:
                    self.blocked = exc
                    log.warning("game %d: %s", self.game_id, exc)
                    await self._fault(exc)
                if self._closing:
                    # Waiting on would hang whoever closes (a /cancel): give up instead.
                    log.warning(
                        "game %d: closing; %d message(s) not shown for want of a permission",
                        self.game_id,
                        len(self._items) or 1,
                    )
                    return False
                self._nudged.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.probe_s):
                        await self._nudged.wait()
                continue
            except asyncio.CancelledError:
                if cancelled_here():
                    raise  # `finish` gave up, or the session stops: the outbox ends
                # Leaked from a library, not a stop: ending here would lose every later
                # message and prompt of the game. A defect, like any other exception.
                log.warning(
                    "game %d: the front-end failed to show a %s (a stray cancellation)",
                    self.game_id,
                    type(item.message).__name__,
                )
            except Exception as exc:  # a front-end defect: never the game's end
                # The error's type and place only: its message may quote the private
                # message or prompt it failed to show (the traceback goes to DEBUG).
                log.warning(
                    "game %d: the front-end failed to show a %s: %s",
                    self.game_id,
                    type(item.message).__name__,
                    failure_cause(exc),
                )
                log.debug("the front-end's traceback", exc_info=True)
            if self.blocked is not None:
                self.blocked = None
                log.info("game %d: messages go through again", self.game_id)
                if self._on_restored is not None:
                    await self._on_restored()
            return True

    async def _fault(self, exc: DeliveryError) -> None:
        if self._on_fault is not None:
            try:
                await self._on_fault(exc)
            except Exception:
                log.exception("game %d: handling a delivery fault failed", self.game_id)

    async def _advance(self, mark: int) -> None:
        """Move the cursor once every message of the actions before it is delivered."""
        shown = self._items[0].mark - 1 if self._items else mark
        shown = max(self.shown, min(shown, mark))
        if shown == self.shown:
            return
        self.shown = shown
        if self._on_shown is not None and not self._items:  # one write per burst
            try:
                await self._on_shown(shown)
            except Exception:
                log.exception("game %d: the delivery cursor was not stored", self.game_id)

    def _release_barriers(self, *, everything: bool = False) -> None:
        done = self._put_count - len(self._items)
        now = time.monotonic()
        keep = []
        for count, future in self._barriers:
            if everything or count <= done:
                if not future.done():
                    future.set_result(now)
            else:
                keep.append((count, future))
        self._barriers = keep
