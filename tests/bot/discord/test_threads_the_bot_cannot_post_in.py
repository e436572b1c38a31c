"""/newgame, /start and /demo in a thread where the bot cannot post, through discord.py's
real dispatch.

The lobby works anywhere (interaction followups need no permission of the bot), so such
a thread used to pass every check: the game's first message then failed and the game
paused at once, its members told the bot "lacks View Channel". Two such threads are
refused up front, privately and precisely:

- a locked thread, unless the bot has Manage Threads there (a moderator posts in a
  locked thread; Discord refuses anyone else: 160005);
- a private thread the bot was not added to, unless it has Manage Threads (a moderator
  sees every private thread). Whether the bot is in it is read from its cache (the
  gateway tells a bot the private threads it joins) or, failing that, asked of Discord
  (GET /channels/<thread>/thread-members/<bot>: 404 when it is not a member).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import discord
import pytest
import simcord
from simcord.backend.models.channel import Overwrite
from simcord.enums import ChannelType, OverwriteType

from bot.discord import games as games_module
from bot.discord import texts

from .driver import Driver
from .harness import Harness, labels, opened_lobby, told
from .lobby_desk import desk, lobby_table
from .network_faults import NetworkFaults
from .test_game_flow import FAST, open_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


def no_manage_threads(table: Harness) -> None:
    """The bot without Manage Threads in the channel (and so in its threads), as the
    invite link grants it (simcord's bot role has it)."""
    backend = table.env.backend
    flags = discord.Permissions(manage_threads=True).value
    backend.set_overwrite(
        table.channel.id,
        Overwrite(backend.bot_user.id, OverwriteType.MEMBER, allow=0, deny=flags),
    )


def thread(table: Harness, owner: simcord.MemberActor, *, private: bool) -> simcord.ChannelHandle:
    """A thread of the channel, started by `owner` (the bot not in it)."""
    kind = ChannelType.PRIVATE_THREAD if private else ChannelType.PUBLIC_THREAD
    made = table.env.backend.create_thread(table.channel.id, "game night", owner.id, type=kind)
    return next(h for h in table.channel.threads if h.id == made.id)


def lock(table: Harness, where: simcord.ChannelHandle, locked: bool = True) -> None:
    table.env.backend.edit_channel(where.id, {}, thread_metadata={"locked": locked})


async def test_a_locked_thread_is_refused_unless_the_bot_moderates_it(table: Harness) -> None:
    alice, bob = table.members[:2]
    no_manage_threads(table)
    room = thread(table, alice, private=False)
    opened = await alice.slash(room, "newgame")  # opened before the lock
    lobby = next(m for m in room.history() if m.id == opened_lobby(opened).id)
    await bob.click(lobby, label="Join")
    lock(table, room)

    refused = await alice.slash(room, "newgame")
    assert told(refused) == texts.THREAD_LOCKED
    by_button = await alice.click(lobby, label="Start")
    assert told(by_button) == texts.THREAD_LOCKED
    by_command = await alice.slash(room, "start")
    assert told(by_command) == texts.THREAD_LOCKED
    assert desk(table).launched == []
    assert await table.bot.lobbies.book.get(room.id) is not None  # the lobby waits

    lock(table, room, locked=False)
    started = await alice.click(lobby, label="Start")
    assert started.acknowledged and len(desk(table).launched) == 1


async def test_a_membership_read_lost_to_the_network_lets_the_lobby_try_to_post(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the bot is in a private thread is read from Discord when the cache cannot
    tell; if that read meets a network fault, the lobby is let in as after Discord's own
    error (its followup is the interaction's; a game that cannot post pauses and says
    why), never refused with the generic "something went wrong"."""
    alice = table.members[0]
    no_manage_threads(table)
    room = thread(table, alice, private=True)
    network = NetworkFaults(monkeypatch)
    network.fail("GET", "/channels/*/thread-members/*", aiohttp.ClientConnectionError("reset"))
    opened = await alice.slash(room, "newgame")
    assert network.raised
    assert told(opened) == texts.LOBBY_OPENED
    assert await table.bot.lobbies.book.get(room.id) is not None


async def test_a_locked_thread_is_fine_for_a_bot_with_manage_threads(table: Harness) -> None:
    alice = table.members[0]
    room = thread(table, alice, private=False)
    lock(table, room)
    opened = await alice.slash(room, "newgame")
    assert told(opened) == texts.LOBBY_OPENED


async def test_a_private_thread_without_the_bot_is_refused_until_it_is_added(
    table: Harness,
) -> None:
    alice = table.members[0]
    no_manage_threads(table)
    room = thread(table, alice, private=True)
    refused = await alice.slash(room, "newgame")
    assert told(refused) == texts.THREAD_ADD_BOT
    assert await table.bot.lobbies.book.get(room.id) is None
    assert not [m for m in room.history() if labels(m)]  # no lobby shown

    # Added (a member mentions it in the thread): the gateway tells the bot.
    table.env.backend.add_thread_member(room.id, table.env.backend.bot_user.id)
    opened = await alice.slash(room, "newgame")
    assert told(opened) == texts.LOBBY_OPENED


async def test_a_private_thread_the_cache_does_not_know_the_bot_in_is_asked_about(
    table: Harness,
) -> None:
    """The bot's membership is not in its cache (a thread it was added to while it was
    away, say): Discord is asked, and a member is never refused wrongly."""
    alice = table.members[0]
    no_manage_threads(table)
    room = thread(table, alice, private=True)
    table.env.backend.add_thread_member(room.id, table.env.backend.bot_user.id)
    cached = table.bot.get_channel(room.id)
    assert isinstance(cached, discord.Thread) and cached.me is not None
    cached.me = None  # forgotten
    opened = await alice.slash(room, "newgame")
    assert told(opened) == texts.LOBBY_OPENED
    asked = [e for e in table.env.http_requests if "/thread-members/" in e.path]
    assert len(asked) == 1 and asked[0].method == "GET"


async def test_a_private_thread_is_fine_for_a_bot_with_manage_threads(table: Harness) -> None:
    alice = table.members[0]
    room = thread(table, alice, private=True)
    opened = await alice.slash(room, "newgame")
    assert told(opened) == texts.LOBBY_OPENED


def _paused(table: Harness, game_id: int) -> bool:
    session = table.bot.games.manager.get(game_id)
    return session is None or session.paused


async def paused_in_private_thread(
    table: Harness,
) -> tuple[simcord.ChannelHandle, int, Driver]:
    """A game of alice and bob in alice's private thread, played until the bot, taken out
    of the thread mid-game, has paused it: (the thread, the game's id, the members' driver)."""
    alice, bob = table.members[:2]
    no_manage_threads(table)
    room = thread(table, alice, private=True)
    bot_id = table.env.backend.bot_user.id
    for member_id in (bob.id, bot_id):
        table.env.backend.add_thread_member(room.id, member_id)
    opened = await alice.slash(room, "newgame", players=5)
    lobby = next(m for m in room.history() if m.id == opened_lobby(opened).id)
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Start")
    game_id = table.bot.games.game_in(room.id)
    assert game_id is not None
    table.channel = room  # the members play where the game is
    driver = Driver(table, [alice, bob], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    table.expect_warning("not in the private thread")
    table.env.backend.remove_thread_member(room.id, bot_id)
    await driver.play(until=lambda: _paused(table, game_id))
    return room, game_id, driver


# --- with the real games: /demo, and a game that does post once the bot is added ----------


@pytest.fixture
async def game_table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def test_demo_is_refused_where_the_bot_cannot_post(
    game_table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = game_table
    alice = table.members[0]
    no_manage_threads(table)
    locked = thread(table, alice, private=False)
    lock(table, locked)
    assert told(await alice.slash(locked, "demo")) == texts.THREAD_LOCKED
    private = thread(table, alice, private=True)
    assert told(await alice.slash(private, "demo")) == texts.THREAD_ADD_BOT
    assert table.bot.games.game_in(private.id) is None
    # The demo runs on while we look: its AI waits 30 s before each move. Its narration
    # is not paced, or `cancel` would wait out the 30 s the outbox sleeps after each post.
    monkeypatch.setitem(games_module.DEMO_PACE, "slow", 30.0)
    monkeypatch.setattr(table.bot.games.frontend, "set_pace", lambda game_id, seconds: None)
    # A refusal is no demo: the channel's cooldown has not started.
    table.env.backend.add_thread_member(private.id, table.env.backend.bot_user.id)
    started = await alice.slash(private, "demo", players=5, speed="slow")
    assert told(started) == texts.DEMO_STARTING
    game_id = table.bot.games.game_in(private.id)
    assert game_id is not None
    await table.bot.games.manager.get(game_id).cancel("test")  # type: ignore[union-attr]


async def test_a_game_in_a_private_thread_the_bot_was_added_to_posts_there(
    game_table: Harness,
) -> None:
    table = game_table
    alice, bob = table.members[:2]
    no_manage_threads(table)
    room = thread(table, alice, private=True)
    table.env.backend.add_thread_member(room.id, bob.id)
    assert told(await alice.slash(room, "newgame", players=5)) == texts.THREAD_ADD_BOT
    table.env.backend.add_thread_member(room.id, table.env.backend.bot_user.id)
    opened = await alice.slash(room, "newgame", players=5)
    lobby = next(m for m in room.history() if m.id == opened_lobby(opened).id)
    await bob.click(lobby, label="Join")
    started = await alice.click(lobby, label="Start")
    assert started.acknowledged
    game_id = table.bot.games.game_in(room.id)
    assert game_id is not None
    # The game's own messages reach the thread; it is not paused for want of access.
    await table.until(lambda: len(room.history()) > 1, what="the game's first message")
    session = table.bot.games.manager.get(game_id)
    assert session is not None and not session.paused
    await session.cancel("test")


async def test_a_game_whose_bot_is_removed_from_its_private_thread_says_add_it_back(
    game_table: Harness,
) -> None:
    """The bot taken out of the private thread mid-game: Discord answers 50001 Missing
    Access, which used to read "the bot lacks View Channel" (an admin would look for a
    permission that is there); it names the thread and what brings the bot back."""
    table = game_table
    table.expect_warning("not shown for want of a permission")  # still paused at the end
    room, game_id, _ = await paused_in_private_thread(table)
    game = await table.storage.load_game(game_id)
    assert game.status == "paused"
    assert game.pause_reason == texts.THREAD_BOT_REMOVED.format(where=f"<#{room.id}>")
