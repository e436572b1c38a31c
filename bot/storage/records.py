"""What the storage keeps, whatever the database: the stored records, the game scope
of a process, the typed faults, and the reading back of a stored game part by part.

Both drivers (`bot.storage.sqlite`, `bot.storage.postgres`) return these types and raise
these errors, so nothing above the storage knows which database holds the games.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import (
    Action,
    GameRecord,
    Party,
    RecordError,
    Role,
    SetupError,
    Variant,
    WinReason,
)

from ..errors import BotError, EndedElsewhere
from ..ratings import Rating

log = logging.getLogger("bot.storage")

# A stored deadline further ahead than this is damage: no timer comes near a day.
MAX_DEADLINE_AHEAD_S = 86_400.0

STATUSES = ("running", "paused", "finished", "cancelled", "abandoned", "damaged")
_INT64 = (-(2**63), 2**63 - 1)  # SQLite INTEGER and PostgreSQL BIGINT: seeds and ids must fit


class StorageError(BotError):
    """A database problem. `str()` is one line for the host: what happened to which file,
    and what to do about it. The subclasses below name each cause a host can fix."""


class GameEnded(StorageError, EndedElsewhere):
    """A move for a game whose row says it ended (cancelled, finished, abandoned,
    damaged): something else ended it while it was played (`shbot cancel` on a terminal
    game another process plays). Nothing to pause or resume: `status` says how it ended."""

    def __init__(self, game_id: int, status: str) -> None:
        super().__init__(f"Game #{game_id} is {status}; it takes no more actions.", status)


class CannotOpen(StorageError):
    """The path cannot be opened: its directory is missing, or a file stands in its way."""


class PermissionDenied(CannotOpen):
    """The operating system refuses the bot's user access to the file or its directory."""


class ReadOnlyDatabase(StorageError):
    """The database can be read but not written (file, directory or file system)."""


class NotShbotDatabase(StorageError):
    """The file (or database) is not shbot's: another program's, or not a database."""


class NewerDatabase(StorageError):
    """The database was written by a newer shbot; it is left untouched."""


class DamagedDatabase(StorageError):
    """The database finds its own files corrupt."""


class DatabaseBusy(StorageError):
    """Another program held the database's lock for longer than the busy timeout."""


class DiskFull(StorageError):
    """The database cannot grow: the disk (or SQLite's page limit) is full."""


class DiskError(StorageError):
    """The operating system failed to read or write the file (an I/O error)."""


class ConnectionLost(StorageError):
    """The database server stopped answering (it restarted, or the network failed)."""


class ShardsLost(StorageError):
    """This process no longer holds its shards of a shared database (its connection was
    lost and another process took them meanwhile): it must not drive their games."""


class GameDamaged(StorageError):
    """One stored game does not read back; the others are fine. `reason` says what does
    not read (a column, an action's index), never what it holds."""

    def __init__(self, game_id: int, reason: str) -> None:
        super().__init__(f"Game #{game_id} is damaged ({reason}); it is never resumed.")
        self.game_id = game_id
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who sits at a seat now: a human (`user_id`), an AI (`agent`), or a human's seat an AI
    plays for them (both set)."""

    seat: int
    name: str  # display name ("Ada (AI)" or the member's name at join time)
    user_id: int | None  # Discord user id (or a local id for the terminal); None: AI-only seat
    agent: str | None  # agent spec while an AI controls the seat now, else None


@dataclass(frozen=True, slots=True)
class ShownMessage:
    """A front-end message of a running game that a restart must find again: its id, its
    public text as last shown, and the deadline it showed."""

    message_id: int
    content: str
    deadline: float | None


@dataclass(frozen=True, slots=True)
class SetAside:
    """A game restart recovery set aside as damaged: where it was played, and what does
    not read (a column, an action's index and an exception type, never a stored value),
    so that its table can be told."""

    game_id: int
    guild_id: int | None
    channel_id: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as stored: `record.replay()` rebuilds the identical `engine.Game`."""

    id: int
    guild_id: int | None
    channel_id: int | None
    status: str  # one of STATUSES
    record: GameRecord
    seats: tuple[SeatRecord, ...]
    options: dict[str, Any]
    deadline: float | None
    created_at: float
    finished_at: float | None
    winner: Party | None = None
    reason: WinReason | None = None
    roles: tuple[Role, ...] | None = None  # set once the game is finished
    session_state: dict[str, Any] = field(default_factory=dict)  # bot.session's bookkeeping
    pause_reason: str | None = None  # why a paused game stopped (a type and a place)


@dataclass(frozen=True, slots=True)
class SeatChange:
    """One entry of a seat's takeover history: who controlled it before and after."""

    game_id: int
    seat: int
    at: float
    from_user_id: int | None
    from_agent: str | None
    to_user_id: int | None
    to_agent: str | None
    to_name: str
    reason: str


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One line of a game list: who played where, and how it ended."""

    id: int
    guild_id: int | None
    channel_id: int | None
    players: int
    status: str
    winner: str | None
    reason: str | None
    created_at: float
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A human's record over finished games (seats they were dealt)."""

    user_id: int
    games: int
    wins: int
    by_role: dict[str, tuple[int, int]]  # "liberal"/"fascist"/"hitler" -> (games, wins)
    recent: tuple[GameSummary, ...]

    @property
    def win_rate(self) -> float:
        """Wins per game, 0.0 before the first finished game."""
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One human on a leaderboard, under the name they last played with."""

    user_id: int
    name: str
    games: int
    wins: int
    win_rate: float


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player of the rating ladder: a human (`user_id`) or an AI strength (`player`
    is "ai:<agent spec>", `name` the spec), with their rating and rated games."""

    player: str  # bot.ratings.human_key / ai_key
    user_id: int | None
    name: str  # the name a human last played under; an AI's agent spec
    rating: Rating
    games: int  # rated seats: an AI strength may hold several in one game
    wins: int


@dataclass(frozen=True, slots=True)
class GameScope:
    """Which stored games one process drives (and so resumes after a restart).

    Every process of one bot shares one database. Discord gives each guild to one shard,
    `(guild_id >> 22) % shard_count` (a DM goes to shard 0), so a process running
    `shard_ids` resumes exactly the games of its guilds, whatever SHARD_COUNT the games
    were started under. `channel_required`: a game without a channel is the terminal's,
    never the bot's.
    """

    channel_required: bool = False
    shard_count: int | None = None  # None: this process runs every shard
    shard_ids: frozenset[int] | None = None

    def __post_init__(self) -> None:
        if (self.shard_count is None) != (self.shard_ids is None):
            raise ValueError("A game scope needs both a shard count and shard ids, or neither.")
        count, ids = self.shard_count, self.shard_ids
        if count is not None and ids is not None and not all(0 <= s < count for s in ids):
            raise ValueError(f"Shards {sorted(ids)} are not all below the count {count}.")

    @property
    def every_shard(self) -> bool:
        """Whether this process runs every shard (one process for the whole bot)."""
        return self.shard_ids is None

    def shard_of(self, guild_id: int | None) -> int:
        """The shard Discord gives a guild (a DM, guild None, is shard 0's)."""
        count = self.shard_count or 1
        return 0 if guild_id is None else (guild_id >> 22) % count

    def owns(self, guild_id: object, channel_id: object) -> bool:
        """Whether a game stored with these ids is this process's to drive. A row whose
        guild id is not a number (damaged) is shard 0's, so one process marks it."""
        if self.channel_required and channel_id is None:
            return False
        if self.shard_ids is None:
            return True
        guild = guild_id if isinstance(guild_id, int) else None
        return self.shard_of(guild) in self.shard_ids


_GAME_COLUMNS = (
    "id, guild_id, channel_id, players, variant, seed, status, options, deadline,"
    " created_at, finished_at, winner, win_reason, session_state, pause_reason"
)
_SUMMARY_COLUMNS = (
    "g.id, g.guild_id, g.channel_id, g.players, g.status, g.winner, g.win_reason,"
    " g.created_at, g.finished_at"
)


def read_back(
    game_id: int,
    row: Any,
    seat_rows: Sequence[Any],
    action_rows: Sequence[Any],
    now: float,
) -> StoredGame:
    """Parse a stored game part by part. A part that does not read raises `GameDamaged`
    naming the part (a column, an action's index, a seat) and the exception's type, never
    the value: a damaged action or seat may hold a hand, a vote or a role. `now` (epoch
    seconds) bounds the stored deadline."""
    try:
        where = "players"
        players = _integer(row["players"])
        where = "seed"
        seed = _integer(row["seed"])
        where = "guild and channel ids"
        guild_id = _optional_integer(row["guild_id"])
        channel_id = _optional_integer(row["channel_id"])
        where = "variant"
        variant = Variant.from_dict(_loads(row["variant"]))
        # Its setup now, not at the replay: an unknown name or an absurd deck is this
        # row's damage (SetupError), not a fault a later start might not meet.
        variant.setup(players)
        actions: list[Action] = []
        for seq, text in action_rows:
            where = f"action {len(actions)}"
            if seq != len(actions):
                raise GameDamaged(game_id, f"action {len(actions)} is missing")
            actions.append(Action.from_dict(_loads(text)))
        where = "seats"
        numbers = [r["seat"] for r in seat_rows]
        if numbers != list(range(players)):
            raise GameDamaged(
                game_id, f"seats: {players} seats expected, {len(numbers)} stored or misnumbered"
            )
        seats = []
        for r in seat_rows:
            where = f"seat {r['seat']}"
            if not isinstance(r["name"], str) or not isinstance(r["agent"], str | None):
                raise TypeError("a name or agent that is not text")
            user_id = _optional_integer(r["user_id"])
            seats.append(SeatRecord(r["seat"], r["name"], user_id, r["agent"]))
        where = "roles"
        finished = row["status"] == "finished"
        roles = tuple(Role(r["role"]) for r in seat_rows) if finished else None
        where = "options"
        options = _loads(row["options"])
        if not isinstance(options, dict):
            raise TypeError("not a JSON object")
        where = "result"
        winner = Party(row["winner"]) if row["winner"] else None
        reason = WinReason(row["win_reason"]) if row["win_reason"] else None
    except GameDamaged:
        raise
    except (RecordError, SetupError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise GameDamaged(game_id, f"{where} does not read ({type(exc).__name__})") from exc
    return StoredGame(
        id=game_id,
        guild_id=guild_id,
        channel_id=channel_id,
        status=row["status"],
        record=GameRecord(players, seed, variant, actions),
        seats=tuple(seats),
        options=options,
        deadline=_deadline(game_id, row["deadline"], now),
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        winner=winner,
        reason=reason,
        roles=roles,
        session_state=_session_state(game_id, row["session_state"]),
        pause_reason=row["pause_reason"],
    )


def _deadline(game_id: int, value: object, now: float) -> float | None:
    """The pending decision's stored deadline. One that is not a finite number reads as
    none stored (the decision gets a fresh timer); one more than a day ahead is clamped
    to a day: either would never time the human out, and a front-end cannot show it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value):
        log.warning("game %d: column deadline is not finite; read as none stored", game_id)
        return None
    latest = now + MAX_DEADLINE_AHEAD_S
    if value > latest:
        log.warning("game %d: column deadline is more than a day ahead; clamped", game_id)
        return latest
    return float(value)


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not a whole number ({type(value).__name__})")
    return value


def _optional_integer(value: object) -> int | None:
    return None if value is None else _integer(value)


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StorageError(f"The {what} cannot be stored as JSON: {exc}.") from exc


def _loads(text: str) -> Any:
    """`json.loads`, with JSON nested too deep to parse raised as a ValueError like any
    other unreadable text: the parser's RecursionError would escape every handler of
    damaged rows and end the start-up's recovery."""
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deep") from exc


def _json_object(text: str | None) -> dict[str, Any]:
    """A stored JSON object; anything else (NULL, damaged text, another type) reads as {}."""
    value = _object_or_none(text)
    return {} if value is None else value


def _object_or_none(text: str | None) -> dict[str, Any] | None:
    """A stored JSON object, or None for anything else (NULL, damaged text, a list...)."""
    try:
        value = _loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _session_state(game_id: int, text: str | None) -> dict[str, Any]:
    """A game's bookkeeping; unreadable, it reads as nothing known (the game stays
    playable) with a warning, so a host learns why the game forgot it. The warning names
    the column only: the text may hold anything."""
    state = _object_or_none(text)
    if state is None:
        log.warning("game %d: column session_state does not read; read as empty", game_id)
        return {}
    return state


def _check_int64(value: int | None, what: str) -> None:
    if value is not None and not _INT64[0] <= value <= _INT64[1]:
        raise StorageError(f"The {what} {value} does not fit in a 64-bit integer.")
