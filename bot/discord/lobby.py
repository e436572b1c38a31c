"""Lobbies: who sits at the table before a game starts, and with which options.

A `Lobby` is plain data with the rules of the waiting room (at most ten seats, the host
alone starts, adds AI players and kicks). It knows nothing of Discord beyond user ids,
so the rules are tested without a client. `LobbyBook` keeps the open lobbies, one per
channel, serialises changes to each, and writes every change through a `LobbyStore`
before it is shown, so a lobby (and the buttons on its message) survives a restart.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, TypeGuard

from engine.variants import MAX_PLAYERS, MIN_PLAYERS

from ..config import STRENGTHS, Config
from ..errors import BotError
from . import texts

log = logging.getLogger(__name__)

VARIANTS = ("standard", "rebalanced")
AI_SEAT_NAME = "AI player"  # the game names its AI players when it starts


class LobbyError(BotError):
    """A lobby request that cannot be granted; the message is shown to the user as is."""


class UnreadableLobby(ValueError):
    """A stored lobby that cannot be read back: a damaged row, or one written by another
    version of the bot. The message names the field, never its value (seats hold names)."""


@dataclass(slots=True)
class LobbySeat:
    """One seat at the table: a Discord user, or an AI player."""

    name: str
    user_id: int | None = None  # None: an AI seat
    strength: str | None = None  # an AI seat's own strength; None: the table's

    @property
    def is_ai(self) -> bool:
        """Whether an AI plays this seat."""
        return self.user_id is None


@dataclass(slots=True)
class LobbyOptions:
    """What the host chose in `/newgame`."""

    variant: str = "standard"
    players: int | None = None  # the table size to fill up to; None: whoever joined
    strength: str = "normal"  # of every AI player at the table
    fill: bool = True  # fill empty seats with AI players at the start
    talk: bool = True  # AI players say whom they trust (agents.talk)
    turn_seconds: int = 120
    vote_seconds: int = 90

    def check(self) -> None:
        """Raise `LobbyError` if an option is out of range."""
        if self.variant not in VARIANTS:
            raise LobbyError(texts.BAD_VARIANT.format(choices=", ".join(VARIANTS)))
        if self.strength not in STRENGTHS:
            raise LobbyError(texts.BAD_STRENGTH.format(choices=", ".join(STRENGTHS)))
        if self.players is not None and not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise LobbyError(texts.BAD_SIZE.format(low=MIN_PLAYERS, high=MAX_PLAYERS))


SETTING_KEYS = (
    "variant",
    "players",
    "strength",
    "fill",
    "talk",
    "turn_seconds",
    "vote_seconds",
)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON true is no number


def option_problem(key: str, value: object) -> str | None:
    """Why `value` cannot be the lobby option `key` (None: it can). Stored rows and
    settings are checked with it: the database may hold what another version wrote."""
    if key in ("variant", "strength"):
        choices = VARIANTS if key == "variant" else STRENGTHS
        return None if isinstance(value, str) and value in choices else "not a known choice"
    if key == "players":
        if value is None or (_is_int(value) and MIN_PLAYERS <= value <= MAX_PLAYERS):
            return None
        return f"not a table size ({MIN_PLAYERS}-{MAX_PLAYERS})"
    if key in ("fill", "talk"):
        return None if isinstance(value, bool) else "not true or false"
    if key in ("turn_seconds", "vote_seconds"):
        return None if _is_int(value) and value > 0 else "not a positive number of seconds"
    return "not a lobby option"


def default_options(config: Config, settings: Mapping[str, Any]) -> LobbyOptions:
    """A new lobby's options: the guild's `/settings` over the bot's configuration.

    A damaged setting (a wrong type or an unknown choice in the database) is logged and
    left at its default, so that it never stops a lobby from opening.
    """
    options = LobbyOptions(
        strength=config.ai_default,
        turn_seconds=config.timers.turn_seconds,
        vote_seconds=config.timers.vote_seconds,
    )
    if not isinstance(settings, Mapping):
        log.warning("server settings are not an object: the defaults apply")
        return options
    for key in SETTING_KEYS:
        value = settings.get(key)
        if value is None:
            continue
        problem = option_problem(key, value)
        if problem is not None:
            log.warning("damaged server setting %s (%s): its default applies", key, problem)
            continue
        setattr(options, key, value)
    return options


@dataclass(slots=True)
class Lobby:
    """An open table in one channel. Seat order is join order (it becomes table order)."""

    id: str
    guild_id: int
    channel_id: int
    host_id: int
    options: LobbyOptions = field(default_factory=LobbyOptions)
    seats: list[LobbySeat] = field(default_factory=list)
    message_id: int | None = None  # the lobby message carrying the buttons
    opened_at: float | None = None  # when it opened (None: stored by an older release)
    # Its last activity (opening, a join, a leave, an AI added, a kick): a lobby is stale
    # an hour after it (None: stored by a release that did not record it).
    active_at: float | None = None

    # --- queries ---------------------------------------------------------------------

    @property
    def humans(self) -> list[LobbySeat]:
        """The seats of Discord users, in join order."""
        return [s for s in self.seats if not s.is_ai]

    @property
    def is_full(self) -> bool:
        """Whether every one of the ten seats is taken."""
        return len(self.seats) >= MAX_PLAYERS

    def seat_of(self, user_id: int) -> int | None:
        """The index of `user_id`'s seat, or None."""
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None

    def table(self) -> list[LobbySeat]:
        """The seats the game would start with now: AI players fill up to the size."""
        seats = list(self.seats)
        if self.options.fill:
            target = max(self.options.players or MIN_PLAYERS, MIN_PLAYERS)
            seats += [LobbySeat(AI_SEAT_NAME) for _ in range(target - len(seats))]
        return seats

    # --- changes -----------------------------------------------------------------------

    def join(self, user_id: int, name: str) -> None:
        """Seat a user; raise `LobbyError` if they are seated already or the table is full."""
        if self.seat_of(user_id) is not None:
            raise LobbyError(texts.ALREADY_IN_LOBBY)
        if self.is_full:
            raise LobbyError(texts.LOBBY_FULL.format(max=MAX_PLAYERS))
        self.seats.append(LobbySeat(name=name, user_id=user_id))

    def leave(self, user_id: int) -> None:
        """Unseat a user. A leaving host hands the lobby to the next human in join order."""
        index = self.seat_of(user_id)
        if index is None:
            raise LobbyError(texts.NOT_IN_LOBBY)
        del self.seats[index]
        if user_id == self.host_id and self.humans:
            self.host_id = self.humans[0].user_id  # type: ignore[assignment]

    def strength_of(self, seat: LobbySeat) -> str:
        """The strength an AI seat plays at: its own, else the table's."""
        return seat.strength or self.options.strength

    def add_ai(self, by: int, strength: str | None = None) -> LobbySeat:
        """The host adds an AI player, at `strength` (default: the table's AI strength)."""
        self.require_host(by, texts.ACT_ADD_AI)
        if strength is not None and strength not in STRENGTHS:
            raise LobbyError(texts.BAD_STRENGTH.format(choices=", ".join(STRENGTHS)))
        if self.is_full:
            raise LobbyError(texts.LOBBY_FULL.format(max=MAX_PLAYERS))
        seat = LobbySeat(AI_SEAT_NAME, strength=strength)
        self.seats.append(seat)
        return seat

    def kick(self, by: int, index: int) -> LobbySeat:
        """The host removes the seat at `index` (0-based); the host cannot kick themselves."""
        self.require_host(by, texts.ACT_KICK)
        if not 0 <= index < len(self.seats):
            raise LobbyError(texts.NO_SUCH_SEAT.format(seat=index + 1, seats=len(self.seats)))
        if self.seats[index].user_id == self.host_id:
            raise LobbyError(texts.CANNOT_KICK_SELF)
        return self.seats.pop(index)

    def check_start(self, by: int) -> list[LobbySeat]:
        """The table to start with, or `LobbyError` saying why the game cannot start."""
        self.require_host(by, texts.ACT_START)
        table = self.table()
        if len(table) < MIN_PLAYERS:
            raise LobbyError(
                texts.TOO_FEW.format(
                    have=len(table), min=MIN_PLAYERS, missing=MIN_PLAYERS - len(table)
                )
            )
        return table

    def require_host(self, user_id: int, act: str) -> None:
        """Raise `LobbyError` unless `user_id` hosts this lobby."""
        if user_id != self.host_id:
            raise LobbyError(texts.HOST_ONLY.format(host=f"<@{self.host_id}>", act=act))

    # --- persistence -------------------------------------------------------------------

    def copy(self) -> Lobby:
        """A deep copy to change (see `LobbyBook.save`)."""
        return Lobby.from_dict(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Lobby:
        """Inverse of `to_dict`; `UnreadableLobby` if `data` is damaged.

        Keys added by later releases may be missing (an option takes its default, a seat
        its table's strength); a key this version does not know is refused rather than
        dropped, since ignoring it could change the game the members asked for.
        """
        row = _object(data, "the lobby")
        options = _object(_required(row, "options", "the lobby"), "options")
        for key, value in options.items():
            problem = option_problem(key, value)
            if problem is not None:
                raise UnreadableLobby(f"option {key}: {problem}")
        seats = _required(row, "seats", "the lobby")
        if not isinstance(seats, list) or len(seats) > MAX_PLAYERS:
            raise UnreadableLobby(f"seats: not a list of at most {MAX_PLAYERS}")
        message_id = row.get("message_id")
        if message_id is not None and not _is_int(message_id):
            raise UnreadableLobby("message_id: not a number")
        lobby_id = _required(row, "id", "the lobby")
        if not isinstance(lobby_id, str):
            raise UnreadableLobby("id: not text")
        return cls(
            id=lobby_id,
            guild_id=_number(row, "guild_id"),
            channel_id=_number(row, "channel_id"),
            host_id=_number(row, "host_id"),
            options=LobbyOptions(**options),
            seats=[_seat(seat, index) for index, seat in enumerate(seats)],
            message_id=message_id,
            opened_at=_time(row, "opened_at"),
            active_at=_time(row, "active_at"),
        )


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise UnreadableLobby(f"{what}: not an object")
    return value


def _required(row: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in row:
        raise UnreadableLobby(f"{what}: {key} is missing")
    return row[key]


def _number(row: Mapping[str, Any], key: str) -> int:
    value = _required(row, key, "the lobby")
    if not _is_int(value):
        raise UnreadableLobby(f"{key}: not a number")
    return int(value)


def _time(row: Mapping[str, Any], key: str) -> float | None:
    """An optional time (epoch seconds): missing from a row an older release stored."""
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UnreadableLobby(f"{key}: not a number")
    return float(value)


def _seat(data: object, index: int) -> LobbySeat:
    what = f"seat {index + 1}"
    seat = _object(data, what)
    if unknown := set(seat) - {"name", "user_id", "strength"}:
        raise UnreadableLobby(f"{what}: unknown keys {sorted(unknown)}")
    name = _required(seat, "name", what)
    user_id = _required(seat, "user_id", what)  # a missing one must not make an AI seat
    strength = seat.get("strength")
    if not isinstance(name, str):
        raise UnreadableLobby(f"{what}: name is not text")
    if user_id is not None and not _is_int(user_id):
        raise UnreadableLobby(f"{what}: user_id is not a number")
    if strength is not None and strength not in STRENGTHS:
        raise UnreadableLobby(f"{what}: strength is not a known choice")
    return LobbySeat(name=name, user_id=user_id, strength=strength)


def read_lobby(channel_id: int, data: object) -> Lobby | None:
    """The lobby stored for `channel_id`, or None (logged) if the row is unreadable: an
    unreadable lobby counts as none, so that the channel is never bricked by it."""
    try:
        lobby = Lobby.from_dict(_object(data, "the lobby"))
        if lobby.channel_id != channel_id:
            raise UnreadableLobby("channel_id: another channel's")
    except UnreadableLobby as exc:
        log.warning("channel %s: its stored lobby is unreadable (%s); dropped", channel_id, exc)
        return None
    return lobby


class LobbyStore(Protocol):
    """Where open lobbies are kept across restarts: at most one per channel."""

    async def load_lobby(self, channel_id: int) -> Lobby | None:
        """The saved lobby of a channel, if any."""
        ...

    async def save_lobby(self, lobby: Lobby) -> None:
        """Insert or replace the lobby of `lobby.channel_id`."""
        ...

    async def delete_lobby(self, lobby: Lobby) -> None:
        """Forget the lobby (it started or was cancelled)."""
        ...


class MemoryLobbyStore:
    """A `LobbyStore` that keeps JSON in memory (for tools and tests without a database)."""

    def __init__(self) -> None:
        self.rows: dict[int, str] = {}

    async def load_lobby(self, channel_id: int) -> Lobby | None:
        """The saved lobby of a channel, if any (an unreadable one is dropped)."""
        row = self.rows.get(channel_id)
        if row is None:
            return None
        try:
            data = json.loads(row)
        except ValueError:
            data = None  # not JSON: as unreadable as a damaged object
        lobby = read_lobby(channel_id, data)
        if lobby is None:
            del self.rows[channel_id]
        return lobby

    async def save_lobby(self, lobby: Lobby) -> None:
        """Insert or replace."""
        self.rows[lobby.channel_id] = json.dumps(lobby.to_dict())

    async def delete_lobby(self, lobby: Lobby) -> None:
        """Forget it."""
        self.rows.pop(lobby.channel_id, None)


class ChannelSettingsLobbyStore:
    """A `LobbyStore` over `bot.storage.Storage`: the lobby is the channel setting "lobby".

    Other channel settings are kept as they are (read, change one key, write back).
    """

    KEY = "lobby"

    def __init__(self, storage: SettingsStorage) -> None:
        self.storage = storage

    async def load_lobby(self, channel_id: int) -> Lobby | None:
        """The saved lobby of a channel, if any (an unreadable one is dropped, and so is
        one whose game started: its row outlived a close that failed)."""
        data = (await self.storage.get_channel_settings(channel_id)).get(self.KEY)
        if data is None:
            return None
        lobby = read_lobby(channel_id, data)
        if lobby is None:
            await self._drop(channel_id, data, "unreadable")
            return None
        game_id = await self.storage.game_of_lobby(channel_id, lobby.id)
        if game_id is not None:
            # The game is stored with its lobby's id before the lobby closes: a storage
            # fault (or a stop) in between left the row, and the lobby is over all the same.
            log.info("lobby %s: its game %s started; dropping its row", lobby.id, game_id)
            await self._drop(channel_id, data, "started")
            return None
        return lobby

    async def _drop(self, channel_id: int, row: object, why: str) -> None:
        """Remove a lobby row that is no open lobby (`why`: unreadable, started), keeping
        the channel's other settings."""
        try:
            settings = await self.storage.get_channel_settings(channel_id)
            if settings.get(self.KEY) != row:
                return  # replaced meanwhile (a new lobby opened): not ours to drop
            del settings[self.KEY]
            guild = row.get("guild_id") if isinstance(row, Mapping) else None
            guild_id = guild if _is_int(guild) else None
            await self.storage.set_channel_settings(guild_id, channel_id, settings)
        except BotError as exc:
            # It is read as no lobby again next time, and the next lobby saved here
            # overwrites it anyway: reading on matters more.
            log.warning("channel %s: cannot drop its %s lobby: %s", channel_id, why, exc)

    async def save_lobby(self, lobby: Lobby) -> None:
        """Insert or replace."""
        settings = await self.storage.get_channel_settings(lobby.channel_id)
        settings[self.KEY] = lobby.to_dict()
        await self.storage.set_channel_settings(lobby.guild_id, lobby.channel_id, settings)

    async def delete_lobby(self, lobby: Lobby) -> None:
        """Forget it (only if the saved lobby is this one)."""
        settings = await self.storage.get_channel_settings(lobby.channel_id)
        saved = settings.get(self.KEY)
        if saved is not None and saved.get("id") == lobby.id:
            del settings[self.KEY]
            await self.storage.set_channel_settings(lobby.guild_id, lobby.channel_id, settings)


class SettingsStorage(Protocol):
    """The part of `bot.storage.Storage` lobbies need."""

    async def get_channel_settings(self, channel_id: int) -> dict[str, Any]:
        """A channel's settings ({} if none)."""
        ...

    async def set_channel_settings(
        self, guild_id: int | None, channel_id: int, settings: Mapping[str, Any]
    ) -> None:
        """Replace a channel's settings."""
        ...

    async def game_of_lobby(self, channel_id: int, lobby_id: str) -> int | None:
        """The game a lobby started, if any."""
        ...


class LobbyBook:
    """The open lobbies by channel, loaded on first use, changed under a per-channel lock
    and saved before any change is shown.

    Lobbies are loaded lazily: after a restart the first click or command in a channel
    reads its lobby back, so no list of channels is needed.
    """

    def __init__(self, store: LobbyStore) -> None:
        self.store = store
        self._by_channel: dict[int, Lobby | None] = {}  # None: known to have no lobby
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, channel_id: int) -> asyncio.Lock:
        """The lock serialising changes to the lobby of a channel."""
        return self._locks.setdefault(channel_id, asyncio.Lock())

    async def get(self, channel_id: int) -> Lobby | None:
        """The open lobby of a channel, if any."""
        if channel_id not in self._by_channel:
            loaded = await self.store.load_lobby(channel_id)
            # A reader without the lock (/status) must not undo a lobby opened meanwhile.
            self._by_channel.setdefault(channel_id, loaded)
        return self._by_channel[channel_id]

    def cached(self) -> list[Lobby]:
        """The lobbies loaded so far (open ones only)."""
        return [lobby for lobby in self._by_channel.values() if lobby is not None]

    async def open(self, lobby: Lobby) -> None:
        """Save and register a new lobby (the caller holds the channel's lock)."""
        await self.store.save_lobby(lobby)
        self._by_channel[lobby.channel_id] = lobby

    async def save(self, lobby: Lobby) -> None:
        """Persist a changed copy, then make it the lobby (the caller holds the lock).

        Changing a `copy()` and saving it means a failed write leaves the lobby unchanged.
        """
        await self.store.save_lobby(lobby)
        self._by_channel[lobby.channel_id] = lobby

    async def close(self, lobby: Lobby) -> None:
        """Forget the lobby (started or cancelled), in storage first."""
        await self.store.delete_lobby(lobby)
        self.forget(lobby)

    def forget(self, lobby: Lobby) -> None:
        """Count the lobby closed here without deleting its row: for a lobby whose game
        started although the row could not be deleted (the store drops such a row when it
        reads it back, and the next lobby saved in the channel replaces it)."""
        current = self._by_channel.get(lobby.channel_id)
        if current is not None and current.id == lobby.id:
            self._by_channel[lobby.channel_id] = None
