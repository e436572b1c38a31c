"""The lobby through discord.py's real dispatch: commands, buttons, refusals, restarts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.discord import texts

from .harness import Harness, embed_text, labels, opened_lobby, told
from .lobby_desk import lobby_message, lobby_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


async def test_newgame_posts_a_lobby_with_its_four_buttons(table: Harness) -> None:
    alice = table.members[0]
    result = await alice.slash(table.channel, "newgame")
    assert result.acknowledged and told(result) == texts.LOBBY_OPENED  # the host's note
    lobby_message = table.channel.last_message
    assert lobby_message is not None and lobby_message.id == opened_lobby(result).id
    assert labels(lobby_message) == ["Join", "Leave", "Add AI", "Start"]
    assert alice.mention in embed_text(lobby_message)
    assert "(host)" in embed_text(lobby_message)


async def test_clicks_by_other_members_join_and_the_eleventh_hears_the_lobby_is_full(
    table: Harness,
) -> None:
    alice, *others = table.members
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    for member in others[:9]:
        result = await member.click(message, label="Join")
        # The click edits the lobby message in its own response: nothing ephemeral.
        assert result.acknowledged and result.response is not None
        assert not result.ephemeral
    text = embed_text(table.message(message.id))
    assert "Seats (10/10)" in text
    assert all(m.mention in text for m in table.members[:10])

    late = await others[9].click(message, label="Join")
    assert told(late) == "The lobby is full (10 players)."
    again = await others[0].click(message, label="Join")
    assert told(again) == texts.ALREADY_IN_LOBBY
    assert others[9].mention not in embed_text(table.message(message.id))


async def test_leave_addbot_and_kick_commands(table: Harness) -> None:
    alice, bob, carol = table.members[:3]
    await alice.slash(table.channel, "newgame", fill=False)
    message = lobby_message(table)
    await bob.slash(table.channel, "join")
    await carol.click(message, label="Join")

    left = await bob.slash(table.channel, "leave")
    assert left.ephemeral and left.response is not None
    assert left.response.content == texts.LEFT
    assert bob.mention not in embed_text(table.message(message.id))
    not_in = await bob.slash(table.channel, "leave")
    assert not_in.response is not None and not_in.response.content == texts.NOT_IN_LOBBY

    refused = await carol.slash(table.channel, "addbot")
    assert refused.ephemeral and refused.response is not None
    assert refused.response.content == f"Only the host, {alice.mention}, can add AI players."
    added = await alice.slash(table.channel, "addbot")
    assert added.ephemeral and added.response is not None
    assert added.response.content == "An AI player (strong) takes seat 3."  # the default
    clicked = await alice.click(message, label="Add AI")
    assert not clicked.ephemeral
    text = embed_text(table.message(message.id))
    assert text.count("AI player · strong") == 2
    assert "Seats (4/10)" in text
    strong = await alice.slash(table.channel, "addbot", strength="strong")
    assert strong.response is not None
    assert strong.response.content == "An AI player (strong) takes seat 5."
    assert "` 5` AI player · strong" in embed_text(table.message(message.id))
    kicked_strong = await alice.slash(table.channel, "kick", seat=5)
    assert kicked_strong.response is not None

    not_host = await carol.slash(table.channel, "kick", seat=3)
    assert not_host.response is not None
    assert not_host.response.content == f"Only the host, {alice.mention}, can remove players."
    kicked_ai = await alice.slash(table.channel, "kick", seat=3)
    assert kicked_ai.response is not None
    assert kicked_ai.response.content == "Seat 3 (AI player) was removed from the table."
    kicked = await alice.slash(table.channel, "kick", player=carol)
    assert kicked.response is not None
    assert kicked.response.content == f"Seat 2 ({carol.mention}) was removed from the table."
    self_kick = await alice.slash(table.channel, "kick", seat=1)
    assert self_kick.response is not None and self_kick.response.content == texts.CANNOT_KICK_SELF
    nobody = await alice.slash(table.channel, "kick", seat=9)
    assert nobody.response is not None
    assert nobody.response.content == "There is no seat 9: the table has 2 seat(s)."
    text = embed_text(table.message(message.id))
    assert carol.mention not in text and text.count("AI player") == 1
    assert "Seats (2/10)" in text


async def test_start_is_for_the_host_and_needs_five_seats(table: Harness) -> None:
    alice, bob, carol, dave = table.members[:4]
    await alice.slash(table.channel, "newgame", fill=False)
    message = lobby_message(table)
    for member in (bob, carol, dave):
        await member.click(message, label="Join")

    by_command = await bob.slash(table.channel, "start")
    assert by_command.ephemeral and by_command.response is not None
    assert by_command.response.content == f"Only the host, {alice.mention}, can start the game."
    by_button = await carol.click(message, label="Start")
    assert told(by_button) == f"Only the host, {alice.mention}, can start the game."

    too_few = await alice.click(message, label="Start")
    assert told(too_few).startswith("4 seat(s) taken: a game needs at least 5.")
    assert table.desk.launched == []  # type: ignore[attr-defined]

    await alice.click(message, label="Add AI")
    started = await alice.click(message, label="Start")
    assert started.acknowledged and not started.ephemeral
    _, seats = table.desk.launched[0]  # type: ignore[attr-defined]
    assert [s.user_id for s in seats] == [m.id for m in (alice, bob, carol, dave)] + [None]
    closed = table.message(message.id)
    assert labels(closed) == []  # no buttons on a started lobby
    assert texts.LOBBY_STARTED in embed_text(closed)


async def test_host_start_fills_empty_seats_with_ai(table: Harness) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame", players=7, ai="easy")
    await bob.slash(table.channel, "join")
    started = await alice.slash(table.channel, "start")
    assert started.ephemeral  # the command's answer; the lobby message shows the start
    launched, seats = table.desk.launched[0]  # type: ignore[attr-defined]
    assert len(seats) == 7
    assert [s.user_id for s in seats] == [alice.id, bob.id] + [None] * 5
    assert launched.options.strength == "easy"


async def test_one_lobby_per_channel_and_cancel_rights(table: Harness) -> None:
    alice, bob = table.members[:2]
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = table.guild.add_member(table.env.create_user("moderator"), roles=[mods])
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    second = await bob.slash(table.channel, "newgame")
    assert second.ephemeral and second.response is not None
    assert second.response.content.startswith("There is already an open lobby in this channel:")
    assert str(message.id) in second.response.content

    status = await bob.slash(table.channel, "status")
    assert status.ephemeral and status.response is not None
    assert alice.mention in embed_text(status.response)

    refused = await bob.slash(table.channel, "cancel")
    assert refused.ephemeral and refused.response is not None
    assert refused.response.content == f"Only the host, {alice.mention}, can cancel the lobby."
    cancelled = await mod.slash(table.channel, "cancel")
    assert told(cancelled) == texts.LOBBY_CANCEL_DONE
    public = [f.content for f in cancelled.followups if not f.ephemeral]
    assert public == [texts.LOBBY_CANCELLED.format(by=mod.mention)]
    assert labels(table.message(message.id)) == []
    fresh = await bob.slash(table.channel, "newgame")
    assert labels(opened_lobby(fresh))  # the channel is free again: a public lobby


async def test_the_last_member_leaving_closes_the_lobby(table: Harness) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    await bob.click(message, label="Join")
    await alice.click(message, label="Leave")  # the host leaves: bob hosts now
    assert "(host)" in embed_text(table.message(message.id))
    refused = await alice.slash(table.channel, "start")
    assert refused.response is not None
    assert refused.response.content == f"Only the host, {bob.mention}, can start the game."
    await bob.click(message, label="Leave")
    assert labels(table.message(message.id)) == []
    assert texts.LOBBY_EMPTY_CLOSED in embed_text(table.message(message.id))
    gone = await bob.slash(table.channel, "join")
    assert gone.response is not None and gone.response.content == texts.NO_LOBBY_HERE


async def test_a_lobby_survives_a_restart_and_its_old_buttons_still_work(table: Harness) -> None:
    alice, bob, carol = table.members[:3]
    await alice.slash(table.channel, "newgame", players=5)
    message = lobby_message(table)
    await bob.click(message, label="Join")

    old_bot = table.bot
    new_bot = await table.restart()
    assert new_bot is not old_bot and table.bot is new_bot

    joined = await carol.click(message, label="Join")  # a button sent by the old process
    assert joined.acknowledged and not joined.ephemeral
    text = embed_text(table.message(message.id))
    assert all(m.mention in text for m in (alice, bob, carol))
    refused = await bob.click(message, label="Start")
    assert told(refused) == f"Only the host, {alice.mention}, can start the game."
    await alice.click(message, label="Start")
    _, seats = table.desk.launched[0]  # type: ignore[attr-defined]
    assert [s.user_id for s in seats[:3]] == [alice.id, bob.id, carol.id]
    assert len(seats) == 5


async def test_stale_lobby_buttons_get_a_precise_answer(table: Harness) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    # The edit that would remove the buttons fails (Discord hiccup): the lobby is
    # cancelled anyway, and its buttons stay on screen.
    table.env.inject_error("PATCH", "/channels/*/messages/*", status=500, times=1)
    table.expect_warning("cannot edit its message")
    await alice.slash(table.channel, "cancel")
    assert "Join" in labels(table.message(message.id))
    stale = await bob.click(message, label="Join")
    assert told(stale) == texts.STALE_LOBBY
    # A new lobby in the same channel does not revive the old buttons.
    await bob.slash(table.channel, "newgame")
    still_stale = await alice.click(message, label="Join")
    assert told(still_stale) == texts.STALE_LOBBY


async def test_unknown_custom_ids_get_a_precise_answer(table: Harness) -> None:
    alice = table.members[0]
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    # Components as an older release (or another bot) might have left them.
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Old", custom_id="sh:v0:12:vote:ja"))
    view.add_item(discord.ui.Button(label="Foreign", custom_id="something-else"))
    view.add_item(discord.ui.Button(label="Unrouted", custom_id="sh:v1:X9:join"))
    old = await channel.send("an old prompt", view=view)
    for label in ("Old", "Foreign", "Unrouted"):
        result = await alice.click(old, label=label)
        assert result.ephemeral and result.response is not None, label
        assert result.response.content == texts.UNKNOWN_COMPONENT, label


async def test_a_lobby_never_starts_a_second_game_in_its_channel(table: Harness) -> None:
    alice = table.members[0]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    table.desk.channels[table.channel.id] = 41  # type: ignore[attr-defined]
    refused = await alice.click(message, label="Start")
    assert told(refused) == texts.GAME_ALREADY_HERE
    assert table.desk.launched == []  # type: ignore[attr-defined]
    gone = await alice.click(message, label="Join")
    assert told(gone) == texts.STALE_LOBBY
