"""Pauses and resumes that race each other never leave a game stuck:

- a permission that comes back before the game task reaches its pause: the game
  resumes by itself (the outbox said "restored" only once, before the pause);
- two resumes at once (a double /resume, or /resume with the automatic resume) start
  one session, not two;
- /cancel on a game paused for a missing permission returns, and frees the channel;
- a resume after a restored permission that fails unexpectedly is logged, not lost.

Every bound below is generous: a regression fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

import bot.session as session_module
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.ports import PermissionLost, Table
from bot.session import GameSession
from bot.storage import Storage, StorageError

from .conftest import UNTIMED, members, until
from .test_supervision import CHANNEL, _paused

DENIED = "The bot may not Send Messages in this channel."


class Gate:
    """A front-end fault the test switches: while `denied` is set, everything is refused."""

    def __init__(self) -> None:
        self.denied = asyncio.Event()

    def __call__(self, method: str, table: Table, payload: Any) -> None:
        if self.denied.is_set():
            raise PermissionLost(DENIED, ["Send Messages"])


async def _playing(store: Storage, gate: Gate) -> tuple[SessionManager, GameSession, FakeFrontend]:
    """A 10-seat game (two scripted humans) a few actions in."""
    fake = FakeFrontend(answer=scripted, fault=gate)
    manager = SessionManager(store, fake)
    session = await manager.create(
        members(2), players=10, fill_with_ai=True, seed=5, options=UNTIMED, channel_id=CHANNEL
    )
    session.outbox.probe_s = 0.05  # try again quickly in a test
    await until(lambda: len(session.game.actions) >= 3)
    return manager, session, fake


async def test_a_permission_back_before_the_pause_takes_effect_resumes_the_game(
    session_store: Storage,
) -> None:
    gate = Gate()
    manager, session, _ = await _playing(session_store, gate)
    # The game task is busy (it waits for the session's lock, as during a claims round
    # or table talk) while the permission is lost and comes back.
    async with session._lock:
        gate.denied.set()
        session._post_notice("a message that meets the missing permission")
        await until(lambda: session.outbox.blocked is not None and session.failure is not None)
        gate.denied.clear()
        session.outbox.nudge()
        await until(lambda: session.outbox.blocked is None)
        assert not session.paused  # delivery was restored before the pause
    await until(lambda: session.paused or manager.get(session.game_id) is not session)
    # Nothing else will ever say the permission is back: the pause must resume at once.
    await until(lambda: manager.get(session.game_id) not in (None, session), timeout=10)
    resumed = manager.get(session.game_id)
    assert resumed is not None
    await asyncio.wait_for(resumed.wait(), 60)
    assert resumed.game.is_over
    assert (await session_store.load_game(session.game_id)).status == "finished"


async def test_two_resumes_at_once_start_one_session(session_store: Storage) -> None:
    fake = FakeFrontend(answer=scripted)
    manager, session = await _paused(session_store, fake)
    gid = session.game_id
    started: list[GameSession] = []
    start = GameSession.start

    def counted(self: GameSession) -> None:
        if self._task is None:
            started.append(self)
        start(self)

    GameSession.start = counted  # type: ignore[method-assign]
    try:
        results = await asyncio.wait_for(
            asyncio.gather(
                manager.resume_paused(gid), manager.resume_paused(gid), return_exceptions=True
            ),
            30,
        )
    finally:
        GameSession.start = start  # type: ignore[method-assign]
    resumed = [r for r in results if isinstance(r, GameSession)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(resumed) == 1 and len(started) == 1, results
    assert len(refused) == 1 and isinstance(refused[0], ValueError), refused
    assert "not paused" in str(refused[0])
    [carried_on] = resumed
    assert manager.get(gid) is carried_on
    await asyncio.wait_for(carried_on.wait(), 60)
    assert carried_on.game.is_over
    assert fake.public_text(gid).count("The game resumes where it stopped.") == 1
    assert len(fake.of(gid, "reveal")) == 1


async def test_cancel_returns_on_a_game_paused_for_a_missing_permission(
    session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    gate = Gate()
    manager, session, _ = await _playing(session_store, gate)
    gate.denied.set()
    await until(lambda: session.paused, timeout=10)
    # The permission is still missing: the cancel notice cannot be shown either.
    await asyncio.wait_for(session.cancel("the host ended it"), 10)
    stored = await session_store.load_game(session.game_id)
    assert stored.status == "cancelled"
    await until(lambda: manager.get(session.game_id) is None)
    assert manager.for_channel(CHANNEL) is None  # the channel takes a new game
    assert "not shown" in caplog.text


async def test_an_unexpected_failure_of_the_automatic_resume_is_logged(
    session_store: Storage, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeFrontend(answer=scripted)
    manager, session = await _paused(session_store, fake)

    def broken(*args: Any, **kwargs: Any) -> GameSession:
        raise KeyError("the hand was L L F")

    monkeypatch.setattr(manager, "_build", broken)
    before = set(manager._watchers)
    await manager._restored(session)
    [resuming] = set(manager._watchers) - before
    await asyncio.wait_for(asyncio.gather(resuming, return_exceptions=True), 10)
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(
        f"game {session.game_id} stays paused" in line and "KeyError" in line for line in lines
    )
    assert not any("L L F" in line for line in lines)


@pytest.mark.parametrize("resume", ["carries the game on", "fails"])
async def test_a_cancel_during_a_resume_ends_the_game_and_frees_the_channel(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch, resume: str
) -> None:
    """A host's /resume stops the paused session and builds the next one (seconds); a
    /cancel then (a moderator, or the vote that makes the majority) found the old
    session and ended it under the resume: the resume failed ('it stays paused', untrue)
    and the stopped session held the channel until a restart. The cancel waits for the
    resume now, and ends whichever session holds the game after it."""
    fake = FakeFrontend(answer=scripted)
    manager, session = await _paused(session_store, fake)
    gid = session.game_id
    reached, release = asyncio.Event(), asyncio.Event()
    real = manager.store.resume_game

    async def held_resume(game_id: int) -> None:
        reached.set()
        await release.wait()
        if resume == "fails":
            raise StorageError("the database is gone")
        await real(game_id)

    monkeypatch.setattr(manager.store, "resume_game", held_resume, raising=False)
    resuming = asyncio.create_task(manager.resume_paused(gid))
    await asyncio.wait_for(reached.wait(), 10)
    cancelling = asyncio.create_task(manager.cancel(session, "the host ended it"))
    await asyncio.sleep(0.05)
    release.set()
    results = await asyncio.wait_for(asyncio.gather(resuming, return_exceptions=True), 30)
    ended = await asyncio.wait_for(cancelling, 30)
    if resume == "fails":
        assert isinstance(results[0], StorageError) and ended is session
    else:
        assert isinstance(results[0], GameSession) and ended is results[0]
    assert ended.is_over
    assert (await session_store.load_game(gid)).status == "cancelled"
    await until(lambda: manager.for_channel(CHANNEL) is None)  # a new game may open


async def test_a_cancel_as_the_game_is_won_leaves_its_end_to_show(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A /cancel lands as the winning move is accepted: the game is over, not cancelled,
    and its channel stays its own until the reveal is shown and the end stored."""
    chart = asyncio.Event()
    real = session_module.suspicion_after

    async def slow_chart(*args: Any, **kwargs: Any) -> Any:
        await chart.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(session_module, "suspicion_after", slow_chart)
    manager = SessionManager(session_store, FakeFrontend(answer=scripted))
    session = await manager.create(
        [], players=5, fill_with_ai=True, seed=3, options=UNTIMED, channel_id=CHANNEL
    )
    await until(lambda: session.game.is_over, timeout=60)
    assert await asyncio.wait_for(manager.cancel(session, "the host ended it"), 10) is session
    assert manager.for_channel(CHANNEL) is session  # still showing its end
    chart.set()
    await asyncio.wait_for(session.wait(), 30)
    assert (await session_store.load_game(session.game_id)).status == "finished"
    await until(lambda: manager.for_channel(CHANNEL) is None)


async def _stranded(
    store: Storage, fake: FakeFrontend, monkeypatch: pytest.MonkeyPatch
) -> tuple[SessionManager, int]:
    """A paused game whose /resume failed after stopping its session: stranded."""
    manager, session = await _paused(store, fake)
    build = manager._build

    def broken_once(*args: Any, **kwargs: Any) -> GameSession:
        monkeypatch.setattr(manager, "_build", build)
        raise RuntimeError("the record did not replay")

    monkeypatch.setattr(manager, "_build", broken_once)
    with pytest.raises(RuntimeError):
        await manager.resume_paused(session.game_id)
    assert manager.get(session.game_id) is None and manager.is_stranded(session.game_id)
    return manager, session.game_id


async def test_a_cancel_of_a_stranded_game_waits_for_its_resume_in_flight(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A /resume of a stranded game stores it running, then registers its session; a
    /cancel in between stored the game cancelled under the session that then started
    (a running game stored as cancelled), and failed on the stranded entry the resume
    had taken. It waits for the resume now, and finds the game resumed (ValueError: the
    desk says so), the game running and stored running."""
    fake = FakeFrontend(answer=scripted)
    manager, gid = await _stranded(session_store, fake, monkeypatch)
    reached, release = asyncio.Event(), asyncio.Event()
    real = manager.store.resume_game

    async def stored_then_held(game_id: int) -> None:
        await real(game_id)
        reached.set()
        await release.wait()

    monkeypatch.setattr(manager.store, "resume_game", stored_then_held, raising=False)
    resuming = asyncio.create_task(manager.resume_paused(gid))
    await asyncio.wait_for(reached.wait(), 10)
    cancelling = asyncio.create_task(manager.cancel_stranded(gid))
    await asyncio.sleep(0.05)
    release.set()
    resumed = await asyncio.wait_for(resuming, 30)
    with pytest.raises(ValueError, match="not stranded"):
        await asyncio.wait_for(cancelling, 30)
    assert manager.get(gid) is resumed and not manager.is_stranded(gid)
    assert (await session_store.load_game(gid)).status == "running"
    await asyncio.wait_for(resumed.wait(), 60)
    assert (await session_store.load_game(gid)).status == "finished"
