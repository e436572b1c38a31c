"""Shared helpers of the session tests: a real SQLite store, members, waiting on a session."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from bot.manager import Member
from bot.session import SessionOptions
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
