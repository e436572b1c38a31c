"""Faults a real server produces (issue 18), provoked through discord.py's real dispatch:
closed DMs, commands from a DM, errors after a public defer, forged cancel votes."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.discord import texts
from bot.discord.components import ComponentId
from bot.discord.frontend import DiscordFrontend
from bot.manager import SessionManager
from bot.ports import Private, Table

from .driver import Driver, components
from .harness import Harness, forge_click, public_followup, text, told
from .test_damaged_rows import damage
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
    create = SessionManager.create

    async def seeded(self: SessionManager, *args: Any, **kwargs: Any) -> Any:
        # A fixed deal: one in which bob is told several secrets (an unseeded game may
        # end before he holds a hand, and then nothing would show his DMs are skipped).
        kwargs["seed"] = 11
        return await create(self, *args, **kwargs)

    monkeypatch.setattr(SessionManager, "create", seeded)
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
    secrets = [m for m in alice.user.dm_channel.history() if "passed you two" not in m.content]
    assert len(secrets) == told_seats.count(0)
    # bob still reads his secrets through the buttons, and the game ended normally.
    # The finished game's messages show no buttons any more; a client that still shows
    # one (a stale view) clicks it.
    role = str(ComponentId(str(game_id), "role"))
    over = await forge_click(table, bob, table.channel_messages()[0], role)
    assert over.response is not None and over.response.content == texts.GAME_OVER
    # A forged game id too large for the database is a game that is not running.
    huge = str(ComponentId(str(10**20), "role"))
    forged = await forge_click(table, bob, table.channel_messages()[0], huge)
    assert told(forged) == texts.GAME_NOT_RUNNING
    assert (await table.storage.load_game(game_id)).status == "finished"


async def test_cancel_votes_count_only_on_the_buttons_of_the_open_request(table: Harness) -> None:
    alice, bob, carol = table.members[:3]
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = table.guild.add_member(table.env.create_user("moderator"), roles=[mods])
    game_id = await start_game(table, [alice, bob, carol], players=5)
    driver = Driver(table, [alice, bob, carol], seed=2)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    opening = next(m for m in table.channel_messages() if "Show my role" in str(components(m)))

    async def still_running() -> None:
        assert (await table.storage.load_game(game_id)).status == "running"
        assert table.bot.games.game_in(table.channel.id) == game_id

    # No /cancel yet: a forged "End the game" (with or without a request id) counts nothing.
    for cid in (ComponentId(str(game_id), "cancel"), ComponentId(str(game_id), "cancel", "ab")):
        for member in (bob, carol):
            forged = await forge_click(table, member, opening, str(cid))
            assert told(forged) == texts.CANCEL_NOT_ASKED
    await still_running()

    # A second /cancel replaces the first: the first request's buttons no longer count.
    # The request is posted (publicly) after the asker's private acknowledgement.
    first = public_followup(await mod.slash(table.channel, "cancel"))
    second = public_followup(await mod.slash(table.channel, "cancel"))
    stale = await bob.click(first, label="End the game")
    assert told(stale) == texts.CANCEL_STALE
    agreed = await bob.click(second, label="End the game")
    assert told(agreed) == "You agreed to end the game (1/2)."
    forged = await forge_click(table, carol, opening, str(ComponentId(str(game_id), "cancel")))
    assert told(forged) == texts.CANCEL_STALE  # a button bound to no request
    await still_running()

    # The open request is stored with the game: after a restart the replaced request's
    # buttons still count nothing, and the open one's still count.
    await table.restart()
    stale = await carol.click(first, label="End the game")
    assert told(stale) == texts.CANCEL_STALE
    await still_running()
    await carol.click(second, label="End the game")
    assert (await table.storage.load_game(game_id)).status == "cancelled"


def request_id(message: simcord.ResponseMessage) -> str:
    """The request a /cancel message's End the game button is bound to."""
    [custom_id] = [c["custom_id"] for c in components(message) if c.get("custom_id")]
    cid = ComponentId.parse(custom_id)
    assert cid is not None and cid.action == "cancel" and cid.arg
    return cid.arg


async def test_an_open_cancel_request_survives_a_restart(table: Harness) -> None:
    """A /cancel vote was held in memory only: after a restart its buttons answered that
    nobody had asked. Now the request, its asker and each agreement are stored with the
    game: the old buttons count on, an agreement counts once, the last one needed ends
    the game, and nothing of the vote is left stored."""
    alice, bob, carol, dave = table.members[:4]
    game_id = await start_game(table, [alice, bob, carol, dave], players=5)
    driver = Driver(table, [alice, bob, carol, dave], seed=2)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    asked = await alice.slash(table.channel, "cancel")  # the host: 1 of the 3 needed
    request = public_followup(asked)
    assert "(1/3 so far)" in request.content
    asked_id = request_id(request)
    agreed = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert told(agreed) == texts.CANCEL_AGREED.format(count=2, needed=3)

    await table.restart()
    assert table.bot.games.manager.get(game_id) is not None
    for member in (alice, bob):  # the asker and an agreement: both counted already
        again = await member.click(request, label=texts.BUTTON_END_GAME)
        assert told(again) == texts.CANCEL_ALREADY.format(count=2, needed=3)
    assert (await table.storage.load_game(game_id)).status == "running"
    await carol.click(request, label=texts.BUTTON_END_GAME)  # the third of three
    stored = await table.storage.load_game(game_id)
    assert stored.status == "cancelled"
    ended = table.message(request.message.id)
    assert text(ended) == texts.GAME_CANCELLED and not components(ended)
    assert asked_id not in json.dumps(stored.session_state)  # the vote is over


async def test_a_cancel_request_open_when_the_game_ends_is_cleared(table: Harness) -> None:
    """The game ends by the rules while a /cancel vote is open: the stored vote goes with
    it, and its button says the game is over."""
    alice, bob, carol = table.members[:3]
    game_id = await start_game(table, [alice, bob, carol], players=5)
    driver = Driver(table, [alice, bob, carol], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = table.guild.add_member(table.env.create_user("moderator"), roles=[mods])
    request = public_followup(await mod.slash(table.channel, "cancel"))  # 0 of the 2 needed
    asked = request_id(request)
    stored = await table.storage.load_game(game_id)
    assert asked in json.dumps(stored.session_state)  # stored while it is open
    await driver.play(until=lambda: reveal_posted(table))
    stored = await table.storage.load_game(game_id)
    assert stored.status == "finished"
    assert asked not in json.dumps(stored.session_state)
    late = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert told(late) == texts.GAME_OVER


# A stored vote damaged four ways; the damage holds a marker that no log line may quote.
DAMAGED_VOTES = {
    "notes": "'$.notes', 'FFL marker'",
    "vote": "'$.notes.cancel', 'FFL marker'",
    "votes": "'$.notes.cancel.votes', json('[\"FFL marker\"]')",
    "request": "'$.notes.cancel.request', json('[\"FFL marker\"]')",
}


@pytest.mark.parametrize("where", list(DAMAGED_VOTES))
async def test_a_damaged_stored_cancel_request_reads_as_none_and_the_game_resumes(
    table: Harness, where: str
) -> None:
    """A stored /cancel vote that does not read never stops its game from resuming: it
    reads as no request open (a warning names the game, never the stored value), the
    old buttons count nothing, and a fresh /cancel works."""
    alice, bob, carol = table.members[:3]
    game_id = await start_game(table, [alice, bob, carol], players=5)
    driver = Driver(table, [alice, bob, carol], seed=2)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    request = public_followup(await alice.slash(table.channel, "cancel"))  # 1 of the 2 needed
    assert request_id(request) in json.dumps((await table.storage.load_game(game_id)).session_state)
    # Damaged once the games are stopped, as the next start reads it (a running game
    # writes its bookkeeping again whenever it changes).
    await table.bot.games.manager.shutdown()
    await damage(
        table,
        f"UPDATE games SET session_state = json_set(session_state, {DAMAGED_VOTES[where]})"
        " WHERE id = ?",
        game_id,
    )
    table.expect_warning("do not read")
    table.expect_warning("does not read")

    await table.restart()
    assert table.bot.games.manager.get(game_id) is not None  # resumed, not stranded
    late = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert told(late) == texts.CANCEL_NOT_ASKED
    assert (await table.storage.load_game(game_id)).status == "running"
    warnings = [
        r.getMessage()
        for r in table.log.records
        if r.levelno == logging.WARNING and f"game {game_id}" in r.getMessage()
    ]
    assert any("read" in line for line in warnings), warnings
    assert all("FFL" not in line for line in warnings), warnings
    # A fresh request still ends the game once a majority agrees.
    fresh = public_followup(await alice.slash(table.channel, "cancel"))
    await bob.click(fresh, label=texts.BUTTON_END_GAME)
    assert (await table.storage.load_game(game_id)).status == "cancelled"


async def test_guild_only_commands_from_a_dm_get_a_clear_answer(table: Harness) -> None:
    alice = table.members[0]
    guild_only = sorted(c.name for c in table.bot.tree.get_commands() if c.guild_only)
    assert {"newgame", "cancel", "status", "stats", "settings"} <= set(guild_only)
    # A client with stale command metadata: Discord still lists them in DMs (as an older
    # version of the bot registered them), so they reach the bot without a guild.
    for (name, _), command in table.env.backend.commands[None].items():
        if name in guild_only:
            command["contexts"] = [0, 1, 2]
            command["dm_permission"] = True
    dm = alice.user.dm_channel
    required = {"ask": {"seat": 2}, "replay": {"game": 1}}  # options a command needs
    for name in guild_only:
        result = await alice.user.slash(name, **required.get(name, {}))
        assert result.ephemeral, name
        assert told(result) == texts.GUILD_ONLY, name
    # Nothing was opened or stored for the DM channel, and nothing said in it.
    assert await table.storage.get_channel_settings(dm.id) == {}
    assert table.bot.games.game_in(dm.id) is None
    assert not dm.history()
    # A command meant for anywhere still works from a DM.
    rules = await alice.user.slash("rules")
    assert rules.ephemeral and rules.response is not None and rules.response.embeds


@pytest.mark.parametrize(
    ("command", "read"),
    [
        ("history", "recent_games"),
        ("stats", "player_stats"),
        ("leaderboard", "rating_ladder"),
        ("profile", "player_rating"),
    ],
)
async def test_an_error_after_a_public_command_is_told_to_the_member_alone(
    table: Harness, monkeypatch: pytest.MonkeyPatch, command: str, read: str
) -> None:
    alice = table.members[0]
    table.expect_error(f"command {command} failed")  # logged, and answered
    table.expect_error("the disk is gone")

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(table.storage, read, broken)
    before = len(table.channel_messages())
    result = await alice.slash(table.channel, command)
    assert told(result) == texts.SOMETHING_WRONG
    assert all(f.ephemeral for f in result.followups)
    assert result.response is None or result.response.ephemeral
    # Nothing in the channel: not the error, not a dangling "thinking..." message.
    assert len(table.channel_messages()) == before
    assert all(texts.SOMETHING_WRONG not in text(m) for m in table.channel_messages())


async def test_an_error_cancelling_a_game_is_told_to_the_host_alone(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = table.members[0]
    table.expect_error("command cancel failed")  # logged, and answered
    table.expect_error("the disk is gone")
    game_id = await start_game(table, [alice], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None

    async def broken(reason: str) -> None:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(session, "cancel", broken)
    before = len(table.channel_messages())
    result = await alice.slash(table.channel, "cancel")  # the host alone: no vote needed
    assert told(result) == texts.SOMETHING_WRONG
    assert result.response is None or result.response.ephemeral
    assert all(f.ephemeral for f in result.followups)
    assert all(texts.SOMETHING_WRONG not in text(m) for m in table.channel_messages()[before:])
    assert (await table.storage.load_game(game_id)).status == "running"


async def test_a_failed_click_is_logged_without_the_option_picked_or_the_errors_words(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The option of a hand prompt is the policy a player discarded, and an error's
    message may quote a hand: neither may reach the ERROR line (nor any INFO+ line)
    while the game runs. The member is told something went wrong."""
    alice = table.members[0]
    table.expect_error("a click on ")  # logged (its kind, the error's type), and answered
    game_id = await start_game(table, [alice], players=5)

    async def broken(interaction: discord.Interaction, cid: ComponentId) -> None:
        raise RuntimeError("seat 0 holds F F L and discards L")

    monkeypatch.setattr(table.bot.games, "on_click", broken)
    message = table.channel_messages()[-1]
    result = await forge_click(table, alice, message, f"sh:v1:{game_id}:h3:1")
    assert told(result) == texts.SOMETHING_WRONG
    logged = [r for r in table.log.records if r.levelno >= logging.INFO]
    assert logged
    for record in logged:
        line = record.getMessage()
        assert "F F L" not in line and "h3:1" not in line, line
        assert record.exc_info is None or record.levelno < logging.INFO
