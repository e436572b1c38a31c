"""SQLite persistence for games: an append-only action log, seats, settings and stats.

Games are event-sourced: a game is its variant, seed and the actions accepted so far
(`engine.GameRecord`), so restart recovery reloads the unfinished games and replays them.
The game session writes each accepted action here, in its own transaction, *before* it
announces the result: whatever the table has seen survives a crash.

Connection model (the choice the design asks us to document): one aiosqlite connection,
in autocommit mode with explicit `BEGIN IMMEDIATE` transactions, guarded by one
`asyncio.Lock`. Reads share that connection and that lock: a read never sees a write
transaction half done, and a single writer never waits on SQLite's own locks. Reads are
short indexed queries, so the lock costs little; `busy_timeout` covers another process
(say `shbot` stats from a shell) touching the same file. WAL lets such a reader run
alongside us, and `synchronous=FULL` makes a commit durable before it is acknowledged.

Processes: every process of one bot (one per group of shards, all on one host) opens the
same file; each drives the games of its own shards (`GameScope`), and the first open of a
new file by many processes at once is safe (see `_prepare`). The terminal shares the file
too: its games have no channel, and the bot never resumes them.

Faults are typed (`StorageError` and its subclasses), each with one line that names the
cause and the fix: a read-only file or directory, permission denied, not shbot's file, a
newer schema, a damaged file, a lock held too long, a full disk. A single game that no
longer reads back is isolated: marked `damaged` with its reason and skipped, while the
others resume (`unfinished_games`).

Times are epoch seconds (float). All SQL is parameterised.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import random
import sqlite3
import stat
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import aiosqlite

from engine import Action, GameRecord, Party, RecordError, Role, Variant, WinReason

from .migrations import SCHEMA_VERSION, migrate, user_version
from .migrations import run as _all

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000  # another process holding the write lock: wait this long, then fail
STATUSES = ("running", "paused", "finished", "cancelled", "abandoned", "damaged")
_INT64 = (-(2**63), 2**63 - 1)  # SQLite INTEGER range: seeds and Discord ids must fit


class StorageError(Exception):
    """A database problem. `str()` is one line for the host: what happened to which file,
    and what to do about it. The subclasses below name each cause a host can fix."""


class CannotOpen(StorageError):
    """The path cannot be opened: its directory is missing, or a file stands in its way."""


class PermissionDenied(CannotOpen):
    """The operating system refuses the bot's user access to the file or its directory."""


class ReadOnlyDatabase(StorageError):
    """The database can be read but not written (file, directory or file system)."""


class NotShbotDatabase(StorageError):
    """The file is not an SQLite database, or it is another program's."""


class NewerDatabase(StorageError):
    """The database was written by a newer shbot; it is left untouched."""


class DamagedDatabase(StorageError):
    """SQLite finds the file corrupt."""


class DatabaseBusy(StorageError):
    """Another program held the database's lock for longer than the busy timeout."""


class DiskFull(StorageError):
    """The database cannot grow: the disk (or SQLite's page limit) is full."""


class DiskError(StorageError):
    """The operating system failed to read or write the file (an I/O error)."""


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


class Storage:
    """The bot's database. Open with `await Storage.open(path)`; close with `close()`."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: str,
        clock: Callable[[], float],
        busy_timeout: float = BUSY_TIMEOUT_MS / 1000,
    ) -> None:
        """Use `Storage.open`; this only wraps an already prepared connection."""
        self._conn: aiosqlite.Connection | None = conn
        self._path = path
        self._clock = clock
        self._busy_timeout = busy_timeout
        self._lock = asyncio.Lock()

    # --- opening and closing ----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = BUSY_TIMEOUT_MS / 1000,
    ) -> Storage:
        """Open (creating or migrating) the database at `path`; ":memory:" for tests.

        Many processes may open one new file at once (every shard process of a bot): the
        first to take the write lock creates the schema, the others wait for it (up to
        `busy_timeout` seconds) and find it done. Raises a `StorageError` subclass that
        names the cause in one line: `CannotOpen` / `PermissionDenied`, `ReadOnlyDatabase`,
        `NotShbotDatabase`, `NewerDatabase`, `DamagedDatabase`, `DatabaseBusy`... A file
        that is not a healthy shbot database of a schema this code knows is never modified.
        """
        name = os.fspath(path)
        connecting = aiosqlite.connect(name, isolation_level=None, timeout=busy_timeout)
        _daemonize(connecting)
        try:
            conn = await connecting
        except sqlite3.Error as exc:
            await _worker_finished(connecting)
            raise _open_fault(exc, name, busy_timeout) from exc
        try:
            await _prepare(conn, name, busy_timeout)
        except BaseException as exc:
            await conn.close()
            if isinstance(exc, sqlite3.Error):
                raise _open_fault(exc, name, busy_timeout) from exc
            raise
        conn.row_factory = sqlite3.Row
        return cls(conn, name, clock, busy_timeout)

    async def close(self) -> None:
        """Close the database once the writes in flight have committed."""
        async with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                await conn.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def path(self) -> str:
        """The database file (or ":memory:")."""
        return self._path

    # --- games ---------------------------------------------------------------------

    async def create_game(
        self,
        *,
        players: int,
        variant: Variant,
        seed: int,
        seats: Sequence[SeatRecord],
        options: Mapping[str, Any],
        guild_id: int | None = None,
        channel_id: int | None = None,
    ) -> int:
        """Store a new running game and its seats; returns the game's id."""
        if sorted(s.seat for s in seats) != list(range(players)):
            raise StorageError(f"A {players}-player game needs exactly seats 0..{players - 1}.")
        for value, what in ((seed, "seed"), (guild_id, "guild id"), (channel_id, "channel id")):
            _check_int64(value, what)
        for s in seats:
            _check_int64(s.user_id, "user id")
        variant_json = _dumps(variant.to_dict(), "variant")
        options_json = _dumps(dict(options), "options")
        now = self._clock()
        async with self._write() as conn:
            inserted = await conn.execute_insert(
                "INSERT INTO games (guild_id, channel_id, players, variant, seed, options,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (guild_id, channel_id, players, variant_json, seed, options_json, now, now),
            )
            assert inserted is not None  # the new row's id, from last_insert_rowid()
            game_id = int(inserted[0])
            async with conn.executemany(
                "INSERT INTO seats (game_id, seat, name, user_id, agent, dealt_user_id,"
                " dealt_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, s.seat, s.name, s.user_id, s.agent, s.user_id, s.name) for s in seats],
            ):
                pass  # leaving the block closes the cursor
        return game_id

    async def append_action(self, game_id: int, seq: int, action: Action) -> None:
        """Append the action at index `seq` of the game's move stack, in one transaction.

        The action is durable when this returns. A duplicate or out-of-order `seq`, an
        unknown game or one that is over raises `StorageError` and writes nothing.
        """
        action_json = _dumps(action.to_dict(), "action")
        now = self._clock()
        async with self._write() as conn:
            row = await _one(
                conn,
                "SELECT status, (SELECT COALESCE(MAX(seq), -1) + 1 FROM actions"
                " WHERE game_id = games.id) FROM games WHERE id = ?",
                (game_id,),
            )
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            status, expected = row
            if status != "running":
                raise StorageError(f"Game #{game_id} is {status}; it takes no more actions.")
            if seq != expected:
                what = "already stored" if seq < expected else "out of order"
                raise StorageError(
                    f"Action {seq} of game #{game_id} is {what}: the next one is {expected}."
                )
            await _all(
                conn,
                "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
                (game_id, seq, action_json, now),
            )
            await _all(conn, "UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))

    async def set_seat(self, game_id: int, seat: SeatRecord, reason: str) -> None:
        """Record who controls a seat now (AI takeover, player back, /afk) and why.

        The change is appended to the seat's takeover history. The human the seat was
        dealt to keeps it for stats; a seat dealt to an AI is credited to the first
        human who takes it.
        """
        _check_int64(seat.user_id, "user id")
        now = self._clock()
        async with self._write() as conn:
            before = await _one(
                conn,
                "SELECT user_id, agent FROM seats WHERE game_id = ? AND seat = ?",
                (game_id, seat.seat),
            )
            if before is None:
                await self._require_game(conn, game_id)
                raise StorageError(f"Game #{game_id} has no seat {seat.seat}.")
            await _all(
                conn,
                "UPDATE seats SET name = ?, user_id = ?, agent = ?,"
                " dealt_user_id = COALESCE(dealt_user_id, ?),"
                " dealt_name = CASE WHEN dealt_user_id IS NULL AND ? IS NOT NULL"
                " THEN ? ELSE dealt_name END"
                " WHERE game_id = ? AND seat = ?",
                (
                    seat.name,
                    seat.user_id,
                    seat.agent,
                    seat.user_id,
                    seat.user_id,
                    seat.name,
                    game_id,
                    seat.seat,
                ),
            )
            await _all(
                conn,
                "INSERT INTO seat_changes (game_id, seat, at, from_user_id, from_agent,"
                " to_user_id, to_agent, to_name, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    seat.seat,
                    now,
                    before["user_id"],
                    before["agent"],
                    seat.user_id,
                    seat.agent,
                    seat.name,
                    reason,
                ),
            )
            await _all(conn, "UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        """Set (or clear, with None) the pending prompt's deadline."""
        if deadline is not None and not math.isfinite(deadline):
            raise StorageError(f"A deadline must be a finite time, not {deadline!r}.")
        async with self._write() as conn:
            updated = await _all(
                conn, "UPDATE games SET deadline = ? WHERE id = ? RETURNING id", (deadline, game_id)
            )
            if not updated:
                raise StorageError(f"No game #{game_id}.")

    async def set_session_state(self, game_id: int, state: Mapping[str, Any]) -> None:
        """Replace the session's bookkeeping (a JSON object) for a game."""
        state_json = _dumps(dict(state), "session state")
        async with self._write() as conn:
            updated = await _all(
                conn,
                "UPDATE games SET session_state = ? WHERE id = ? RETURNING id",
                (state_json, game_id),
            )
            if not updated:
                raise StorageError(f"No game #{game_id}.")

    async def finish_game(
        self,
        game_id: int,
        *,
        status: str,
        winner: Party | None,
        reason: WinReason | None,
        roles: Sequence[Role] | None,
    ) -> None:
        """End a running (or paused) game: "finished" (winner, reason and every seat's
        role, which stats use) or "cancelled" (roles optional, stats ignore it)."""
        if status == "finished":
            if winner is None or reason is None or roles is None:
                raise StorageError("A finished game needs its winner, win reason and roles.")
            if reason.winner is not winner:
                raise StorageError(f"{reason.value} is a {reason.winner.value} win, not {winner}.")
        elif status == "cancelled":
            if winner is not None or reason is not None:
                raise StorageError("A cancelled game has no winner.")
        else:
            raise StorageError(f"A game ends finished or cancelled, not {status!r}.")
        now = self._clock()
        async with self._write() as conn:
            row = await _one(conn, "SELECT status, players FROM games WHERE id = ?", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            if row["status"] not in ("running", "paused"):
                raise StorageError(f"Game #{game_id} is already {row['status']}.")
            if roles is not None and len(roles) != row["players"]:
                raise StorageError(
                    f"Game #{game_id} has {row['players']} seats, not {len(roles)} roles."
                )
            await _all(
                conn,
                "UPDATE games SET status = ?, winner = ?, win_reason = ?, finished_at = ?,"
                " updated_at = ?, deadline = NULL, pause_reason = NULL WHERE id = ?",
                (
                    status,
                    winner.value if winner else None,
                    reason.value if reason else None,
                    now,
                    now,
                    game_id,
                ),
            )
            if roles is not None:
                # `won` is decided here, by the engine's Role.party, not re-derived in SQL.
                async with conn.executemany(
                    "UPDATE seats SET role = ?, won = ? WHERE game_id = ? AND seat = ?",
                    [
                        (
                            role.value,
                            None if winner is None else int(role.party is winner),
                            game_id,
                            seat,
                        )
                        for seat, role in enumerate(roles)
                    ],
                ):
                    pass  # leaving the block closes the cursor

    async def pause_game(self, game_id: int, reason: str) -> None:
        """Mark a running game paused (its task died), with the cause: a type and a place,
        never an exception's message. It takes no actions until `resume_game`."""
        await self._set_status(game_id, "paused", reason, ("running", "paused"))

    async def abandon_game(self, game_id: int, reason: str) -> None:
        """Mark a running (or paused) game abandoned: it cannot be shown any more (its
        channel was deleted, the bot left the server). Never resumed, never counted in
        stats; `reason` (kept as the pause reason) says why, for hosts."""
        await self._set_status(game_id, "abandoned", reason, ("running", "paused"))

    # --- the front-end's messages of running games --------------------------------

    async def shown_messages(self, game_id: int) -> dict[str, ShownMessage]:
        """The messages remembered for a game, by key."""
        async with self._read() as conn:
            rows = await _all(
                conn,
                "SELECT key, message_id, content, deadline FROM game_messages WHERE game_id = ?",
                (game_id,),
            )
        return {r["key"]: ShownMessage(r["message_id"], r["content"], r["deadline"]) for r in rows}

    async def remember_message(self, game_id: int, key: str, message: ShownMessage) -> None:
        """Remember (or replace) the message shown for `key` in a game."""
        async with self._write() as conn:
            await _all(
                conn,
                "INSERT OR REPLACE INTO game_messages (game_id, key, message_id, content, deadline)"
                " VALUES (?, ?, ?, ?, ?)",
                (game_id, key, message.message_id, message.content, message.deadline),
            )

    async def forget_message(self, game_id: int, key: str | None = None) -> None:
        """Forget the message of `key` in a game (None: every message of the game)."""
        async with self._write() as conn:
            if key is None:
                await _all(conn, "DELETE FROM game_messages WHERE game_id = ?", (game_id,))
            else:
                await _all(
                    conn, "DELETE FROM game_messages WHERE game_id = ? AND key = ?", (game_id, key)
                )

    async def resume_game(self, game_id: int) -> None:
        """Mark a paused game running again (a running one stays as it is)."""
        await self._set_status(game_id, "running", None, ("running", "paused"))

    async def _set_status(
        self, game_id: int, status: str, reason: str | None, allowed: tuple[str, ...]
    ) -> None:
        async with self._write() as conn:
            row = await _one(conn, "SELECT status FROM games WHERE id = ?", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            if row["status"] not in allowed:
                raise StorageError(f"Game #{game_id} is {row['status']}, not {status}.")
            await _all(
                conn,
                "UPDATE games SET status = ?, pause_reason = ?, updated_at = ? WHERE id = ?",
                (status, reason, self._clock(), game_id),
            )

    async def load_game(self, game_id: int) -> StoredGame:
        """The stored game; `record.replay()` rebuilds it. StorageError if unknown."""
        async with self._read() as conn:
            row = await _one(conn, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            return await self._stored_game(conn, row)

    async def unfinished_games(self, scope: GameScope | None = None) -> list[StoredGame]:
        """Every running or paused game in `scope` (default: all), oldest first: what
        restart recovery resumes (a restart may have fixed what paused a game).

        A game that does not read back is isolated: marked damaged with its reason (see
        `mark_damaged`), left out, and never returned again; the others come back.
        """
        games: list[StoredGame] = []
        damaged: list[GameDamaged] = []
        async with self._read() as conn:
            rows = await _all(
                conn,
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'paused')"
                " ORDER BY id",
            )
            for row in rows:
                if scope is not None and not scope.owns(row["guild_id"], row["channel_id"]):
                    continue
                try:
                    games.append(await self._stored_game(conn, row))
                except GameDamaged as exc:
                    damaged.append(exc)
        for fault in damaged:
            try:
                await self.mark_damaged(fault.game_id, fault.reason)
            except StorageError as error:  # skipped all the same; the next start tries again
                log.error("game %d: could not be marked damaged (%s)", fault.game_id, error)
        return games

    async def mark_damaged(self, game_id: int, reason: str) -> None:
        """Mark a running (or paused) game damaged: it no longer reads back or replays.
        It is never resumed again and never counted in stats; `reason` (a part and an
        exception type, never a stored value) is kept for hosts and logged once."""
        await self._set_status(game_id, "damaged", reason, ("running", "paused"))
        log.error("game %d is damaged and will not be resumed: %s", game_id, reason)

    async def seat_history(self, game_id: int) -> list[SeatChange]:
        """Every change of seat controller in the game, in the order they happened."""
        async with self._read() as conn:
            await self._require_game(conn, game_id)
            rows = await _all(
                conn,
                "SELECT game_id, seat, at, from_user_id, from_agent, to_user_id, to_agent,"
                " to_name, reason FROM seat_changes WHERE game_id = ? ORDER BY id",
                (game_id,),
            )
        return [SeatChange(*row) for row in rows]

    # --- lists and stats ------------------------------------------------------------

    async def recent_games(
        self, *, guild_id: int | None = None, user_id: int | None = None, limit: int = 10
    ) -> list[GameSummary]:
        """The latest games of any status, newest first; optionally of one guild and/or
        one human (a seat they were dealt or hold)."""
        async with self._read() as conn:
            rows = await _all(
                conn,
                f"SELECT {_SUMMARY_COLUMNS} FROM games AS g"
                " WHERE (:guild IS NULL OR g.guild_id = :guild)"
                " AND (:user IS NULL OR EXISTS (SELECT 1 FROM seats AS s"
                "   WHERE s.game_id = g.id AND (s.dealt_user_id = :user OR s.user_id = :user)))"
                " ORDER BY g.created_at DESC, g.id DESC LIMIT :limit",
                {"guild": guild_id, "user": user_id, "limit": limit},
            )
        return [GameSummary(*row) for row in rows]

    async def player_stats(
        self, user_id: int, *, guild_id: int | None = None, recent: int = 5
    ) -> PlayerStats:
        """A human's finished games (all guilds, or one): wins, wins by role, latest games."""
        params = {"user": user_id, "guild": guild_id, "recent": recent}
        async with self._read() as conn:
            rows = await _all(
                conn,
                "SELECT s.role, COUNT(*), COALESCE(SUM(s.won), 0)"
                " FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                " WHERE s.dealt_user_id = :user AND g.status = 'finished'"
                " AND (:guild IS NULL OR g.guild_id = :guild)"
                " GROUP BY s.role",
                params,
            )
            recent_rows = await _all(
                conn,
                f"SELECT {_SUMMARY_COLUMNS} FROM games AS g"
                " WHERE g.status = 'finished' AND (:guild IS NULL OR g.guild_id = :guild)"
                " AND EXISTS (SELECT 1 FROM seats AS s"
                "   WHERE s.game_id = g.id AND s.dealt_user_id = :user)"
                " ORDER BY g.finished_at DESC, g.id DESC LIMIT :recent",
                params,
            )
        by_role = {role.value: (0, 0) for role in Role}
        for role, games, wins in rows:
            if role in by_role:  # a finished game always has roles; skip damaged rows
                by_role[role] = (int(games), int(wins))
        return PlayerStats(
            user_id=user_id,
            games=sum(g for g, _ in by_role.values()),
            wins=sum(w for _, w in by_role.values()),
            by_role=by_role,
            recent=tuple(GameSummary(*row) for row in recent_rows),
        )

    async def leaderboard(
        self, guild_id: int | None, *, limit: int = 10, min_games: int = 1
    ) -> list[LeaderboardRow]:
        """Humans with at least `min_games` finished games in the guild (None: everywhere),
        best win rate first, then most wins, then most games."""
        async with self._read() as conn:
            rows = await _all(
                conn,
                "WITH played AS ("
                "  SELECT s.dealt_user_id AS user_id, s.dealt_name AS name, s.won,"
                "    g.finished_at, g.id AS game_id"
                "  FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                "  WHERE g.status = 'finished' AND s.dealt_user_id IS NOT NULL"
                "  AND (:guild IS NULL OR g.guild_id = :guild)),"
                " totals AS ("
                "  SELECT user_id, COUNT(*) AS games, COALESCE(SUM(won), 0) AS wins"
                "  FROM played GROUP BY user_id HAVING COUNT(*) >= :min_games)"
                " SELECT t.user_id,"
                "  (SELECT p.name FROM played AS p WHERE p.user_id = t.user_id"
                "   ORDER BY p.finished_at DESC, p.game_id DESC LIMIT 1),"
                "  t.games, t.wins, CAST(t.wins AS REAL) / t.games AS win_rate"
                " FROM totals AS t"
                " ORDER BY win_rate DESC, t.wins DESC, t.games DESC, t.user_id"
                " LIMIT :limit",
                {"guild": guild_id, "min_games": max(1, min_games), "limit": limit},
            )
        return [
            LeaderboardRow(int(user), str(name), int(games), int(wins), float(rate))
            for user, name, games, wins, rate in rows
        ]

    async def ai_fallbacks(self, guild_id: int | None) -> tuple[int, int]:
        """(finished games, AI answers that fell back in them) in a guild (None: every
        game): the alarm of issue 19, counted per game by the session (its state)."""
        async with self._read() as conn:
            rows = await _all(
                conn,
                "SELECT COUNT(*), COALESCE(SUM("
                "  CASE WHEN json_valid(session_state)"
                "  THEN CAST(json_extract(session_state, '$.fallbacks') AS INTEGER) END), 0)"
                " FROM games WHERE status = 'finished' AND (:guild IS NULL OR guild_id = :guild)",
                {"guild": guild_id},
            )
        games, fallbacks = rows[0]
        return int(games), int(fallbacks)

    # --- settings ---------------------------------------------------------------------

    async def get_settings(self, guild_id: int) -> dict[str, Any]:
        """A guild's settings ({} if none were ever set)."""
        return await self._get_json(
            "SELECT settings FROM guild_settings WHERE guild_id = ?", guild_id
        )

    async def set_settings(self, guild_id: int, settings: Mapping[str, Any]) -> None:
        """Replace a guild's settings with `settings` (a JSON-able mapping)."""
        _check_int64(guild_id, "guild id")
        text = _dumps(dict(settings), "settings")
        async with self._write() as conn:
            await _all(
                conn,
                "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (guild_id, text, self._clock()),
            )

    async def get_channel_settings(self, channel_id: int) -> dict[str, Any]:
        """A channel's settings ({} if none were ever set)."""
        return await self._get_json(
            "SELECT settings FROM channel_settings WHERE channel_id = ?", channel_id
        )

    async def set_channel_settings(
        self, guild_id: int | None, channel_id: int, settings: Mapping[str, Any]
    ) -> None:
        """Replace a channel's settings with `settings` (a JSON-able mapping)."""
        _check_int64(guild_id, "guild id")
        _check_int64(channel_id, "channel id")
        text = _dumps(dict(settings), "settings")
        async with self._write() as conn:
            await _all(
                conn,
                "INSERT INTO channel_settings (channel_id, guild_id, settings, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (channel_id) DO UPDATE SET"
                " guild_id = excluded.guild_id, settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (channel_id, guild_id, text, self._clock()),
            )

    # --- backups ----------------------------------------------------------------------

    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the database to `path` while the bot runs.

        Uses SQLite's online backup API in one step under the lock, so the copy holds
        exactly the committed transactions. It is written next to `path` and renamed
        into place, so `path` is never a half-written file.
        """
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        try:
            # check_same_thread=False: aiosqlite runs the copy on its own worker thread.
            dest = sqlite3.connect(partial, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StorageError(f"Cannot write a backup to {target}: {exc}.") from exc
        try:
            async with self._lock:
                await self._live().backup(dest)
        except sqlite3.Error as exc:
            raise StorageError(f"The backup to {target} failed: {exc}.") from exc
        finally:
            dest.close()
        os.replace(partial, target)

    # --- internals ----------------------------------------------------------------------

    def _live(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageError("The database is closed.")
        return self._conn

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: the lock, BEGIN IMMEDIATE, then COMMIT or ROLLBACK."""
        async with self._lock:
            conn = self._live()
            try:
                # BEGIN inside the try: if we are cancelled while it is queued, the
                # rollback (queued after it on the same worker thread) still ends it.
                await _all(conn, "BEGIN IMMEDIATE")
                yield conn
                await conn.commit()  # a failed COMMIT is rolled back below, too
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):  # a failed disk may refuse it too
                    await conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    fault = _fault(exc, self._path, self._busy_timeout)
                    raise fault or StorageError(f"The database refused the change: {exc}.") from exc
                raise

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        """A read transaction: one snapshot across the queries it runs."""
        async with self._lock:
            conn = self._live()
            try:
                await _all(conn, "BEGIN")
                yield conn
            except sqlite3.Error as exc:
                fault = _fault(exc, self._path, self._busy_timeout)
                raise fault or StorageError(f"The database could not be read: {exc}.") from exc
            finally:
                with contextlib.suppress(sqlite3.Error):
                    await conn.rollback()

    async def _require_game(self, conn: aiosqlite.Connection, game_id: int) -> None:
        if await _one(conn, "SELECT 1 FROM games WHERE id = ?", (game_id,)) is None:
            raise StorageError(f"No game #{game_id}.")

    async def _get_json(self, query: str, key: int) -> dict[str, Any]:
        async with self._read() as conn:
            row = await _one(conn, query, (key,))
        return {} if row is None else _json_object(row[0])

    async def _stored_game(self, conn: aiosqlite.Connection, row: sqlite3.Row) -> StoredGame:
        """The game of a `games` row, or `GameDamaged` naming the part that does not read."""
        game_id = int(row["id"])
        seat_rows = await _all(
            conn,
            "SELECT seat, name, user_id, agent, role FROM seats WHERE game_id = ? ORDER BY seat",
            (game_id,),
        )
        action_rows = await _all(
            conn, "SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return _read_back(game_id, row, seat_rows, action_rows)


def _read_back(
    game_id: int,
    row: sqlite3.Row,
    seat_rows: Sequence[sqlite3.Row],
    action_rows: Sequence[sqlite3.Row],
) -> StoredGame:
    """Parse a stored game part by part. A part that does not read raises `GameDamaged`
    naming the part (a column, an action's index, a seat) and the exception's type, never
    the value: a damaged action or seat may hold a hand, a vote or a role."""
    try:
        where = "players"
        players = _integer(row["players"])
        where = "seed"
        seed = _integer(row["seed"])
        where = "guild and channel ids"
        guild_id = _optional_integer(row["guild_id"])
        channel_id = _optional_integer(row["channel_id"])
        where = "variant"
        variant = Variant.from_dict(json.loads(row["variant"]))
        actions: list[Action] = []
        for seq, text in action_rows:
            where = f"action {len(actions)}"
            if seq != len(actions):
                raise GameDamaged(game_id, f"action {len(actions)} is missing")
            actions.append(Action.from_dict(json.loads(text)))
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
        options = json.loads(row["options"])
        if not isinstance(options, dict):
            raise TypeError("not a JSON object")
        where = "result"
        winner = Party(row["winner"]) if row["winner"] else None
        reason = WinReason(row["win_reason"]) if row["win_reason"] else None
    except GameDamaged:
        raise
    except (RecordError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise GameDamaged(game_id, f"{where} does not read ({type(exc).__name__})") from exc
    return StoredGame(
        id=game_id,
        guild_id=guild_id,
        channel_id=channel_id,
        status=row["status"],
        record=GameRecord(players, seed, variant, actions),
        seats=tuple(seats),
        options=options,
        deadline=row["deadline"] if isinstance(row["deadline"], int | float) else None,
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        winner=winner,
        reason=reason,
        roles=roles,
        session_state=_json_object(row["session_state"]),
        pause_reason=row["pause_reason"],
    )


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not a whole number ({type(value).__name__})")
    return value


def _optional_integer(value: object) -> int | None:
    return None if value is None else _integer(value)


async def _prepare(conn: aiosqlite.Connection, name: str, busy_timeout: float) -> None:
    """Check the file, set the connection up, bring the schema to the latest version.

    Nothing is written until the file is known to be a healthy database of a schema
    this code understands, and writable. Safe when many processes open one new file at
    once: the check reads one snapshot (the schema version and the tables together), so
    a file another process is initialising reads either as still empty or as shbot's at
    some version; each migration step re-checks the version under the write lock.
    """
    # Before the first read: another process's lock is waited for, never an error.
    await _all(conn, f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    await _all(conn, "BEGIN")  # one snapshot for the two reads
    try:
        found = await user_version(conn)  # the first read: "file is not a database" shows here
        row = await _one(conn, "SELECT count(*) FROM sqlite_master")
    finally:
        await conn.rollback()
    tables = int(row[0]) if row is not None else 0
    if found > SCHEMA_VERSION:
        raise NewerDatabase(
            f"{name} was written by a newer version of shbot (schema {found}, this version"
            f" knows {SCHEMA_VERSION}); refusing to touch it. Upgrade shbot, or point it at"
            " another database file."
        )
    if found < 0:
        raise DamagedDatabase(_damaged(name, f"schema version {found}"))
    if found == 0 and tables:
        raise NotShbotDatabase(
            f"{name} is a SQLite database, but not one of shbot's; refusing to touch it."
            " Point shbot at a new file."
        )
    problems = [r[0] for r in await _all(conn, "PRAGMA quick_check") if r[0] != "ok"]
    if problems:
        raise DamagedDatabase(_damaged(name, "; ".join(problems[:3])))
    # A read-only file, directory or file system is named now, not when the first move of
    # a game fails to be stored. SQLite opens a file it may not write read-only, and in
    # WAL mode even takes the write lock; only the first real write fails. So: ask the
    # file system, then take the write lock once (writing nothing) for the rest.
    fault = _access_fault(name)
    if fault is not None:
        raise fault
    if name != ":memory:":
        await _all(conn, "BEGIN IMMEDIATE")
        await conn.rollback()
    await _wal(conn, busy_timeout)  # stays "memory" for ":memory:"
    await _all(conn, "PRAGMA synchronous = FULL")  # a commit is on disk before the ack
    await _all(conn, "PRAGMA foreign_keys = ON")
    await migrate(conn)


async def _wal(conn: aiosqlite.Connection, busy_timeout: float) -> None:
    """Switch the file to WAL, waiting up to `busy_timeout` for other processes.

    The switch reads, then needs the file to itself; when another process holds the
    write lock meanwhile (creating the schema), SQLite answers "database is locked" at
    once instead of waiting (waiting could deadlock). So: try again, briefly, until the
    busy timeout, as the busy handler would have.
    """
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            await _all(conn, "PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if _primary(exc) not in (_SQLITE_BUSY, _SQLITE_LOCKED) or time.monotonic() > deadline:
                raise
        await asyncio.sleep(random.uniform(0.002, 0.02))


def _primary(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of an error (the low byte of its extended code)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN = 10, 11, 13, 14
_SQLITE_NOTADB = 26


def _open_fault(exc: sqlite3.Error, name: str, busy_timeout: float) -> StorageError:
    """The typed error, in one line, of a SQLite error while opening `name`."""
    fault = _fault(exc, name, busy_timeout)
    if fault is not None:
        return fault
    if isinstance(exc, sqlite3.DatabaseError):
        return DamagedDatabase(_damaged(name, str(exc)))
    return StorageError(f"Cannot open the database {name}: {exc}.")


def _fault(exc: sqlite3.Error, name: str, busy_timeout: float) -> StorageError | None:
    """The typed error, in one line, of a SQLite error about the database file itself
    (None for any other error: a constraint, a bad query)."""
    primary = _primary(exc)
    detail = str(exc).strip().rstrip(".") or type(exc).__name__
    if primary in (_SQLITE_CANTOPEN, _SQLITE_PERM):
        return _access_fault(name) or CannotOpen(f"Cannot open the database {name}: {detail}.")
    if primary == _SQLITE_READONLY:
        return _access_fault(name) or ReadOnlyDatabase(
            f"{name} is read-only ({detail}): shbot must write to it. Give the user shbot"
            f" runs as ({_user()}) write access to the file and its directory, or point shbot"
            " at another file."
        )
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return DatabaseBusy(
            f"{name} is locked by another program (waited {busy_timeout:g} s): close what"
            " holds it in a long transaction (an sqlite3 shell, a backup tool) and try again."
        )
    if primary == _SQLITE_FULL:
        return DiskFull(
            f"The disk holding {name} is full (or the database reached its size limit);"
            " the last change was not stored. Free some space and try again."
        )
    if primary == _SQLITE_IOERR:
        return DiskError(
            f"The disk failed reading or writing {name} ({detail}); check the disk and"
            " its file system, then try again."
        )
    if primary == _SQLITE_NOTADB:
        return NotShbotDatabase(_damaged(name, detail))
    if primary == _SQLITE_CORRUPT:
        return DamagedDatabase(_damaged(name, detail))
    return None


def _access_fault(name: str) -> StorageError | None:
    """What the file system says about opening and writing `name`, if it refuses."""
    if not name or name == ":memory:" or name.startswith("file:"):
        return None  # private, or a URI: SQLite's own error says it best
    path = Path(name)
    user = _user()
    for folder in (*reversed(path.parents), path):
        try:
            info = folder.stat()
        except FileNotFoundError:
            if folder == path:
                break  # a new file: its directory decides below
            return CannotOpen(
                f"Cannot open the database {name}: the directory {folder} does not exist."
                " Create it, or point shbot at another file."
            )
        except NotADirectoryError:
            return CannotOpen(
                f"Cannot open the database {name}: {folder.parent} is a file, not a directory."
                " Point shbot at a path inside a directory."
            )
        except PermissionError:
            return PermissionDenied(
                f"Permission denied opening the database {name}: the user shbot runs as"
                f" ({user}) may not enter {folder.parent}. Give it read and write access to"
                " the database's directory and the directories above it."
            )
        if folder != path and not stat.S_ISDIR(info.st_mode):
            return CannotOpen(
                f"Cannot open the database {name}: {folder} is a file, not a directory."
                " Point shbot at a path inside a directory."
            )
        if folder != path and not os.access(folder, os.X_OK):
            return PermissionDenied(
                f"Permission denied opening the database {name}: the user shbot runs as"
                f" ({user}) may not enter {folder}. Give it read and write access to the"
                " database's directory and the directories above it."
            )
    folder = path.parent
    if path.exists():
        if stat.S_ISDIR(path.stat().st_mode):
            return CannotOpen(
                f"Cannot open the database {name}: it is a directory. Point shbot at a file."
            )
        if not os.access(path, os.R_OK):
            return PermissionDenied(
                f"Permission denied: the user shbot runs as ({user}) may not read the"
                f" database {name}. Give it read and write access to the file and its directory."
            )
        if not os.access(path, os.W_OK):
            return ReadOnlyDatabase(
                f"{name} is read-only for the user shbot runs as ({user}): shbot must write"
                " to it. Give that user write access to the file and its directory, or point"
                " shbot at another file."
            )
    beside = [Path(f"{name}-wal"), Path(f"{name}-shm")]
    if not os.access(folder, os.W_OK) and not all(os.access(p, os.W_OK) for p in beside):
        what = "the database" if path.exists() else "a new database"
        return ReadOnlyDatabase(
            f"{name}: the directory {folder} is read-only for the user shbot runs as ({user}),"
            f" and SQLite must create files beside {what} (its -wal and -shm). Give that user"
            " write access to the directory."
        )
    return None


def _user() -> str:
    """The user this process runs as, for messages: "name (uid N)"."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is None:
        return "this user"
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name}, uid {uid}"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _daemonize(conn: aiosqlite.Connection) -> None:
    """Make the connection's worker thread a daemon, before it starts.

    Since aiosqlite 0.22 the worker is not a daemon: a path that forgets `close()` (a
    crash in the bot, a failing test) would keep the process alive forever instead of
    exiting and being restarted. A daemon is safe here because every acknowledged write
    is already committed and synced (`synchronous=FULL`); an exit mid-transaction is a
    crash that WAL recovery rolls back, as the hard-kill test shows. `_thread` is
    aiosqlite's private attribute, so this is skipped if it ever changes shape.
    """
    thread = getattr(conn, "_thread", None)
    if isinstance(thread, threading.Thread) and not thread.is_alive():
        thread.daemon = True


async def _worker_finished(conn: aiosqlite.Connection) -> None:
    """Wait until a connection that failed to open has stopped its worker thread.

    aiosqlite stops the worker of a failed connect but does not wait for it: if the
    event loop closes first (a short-lived loop, a test), the worker's last callback
    hits a closed loop and dies with an error in its thread. Same private attribute as
    `_daemonize`; skipped if it changes shape.
    """
    thread = getattr(conn, "_thread", None)
    while isinstance(thread, threading.Thread) and thread.is_alive():
        await asyncio.sleep(0.002)


async def _one(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
) -> sqlite3.Row | None:
    rows = await _all(conn, sql, params)
    return rows[0] if rows else None


def _damaged(name: str, detail: str) -> str:
    return (
        f"{name} is not a readable shbot database ({detail}). It may be damaged or not a"
        " database at all; shbot will not modify it. Restore a backup or move the file away."
    )


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StorageError(f"The {what} cannot be stored as JSON: {exc}.") from exc


def _json_object(text: str | None) -> dict[str, Any]:
    """A stored JSON object; anything else (NULL, damaged text, another type) reads as {}."""
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _check_int64(value: int | None, what: str) -> None:
    if value is not None and not _INT64[0] <= value <= _INT64[1]:
        raise StorageError(f"The {what} {value} does not fit in a 64-bit integer.")
