"""Faults a real server produces (issue 18), provoked through discord.py's real dispatch:
closed DMs, commands from a DM, errors after a public defer, forged cancel votes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord import texts
from bot.discord.frontend import DiscordFrontend
from bot.ports import Private, Table

from .driver import Driver, components
from .harness import Harness
from .test_game_flow import FAST, open_table, reveal_posted, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def test_a_closed_dm_is_remembered_for_the_rest_of_the_game(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    # bob's DMs are closed: Discord answers 403 / 50007 to every DM the bot tries.
    bob_dm = bob.user.dm_channel
    table.env.inject_error(
        "POST",
        f"/channels/{bob_dm.id}/messages",
        status=403,
        code=50007,
        message="Cannot send messages to this user",
        times=None,
    )
    told_seats: list[int] = []
    tell = DiscordFrontend.tell

    async def counting_tell(self: DiscordFrontend, table_: Table, private: Private) -> None:
        told_seats.append(private.seat)
        await tell(self, table_, private)

    monkeypatch.setattr(DiscordFrontend, "tell", counting_tell)
    game_id = await start_game(table, [alice, bob], players=5)
    await Driver(table, [alice, bob], seed=3).play(until=lambda: reveal_posted(table))

    bob_seat = 1  # humans sit first, in join order
    assert told_seats.count(bob_seat) >= 2, told_seats  # several secrets for bob
    requests = table.env.http_requests
    dm_attempts = [
        r for r in requests if r.method == "POST" and r.path == f"/channels/{bob_dm.id}/messages"
    ]
    assert len(dm_attempts) == 1  # the first 403 / 50007 is remembered: no more tries
    assert not [r for r in requests if r.path == f"/users/{bob.id}"]  # nor user fetches
    assert not bob_dm.history()
    # alice's DMs are open: every secret of hers arrived there.
    assert len(alice.user.dm_channel.history()) == told_seats.count(0)
    # bob still reads his secrets through the buttons, and the game ended normally.
    opening = next(m for m in table.channel_messages() if "Show my role" in str(components(m)))
    over = await bob.click(opening, label="Show my role")
    assert over.response is not None and over.response.content == texts.GAME_OVER
    assert (await table.storage.load_game(game_id)).status == "finished"
