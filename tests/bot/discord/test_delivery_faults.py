"""A real server changes under a running game (issue 18, items 1, 2, 3, 5): permissions
lost and given back, a channel deleted, the bot removed, Discord failing requests, a
restart in the middle of a vote. Provoked through discord.py's real dispatch (simcord);
each test asserts what the members see and what is stored."""

from __future__ import annotations

import asyncio
import types
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
import simcord
from simcord.backend.models.channel import Overwrite
from simcord.enums import OverwriteType

from bot.discord import delivery, texts
from bot.narrate import narrate
from bot.ports import PermissionLost, PlaceLost

from .driver import Driver, components, text_of
from .harness import Harness, forge_click, text, told
from .test_game_flow import FAST, open_table, reveal_posted, start_game, stored


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry failed requests after a hundredth of a second, not a second."""
    monkeypatch.setattr(delivery, "FIRST_BACKOFF_S", 0.01)


def deny(table: Harness, **permissions: bool) -> None:
    """Take permissions from the bot in the game's channel (a channel overwrite)."""
    flags = discord.Permissions(**permissions).value
    bot_id = table.env.backend.bot_user.id
    table.env.backend.set_overwrite(
        table.channel.id, Overwrite(bot_id, OverwriteType.MEMBER, allow=0, deny=flags)
    )


def allow_again(table: Harness) -> None:
    table.env.backend.delete_overwrite(table.channel.id, table.env.backend.bot_user.id)


def posted(table: Harness) -> list[simcord.HttpLogEntry]:
    """The bot's requests to post in the game's channel."""
    path = f"/channels/{table.channel.id}/messages"
    return [e for e in table.env.http_requests if e.method == "POST" and e.path == path]


def missing_narration(table: Harness, game: object) -> list[str]:
    """Public narration of the stored game that the channel never showed."""
    replayed = game.record.replay()  # type: ignore[attr-defined]
    labels = [f"{s.name} (seat {s.seat})" for s in game.seats]  # type: ignore[attr-defined]
    shown = "\n".join(text_of(m) for m in table.channel_messages())
    lines = [narrate(e, labels) for e in replayed.events if e.audience is None]
    return [line for line in lines if line and line not in shown]


async def test_newgame_and_start_name_the_missing_permissions(table: Harness) -> None:
    alice, bob = table.members[:2]
    deny(table, send_messages=True, attach_files=True)
    result = await alice.slash(table.channel, "newgame")
    assert told(result) == texts.MISSING_HERE.format(names="Send Messages, Attach Files")
    assert not table.channel_messages()  # no lobby, no game stored
    assert not await table.storage.recent_games()
    demo = await alice.slash(table.channel, "demo")
    assert told(demo) == texts.MISSING_HERE.format(names="Send Messages, Attach Files")

    allow_again(table)
    await alice.slash(table.channel, "newgame")
    lobby = table.channel.last_message
    assert lobby is not None
    await bob.click(lobby, label="Join")
    deny(table, embed_links=True)  # lost while the lobby was open
    started = await alice.click(lobby, label="Start")
    assert told(started) == texts.MISSING_HERE.format(names="Embed Links")
    assert table.bot.games.game_in(table.channel.id) is None


async def test_a_lost_send_permission_pauses_the_game_until_it_is_back(table: Harness) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("lacks Send Messages")
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    deny(table, send_messages=True)
    posts_before = len(posted(table))
    # The members play on: their clicks are answered (no Send Messages needed), and the
    # first message the game must post cannot be: the game pauses.
    await driver.play(until=lambda: _paused(table, game_id))
    game = await stored(table, game_id)
    assert game.status == "paused"
    assert game.pause_reason == f"The bot lacks Send Messages in <#{table.channel.id}>."
    # Nothing was tried in the channel (no 403 spent); the members were told by DM.
    assert len(posted(table)) == posts_before
    for human in (alice, bob):
        dms = [m.content for m in human.user.dm_channel.history()]
        assert any(f"Game #{game_id} is paused" in d for d in dms), dms
    # A click while paused is refused with the reason: on a prompt still standing, if
    # the pause came with one open, else on the button of an earlier decision.
    if pending := driver.pending():
        reply = await driver.act(*pending[0])
    else:
        old = table.channel_messages()[-1]
        reply = told(await forge_click(table, bob, old, f"sh:v1:{game_id}:a0:0"))
    assert reply.startswith("This game is paused: The bot lacks Send Messages"), reply

    allow_again(table)  # the channel update nudges the game: it goes on by itself
    await table.until(lambda: not _paused(table, game_id), what="the game resumed")
    await driver.play(until=lambda: reveal_posted(table))
    game = await stored(table, game_id)
    assert game.status == "finished"
    assert missing_narration(table, game) == []  # what was held back was shown after


@pytest.mark.parametrize(
    ("status", "code", "cause"),
    [(403, 160005, "is locked"), (403, 0, "refused the bot")],
)
async def test_a_refusal_of_the_game_s_place_pauses_it_and_loses_nothing(
    table: Harness, status: int, code: int, cause: str
) -> None:
    """A 403 that is not a missing permission (a locked thread, or a refusal Discord
    names otherwise) pauses the game like a missing permission: the message is kept and
    tried again, never dropped. (An archived thread the bot reopens itself; that, and
    threads locked mid-game, is `test_thread_locked`.)"""
    alice, bob = table.members[:2]
    table.expect_warning(cause)
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    path = f"/channels/{table.channel.id}/messages"
    table.env.inject_error("POST", path, status=status, code=code, message="No", times=None)
    await driver.play(until=lambda: _paused(table, game_id))
    game = await stored(table, game_id)
    assert game.status == "paused" and cause in (game.pause_reason or ""), game.pause_reason
    assert f"<#{table.channel.id}>" in (game.pause_reason or "")

    table.env.backend.faults.clear()  # a moderator unlocks the thread: Discord says so
    await table.bot.on_thread_update(table.channel, table.channel)  # type: ignore[arg-type]
    await table.until(lambda: not _paused(table, game_id), what="the game resumed")
    await driver.play(until=lambda: reveal_posted(table))
    game = await stored(table, game_id)
    assert game.status == "finished"
    assert missing_narration(table, game) == []  # what was held back was shown after


def _paused(table: Harness, game_id: int) -> bool:
    session = table.bot.games.manager.get(game_id)
    return session is None or session.paused


async def test_without_attach_files_the_text_goes_alone(table: Harness) -> None:
    deny(table, attach_files=True, embed_links=True)
    alice, bob = table.members[:2]
    # Opened with the permissions, which are lost as the game starts.
    allow_again(table)
    await alice.slash(table.channel, "newgame")
    lobby = table.channel.last_message
    assert lobby is not None
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Start")
    game_id = table.bot.games.game_in(table.channel.id)
    assert game_id is not None
    deny(table, attach_files=True, embed_links=True)
    await Driver(table, [alice, bob], seed=2).play(until=lambda: reveal_posted(table))
    game = await stored(table, game_id)
    assert game.status == "finished"
    late = [m for m in table.channel_messages() if m.id > lobby.id]
    texts_seen = [text_of(m) for m in late]
    assert sum(texts.NO_PERMISSION_NOTE.split("**")[0] in t for t in texts_seen) == 2
    assert any("The reveal" in t for t in texts_seen)  # the reveal as plain text
    assert missing_narration(table, game) == []


async def test_a_deleted_channel_abandons_its_game(table: Harness) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("abandoned: " + texts.CHANNEL_DELETED)
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    assert await table.storage.shown_messages(game_id)  # its call's message is filed
    table.env.backend.delete_channel(table.channel.id)
    await table.until(lambda: table.bot.games.manager.get(game_id) is None, what="abandoned")
    game = await stored(table, game_id)
    assert game.status == "abandoned" and game.pause_reason == texts.CHANNEL_DELETED
    # Its messages' rows went with it (no reveal or final post drops them).
    assert await table.storage.shown_messages(game_id) == {}
    # Never resumed after a restart, never counted.
    await table.restart()
    assert table.bot.games.manager.get(game_id) is None
    assert (await table.storage.player_stats(alice.id)).games == 0


async def test_a_server_that_removed_the_bot_abandons_its_games(table: Harness) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("abandoned: " + texts.SERVER_LEFT)
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    table.env.backend.remove_guild(table.guild.id)
    await table.until(lambda: table.bot.games.manager.get(game_id) is None, what="abandoned")
    game = await stored(table, game_id)
    assert game.status == "abandoned" and game.pause_reason == texts.SERVER_LEFT
    actions = len(game.record.actions)
    await asyncio.sleep(0.3)
    assert len((await stored(table, game_id)).record.actions) == actions  # its AI stopped


async def test_failed_requests_are_retried_and_nothing_is_lost(table: Harness) -> None:
    table.expect_warning("failed (Discord error")
    table.expect_warning("failed (rate limited)")
    alice, bob = table.members[:2]
    for status in (500, 502, 503):
        table.env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=status)
    table.env.inject_error("*", f"/channels/{table.channel.id}/messages/*", status=504, times=3)
    table.env.inject_error(
        "POST", f"/channels/{table.channel.id}/messages", status=429, message="rate limited"
    )
    game_id = await start_game(table, [alice, bob], players=5)
    table.env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=500, times=4)
    await Driver(table, [alice, bob], seed=9).play(until=lambda: reveal_posted(table))
    game = await stored(table, game_id)
    assert game.status == "finished"
    assert missing_narration(table, game) == []
    assert not table.env.backend.faults  # every injected failure was met, and retried


async def test_a_restart_mid_vote_edits_the_same_vote_message_and_pings_nobody(
    table: Harness,
) -> None:
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=4)

    def open_votes() -> list[discord.Message]:
        return [
            m
            for m in table.channel_messages()
            if any(c.get("label") == "Ja" for c in components(m))
        ]

    while not open_votes():  # play until an election waits for the members' ballots
        pending = driver.pending()
        if pending:
            await driver.act(*pending[0])
        else:
            await asyncio.sleep(0.01)
    [vote] = open_votes()
    pinged_before = table.pinged(vote)
    assert pinged_before  # the members were asked, once
    count = len(table.channel_messages())

    await table.restart()
    await table.until(
        lambda: any("The bot restarted" in text(m) for m in table.channel_messages()),
        what="the resumed game's notice",
    )
    await asyncio.sleep(0.2)
    assert [m.id for m in open_votes()] == [vote.id]  # the same message, bound again
    new = table.channel_messages()[count:]
    assert all(not table.pinged(m) for m in new), [text(m) for m in new]
    # Its buttons work, and the game plays on to the end.
    await driver.play(until=lambda: reveal_posted(table))
    assert (await stored(table, game_id)).status == "finished"


async def test_missing_access_before_the_guilds_are_known_pauses_rather_than_abandons(
    table: Harness,
) -> None:
    """Paused games resume before discord.py has received its guilds (setup_hook runs
    before the gateway connects): a 403 Missing Access then cannot mean "the bot left
    the server", so the game pauses and is probed again; once the client is ready and the
    guild is not there, it is gone."""
    missing_access = discord.Forbidden(
        types.SimpleNamespace(status=403, reason="Forbidden"),
        {"code": delivery.MISSING_ACCESS, "message": "Missing Access"},
    )
    starting = discord.Client(intents=discord.Intents.none())  # not connected: no guilds yet
    try:
        assert not starting.is_ready() and starting.get_guild(table.guild.id) is None
        early = delivery.translate_for(starting, 1, table.guild.id, 7)(missing_access)
        assert isinstance(early, PermissionLost) and "<#7>" in str(early)
    finally:
        await starting.close()
    ready = table.bot  # connected, its guilds known
    assert ready.is_ready() and ready.get_guild(table.guild.id) is not None
    assert isinstance(
        delivery.translate_for(ready, 1, table.guild.id, 7)(missing_access), PermissionLost
    )
    gone = table.guild.id + 1  # a server the ready bot is not in
    assert isinstance(delivery.translate_for(ready, 1, gone, 7)(missing_access), PlaceLost)
