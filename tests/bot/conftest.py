"""Shared helpers of the session tests: a real SQLite store, members, waiting on a session,
and the supervision check every session of these tests runs after every step."""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.manager import Member
from bot.ports import PromptKind
from bot.session import GameSession, SessionOptions
from bot.storage import Storage
from bot.timers import Timers
from engine import Action, Game
from engine import events as ev

# Terminal-like settings: no timers, the fast real agent stands in, no suspicion tracks
# (computed at the end of every game; tests that check them switch them on).
UNTIMED = SessionOptions(timers=Timers.off(), substitute="selfish", suspicion=False)


def members(count: int, first_id: int = 100) -> list[Member]:
    """`count` humans with ids first_id, first_id + 1, ..."""
    return [Member(first_id + i, f"Player{i}") for i in range(count)]


@pytest.fixture
def db_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for database files, in memory (tmpfs) when the machine has one.

    These tests kill the bot, not the machine: the files outlive the process either way,
    and without a disk flush per action the suite stays fast. (Flushing before the ack
    is the storage's own business, tested there.)
    """
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="shbot-test-", dir=shm))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
async def session_store(db_dir: Path) -> AsyncIterator[Storage]:
    """A real storage file."""
    store = await Storage.open(db_dir / "games.db")
    yield store
    await store.close()


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the event loop run until `condition()` holds (fail after `timeout` seconds)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.001)


def normalised(game: Game) -> tuple[list[Action], list[ev.Event], int]:
    """A game's decisions up to the order of ballots within an election (which depends on
    who clicked first), every election result, and the number of events."""
    from engine import Vote

    decisions = [a for a in game.actions if not isinstance(a, Vote)]
    results = [e for e in game.events if isinstance(e, ev.ElectionResult)]
    return decisions, results, len(game.events)


def off_the_clock(session: GameSession) -> list[str]:
    """The awaited seats nobody is on the clock for, each described; read from the seats,
    the open prompts and the AI tasks, not from `GameSession.unattended` (which it checks).

    On the clock: an AI with a live decision task, or a human with an open action prompt
    that has a deadline whenever the phase has a timer. During a vote, the awaited seats
    are the voters who have not voted.
    """
    game = session.game
    if session.is_over or session.paused:
        return []
    timed = session.options.timers.for_phase(game.phase) is not None
    problems = []
    for seat in game.awaiting():
        task = session.ai.task(seat)
        if task is not None and not task.done():
            continue
        prompts = [p for p in session.open_prompts(seat) if p.kind is PromptKind.ACTION]
        human = not session.seats[seat].is_ai
        if human and prompts and (not timed or prompts[0].deadline is not None):
            continue
        what = "a dead AI task" if task is not None else "no AI task"
        if human:
            what = "a prompt without a timer" if prompts else "no prompt and " + what
        problems.append(
            f"game {session.game_id} turn {session.turn} ({game.phase.value}): seat {seat} "
            f"has {what}"
        )
    if not problems and session.unattended():
        problems.append(f"game {session.game_id}: unattended() is {session.unattended()}")
    return problems


class _Alarms(logging.Handler):
    """Records the session's warnings that it found nobody on the clock."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "nobody on the clock" in record.getMessage():
            self.lines.append(record.getMessage())


@pytest.fixture(autouse=True)
def someone_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every session made in these tests checks, after every step, that each awaited seat
    has someone on the clock; a test fails if that ever broke, or if the session had to
    repair it by itself ("nobody on the clock": the dead-AI-task repair, which a fault
    test provokes on purpose, is logged differently). Yields the problems found."""
    problems: list[str] = []
    alarms = _Alarms()
    logging.getLogger("bot.session").addHandler(alarms)
    made = GameSession.__init__

    def init(self: GameSession, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.on_step.append(lambda session: problems.extend(off_the_clock(session)))

    monkeypatch.setattr(GameSession, "__init__", init)
    try:
        yield problems
    finally:
        logging.getLogger("bot.session").removeHandler(alarms)
    assert not problems, problems[:5]
    assert not alarms.lines, alarms.lines[:5]
