"""`Storage`: the bot's games, seats, settings and stats, on one database driver.

Games are event-sourced: a game is its variant, seed and the actions accepted so far
(`engine.GameRecord`), so restart recovery reloads the unfinished games and replays them.
The game session writes each accepted action here, in its own transaction, *before* it
announces the result: whatever the table has seen survives a crash. The action log is
append-only, in the database too (triggers refuse an update or a delete). The log is
game_log.py's, lists and stats history.py's; `Storage` joins them.

The SQL is written once, here; a `Driver` runs it on SQLite (`bot.storage.sqlite`, the
embedded default: one file, the processes of one host) or PostgreSQL
(`bot.storage.postgres`: one database for shard processes on many hosts).
`Storage.open` picks the driver from what it is given: a `postgresql://` URL, or a path.

A single game that no longer reads back is isolated: marked `damaged` with its reason and
skipped, while the others resume (`unfinished_games`). Times are epoch seconds (float).
All SQL is parameterised.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from .driver import Driver, ShardLease
from .game_log import GameLog, _one
from .history import History
from .ladder import Ladder
from .records import GameScope, StorageError, _check_int64, _dumps, _json_object

log = logging.getLogger("bot.storage")

BUSY_TIMEOUT_MS = 5000  # another process holding the write lock: wait this long, then fail
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: str | os.PathLike[str]) -> bool:
    """Whether `target` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


class Storage(GameLog, History, Ladder):
    """The bot's database. Open with `await Storage.open(path_or_url)`; `close()` it.

    The append-only game log is `GameLog`'s (game_log.py), lists and stats `History`'s
    (history.py), the rating ladder `Ladder`'s (ladder.py); this class opens the driver,
    claims shards, and keeps settings."""

    def __init__(self, driver: Driver, clock: Callable[[], float]) -> None:
        """Use `Storage.open`; this only wraps an open driver."""
        self._driver = driver
        self._clock = clock

    # --- opening and closing ----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        target: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = BUSY_TIMEOUT_MS / 1000,
    ) -> Storage:
        """Open (creating or migrating) the database: a `postgresql://` URL, else a SQLite
        file path (":memory:" for tests).

        Many processes may open one new database at once (every shard process of a bot):
        one creates the schema, the others wait for it (up to `busy_timeout` seconds) and
        find it done. Raises a `StorageError` subclass that names the cause in one line:
        `CannotOpen` / `PermissionDenied`, `ReadOnlyDatabase`, `NotShbotDatabase`,
        `NewerDatabase`, `DamagedDatabase`, `DatabaseBusy`... A database that is not a
        healthy shbot database of a schema this code knows is never modified.
        """
        driver: Driver
        if is_database_url(target):
            from .postgres import PostgresDriver  # asyncpg: only with the [postgres] extra

            driver = await PostgresDriver.connect(str(target), busy_timeout=busy_timeout)
        else:
            from .sqlite import SQLiteDriver

            driver = await SQLiteDriver.connect(os.fspath(target), busy_timeout=busy_timeout)
        storage = cls(driver, clock)
        try:
            # Games finished before the ladder existed (schema 6) join it now, oldest first.
            await storage.rate_unrated()
        except StorageError as exc:  # the ladder lags until the next open; games go on
            log.warning("could not rate the finished games not rated yet: %s", exc)
        return storage

    async def close(self) -> None:
        """Close the database once the writes in flight have committed."""
        await self._driver.close()

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
        """The database: a file (or ":memory:"), or a URL without its password."""
        return self._driver.name

    @property
    def driver(self) -> Driver:
        """The driver the SQL runs on (tests reach the database through it)."""
        return self._driver

    async def claim_shards(self, scope: GameScope) -> ShardLease | None:
        """Claim `scope`'s shards of a shared database against the bot's other processes
        (PostgreSQL: advisory locks on this connection, which fence every write), or raise
        `ShardConflict` naming the fix. None for a SQLite file, whose claim is made of file
        locks beside it (`bot.manager.ShardClaim`)."""
        return await self._driver.claim(scope)

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
        async with self._driver.write() as tx:
            await tx.all(
                "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (guild_id, text, self._clock()),
            )

    async def merge_settings(
        self,
        guild_id: int,
        changes: Mapping[str, Any],
        check: Callable[[dict[str, Any]], None] = lambda merged: None,
    ) -> dict[str, Any]:
        """Merge `changes` into a guild's settings in one transaction, so two changes at
        once both count (a read, then a write of the whole, lost one); `check` sees the
        merged settings first and may raise to store nothing. Returns them merged."""
        _check_int64(guild_id, "guild id")
        now = self._clock()
        async with self._driver.write() as tx:
            # The row exists, locked (PostgreSQL), before it is read: a second merge waits.
            await tx.all(
                "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, '{}', ?)"
                " ON CONFLICT (guild_id) DO NOTHING",
                (guild_id, now),
            )
            row = await _one(
                tx, f"SELECT settings FROM guild_settings WHERE guild_id = ?{tx.lock}", (guild_id,)
            )
            current = {} if row is None else _json_object(row[0])
            merged = {**current, **changes}
            check(merged)
            if merged != current:
                await tx.all(
                    "UPDATE guild_settings SET settings = ?, updated_at = ? WHERE guild_id = ?",
                    (_dumps(merged, "settings"), now, guild_id),
                )
        return merged

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
        async with self._driver.write() as tx:
            await tx.all(
                "INSERT INTO channel_settings (channel_id, guild_id, settings, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (channel_id) DO UPDATE SET"
                " guild_id = excluded.guild_id, settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (channel_id, guild_id, text, self._clock()),
            )

    # --- backups ----------------------------------------------------------------------

    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the database to `path` while the bot runs (SQLite:
        the online backup API, written beside `path` and renamed into place)."""
        await self._driver.backup(path)

    # --- internals ----------------------------------------------------------------------

    async def _get_json(self, query: str, key: int) -> dict[str, Any]:
        async with self._driver.read() as tx:
            row = await _one(tx, query, (key,))
        return {} if row is None else _json_object(row[0])
