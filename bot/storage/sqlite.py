"""The SQLite driver: the embedded default, one database file for the processes of one host.

Connection model (the choice the design asks us to document): one aiosqlite connection,
in autocommit mode with explicit `BEGIN IMMEDIATE` transactions, guarded by one
`asyncio.Lock`. Reads share that connection and that lock: a read never sees a write
transaction half done, and a single writer never waits on SQLite's own locks. Reads are
short indexed queries, so the lock costs little; `busy_timeout` covers another process
(say `shbot` stats from a shell) touching the same file. WAL lets such a reader run
alongside us, and `synchronous=FULL` makes a commit durable before it is acknowledged.

Processes: every process of one bot (one per group of shards, all on one host) opens the
same file; each drives the games of its own shards (`GameScope`, claimed with file locks
by `bot.manager.ShardClaim`), and the first open of a new file by many processes at once
is safe (see `_prepare`). The terminal shares the file too: its games have no channel,
and the bot never resumes them.

Faults are typed (`StorageError` and its subclasses), each with one line that names the
cause and the fix: a read-only file or directory, permission denied, not shbot's file, a
newer schema, a damaged file, a lock held too long, a full disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sqlite3
import stat
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from ..migrations import SCHEMA_VERSION, migrate, user_version
from ..migrations import run as _all
from .driver import Driver, Params, ShardLease
from .records import (
    CannotOpen,
    DamagedDatabase,
    DatabaseBusy,
    DiskError,
    DiskFull,
    GameScope,
    NewerDatabase,
    NotShbotDatabase,
    PermissionDenied,
    ReadOnlyDatabase,
    StorageError,
)


class _SQLiteTx:
    """A transaction on the driver's one connection."""

    lock = ""  # BEGIN IMMEDIATE already serialises every write

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def all(self, sql: str, params: Params = ()) -> list[Any]:
        return await _all(self.conn, sql, params)

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        async with self.conn.executemany(sql, rows):
            pass  # leaving the block closes the cursor


class SQLiteDriver(Driver):
    """One aiosqlite connection and the lock every transaction takes."""

    fallbacks = (
        "CASE WHEN json_valid(session_state)"
        " THEN CAST(json_extract(session_state, '$.fallbacks') AS INTEGER) END"
    )

    def __init__(self, conn: aiosqlite.Connection, path: str, busy_timeout: float) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._path = path
        self._busy_timeout = busy_timeout
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(cls, name: str, *, busy_timeout: float) -> SQLiteDriver:
        """Open (creating or migrating) the file `name`; see `Storage.open`."""
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
        return cls(conn, name, busy_timeout)

    @property
    def name(self) -> str:
        return self._path

    async def close(self) -> None:
        async with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                await conn.close()

    def live(self) -> aiosqlite.Connection:
        """The open connection (tests poke SQLite through it); `StorageError` if closed."""
        if self._conn is None:
            raise StorageError("The database is closed.")
        return self._conn

    @asynccontextmanager
    async def write(self) -> AsyncIterator[_SQLiteTx]:
        """One write transaction: the lock, BEGIN IMMEDIATE, then COMMIT or ROLLBACK."""
        async with self._lock:
            conn = self.live()
            try:
                # BEGIN inside the try: if we are cancelled while it is queued, the
                # rollback (queued after it on the same worker thread) still ends it.
                await _all(conn, "BEGIN IMMEDIATE")
                yield _SQLiteTx(conn)
                await conn.commit()  # a failed COMMIT is rolled back below, too
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):  # a failed disk may refuse it too
                    await conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    fault = _fault(exc, self._path, self._busy_timeout)
                    raise fault or StorageError(f"The database refused the change: {exc}.") from exc
                raise

    @asynccontextmanager
    async def read(self) -> AsyncIterator[_SQLiteTx]:
        """A read transaction: one snapshot across the queries it runs."""
        async with self._lock:
            conn = self.live()
            try:
                await _all(conn, "BEGIN")
                yield _SQLiteTx(conn)
            except sqlite3.Error as exc:
                fault = _fault(exc, self._path, self._busy_timeout)
                raise fault or StorageError(f"The database could not be read: {exc}.") from exc
            finally:
                with contextlib.suppress(sqlite3.Error):
                    await conn.rollback()

    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Copy with SQLite's online backup API in one step under the lock, so the copy
        holds exactly the committed transactions. It is written next to `path` and renamed
        into place, so `path` is never a half-written file; anything but a file of its
        own (a directory, a device, the database itself) is refused first (StorageError),
        as is a place it cannot write to."""
        target = Path(path)
        _backup_target(target, Path(self._path))
        partial = target.with_name(target.name + ".partial")
        try:
            partial.unlink(missing_ok=True)
            # check_same_thread=False: aiosqlite runs the copy on its own worker thread.
            dest = sqlite3.connect(partial, check_same_thread=False)
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(f"Cannot write a backup to {target}: {exc}.") from exc
        try:
            try:
                async with self._lock:
                    await self.live().backup(dest)
            finally:
                dest.close()
            os.replace(partial, target)
        except (sqlite3.Error, OSError) as exc:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
            raise StorageError(f"The backup to {target} failed: {exc}.") from exc

    async def claim(self, scope: GameScope) -> ShardLease | None:
        return None  # file locks beside the file: bot.manager.ShardClaim


def _backup_target(target: Path, database: Path) -> None:
    """Refuse a backup target that is not a file of its own (StorageError): written next
    to it and renamed over it, a directory would fail half-way, a device be replaced
    (/dev/null, as root), and the database's own path lose every write made since."""
    if not target.name or target.name in (".", ".."):
        raise StorageError(f"A backup needs a file name, not {str(target)!r}.")
    with contextlib.suppress(OSError):
        # SQLite's own files beside the database: a copy renamed over the write-ahead
        # log of a running bot would lose the moves it holds.
        own = {Path(f"{database.resolve()}{suffix}") for suffix in ("-wal", "-shm", "-journal")}
        if target.resolve() in own:
            raise StorageError(
                f"{target} is one of the database's own files: write the backup elsewhere."
            )
    if not target.exists():
        return
    if not target.is_file():
        raise StorageError(f"Cannot write a backup to {target}: it is not a regular file.")
    with contextlib.suppress(OSError):
        if target.samefile(database):
            raise StorageError(
                f"{target} is the database itself: write the backup to another file."
            )


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
