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
from typing import Any

import pytest

from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.ports import PermissionLost, Table
from bot.session import GameSession
from bot.storage import Storage

from .conftest import UNTIMED, members, until
from .test_supervision import CHANNEL

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
