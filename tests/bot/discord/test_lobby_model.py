"""The lobby's rules and its persistence, without Discord."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Config, Timers
from bot.discord import texts
from bot.discord.lobby import (
    ChannelSettingsLobbyStore,
    Lobby,
    LobbyBook,
    LobbyError,
    LobbyOptions,
    default_options,
)
from bot.storage import Storage


def lobby(**options: object) -> Lobby:
    made = Lobby(id="L1", guild_id=10, channel_id=20, host_id=1, options=LobbyOptions(**options))  # type: ignore[arg-type]
    made.join(1, "host")
    return made


def test_fill_adds_ai_players_up_to_the_size_and_at_least_five() -> None:
    table = lobby(players=7).table()
    assert len(table) == 7 and [s.is_ai for s in table] == [False] + [True] * 6
    assert len(lobby().table()) == 5  # no size given: the smallest table
    assert len(lobby(fill=False).table()) == 1


def test_start_needs_the_host_and_five_seats() -> None:
    room = lobby(fill=False)
    room.join(2, "two")
    with pytest.raises(LobbyError, match="Only the host"):
        room.check_start(2)
    with pytest.raises(LobbyError, match="2 seat"):
        room.check_start(1)
    for user in (3, 4, 5):
        room.join(user, str(user))
    assert len(room.check_start(1)) == 5


def test_ten_seats_at_most_and_one_seat_per_member() -> None:
    room = lobby()
    with pytest.raises(LobbyError, match="already"):
        room.join(1, "again")
    for user in range(2, 11):
        room.join(user, str(user))
    with pytest.raises(LobbyError) as full:
        room.join(11, "late")
    assert str(full.value) == "The lobby is full (10 players)."
    with pytest.raises(LobbyError, match="full"):
        room.add_ai(1)


def test_a_leaving_host_hands_the_lobby_on() -> None:
    room = lobby()
    room.add_ai(1)
    room.join(2, "two")
    room.leave(1)
    assert room.host_id == 2 and [s.user_id for s in room.seats] == [None, 2]


def test_an_ai_seat_may_have_its_own_strength() -> None:
    room = lobby(strength="normal")
    own = room.add_ai(1, "strong")
    table_strength = room.add_ai(1)
    assert room.strength_of(own) == "strong" and room.strength_of(table_strength) == "normal"
    with pytest.raises(LobbyError) as bad:
        room.add_ai(1, "godlike")
    assert str(bad.value) == texts.BAD_STRENGTH.format(choices="easy, normal, strong")
    assert len(room.seats) == 3
    assert Lobby.from_dict(room.to_dict()) == room
    # A lobby stored before seats had their own strength still loads.
    old = room.to_dict()
    for seat in old["seats"]:
        del seat["strength"]
    assert [s.strength for s in Lobby.from_dict(old).seats] == [None, None, None]


def test_options_are_checked() -> None:
    for bad in (
        LobbyOptions(variant="chess"),
        LobbyOptions(strength="godlike"),
        LobbyOptions(players=11),
    ):
        with pytest.raises(LobbyError):
            bad.check()


def test_defaults_come_from_the_server_settings_over_the_configuration() -> None:
    config = Config(ai_default="easy", timers=Timers(turn_seconds=60, vote_seconds=30))
    assert default_options(config, {}) == LobbyOptions(
        strength="easy", turn_seconds=60, vote_seconds=30
    )
    chosen = default_options(config, {"variant": "rebalanced", "players": 9, "unknown": 1})
    assert chosen.variant == "rebalanced" and chosen.players == 9 and chosen.strength == "easy"


async def test_lobbies_persist_as_a_channel_setting_next_to_other_settings(tmp_path: Path) -> None:
    async with await Storage.open(tmp_path / "db.sqlite") as storage:
        await storage.set_channel_settings(10, 20, {"theme": "dark"})
        book = LobbyBook(ChannelSettingsLobbyStore(storage))
        room = lobby(players=6)
        room.add_ai(1)
        room.message_id = 99
        await book.open(room)

        fresh = LobbyBook(ChannelSettingsLobbyStore(storage))  # as after a restart
        loaded = await fresh.get(20)
        assert loaded == room and loaded is not room
        assert (await storage.get_channel_settings(20))["theme"] == "dark"

        await fresh.close(loaded)
        assert await fresh.get(20) is None
        assert await LobbyBook(ChannelSettingsLobbyStore(storage)).get(20) is None
        assert await storage.get_channel_settings(20) == {"theme": "dark"}


def test_texts_name_the_refusals_precisely() -> None:
    room = lobby()
    with pytest.raises(LobbyError) as refused:
        room.kick(1, 0)
    assert str(refused.value) == texts.CANNOT_KICK_SELF
    with pytest.raises(LobbyError) as missing:
        room.kick(1, 4)
    assert str(missing.value) == "There is no seat 5: the table has 1 seat(s)."
