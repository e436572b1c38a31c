"""The terminal front-end: a spectated game, or one local player against AI players.

Everyone at the "table" (the terminal) sees the public narration. When a local player
holds a seat (`seat`), their private information is shown marked `(private)`, and their
prompts are asked as numbered choices; a bad answer is asked again with the reason. If
input closes (end of file), an AI takes the seat so the game can finish.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TextIO

from engine import IllegalAction

from ..ports import GameControl, Post, Private, Prompt, PromptKind, Reveal, Table, Waiting

LineReader = Callable[[str], Awaitable[str]]  # shows a prompt, returns one line of input


async def read_stdin(prompt: str) -> str:
    """Read one line from standard input without blocking the event loop."""
    return await asyncio.to_thread(input, prompt)


class TerminalFrontend:
    """Narrates a game in a terminal and plays the local seat (if any) from its input."""

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        seat: int | None = None,
        read_line: LineReader = read_stdin,
        delay: float = 0.0,
    ) -> None:
        self.out = out or sys.stdout
        self.seat = seat  # the local player's seat; None: a spectator
        self.read_line = read_line
        self.delay = delay  # seconds after each narrated line, to follow a bot-only game
        self.controls: dict[int, GameControl] = {}
        self._queue: asyncio.Queue[tuple[Table, Prompt]] = asyncio.Queue()
        self._closed: set[tuple[int, str, PromptKind]] = set()
        self._worker: asyncio.Task[None] | None = None
        self._input_closed = False
        self.broken = False  # the output went away (`shbot demo | head`): stay quiet

    def bind(self, control: GameControl) -> None:
        """The session whose prompts this terminal answers."""
        self.controls[control.game_id] = control

    def _print(self, text: str = "") -> None:
        if self.broken:
            return
        try:
            print(text, file=self.out, flush=True)
        except BrokenPipeError:
            self.broken = True

    async def post(self, table: Table, post: Post) -> None:
        """Print public narration line by line (paced by `delay`)."""
        for line in post.text.splitlines():
            self._print(line)
            if self.delay and not self.broken:
                await asyncio.sleep(self.delay)

    async def tell(self, table: Table, private: Private) -> None:
        """Print private information, only if it is the local player's."""
        if private.seat == self.seat and private.text:
            for line in private.text.splitlines():
                self._print(f"  (private) {line}")

    async def ask(self, table: Table, prompt: Prompt) -> None:
        """Queue the local player's prompt; they are asked one prompt at a time."""
        if prompt.seat != self.seat or self._input_closed:
            return
        self._queue.put_nowait((table, prompt))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._answer_prompts())

    async def withdraw(self, table: Table, prompt: Prompt, reason: str) -> None:
        """Forget a prompt not yet answered."""
        if prompt.seat == self.seat:
            self._closed.add((table.game_id, prompt.id, prompt.kind))

    async def waiting(self, table: Table, waiting: Waiting) -> None:
        """Nothing: in a terminal the next line shows soon enough."""

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        """Print the whole reveal."""
        self._print()
        self._print(reveal.text)

    async def close(self) -> None:
        """Stop asking (the game is over or stopped)."""
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)

    async def _answer_prompts(self) -> None:
        while not self._queue.empty():
            table, prompt = self._queue.get_nowait()
            if (table.game_id, prompt.id, prompt.kind) not in self._closed:
                await self._answer(table, prompt)

    async def _answer(self, table: Table, prompt: Prompt) -> None:
        control = self.controls.get(table.game_id)
        user_id = table.seats[prompt.seat].user_id
        if control is None or user_id is None:
            return
        key = (table.game_id, prompt.id, prompt.kind)
        self._print()
        self._print(f"  (private) {prompt.question}")
        for number, option in enumerate(prompt.options, 1):
            self._print(f"    {number}. {option.label}")
        count = len(prompt.options)
        while key not in self._closed:
            try:
                line = (await self.read_line(f"  Your choice (1-{count}): ")).strip()
            except EOFError:
                self._input_closed = True
                self._print("  Input closed: an AI plays your seat from now on.")
                await control.afk(user_id)
                return
            if key in self._closed:
                self._print("  Too late: that choice is closed.")
                return
            if not line.isdigit() or not 1 <= int(line) <= count:
                self._print(f"  Type a number from 1 to {count}.")
                continue
            try:
                await control.choose(user_id, prompt.id, int(line) - 1)
            except IllegalAction as exc:
                self._print(f"  Not possible: {exc}")
                continue
            return
