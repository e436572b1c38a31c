"""The test front-end: records everything a session sends and can answer like a player.

It keeps, per game, every call in order (`calls`), so tests can check what the table,
a spectator or one seat was shown. With an `answer` policy it plays the humans: each
prompt is answered from another task, through `GameControl.choose`, as a Discord click
would be; refusals are recorded in `refusals`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any

from engine import IllegalAction

from ..errors import Refusal
from ..ports import REFUSALS, GameControl, Post, Private, Prompt, PromptKind, Reveal, Table, Waiting

# Which option (index) a player picks for a prompt; None: do not answer it.
AnswerPolicy = Callable[[Prompt], int | None]


def scripted(prompt: Prompt) -> int:
    """A player whose choice depends only on the prompt's id and seat.

    Prompt ids survive a restart, so this player decides the same way before and after
    one: what the restart tests need to compare with an uninterrupted game.
    """
    return random.Random(f"{prompt.id}:{prompt.seat}").randrange(len(prompt.options))


@dataclass(slots=True)
class Call:
    """One call the session made."""

    method: str  # "post" | "tell" | "ask" | "withdraw" | "waiting" | "reveal" | "resume"
    table: Table
    payload: Any


@dataclass(slots=True)
class FakeFrontend:
    """Records calls per game; answers prompts of `seats` (default: every human) if told to."""

    answer: AnswerPolicy | None = None
    seats: Container[int] | None = None
    delay: float = 0.0  # seconds before each answer, to let other things happen first
    linger_s: float = 0.0  # nothing is batched here
    # Called before each call is recorded (method, table, payload): a test raises from it
    # (a `bot.ports.DeliveryError`...) to play a front-end that cannot show something.
    fault: Callable[[str, Table, Any], None] | None = None
    calls: dict[int, list[Call]] = field(default_factory=dict)
    refusals: list[tuple[Prompt, IllegalAction | Refusal]] = field(default_factory=list)
    controls: dict[int, GameControl] = field(default_factory=dict)
    _answering: set[asyncio.Task[None]] = field(default_factory=set)

    def bind(self, control: GameControl) -> None:
        """Remember the session of a game, to send answers to."""
        self.controls[control.game_id] = control

    # --- the port -----------------------------------------------------------------------

    async def post(self, table: Table, post: Post) -> None:
        """Record a public message."""
        self._record("post", table, post)

    async def tell(self, table: Table, private: Private) -> None:
        """Record private information for one seat."""
        self._record("tell", table, private)

    async def ask(self, table: Table, prompt: Prompt) -> None:
        """Record a prompt and, if this seat is played here, answer it soon."""
        self._record("ask", table, prompt)
        if self.answer is not None and (self.seats is None or prompt.seat in self.seats):
            task = asyncio.create_task(self._answer(table, prompt))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)

    async def withdraw(self, table: Table, prompt: Prompt, reason: str) -> None:
        """Record that a prompt was closed (payload: the prompt and the reason)."""
        self._record("withdraw", table, (prompt, reason))

    async def waiting(self, table: Table, waiting: Waiting) -> None:
        """Record whom the table waits for."""
        self._record("waiting", table, waiting)

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        """Record the end-of-game reveal."""
        self._record("reveal", table, reveal)

    async def flush(self, table: Table) -> None:
        """Nothing held back here (not recorded: it carries nothing)."""

    async def resume(self, table: Table) -> None:
        """Record that the game carries on after a restart."""
        self._record("resume", table, None)

    # --- for tests ----------------------------------------------------------------------

    def of(self, game_id: int, method: str | None = None) -> list[Any]:
        """Payloads sent for a game, optionally of one kind, in order."""
        return [c.payload for c in self.calls.get(game_id, []) if method in (None, c.method)]

    def public_text(self, game_id: int) -> list[str]:
        """Every public message of a game, as the table read it."""
        return [p.text for p in self.of(game_id, "post")]

    def told(self, game_id: int, seat: int) -> list[Private]:
        """The private information a seat was given."""
        return [p for p in self.of(game_id, "tell") if p.seat == seat]

    def prompts(self, game_id: int, seat: int | None = None) -> list[Prompt]:
        """The prompts issued in a game (to one seat)."""
        return [p for p in self.of(game_id, "ask") if seat in (None, p.seat)]

    async def settle(self) -> None:
        """Wait for the answers under way."""
        while self._answering:
            await asyncio.gather(*self._answering, return_exceptions=True)

    def _record(self, method: str, table: Table, payload: Any) -> None:
        if self.fault is not None:
            self.fault(method, table, payload)
        self.calls.setdefault(table.game_id, []).append(Call(method, table, payload))

    async def _answer(self, table: Table, prompt: Prompt) -> None:
        assert self.answer is not None
        if self.delay:
            await asyncio.sleep(self.delay)
        else:
            await asyncio.sleep(0)
        choice = self.answer(prompt)
        control = self.controls.get(table.game_id)
        user_id = table.seats[prompt.seat].user_id
        if choice is None or control is None or user_id is None:
            return
        try:
            await control.choose(user_id, prompt.id, choice)
        except REFUSALS as exc:
            self.refusals.append((prompt, exc))


__all__ = ["AnswerPolicy", "Call", "FakeFrontend", "PromptKind", "scripted"]
