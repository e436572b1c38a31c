"""The terminal front-end: a spectated game, or one local player against AI players.

Everyone at the "table" (the terminal) sees the public narration, told one short block
per round (`bot.render.story`). When a local player holds a seat (`seat`), the story
calls them "you", their private information is shown marked `(private)`, and their
prompts are asked as numbered choices; a bad answer (anything but a number in range, in
whatever characters or bytes) is asked again with the reason. If input closes (end of
file), an AI takes the seat so the game can finish.

With `images` (a directory) the board is written there after each policy, and the final
board with every role and the suspicion chart once the game is over (`bot.render.pictures`).

If the output goes away (`shbot play | head` once `head` has exited) or fails (a full
disk: `output_fault` says why), the front-end stops printing and sets `output_closed`:
the caller stops the game, which stays stored.
It notices even while it only waits for the player's answer, without printing anything.
If the local seat can no longer be played (input closed and no AI could take the seat,
or asking failed), it sets `halted` with the reason in `halt`: the caller stops the game
too, stored, rather than wait for an answer that would never come.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import select
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

from engine import events as ev

from ..ports import (
    REFUSALS,
    GameControl,
    Post,
    Private,
    Prompt,
    PromptKind,
    Reveal,
    Table,
    Waiting,
)
from ..render.pictures import final_pictures, policy_board
from ..render.story import Teller, last_government, rounds_in, short_names, story_lines

log = logging.getLogger(__name__)

LineReader = Callable[[str], Awaitable[str]]  # shows a prompt, returns one line of input

MAX_LINE = 4096  # bytes: a longer line is cut there (and is no number in range anyway)
OUTPUT_CHECK_S = 0.2  # while waiting for an answer, how often to check the output is read

# The session's notices name Discord's commands; in a terminal the CLI says what to type.
_RESTARTED = "The bot restarted: "
_SLASH_HINT = re.compile(r"\s*[^.]*(?<![\w/])/(resume|cancel|back|afk)\b[^.]*\.")
# A terminal asks each question once and takes the first answer: a vote cannot be changed.
_CHANGE_VOTE = re.compile(r"\s*[^.]*\bchange your vote\b[^.]*\.")


class StdinReader:
    """Reads lines from standard input (file descriptor 0) without blocking the loop.

    A daemon thread does each blocking read, so an interrupted program never waits for
    Enter (`asyncio.to_thread` would: `asyncio.run` waits for its threads at exit). Bytes
    are decoded as UTF-8, anything undecodable replaced; a line is cut at `MAX_LINE`
    bytes. A read error (a terminal hung up) counts as the end of input. The prompt is
    written to standard output; `BrokenPipeError` if nobody reads it any more.
    """

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self._chunks: list[bytes] = []  # read by the thread, not yet taken; b"": the end
        self._reading = False  # a thread is in os.read
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._buffer = b""
        self._ended = False

    async def __call__(self, prompt: str) -> str:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._ended:
                raise EOFError
            await self._more()

    def _take_line(self) -> str | None:
        with self._lock:
            chunks, self._chunks = self._chunks, []
        for chunk in chunks:
            if chunk:
                self._buffer += chunk
            else:
                self._ended = True
        while True:
            end = self._buffer.find(b"\n")
            if end < 0 and self._ended and self._buffer:
                end = len(self._buffer)  # a last line without its newline
            if end < 0:
                if len(self._buffer) > MAX_LINE:  # keep the line's start, drop the rest
                    self._buffer = self._buffer[: MAX_LINE + 1]
                return None
            line, self._buffer = self._buffer[:end], self._buffer[end + 1 :]
            return line[:MAX_LINE].decode("utf-8", errors="replace").rstrip("\r")

    async def _more(self) -> None:
        """Wait until the thread has read something (starting one if none reads)."""
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._chunks:
                return
            self._waiters.append((loop, arrived))
            if not self._reading:
                self._reading = True
                threading.Thread(target=self._read, name="shbot-stdin", daemon=True).start()
        try:
            await arrived
        finally:
            with self._lock, contextlib.suppress(ValueError):
                self._waiters.remove((loop, arrived))

    def _read(self) -> None:
        try:
            chunk = os.read(self._fd, 65536)
        except OSError:  # EIO (the terminal hung up), EBADF (no stdin): the end of input
            chunk = b""
        with self._lock:
            self._chunks.append(chunk)
            self._reading = False
            waiters, self._waiters = self._waiters, []
        for loop, arrived in waiters:
            with contextlib.suppress(RuntimeError):  # that loop has closed meanwhile
                loop.call_soon_threadsafe(_set_done, arrived)


def _set_done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


read_stdin: LineReader = StdinReader()
"""Read one line from standard input without blocking the event loop."""


def parse_choice(line: str, count: int) -> int | None:
    """The option index (0-based) that `line` picks among `count`, or None: only a whole
    number from 1 to `count` picks one (decimal digits of any script, nothing else)."""
    line = line.strip()
    if not line.isdecimal() or len(line) > 6:  # "²" is a digit, but no decimal number
        return None
    number = int(line)
    return number - 1 if 1 <= number <= count else None


def output_gone(out: TextIO) -> bool:
    """Whether `out` is a pipe (or terminal) whose reader has gone away."""
    if not hasattr(select, "poll"):  # Windows: noticed at the next line printed
        return False
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # a StringIO, a closed file
        return False
    poller = select.poll()
    poller.register(fd, 0)  # errors and hang-ups are always reported
    try:
        return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0))
    except OSError:
        return False


class TerminalFrontend:
    """Narrates a game in a terminal and plays the local seat (if any) from its input."""

    linger_s = 0.0  # every line is printed at once

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        seat: int | None = None,
        read_line: LineReader = read_stdin,
        delay: float = 0.0,
        images: Path | None = None,
    ) -> None:
        self.out = out or sys.stdout
        self.images = images  # where to write the pictures (`--images DIR`); None: nowhere
        self.boards_written = 0
        self.seat = seat  # the local player's seat; None: a spectator
        self.read_line = read_line
        self.delay = delay  # seconds after each narrated line, to follow a bot-only game
        self.controls: dict[int, GameControl] = {}
        self._queue: asyncio.Queue[tuple[Table, Prompt]] = asyncio.Queue()
        self._closed: set[tuple[int, str, PromptKind]] = set()
        self._worker: asyncio.Task[None] | None = None
        self._input_closed = False
        self.broken = False  # the output went away (`shbot demo | head`): stay quiet
        self.output_closed = asyncio.Event()  # set when `broken` becomes true
        # Why a write failed, if not because the reader left (a full disk): the caller
        # says it, since nobody left means somebody expects to read the game.
        self.output_fault: str | None = None
        self.halt: str | None = None  # why nobody can play the local seat any more
        self.halted = asyncio.Event()  # set when `halt` is
        self.quiet = False  # the game is being stopped: print nothing more
        self._rounds = 0  # rounds told so far, when a post carries no board to count them
        self._government: int | None = None  # the round of the last government told

    def bind(self, control: GameControl) -> None:
        """The session whose prompts this terminal answers."""
        self.controls[control.game_id] = control

    def silence(self) -> None:
        """Print nothing more and stop pacing (the game is being stopped)."""
        self.quiet = True
        self.delay = 0.0

    def say(self, text: str) -> None:
        """Print a line of the terminal's own (a header, a summary), unless stopping."""
        self._print(text)

    def _print(self, text: str = "") -> None:
        if self.broken or self.quiet:
            return
        try:
            print(text, file=self.out, flush=True)
        except BrokenPipeError:
            self._output_lost()
        except OSError as exc:  # a full disk (ENOSPC), an I/O error: no more output
            self._output_lost(exc.strerror or type(exc).__name__)

    def _output_lost(self, fault: str | None = None) -> None:
        self.broken = True
        self.output_fault = fault
        self.output_closed.set()

    def _halt(self, reason: str) -> None:
        """Nobody can play the local seat any more: the game must stop (see `halted`)."""
        self.halt = reason
        self.halted.set()

    def teller(self, table: Table) -> Teller:
        """How this terminal words events: short names, the local player as "you"."""
        names = short_names(table.labels, [s.name for s in table.seats])
        return Teller(names, self.seat)

    async def post(self, table: Table, post: Post) -> None:
        """Print public narration line by line (paced by `delay`): events as the round's
        block (`bot.render.story`), a notice as it is worded."""
        if post.events:
            before, government = self._rounds, self._government
            if post.board is not None:  # counted from the game: right after a resume too
                earlier = post.board.events[: len(post.board.events) - len(post.events)]
                before, government = rounds_in(earlier), last_government(earlier)
            lines = story_lines(
                post.events, self.teller(table), rounds_before=before, government=government
            )
            self._rounds = before + rounds_in(post.events)
            latest = last_government(post.events, rounds_before=before)
            self._government = government if latest is None else latest
        else:
            lines = _terminal_words(post.text).splitlines()
        for line in lines:
            self._print(line)
            if self.delay and line and not (self.broken or self.quiet):
                await asyncio.sleep(self.delay)
        if post.board is not None and any(isinstance(e, ev.PolicyEnacted) for e in post.events):
            await self._picture(
                policy_board, table.game_id, post.board, [s.name for s in table.seats]
            )

    async def tell(self, table: Table, private: Private) -> None:
        """Print private information, only if it is the local player's."""
        if private.seat != self.seat:
            return
        teller = self.teller(table)
        if private.events:
            lines = [line for e in private.events if (line := teller.line(e)) is not None]
        else:
            lines = private.text.splitlines()
        for line in lines:
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
        """Print the whole reveal (and with `images`, write the final board with every
        role and the suspicion chart)."""
        self._print()
        self._print(reveal.text)
        names = [s.name for s in table.seats]
        final = await self._picture(
            final_pictures, table.game_id, reveal.view, names, reveal.roles, reveal.suspicion
        )
        if final:
            shown = ", ".join(str(path) for path in final)
            self._print(f"Pictures: {self.boards_written} boards, one per policy, then {shown}.")

    async def _picture(
        self, write: Callable[..., Path | list[Path]], game_id: int, *args: object
    ) -> list[Path]:
        """Write pictures into `images` (Pillow, off the event loop); the files written.
        A directory that cannot take them is said once, and the game goes on without."""
        if self.images is None or self.quiet or self.broken:
            return []
        try:
            written = await asyncio.to_thread(write, self.images, game_id, *args)
        except OSError as exc:
            self._print(f"Cannot write pictures to {self.images} ({exc.strerror or exc}): no more.")
            self.images = None
            return []
        if isinstance(written, Path):
            self.boards_written += 1
            return [written]
        return written

    async def flush(self, table: Table) -> None:
        """Nothing: every line is printed at once."""

    async def resume(self, table: Table) -> None:
        """The game carries on (`shbot play --resume`): what was asked before is asked
        again by the session, so nothing shown earlier needs taking back."""

    async def close(self) -> None:
        """Stop asking (the game is over or stopped)."""
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)

    async def _answer_prompts(self) -> None:
        try:
            while not self._queue.empty():
                table, prompt = self._queue.get_nowait()
                if (table.game_id, prompt.id, prompt.kind) not in self._closed:
                    await self._answer(table, prompt)
                if self.broken or self._input_closed:
                    return
        except Exception as exc:  # a fault here: the prompt would never be answered
            # The type only: a message may quote a hand (the traceback at debug level).
            log.warning("terminal prompt failed (%s)", type(exc).__name__)
            log.debug("what failed", exc_info=exc)
            self._halt(f"your move could not be asked ({type(exc).__name__})")

    async def _answer(self, table: Table, prompt: Prompt) -> None:
        control = self.controls.get(table.game_id)
        user_id = table.seats[prompt.seat].user_id
        if control is None or user_id is None:
            return
        key = (table.game_id, prompt.id, prompt.kind)
        self._print()
        question = _CHANGE_VOTE.sub("", prompt.question)
        if self.seat is not None:  # the player is "you" here as in the story
            label = table.labels[self.seat]
            question = question.replace(f"President {label}", "your presidency")
            question = question.replace(f"with Chancellor {label}", "with you as Chancellor")
            question = question.replace(label, "you")
        self._print(f"  (private) {question}")
        for number, option in enumerate(prompt.options, 1):
            self._print(f"    {number}. {option.label}")
        count = len(prompt.options)
        while key not in self._closed and not self.broken:
            try:
                line = await self._read(f"  Your choice (1-{count}): ")
            except BrokenPipeError:
                self._output_lost()
                return
            except (EOFError, OSError, UnicodeError, ValueError) as exc:
                if not isinstance(exc, EOFError):  # unreadable input: as if it had closed
                    log.warning("terminal input failed (%s): input closed", type(exc).__name__)
                await self._input_ended(control, user_id, prompt.seat)
                return
            if line is None:  # the output went away while we waited
                return
            if key in self._closed:
                self._print("  Too late: that choice is closed.")
                return
            choice = parse_choice(line, count)
            if choice is None:
                self._print(f"  Type a number from 1 to {count}.")
                continue
            try:
                await control.choose(user_id, prompt.id, choice)
            except REFUSALS as exc:
                self._print(f"  Not possible: {exc}")
                continue
            except Exception as exc:  # the session failed (it pauses and says so)
                log.warning("terminal choice not taken (%s)", type(exc).__name__)
            return

    async def _input_ended(self, control: GameControl, user_id: int, seat: int) -> None:
        """Input closed: an AI plays the seat from now on, and the seat says nothing to
        the claims it was offered (an untimed claim window waits for every human seat's
        answer, and nobody would answer it any more)."""
        self._input_closed = True
        self._print()  # the cursor is still after the question
        try:
            with contextlib.suppress(*REFUSALS):  # the game is over or paused
                await control.afk(user_id)
        except Exception as exc:  # not stored: the seat is still the player's
            self._halt(f"input closed and no AI could take your seat ({_fault(exc)})")
            return
        self._print("  Input closed: an AI plays your seat from now on.")
        for open_prompt in control.open_prompts(seat):
            if open_prompt.kind is PromptKind.CLAIM:
                await _say_nothing(control, user_id, open_prompt)

    async def _read(self, prompt: str) -> str | None:
        """One line of input; None if the output went away meanwhile (checked while
        waiting, so a reader that left is noticed without the player typing)."""
        reading = asyncio.ensure_future(self.read_line(prompt))
        try:
            while True:
                done, _ = await asyncio.wait({reading}, timeout=OUTPUT_CHECK_S)
                if done:
                    return reading.result()
                if output_gone(self.out):
                    self._output_lost()
                    return None
        finally:
            if not reading.done():
                reading.cancel()
                await asyncio.gather(reading, return_exceptions=True)


async def _say_nothing(control: GameControl, user_id: int, prompt: Prompt) -> None:
    """Answer a claim prompt with its "say nothing" option (the one without an action)."""
    silent = [i for i, option in enumerate(prompt.options) if option.action is None]
    if silent:
        with contextlib.suppress(*REFUSALS):  # closed meanwhile, the game over or paused
            await control.choose(user_id, prompt.id, silent[0])


def _fault(exc: Exception) -> str:
    """An exception as a player may read it: the message of a storage fault, the type
    of any other (its message may quote a hand or a role)."""
    from ..storage import StorageError  # storage is optional for a front-end

    return str(exc).rstrip(".") if isinstance(exc, StorageError) else type(exc).__name__


def _terminal_words(text: str) -> str:
    """A session notice in a terminal's words: no Discord slash commands (the CLI tells
    what to type instead), no bot that restarted (the player resumed the game)."""
    if text.startswith(_RESTARTED):
        text = text[len(_RESTARTED) :]
        text = text[:1].upper() + text[1:]
    if "/" not in text:
        return text
    return _SLASH_HINT.sub("", text).strip() or text
