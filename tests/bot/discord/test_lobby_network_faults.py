"""The lobby's requests to Discord (and /settings' answer) meet network faults (a dropped
connection, a timeout), not HTTP errors: each gets the same graceful path as a refusal,
never the generic handler's "something went wrong", and what was stored stands."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import discord
import pytest

from bot.discord import texts

from .harness import Harness, embed_text, labels, opened_lobby, told
from .lobby_desk import desk, lobby_message, lobby_table
from .network_faults import NetworkFaults

FAULTS = [aiohttp.ClientConnectionError("connection reset"), TimeoutError()]


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> NetworkFaults:
    return NetworkFaults(monkeypatch)


@pytest.mark.parametrize("fault", FAULTS, ids=["reset", "timeout"])
async def test_a_lobby_whose_post_meets_a_network_fault_opens_nothing(
    table: Harness, network: NetworkFaults, fault: BaseException
) -> None:
    alice, bob = table.members[:2]
    network.fail("POST", "/webhooks/*", fault)  # the followup that carries the lobby
    table.expect_warning("cannot post its message")
    failed = await alice.slash(table.channel, "newgame")
    assert network.raised
    assert told(failed) == texts.LOBBY_NOT_POSTED_NETWORK
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    again = await bob.slash(table.channel, "newgame")
    assert told(again) == texts.LOBBY_OPENED
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None and lobby.message_id == opened_lobby(again).id


@pytest.mark.parametrize("fault", FAULTS, ids=["reset", "timeout"])
async def test_a_join_whose_message_edit_meets_a_network_fault_still_counts(
    table: Harness, network: NetworkFaults, fault: BaseException
) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    # The deferred update's edit of the clicked message, then the channel's edit.
    network.fail("PATCH", "/webhooks/*", fault)
    network.fail("PATCH", "/channels/*/messages/*", fault)
    table.expect_warning("could not show the lobby in the clicked message")
    table.expect_warning("cannot edit its message")
    joined = await bob.click(message, label="Join")
    assert len(network.raised) == 2
    assert told(joined) == texts.JOINED.format(seat=2)
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None and [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    # The next change shows both in the lobby message.
    carol = table.members[2]
    await carol.click(message, label="Join")
    shown = embed_text(table.message(message.id))
    assert all(m.mention in shown for m in (alice, bob, carol))


@pytest.mark.parametrize("fault", FAULTS, ids=["reset", "timeout"])
async def test_a_lobby_cancel_whose_notice_meets_a_network_fault_is_told_done(
    table: Harness, network: NetworkFaults, fault: BaseException
) -> None:
    alice = table.members[0]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    network.fail("POST", "/webhooks/*", fault)  # the public notice
    table.expect_warning("its cancel was not announced")
    cancelled = await alice.slash(table.channel, "cancel")
    assert network.raised
    assert told(cancelled) == texts.LOBBY_CANCEL_DONE
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    assert labels(table.message(message.id)) == []  # closed


# --- a change is stored, then the member's answer meets a network fault ----------------
# The change stands: the lobby message still shows it, and the member is never told that
# nothing changed (the generic handler's answer, false here).


async def test_a_start_whose_answer_meets_a_network_fault_still_closes_the_lobby_message(
    table: Harness, network: NetworkFaults
) -> None:
    alice = table.members[0]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    network.fail("POST", "/webhooks/*", FAULTS[0])  # the command's answer
    table.expect_warning("could not answer an interaction")
    started = await alice.slash(table.channel, "start")
    assert network.raised and not started.followups
    assert len(desk(table).launched) == 1
    closed = table.message(message.id)
    assert labels(closed) == [] and texts.LOBBY_STARTED in embed_text(closed)


async def test_a_join_command_whose_answer_meets_a_network_fault_still_shows_the_seat(
    table: Harness, network: NetworkFaults
) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    network.fail("POST", "/webhooks/*", FAULTS[1])
    table.expect_warning("could not answer an interaction")
    joined = await bob.slash(table.channel, "join")
    assert network.raised and not joined.followups
    assert bob.mention in embed_text(table.message(message.id))


async def test_settings_whose_answer_meets_a_network_fault_are_saved_quietly(
    table: Harness, network: NetworkFaults
) -> None:
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(table.env.create_user("admin"), roles=[admins])
    network.fail("POST", "/webhooks/*", FAULTS[0])
    table.expect_warning("could not answer an interaction")
    await admin.slash(table.channel, "settings", players=8)
    assert network.raised
    assert await table.storage.get_settings(table.guild.id) == {"players": 8}
