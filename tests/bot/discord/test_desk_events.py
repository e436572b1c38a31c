"""Server events the bot hands to its games through the `GameDesk` protocol alone
(bot/discord/desk.py), through discord.py's real dispatch: the bot (`app`) knows no
concrete desk, so a stand-in desk hears them as `DiscordGames` does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .harness import Harness
from .lobby_desk import desk, lobby_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


async def test_deleted_messages_reach_any_desk(table: Harness) -> None:
    """A moderator's delete and a purge reach the desk as they are: the bot used to
    hand them only to a desk that was a `DiscordGames` (an isinstance in `app`), so any
    other desk never heard of them."""
    alice = table.members[0]
    one, two, three = [await alice.send(table.channel, f"line {n}") for n in range(3)]
    table.env.backend.delete_message(table.channel.id, one.id)
    await table.until(lambda: bool(desk(table).deleted), timeout=5, what="the delete event")
    table.env.backend.bulk_delete_messages(table.channel.id, [two.id, three.id])
    await table.until(lambda: len(desk(table).deleted) == 2, timeout=5, what="the purge event")
    assert desk(table).deleted == [
        (table.channel.id, {one.id}),
        (table.channel.id, {two.id, three.id}),
    ]
