"""A game whose bot was taken out of its private thread carries on as soon as the bot is
added back, through discord.py's real dispatch (simcord's gateway sends the thread
membership update Discord sends).

The game pauses when the bot cannot post in its thread; its outbox tries the held
message again every 30 seconds (`outbox.PROBE_S`), and at once when a channel, thread or
role update says the bot's permissions may have changed. Being added back to a private
thread is none of those: the game sat paused until the next probe.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.outbox import PROBE_S

from .harness import Harness
from .test_game_flow import FAST, open_table
from .test_threads_the_bot_cannot_post_in import _paused, paused_in_private_thread


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def test_a_game_carries_on_as_soon_as_its_bot_is_added_back_to_its_thread(
    table: Harness,
) -> None:
    room, game_id, driver = await paused_in_private_thread(table)
    assert (await table.storage.load_game(game_id)).status == "paused"

    # Added back (a member mentions the bot in the thread): the game goes on now, well
    # before the outbox's next probe.
    added = time.monotonic()
    table.env.backend.add_thread_member(room.id, table.env.backend.bot_user.id)
    await table.until(
        lambda: not _paused(table, game_id), timeout=PROBE_S / 3, what="the game resumed"
    )
    assert time.monotonic() - added < PROBE_S / 3
    assert (await table.storage.load_game(game_id)).status == "running"
    # Its members play on in the thread.
    progress = len(room.history())
    await table.until(lambda: bool(driver.pending()), what="a prompt after the resume")
    await driver.act(*driver.pending()[0])
    await table.until(lambda: len(room.history()) > progress, what="the game's next message")
    session = table.bot.games.manager.get(game_id)
    assert session is not None and not session.paused
    await session.cancel("test")
