"""A change made, then a message about it fails: the member hears what happened.

Through discord.py's real dispatch. The lobby closed as its game started, a seat taken
or given up, a stranded game cancelled: each is stored before the bot edits the lobby
message or tells the channel, and such an edit or post can fail (Discord's 5xx, or the
message deleted meanwhile). The failure used to reach the generic handler, which told
the member "Something went wrong; the game is unchanged. Try again.", and the retry was
refused ("already at this table", "this lobby is closed").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import simcord

from bot import notices
from bot.discord import texts

from .harness import Harness, embed_text, labels, text, told
from .lobby_desk import desk, lobby_message, lobby_table
from .test_game_faults_more import private_texts, public_texts
from .test_game_flow import FAST, _stranded_by_a_restart, open_table

# The deferred update of a clicked lobby message (PATCH .../messages/@original): the
# message was deleted meanwhile, or Discord failed for good.
EDIT_ORIGINAL = "/webhooks/*/messages/@original"
FAULTS = [(404, 10008, "Unknown Message"), (503, 0, "Service Unavailable")]


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


def fail_edit(table: Harness, status: int, code: int, message: str) -> None:
    """Every edit of an interaction's own message fails from now on."""
    table.env.inject_error(
        "PATCH", EDIT_ORIGINAL, status=status, code=code, message=message, times=None
    )


@pytest.mark.parametrize(("status", "code", "message"), FAULTS, ids=["deleted", "5xx"])
async def test_a_start_whose_lobby_edit_fails_says_the_game_started(
    table: Harness, status: int, code: int, message: str
) -> None:
    alice = table.members[0]
    await alice.slash(table.channel, "newgame")
    lobby = lobby_message(table)
    table.expect_warning("could not show the lobby")
    fail_edit(table, status, code, message)
    started = await alice.click(lobby, label="Start")
    shown = private_texts(started)
    assert texts.SOMETHING_WRONG not in shown, shown
    assert shown == [texts.LOBBY_STARTED], shown
    assert len(desk(table).launched) == 1
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    # The lobby message is closed through the channel instead: no buttons left to press.
    closed = table.message(lobby.id)
    assert labels(closed) == [] and texts.LOBBY_STARTED in embed_text(closed)


@pytest.mark.parametrize(("status", "code", "message"), FAULTS, ids=["deleted", "5xx"])
async def test_a_join_and_a_leave_whose_lobby_edit_fails_are_told(
    table: Harness, status: int, code: int, message: str
) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    lobby = lobby_message(table)
    table.expect_warning("could not show the lobby")
    fail_edit(table, status, code, message)

    joined = await bob.click(lobby, label="Join")
    shown = private_texts(joined)
    assert shown == [texts.JOINED.format(seat=2)], shown
    stored = await table.bot.lobbies.book.get(table.channel.id)
    assert stored is not None and stored.seat_of(bob.id) == 1
    assert bob.mention in embed_text(table.message(lobby.id))  # shown through the channel
    again = await bob.click(lobby, label="Join")  # he knows he joined; the answer agrees
    assert private_texts(again) == [texts.ALREADY_IN_LOBBY]

    left = await bob.click(lobby, label="Leave")
    assert private_texts(left) == [texts.LEFT]
    stored = await table.bot.lobbies.book.get(table.channel.id)
    assert stored is not None and stored.seat_of(bob.id) is None
    assert bob.mention not in embed_text(table.message(lobby.id))

    emptied = await alice.click(lobby, label="Leave")  # the last member: the lobby closes
    assert private_texts(emptied) == [texts.LOBBY_EMPTY_CLOSED]
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    assert labels(table.message(lobby.id)) == []


async def test_a_join_whose_lobby_message_is_gone_everywhere_is_told(table: Harness) -> None:
    """The lobby message deleted: the click's own edit fails, and so does the channel's;
    the lobby is posted again, and the member hears they joined."""
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    lobby = lobby_message(table)
    table.expect_warning("could not show the lobby")
    fail_edit(table, 404, 10008, "Unknown Message")
    table.env.inject_error(
        "PATCH",
        f"/channels/*/messages/{lobby.id}",
        status=404,
        code=10008,
        message="Unknown Message",
        times=None,
    )
    joined = await bob.click(lobby, label="Join")
    assert private_texts(joined) == [texts.JOINED.format(seat=2)]
    stored = await table.bot.lobbies.book.get(table.channel.id)
    assert stored is not None and stored.seat_of(bob.id) == 1
    assert stored.message_id not in (None, lobby.id)  # a fresh lobby message
    fresh = table.message(stored.message_id)
    assert "Join" in labels(fresh) and bob.mention in embed_text(fresh)


async def test_a_lobby_cancel_whose_announcement_fails_says_cancelled(table: Harness) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    lobby = lobby_message(table)
    table.expect_warning("not announced")
    table.env.inject_error("POST", "/webhooks/*", status=503, times=1)  # the public notice
    cancelled = await alice.slash(table.channel, "cancel")
    shown = private_texts(cancelled)
    assert texts.SOMETHING_WRONG not in shown and shown[-1] == texts.LOBBY_CANCEL_DONE, shown
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    # The lobby message says so, for everyone: no buttons, and who cancelled it.
    closed = table.message(lobby.id)
    assert labels(closed) == [] and alice.mention in embed_text(closed)
    fresh = await bob.slash(table.channel, "newgame")
    assert told(fresh) == texts.LOBBY_OPENED


# --- a stranded game cancelled, then the channel's notice fails ---------------------------


@pytest.fixture
async def game_table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


@pytest.mark.parametrize(("status", "code"), [(404, 10015), (503, 0)], ids=["expired", "5xx"])
async def test_a_stranded_game_cancelled_without_its_notice_is_told_cancelled(
    game_table: Harness, monkeypatch: pytest.MonkeyPatch, status: int, code: int
) -> None:
    table = game_table
    alice = table.members[0]
    game_id, _, _, _ = await _stranded_by_a_restart(table, monkeypatch)
    table.expect_warning("not told how it ended")
    # The public followup (POST /webhooks/<app>/<token>) fails once; the private reply
    # is an edit of the deferred one, which works (and so would a later followup).
    table.env.inject_error("POST", "/webhooks/*", status=status, code=code, times=1)
    cancelled: simcord.InteractionResult = await alice.slash(table.channel, "cancel")
    shown = private_texts(cancelled)
    assert texts.SOMETHING_WRONG not in shown and shown[-1] == texts.GAME_CANCELLED, shown
    assert public_texts(cancelled) == []
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert table.bot.games.game_in(table.channel.id) is None
    # The table is told all the same, by a post of the bot's own in the channel.
    said = notices.cancelled(texts.CANCEL_HOST_ALONE)
    assert [text(m) for m in table.channel_messages()].count(said) == 1
    assert told(cancelled) == texts.GAME_CANCELLED


async def test_a_stranded_game_cancelled_where_nothing_can_be_posted_is_told_cancelled(
    game_table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = game_table
    alice = table.members[0]
    game_id, _, _, _ = await _stranded_by_a_restart(table, monkeypatch)
    table.expect_warning("not told how it ended")
    table.env.inject_error("POST", "/webhooks/*", status=503, times=1)
    table.env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=503, times=1)
    cancelled = await alice.slash(table.channel, "cancel")
    assert private_texts(cancelled) == [texts.GAME_CANCELLED]
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    logged = [r.getMessage() for r in table.log.records if "not told" in r.getMessage()]
    assert len(logged) == 2 and all("alice" not in m for m in logged), logged
