"""Lobby commands that wait behind another's lock see what it did."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .harness import Harness, told
from .lobby_desk import desk, lobby_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


async def test_a_cancel_behind_a_start_cancels_the_game_it_launched(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/cancel finds no game, then waits for the lobby's lock, which a Start holds: the
    Start launches the game and closes the lobby. The /cancel is the game's now (its
    players vote), not 'No game is running in this channel'."""
    alice = table.members[0]
    await alice.slash(table.channel, "newgame")
    games, book = desk(table), table.bot.lobbies.book
    real_lock = book.lock

    @contextlib.asynccontextmanager
    async def lock_behind_a_start(channel_id: int) -> AsyncIterator[None]:
        async with real_lock(channel_id):
            lobby = await book.get(channel_id)
            if lobby is not None:  # what the Start holding the lock did meanwhile
                await games.launch(lobby, lobby.check_start(alice.id))
                await book.close(lobby)
            yield

    monkeypatch.setattr(book, "lock", lock_behind_a_start)
    assert told(await alice.slash(table.channel, "cancel")) == "the game desk's /cancel"
