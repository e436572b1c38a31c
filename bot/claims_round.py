"""One round of claims between two decisions: AI seats claim at once, humans in a window.

After a legislative session, a policy peek or an investigation, the seats involved may
say what they saw (`bot.claim_windows` keeps who may). `GameSession` runs a round
whenever windows are pending: each AI seat is asked for its claim (or silence) in seat
order; then every human with a claim to make gets a prompt, and the round waits until
they have all answered, the window's deadline passes, or the game moves on. The
deadline starts once the table can see the prompts (`bot.deadlines`). Then the prompts
still open are closed, the deadline is cleared and the windows are stored as over, so
that a restart neither offers them again nor hands their deadline to the next decision.

The round touches nothing of the session's own: everything it needs comes as the
explicit ports of `ClaimsPorts`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from engine import Game

from . import notices
from .claim_windows import ClaimWindows
from .deadlines import Deadlines


@dataclass(frozen=True, slots=True)
class ClaimsPorts:
    """What a claims round asks of its session (each a plain callable)."""

    is_ai: Callable[[int], bool]  # whether an AI plays the seat now
    # Ask the AI seat for its claim, apply it, and store its window as over with it.
    ai_claim: Callable[[int], Awaitable[None]]
    issue: Callable[[int], None]  # show the human seat its claim prompt
    is_open: Callable[[int], bool]  # whether the seat's claim prompt is still open
    close: Callable[[int, str], None]  # withdraw the seat's claim prompt, with a reason
    turn: Callable[[], int]  # the session's decision counter now
    check: Callable[[], None]  # raises once the session has failed (its task pauses)
    save: Callable[[], Awaitable[None]]  # store the session's bookkeeping


class ClaimsRound:
    """Runs the pending claim windows of one game (see the module docstring)."""

    def __init__(
        self,
        game: Game,
        windows: ClaimWindows,
        deadlines: Deadlines,
        ports: ClaimsPorts,
        *,
        limit: float | None,
        changed: asyncio.Event,
        lock: asyncio.Lock,
        look_again_s: float,
    ) -> None:
        self.game = game
        self.windows = windows  # shared with the session: claims answered there count
        self.deadlines = deadlines
        self.ports = ports
        self.limit = limit  # seconds a human's window stays open (None: until answered)
        self._changed = changed  # set by the session whenever something may have changed
        self._lock = lock  # the session's: closing the windows is part of its state
        self._look_again_s = look_again_s  # while nobody sees the prompts yet

    async def run(self) -> None:
        """Offer every pending window; return once the round is over."""
        turn = self.ports.turn()
        seats = self.windows.take_pending()
        humans = []
        for seat in seats:
            if not self.game.legal_claims(seat):
                continue
            if self.ports.is_ai(seat):
                # Its window is stored as over with its claim (`ClaimsPorts.ai_claim`):
                # a round run again after a restart during the next decision would ask
                # it again, and clear that decision's stored deadline below.
                await self.ports.ai_claim(seat)
            else:
                humans.append(seat)
        if not humans:
            # Resumed in a window whose humans have all gone to an AI since: its
            # deadline is over too (else a no-op: nothing is stored between decisions).
            async with self._lock:
                await self.deadlines.store(None)
            return
        deadline = self.deadlines.next(self.limit)
        self.windows.open(humans, deadline)
        await self.deadlines.store(deadline)
        for seat in humans:
            self.ports.issue(seat)
        await self._wait(turn, humans, deadline)
        self.windows.shut()
        for seat in humans:
            self.ports.close(seat, notices.CLAIM_WINDOW_CLOSED)
        async with self._lock:
            # Cleared first: a restart once the windows are stored as over goes on with
            # the next decision, which would resume whatever deadline is stored (the
            # grace period of a long-past window instead of its whole timer). A restart
            # in between offers the windows still open again, with their whole timer.
            await self.deadlines.store(None)
            self.windows.close(self.ports.turn(), seats)
            await self.ports.save()

    async def _wait(self, turn: int, humans: list[int], deadline: float | None) -> None:
        """Until every human answered, the window closed, or the game moved on."""
        clock = self.deadlines
        seen = clock.watch(self._changed.set) if deadline else None
        while True:
            # Cleared before looking, never after an await: an answer stored while this
            # loop was busy (storing a moved deadline) must still wake it.
            self._changed.clear()
            if self.ports.turn() != turn or self.game.is_over:
                break
            if not any(self.ports.is_open(s) for s in humans):
                break
            self.ports.check()
            if seen is not None and seen.done():
                # The prompts were shown late: the window's clock starts from then.
                deadline = self.windows.deadline = await clock.from_seen(seen, deadline)
                seen = None
            # The window's clock runs once the prompts are shown (or unseen too long).
            running = not clock.unseen(seen)
            timeout = clock.remaining(deadline) if running else self._look_again_s
            try:
                # asyncio.timeout, not wait_for: in Python 3.11, wait_for swallows a
                # cancellation that arrives as the event is set.
                async with asyncio.timeout(timeout):
                    await self._changed.wait()
            except TimeoutError:
                if running:
                    break  # the window's time is up
                # Else look again: still unseen, or shown just now (the loop then moves
                # the deadline; closing here would end a window nobody had seen).
