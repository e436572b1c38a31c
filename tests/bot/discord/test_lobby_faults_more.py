"""More lobby faults, through discord.py's real dispatch: a damaged lobby row or damaged
server settings in the database, a forged lobby button on another bot message, and a
lobby message that cannot be posted."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.config import Config
from bot.discord import texts
from bot.discord.components import ComponentId
from bot.discord.lobby import (
    ChannelSettingsLobbyStore,
    Lobby,
    LobbyBook,
    LobbyOptions,
    LobbySeat,
    MemoryLobbyStore,
    default_options,
)
from bot.discord.lobby_message import ADD_AI, JOIN, LEAVE, START
from bot.storage import SeatRecord, Storage, StorageError
from engine import STANDARD

from .harness import Harness, embed_text, forge_click, labels, opened_lobby, told
from .lobby_desk import desk, lobby_message, lobby_table


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with lobby_table(tmp_path) as h:
        yield h


def warnings_of(table: Harness) -> list[str]:
    """The warnings (and errors) the bot logged so far."""
    return [r.getMessage() for r in table.log.records if r.levelno >= logging.WARNING]


def lobby_message_of(table: Harness, result: Any) -> discord.Message:
    """The lobby message a /newgame posted, as stored now."""
    return table.message(opened_lobby(result).id)


# --- a damaged lobby row ------------------------------------------------------------------


def _drop(key: str) -> Callable[[dict[str, Any]], Any]:
    def damage(row: dict[str, Any]) -> dict[str, Any]:
        del row[key]
        return row

    return damage


def _set_option(key: str, value: Any) -> Callable[[dict[str, Any]], Any]:
    def damage(row: dict[str, Any]) -> dict[str, Any]:
        row["options"][key] = value
        return row

    return damage


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], Any]:
    def damage(row: dict[str, Any]) -> dict[str, Any]:
        row[key] = value
        return row

    return damage


def _seat_key(row: dict[str, Any]) -> dict[str, Any]:
    row["seats"][0]["colour"] = "red"  # a key a later version might add
    return row


DAMAGE: dict[str, Callable[[dict[str, Any]], Any]] = {
    "missing host": _drop("host_id"),
    "missing seats": _drop("seats"),
    "seconds as text": _set_option("turn_seconds", "fast"),
    "fill as text": _set_option("fill", "yes"),
    "unknown option": _set_option("blitz", True),  # written by a newer version, rolled back
    "unknown variant": _set_option("variant", "chess"),
    "seats not a list": _set("seats", {"0": "alice"}),
    "seat with unknown key": _seat_key,
    "message id as text": _set("message_id", "123"),
    "another channel": _set("channel_id", 1),
    "not an object": lambda row: "L1",
}


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
async def test_a_damaged_lobby_row_counts_as_none_and_is_dropped(
    table: Harness, damage: Callable[[dict[str, Any]], Any]
) -> None:
    alice, bob, carol = table.members[:3]
    await alice.slash(table.channel, "newgame")
    message = lobby_message(table)
    await bob.click(message, label="Join")
    channel_id = table.channel.id
    settings = await table.storage.get_channel_settings(channel_id)
    settings["lobby"] = damage(settings["lobby"])
    settings["theme"] = "dark"  # another channel setting, kept
    await table.storage.set_channel_settings(table.guild.id, channel_id, settings)
    await table.restart()  # the damaged row is read back on first use
    table.expect_warning("unreadable")

    # An old button of the damaged lobby: the stale-lobby answer, not "try again".
    stale = await carol.click(message, label="Join")
    assert told(stale) == texts.STALE_LOBBY
    # The row is gone; the channel's other settings are kept.
    assert await table.storage.get_channel_settings(channel_id) == {"theme": "dark"}
    status = await carol.slash(table.channel, "status")
    assert told(status) == "no game"  # no lobby: the game desk answers
    cancel = await alice.slash(table.channel, "cancel")
    assert told(cancel) == texts.NO_GAME_HERE
    demo = await carol.slash(table.channel, "demo")
    assert told(demo) == "demo"
    # A fresh lobby opens in the channel, and works.
    fresh = await carol.slash(table.channel, "newgame")
    assert labels(opened_lobby(fresh)) == ["Join", "Leave", "Add AI", "Start"]
    joined = await alice.click(lobby_message_of(table, fresh), label="Join")
    assert not joined.ephemeral
    assert alice.mention in embed_text(table.message(opened_lobby(fresh).id))
    # Logged once, without anyone's name.
    logged = [w for w in warnings_of(table) if "unreadable" in w]
    assert len(logged) == 1, logged
    assert "alice" not in logged[0] and "bob" not in logged[0]


async def test_a_damaged_row_is_dropped_from_memory_and_database_stores(tmp_path: Path) -> None:
    good = Lobby(id="L1", guild_id=10, channel_id=20, host_id=1)
    good.join(1, "host")
    memory = MemoryLobbyStore()
    memory.rows[20] = "{not json"
    memory.rows[21] = '{"id": "L2"}'
    book = LobbyBook(memory)
    assert await book.get(20) is None and await book.get(21) is None
    assert memory.rows == {}
    await book.open(good)
    assert await book.get(20) == good

    async with await Storage.open(tmp_path / "db.sqlite") as storage:
        row = good.to_dict()
        row["options"]["players"] = True  # a bool is not a table size
        await storage.set_channel_settings(10, 20, {"lobby": row, "theme": "dark"})
        store = ChannelSettingsLobbyStore(storage)
        assert await store.load_lobby(20) is None
        assert await storage.get_channel_settings(20) == {"theme": "dark"}


def test_old_rows_without_later_keys_still_load() -> None:
    room = Lobby(id="L1", guild_id=10, channel_id=20, host_id=1, message_id=5)
    room.join(1, "host")
    room.add_ai(1, "strong")
    row = room.to_dict()
    del row["options"]["talk"]  # options added later take their defaults
    del row["message_id"]
    for seat in row["seats"]:
        del seat["strength"]
    loaded = Lobby.from_dict(row)
    assert loaded.options.talk is True and loaded.message_id is None
    assert [s.strength for s in loaded.seats] == [None, None]


# --- damaged server settings ----------------------------------------------------------------


def test_damaged_server_settings_give_way_to_the_defaults(caplog: pytest.LogCaptureFixture) -> None:
    config = Config(ai_default="easy")
    damaged = {
        "variant": 7,
        "players": "ten",
        "strength": "godlike",
        "fill": "no",
        "talk": 0,
        "turn_seconds": "90",
        "vote_seconds": True,
    }
    with caplog.at_level(logging.WARNING, logger="bot"):
        options = default_options(config, damaged)
    assert options == default_options(config, {})
    assert {k for k in damaged if any(k in r.getMessage() for r in caplog.records)} == set(damaged)
    assert not any("godlike" in r.getMessage() for r in caplog.records)  # no values logged
    good = default_options(config, {"players": 7, "fill": False, "turn_seconds": 60, "talk": None})
    assert (good.players, good.fill, good.turn_seconds, good.talk) == (7, False, 60, True)
    assert default_options(config, {"players": 42}).players is None  # out of range
    assert default_options(config, {"turn_seconds": 0}).turn_seconds == 120


async def test_newgame_opens_a_lobby_despite_damaged_server_settings(table: Harness) -> None:
    alice = table.members[0]
    await table.storage.set_settings(
        table.guild.id, {"turn_seconds": "fast", "vote_seconds": 45, "fill": "yes"}
    )
    table.expect_warning("server setting")
    opened = await alice.slash(table.channel, "newgame")
    assert told(opened) == texts.LOBBY_OPENED
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None
    assert lobby.options == LobbyOptions(
        strength=table.config.ai_default,
        turn_seconds=table.config.timers.turn_seconds,
        vote_seconds=45,
    )
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = table.guild.add_member(table.env.create_user("moderator"), roles=[mods])
    shown = await mod.slash(table.channel, "settings")  # shows the defaults in force
    assert shown.ephemeral and shown.response is not None
    assert "45" in embed_text(shown.response)


# --- a forged lobby button --------------------------------------------------------------


async def test_a_forged_lobby_button_on_another_message_changes_nothing(table: Harness) -> None:
    alice, bob = table.members[:2]
    await alice.slash(table.channel, "newgame", fill=False)
    message = lobby_message(table)
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None and lobby.message_id == message.id
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    other = await channel.send("An old reveal: the Liberals won.")
    before = table.env.backend.get_message(table.channel.id, other.id)
    before_content, before_embeds = before.content, list(before.embeds)

    for member, action in ((bob, JOIN), (alice, ADD_AI), (alice, LEAVE), (alice, START)):
        forged = await forge_click(table, member, other, str(ComponentId(lobby.id, action)))
        assert told(forged) == texts.STALE_LOBBY, action
    after = table.env.backend.get_message(table.channel.id, other.id)
    assert after.content == before_content and list(after.embeds) == before_embeds
    assert desk(table).launched == []
    assert await table.bot.lobbies.book.get(table.channel.id) == lobby  # unchanged
    assert (await table.storage.get_channel_settings(table.channel.id))["lobby"] == (
        lobby.to_dict()
    )
    # The real lobby message still works.
    joined = await bob.click(message, label="Join")
    assert not joined.ephemeral and bob.mention in embed_text(table.message(message.id))


# --- a lobby message that cannot be posted ----------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [(403, 50001, "LOBBY_NOT_POSTED_FORBIDDEN"), (500, 0, "LOBBY_NOT_POSTED")],
    ids=["forbidden", "server error"],
)
async def test_newgame_whose_lobby_cannot_be_posted_opens_nothing(
    table: Harness, status: int, code: int, expected: str
) -> None:
    alice, bob = table.members[:2]
    # The followup that carries the lobby (POST /webhooks/<app>/<token>) fails.
    table.env.inject_error("POST", "/webhooks/*", status=status, code=code, times=1)
    table.expect_warning("cannot post its message")
    failed = await alice.slash(table.channel, "newgame")
    assert told(failed) == getattr(texts, expected)
    assert not [m for m in table.channel_messages() if labels(m)]  # no lobby shown
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    assert "lobby" not in await table.storage.get_channel_settings(table.channel.id)
    # Nothing stands in the way of the next try, by anyone.
    again = await bob.slash(table.channel, "newgame")
    assert told(again) == texts.LOBBY_OPENED
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None and lobby.message_id == opened_lobby(again).id


async def test_a_lobby_stored_without_a_message_gets_one_again(table: Harness) -> None:
    # A lobby an older version stored before its message was posted (the post failed).
    alice, bob = table.members[:2]
    room = Lobby(id="L77", guild_id=table.guild.id, channel_id=table.channel.id, host_id=alice.id)
    room.join(alice.id, "alice")
    await table.storage.set_channel_settings(
        table.guild.id, table.channel.id, {"lobby": room.to_dict()}
    )
    await table.restart()
    second = await bob.slash(table.channel, "newgame")
    lobby = await table.bot.lobbies.book.get(table.channel.id)
    assert lobby is not None and lobby.id == "L77" and lobby.message_id is not None
    assert told(second) == texts.LOBBY_ALREADY_HERE.format(
        link=f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{lobby.message_id}"
    )
    posted = table.message(lobby.message_id)
    assert labels(posted) == ["Join", "Leave", "Add AI", "Start"]
    joined = await bob.click(posted, label="Join")
    assert not joined.ephemeral and bob.mention in embed_text(table.message(posted.id))


async def test_a_lobby_the_database_refuses_is_shown_closed(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    storage = table.storage
    real = storage.set_channel_settings
    calls = 0

    async def refusing(*args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise StorageError("the database is read-only (injected)")
        await real(*args, **kwargs)

    monkeypatch.setattr(storage, "set_channel_settings", refusing)
    table.expect_warning("cannot store it")
    failed = await alice.slash(table.channel, "newgame")
    assert told(failed) == texts.LOBBY_NOT_STORED
    posted = table.message(opened_lobby(failed).id)
    assert labels(posted) == []  # no buttons of a lobby that does not exist
    assert texts.LOBBY_NOT_STORED_CLOSED in embed_text(posted)
    assert await table.bot.lobbies.book.get(table.channel.id) is None
    again = await bob.slash(table.channel, "newgame")
    assert labels(opened_lobby(again)) == ["Join", "Leave", "Add AI", "Start"]


# --- a start whose lobby cannot be closed ------------------------------------------------


def _storing_launch(table: Harness) -> Callable[[Lobby, Sequence[LobbySeat]], Awaitable[int]]:
    """The desk's launch, storing the game as the real launcher does: with its lobby's id
    in its options (how a lobby row left behind is known to be a started one)."""
    recording = desk(table)

    async def launch(room: Lobby, seats: Sequence[LobbySeat]) -> int:
        game_id = await table.storage.create_game(
            players=len(seats),
            variant=STANDARD,
            seed=1,
            seats=[
                SeatRecord(index, seat.name, seat.user_id, None if seat.user_id else "random")
                for index, seat in enumerate(seats)
            ],
            options={"host_id": room.host_id, "lobby": room.id},
            guild_id=room.guild_id,
            channel_id=room.channel_id,
        )
        recording.launched.append((room, list(seats)))
        recording.channels[room.channel_id] = game_id
        return game_id

    return launch


@pytest.mark.parametrize("game_over_at_restart", [False, True], ids=["running", "over"])
async def test_a_start_whose_lobby_cannot_be_closed_says_the_game_started(
    table: Harness, monkeypatch: pytest.MonkeyPatch, game_over_at_restart: bool
) -> None:
    """The game is stored and running when the lobby's row fails to go (a storage fault
    after the launch): the host hears that the game started, never "the game is
    unchanged", and the lobby stays closed, in this process and after a restart."""
    alice, bob, carol = table.members[:3]
    storage = table.storage
    channel_id = table.channel.id
    monkeypatch.setattr(desk(table), "launch", _storing_launch(table))
    await alice.slash(table.channel, "newgame", players=5)
    message = lobby_message(table)
    await bob.click(message, label="Join")
    lobby = await table.bot.lobbies.book.get(channel_id)
    assert lobby is not None
    join = str(ComponentId(lobby.id, JOIN))

    real = storage.set_channel_settings

    async def refusing(*args: Any, **kwargs: Any) -> None:
        raise StorageError("the database is read-only (injected)")

    monkeypatch.setattr(storage, "set_channel_settings", refusing)
    table.expect_warning("cannot close it")
    started = await alice.click(message, label="Start")
    monkeypatch.setattr(storage, "set_channel_settings", real)

    assert started.acknowledged and not [f for f in started.followups if f.ephemeral]
    assert len(desk(table).launched) == 1
    shown = table.message(message.id)
    assert labels(shown) == [] and texts.LOBBY_STARTED in embed_text(shown)
    assert (await storage.get_channel_settings(channel_id))["lobby"]["id"] == lobby.id  # left

    async def closed_while_the_game_runs() -> None:
        stale = await forge_click(table, carol, message, join)  # its old button
        assert told(stale) == texts.STALE_LOBBY
        assert told(await carol.slash(table.channel, "status")) == "no game"  # the game's
        assert told(await bob.slash(table.channel, "newgame")) == texts.GAME_ALREADY_HERE
        assert told(await carol.slash(table.channel, "join")) == texts.NO_LOBBY_HERE

    await closed_while_the_game_runs()
    if game_over_at_restart:
        desk(table).channels.clear()
    await table.restart()  # the row is read back on first use
    if not game_over_at_restart:
        await closed_while_the_game_runs()
        desk(table).channels.clear()
    stale = await forge_click(table, carol, message, join)
    assert told(stale) == texts.STALE_LOBBY
    assert "lobby" not in await storage.get_channel_settings(channel_id)  # dropped on reading
    fresh = await bob.slash(table.channel, "newgame")
    assert told(fresh) == texts.LOBBY_OPENED
    reopened = await table.bot.lobbies.book.get(channel_id)
    assert reopened is not None and reopened.id != lobby.id and reopened.host_id == bob.id
