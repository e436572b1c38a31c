"""A lobby is stale an hour after its last activity, not an hour after it opened (found
by a review): at 59 minutes three members joined and the host added an AI; a minute
later any member's /demo closed the lobby of four, saying nobody had started it."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord import texts
from bot.discord.lobby import Lobby, LobbyOptions
from bot.discord.lobby_control import LOBBY_STALE_S

from .harness import Harness, embed_text, labels, opened_lobby, told
from .test_game_flow import FAST, open_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


def at(table: Harness, seconds: float) -> None:
    """Set the lobbies' clock `seconds` past now."""
    table.bot.lobbies.clock = lambda: time.time() + seconds


async def test_an_active_lobby_is_not_closed_as_stale(table: Harness) -> None:
    alice, bob, carol, dave, mallory = (table.members[i] for i in (0, 1, 2, 3, 10))
    lobby = opened_lobby(await alice.slash(table.channel, "newgame"))
    message = next(m for m in table.channel_messages() if m.id == lobby.id)
    at(table, LOBBY_STALE_S - 60)  # 59 minutes on
    for member in (bob, carol, dave):
        await member.click(message, label="Join")
    await alice.slash(table.channel, "addbot")
    at(table, LOBBY_STALE_S + 60)  # a minute past the hour since it opened
    assert told(await mallory.slash(table.channel, "demo", players=5, speed="fast")) == (
        texts.LOBBY_HERE_NO_DEMO
    )
    still = await table.bot.lobbies.book.get(table.channel.id)
    assert still is not None and len(still.seats) == 5
    shown = next(m for m in table.channel_messages() if m.id == lobby.id)
    assert texts.LOBBY_EXPIRED not in embed_text(shown)


@pytest.mark.parametrize("act", ["leave", "kick"])
async def test_a_leave_or_a_kick_counts_as_activity(table: Harness, act: str) -> None:
    alice, bob, carol = table.members[:3]
    lobby = opened_lobby(await alice.slash(table.channel, "newgame"))
    message = next(m for m in table.channel_messages() if m.id == lobby.id)
    await bob.click(message, label="Join")
    at(table, LOBBY_STALE_S - 60)
    if act == "leave":
        await bob.click(message, label="Leave")
    else:
        await alice.slash(table.channel, "kick", seat=2)
    at(table, LOBBY_STALE_S + 60)
    assert told(await carol.slash(table.channel, "newgame")).startswith("There is already")


async def test_a_lobby_untouched_for_an_hour_after_its_last_join_closes(table: Harness) -> None:
    alice, bob, carol = table.members[:3]
    lobby = opened_lobby(await alice.slash(table.channel, "newgame"))
    message = next(m for m in table.channel_messages() if m.id == lobby.id)
    at(table, LOBBY_STALE_S - 60)
    await bob.click(message, label="Join")
    at(table, 2 * LOBBY_STALE_S - 61)  # 59 minutes after the join: still held
    assert told(await carol.slash(table.channel, "newgame")).startswith("There is already")
    at(table, 2 * LOBBY_STALE_S)  # an hour after the join, nobody touched it since
    new = opened_lobby(await carol.slash(table.channel, "newgame"))
    assert new.id != lobby.id
    closed = next(m for m in table.channel_messages() if m.id == lobby.id)
    assert texts.LOBBY_EXPIRED in embed_text(closed) and labels(closed) == []


def stored(active_at: float | None = None, opened_at: float | None = 100.0) -> Lobby:
    return Lobby(
        id="L1",
        guild_id=1,
        channel_id=2,
        host_id=3,
        options=LobbyOptions(),
        opened_at=opened_at,
        active_at=active_at,
    )


def test_the_last_activity_is_stored_and_read_back() -> None:
    data = stored(active_at=250.0).to_dict()
    assert data["active_at"] == 250.0
    assert Lobby.from_dict(data).active_at == 250.0


def test_a_lobby_stored_without_its_last_activity_still_reads() -> None:
    data = stored().to_dict()
    del data["active_at"]  # as an older release stored it
    lobby = Lobby.from_dict(data)
    assert lobby.active_at is None and lobby.opened_at == 100.0


async def test_an_older_release_lobby_counts_as_active_when_this_one_started(
    table: Harness,
) -> None:
    """Its row says when it opened, not when it was last touched (maybe just before the
    upgrade): it is held an hour from this process's start, then closed."""
    alice, carol = table.members[0], table.members[2]
    lobby = opened_lobby(await alice.slash(table.channel, "newgame"))
    book = table.bot.lobbies.book
    old = await book.get(table.channel.id)
    assert old is not None
    old = old.copy()
    old.opened_at, old.active_at = time.time() - 5 * LOBBY_STALE_S, None  # opened long ago
    await book.save(old)
    at(table, LOBBY_STALE_S - 60)
    assert told(await carol.slash(table.channel, "newgame")).startswith("There is already")
    at(table, LOBBY_STALE_S + 60)
    assert opened_lobby(await carol.slash(table.channel, "newgame")).id != lobby.id
