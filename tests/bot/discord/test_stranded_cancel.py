"""A stranded game (one a restart could not resume) cancelled by its host closes the
vote, the calls and the live board it showed before the restart, as any cancelled game
does: no button or menu of it is left in the channel.

Driven through discord.py's real dispatch on simcord (nothing contacts Discord); the game
is stranded by a fault in restoring its Discord details at a restart (`test_game_flow`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot import notices
from bot.discord import delivery, texts
from bot.discord import frontend as frontend_module
from bot.discord.frontend import ping_key
from bot.discord.games import DiscordGames
from bot.storage import ShownMessage, Storage, StorageError, StoredGame

from .driver import Driver
from .harness import Harness, text, told
from .test_game_flow import open_table, start_game
from .test_open_decisions import LONG, until_select, until_vote
from .test_restart_keeps_lines import with_components

CANCELLED_NOTICE = notices.cancelled(texts.CANCEL_HOST_ALONE)


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, LONG) as h:  # no clock runs out meanwhile
        yield h


async def strand(
    table: Harness, monkeypatch: pytest.MonkeyPatch, open_as: str = "vote"
) -> tuple[int, int]:
    """A one-member game (its host's /cancel ends it at once) with a vote or a select
    open, stranded by a restart that cannot rebuild its session; returns the game and
    the message holding the open decision, which still shows its controls."""
    alice = table.members[0]
    game_id = await start_game(table, [alice], players=5)
    driver = Driver(table, [alice], seed=1)
    if open_as == "vote":
        shown = await until_vote(table, driver)
    else:
        shown, _ = await until_select(table, driver)
    table.expect_error("cannot be resumed (RuntimeError at ")

    def broken(games: DiscordGames, game: StoredGame) -> object:
        raise RuntimeError("seat 2 is a fascist")  # a message that must never be shown

    monkeypatch.setattr(DiscordGames, "_remember", broken)
    await table.restart()
    assert table.bot.games.manager.is_stranded(game_id)
    assert [m for m, _ in with_components(table)] == [shown.id]
    return game_id, shown.id


async def host_cancels(table: Harness, game_id: int) -> None:
    """The host's /cancel, told to the host and the channel, and stored."""
    cancelled = await table.members[0].slash(table.channel, "cancel")
    assert told(cancelled) == texts.GAME_CANCELLED
    await table.until(
        lambda: any(text(m) == CANCELLED_NOTICE for m in table.channel_messages()),
        what="the cancel told",
    )
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert await table.storage.shown_messages(game_id) == {}  # the rows go with the end


@pytest.mark.parametrize("open_as", ["vote", "select"])
async def test_a_stranded_game_cancelled_by_its_host_leaves_no_buttons(
    table: Harness, monkeypatch: pytest.MonkeyPatch, open_as: str
) -> None:
    """Its vote (Ja / Nein) or call (a menu, **Show my role**) used to stay, answering
    "cancelled" when pressed: the messages it showed are known only to the message
    book, whose rows the end drops, and no session held them. Now they close with the
    reason a live game's cancel closes them with."""
    game_id, shown = await strand(table, monkeypatch, open_as)
    await host_cancels(table, game_id)
    assert with_components(table) == []
    closed = text(table.message(shown))
    if open_as == "vote":
        assert closed.endswith(texts.VOTE_CLOSED.format(result=notices.CANCELLED)), closed
    else:
        last = closed.splitlines()[-1]
        assert last.startswith("> ") and last.endswith(notices.CANCELLED), closed
    # The channel is told once the buttons are gone, as by a live game's final post.
    assert text(table.channel_messages()[-1]) == CANCELLED_NOTICE


async def test_a_stranded_game_cancelled_deletes_its_ping_lines(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ping line filed before the restart goes at the cancel, as at any game's end."""
    game_id, _ = await strand(table, monkeypatch)
    channel = table.bot.get_partial_messageable(table.channel.id, guild_id=table.guild.id)
    line = await channel.send("@alice: your turn")
    row = ShownMessage(line.id, '{"prompt:a1:0:vote": 1}', None)
    await table.storage.remember_message(game_id, ping_key(line.id), row)
    await host_cancels(table, game_id)
    assert line.id not in [m.id for m in table.channel_messages()]


def fail_edit(monkeypatch: pytest.MonkeyPatch, vote: int, fault: Exception) -> list[int]:
    """Every edit of the message `vote` raises `fault` (Discord's answer, or none);
    returns how many were tried."""
    edit = discord.PartialMessage.edit
    tried: list[int] = []

    async def failing(message: discord.PartialMessage, **kwargs: Any) -> Any:
        if message.id == vote:
            tried.append(vote)
            raise fault
        return await edit(message, **kwargs)

    monkeypatch.setattr(discord.PartialMessage, "edit", failing)
    return tried


def http_fault(status: int, code: int) -> Callable[[], Exception]:
    """An HTTP error as discord.py raises it for Discord's answer."""

    def make() -> Exception:
        response: Any = type("Response", (), {"status": status, "reason": "x", "headers": {}})
        cls: type[discord.HTTPException] = discord.DiscordServerError
        if status < 500:
            cls = discord.NotFound if status == 404 else discord.Forbidden
        return cls(response, {"code": code, "message": "injected"})

    return make


@pytest.mark.parametrize(
    ("make", "logged"),
    [
        (http_fault(404, delivery.UNKNOWN_MESSAGE), ""),  # deleted: nothing to close
        (http_fault(403, delivery.MISSING_PERMISSIONS), "PermissionLost"),
        (http_fault(503, 0), "TimeoutError"),  # retried until the closing gives up
        (lambda: aiohttp.ClientConnectionError("connection reset"), "TimeoutError"),
    ],
    ids=["deleted", "no-permission", "5xx", "network"],
)
async def test_a_failed_closing_edit_does_not_stop_the_cancel(
    table: Harness,
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[], Exception],
    logged: str,
) -> None:
    """The closing edits come after the cancel is stored and are best effort: one that
    fails (or whose retries outlast the wait) is logged with its fault alone, never the
    text it was closing to; the host hears the game was cancelled and the channel is
    told all the same."""
    monkeypatch.setattr(delivery, "FIRST_BACKOFF_S", 0.01)
    monkeypatch.setattr(frontend_module, "CLOSE_STRANDED_S", 0.3)
    game_id, vote = await strand(table, monkeypatch)
    table.expect_warning("try 2 again")  # the retries of a 5xx or a network fault
    table.expect_warning("was not closed")
    tried = fail_edit(monkeypatch, vote, make())
    await host_cancels(table, game_id)
    assert tried and [m for m, _ in with_components(table)] == [vote]
    if logged:
        notes = [r.getMessage() for r in table.log.records if "was not closed" in r.getMessage()]
        assert notes == [f"game {game_id}: message {vote} was not closed ({logged})"], notes


async def test_a_book_that_does_not_read_does_not_stop_the_cancel(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The message book is read before the cancel (the end drops its rows); if that
    read fails, the game is cancelled all the same, its buttons left (logged)."""
    game_id, vote = await strand(table, monkeypatch)

    async def refused(store: Storage, game_id: int) -> object:
        raise StorageError("the database is locked")

    monkeypatch.setattr(Storage, "shown_messages", refused)
    table.expect_warning("message ids not read (StorageError)")
    cancelled = await table.members[0].slash(table.channel, "cancel")
    assert told(cancelled) == texts.GAME_CANCELLED
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert vote in [m for m, _ in with_components(table)]


async def test_a_cancel_beaten_by_another_cancel_says_the_game_was_cancelled(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's /cancel and a moderator's at once: the second found the game gone from
    the stranded ones and said "could not be cancelled now" (untrue: it was). It says
    the game was cancelled."""
    game_id, _ = await strand(table, monkeypatch)
    manager = table.bot.games.manager
    cancel_stranded = manager.cancel_stranded

    async def beaten(stranded: int) -> None:
        await cancel_stranded(stranded)  # the other /cancel, just before
        await cancel_stranded(stranded)

    monkeypatch.setattr(manager, "cancel_stranded", beaten)
    assert told(await table.members[0].slash(table.channel, "cancel")) == texts.GAME_CANCELLED
    assert (await table.storage.load_game(game_id)).status == "cancelled"


async def test_a_cancel_beaten_by_a_resume_says_the_game_goes_on(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A /resume lands just before the /cancel of a stranded game: the game runs again,
    and its players' vote decides a cancel now. The host hears so, not "could not be
    cancelled now (the database refused)"."""
    game_id, _ = await strand(table, monkeypatch)
    monkeypatch.undo()  # the game rebuilds again
    manager = table.bot.games.manager
    cancel_stranded = manager.cancel_stranded

    async def beaten(stranded: int) -> None:
        await manager.resume_paused(stranded)  # the /resume, just before
        await cancel_stranded(stranded)

    monkeypatch.setattr(manager, "cancel_stranded", beaten)
    reply = await table.members[0].slash(table.channel, "cancel")
    assert told(reply) == texts.CANCEL_RESUMED_MEANWHILE
    assert (await table.storage.load_game(game_id)).status == "running"
    assert table.bot.games.game_in(table.channel.id) == game_id
