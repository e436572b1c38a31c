"""A lobby nobody started within an hour (its host left the server, or forgot it) no
longer holds its channel: only its host (or Manage Server) may start or cancel it, so
it blocked /newgame and /demo there until a moderator stepped in (found by a review).
The next /newgame or /demo closes it, its message saying why."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord import texts
from bot.discord.lobby_control import LOBBY_STALE_S

from .harness import Harness, embed_text, labels, opened_lobby, told
from .test_game_flow import FAST, open_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def left_open(table: Harness) -> int:
    """alice's lobby, bob seated in it; alice gone. Returns the lobby message's id."""
    alice, bob = table.members[:2]
    lobby = opened_lobby(await alice.slash(table.channel, "newgame"))
    message = next(m for m in table.channel_messages() if m.id == lobby.id)
    await bob.click(message, label="Join")
    return lobby.id


def an_hour_later(table: Harness, seconds: float = LOBBY_STALE_S + 1) -> None:
    table.bot.lobbies.clock = lambda: time.time() + seconds


async def test_a_lobby_younger_than_an_hour_still_holds_its_channel(table: Harness) -> None:
    await left_open(table)
    an_hour_later(table, LOBBY_STALE_S - 60)
    carol = table.members[2]
    assert told(await carol.slash(table.channel, "newgame")).startswith("There is already")


async def test_a_newgame_over_a_lobby_left_for_an_hour_opens_a_new_one(table: Harness) -> None:
    old = await left_open(table)
    an_hour_later(table)
    carol = table.members[2]
    new = opened_lobby(await carol.slash(table.channel, "newgame"))
    assert new.id != old
    closed = next(m for m in table.channel_messages() if m.id == old)
    assert texts.LOBBY_EXPIRED in embed_text(closed) and labels(closed) == []
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None and lobby.host_id == carol.id


async def test_a_demo_over_a_lobby_left_for_an_hour_starts(table: Harness) -> None:
    old = await left_open(table)
    an_hour_later(table)
    carol = table.members[2]
    await carol.slash(table.channel, "demo", players=5, speed="fast")
    await table.until(lambda: table.bot.games.game_in(table.channel.id) is not None)
    closed = next(m for m in table.channel_messages() if m.id == old)
    assert texts.LOBBY_EXPIRED in embed_text(closed)
