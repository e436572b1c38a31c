"""Lobby commands that wait behind another's lock see what it did."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord import texts
from bot.discord.lobby import Lobby

from .harness import Harness, told
from .lobby_desk import desk, lobby_table
from .test_game_flow import FAST, open_table


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


async def test_a_demo_behind_a_newgame_finds_its_lobby(tmp_path: Path) -> None:
    """/demo while a /newgame of the same channel is opening its lobby (it holds the
    channel's lobby lock across its writes and its post): the demo waits and then
    refuses, instead of starting beside the lobby (whose Start then said a game runs)."""
    async with open_table(tmp_path, FAST) as table:
        alice, bob = table.members[:2]
        book = table.bot.lobbies.book
        lock = book.lock(table.channel.id)
        await lock.acquire()  # the /newgame, under way
        demo = asyncio.create_task(bob.slash(table.channel, "demo"))
        await asyncio.sleep(0.1)
        room = Lobby(
            id="L1", guild_id=table.guild.id, channel_id=table.channel.id, host_id=alice.id
        )
        room.join(alice.id, alice.user.name)
        await book.open(room)  # what it did meanwhile
        lock.release()
        assert told(await demo) == texts.LOBBY_HERE_NO_DEMO
        assert table.bot.games.game_in(table.channel.id) is None
