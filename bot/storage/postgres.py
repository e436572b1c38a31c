"""The PostgreSQL driver (asyncpg): one database for bot processes on many hosts.

Chosen by `DATABASE_URL=postgresql://user:password@host:port/database` (the `[postgres]`
extra installs asyncpg). The guarantees are SQLite's:

- An acknowledged write is durable: every transaction commits with
  `synchronous_commit=on` before `Storage` returns.
- Writes that decide on a row lock it (`SELECT ... FOR UPDATE`) until they commit, so a
  status change and an append never interleave, whichever process makes them; the
  primary key (game, seq) refuses a second action at one index of a game.
- Faults are the same typed `StorageError`s, one line each, naming the database by its
  URL without the password.

Connection model: one asyncpg connection per `Storage`, guarded by one `asyncio.Lock`,
as on SQLite. That one connection also holds this process's shard claim (`claim`):
session advisory locks, which PostgreSQL releases the moment the session ends. Because
every write runs on the session that holds the claim, a write can only commit while
the claim stands: that is the fence. A process that dies (kill -9, a lost host) drops
its session and so its shards; the server notices a silent peer through TCP keepalives
(set below), so a partitioned process's shards pass on after about half a minute. When
this process finds its connection gone, it reconnects, ends its old session if the
server still runs it (a connection cut mid-COMMIT leaves one waiting for a standby,
holding the shards), and re-takes its shards before any write; if another process
took them meanwhile it raises `ShardsLost` and writes nothing. (Should another process
have taken a shard and let it go in between, its writes are in the log, and ours at
the same index is refused as "already stored": a game is never driven forward from two
places.)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]

from ..migrations import SCHEMA_VERSION
from .conflict import ShardConflict
from .driver import Driver, Params, ShardLease
from .pg_schema import MIGRATIONS
from .records import (
    CannotOpen,
    ConnectionLost,
    DamagedDatabase,
    DatabaseBusy,
    DiskError,
    DiskFull,
    GameScope,
    NewerDatabase,
    NotShbotDatabase,
    PermissionDenied,
    ReadOnlyDatabase,
    ShardsLost,
    StorageError,
)

# Advisory lock keys (two int4s: a namespace, then a number). Locks are per database.
_EVERY, _COUNT, _SHARD, _GUARD = 0x53480001, 0x53480002, 0x53480003, 0x53480004
_CLAIMING, _MIGRATING = 0, 1  # the two uses of _GUARD

# Server settings for shbot's sessions. keepalives: a peer that went silent (a dead host,
# a partition) is dropped, and its advisory locks with it, after ~10 + 4 * 5 s.
_SESSION = {
    "application_name": "shbot",
    "synchronous_commit": "on",
    "tcp_keepalives_idle": "10",
    "tcp_keepalives_interval": "5",
    "tcp_keepalives_count": "4",
    "idle_in_transaction_session_timeout": "60000",
}

# How long one call may take, from the wait for the driver's lock to its COMMIT. Every
# game of the process shares the one connection, so a call that never returns (a
# failover, a partitioned host, a COMMIT waiting for a lost synchronous standby) must
# fail in time: its game pauses with the cause and the others go on, rather than all of
# them freezing. A row lock held elsewhere ends sooner, through the server's
# lock_timeout (the busy timeout: 5 s, as SQLite's BUSY_TIMEOUT_MS), as DatabaseBusy with
# the session intact; three of those is long enough for a write's few lock waits, so
# what is still waiting then is a server that does not answer.
ROUND_TRIP_TIMEOUT_S = 15.0

# Errors that mean the session is gone. InternalClientError ("another operation is in
# progress") is one: a session the server ended while it sat idle (pg_terminate_backend,
# a restart) fails its next BEGIN so when asyncpg has read the server's goodbye but not
# yet the socket's close, before `is_closed()` says so (`_begin` starts over on a new
# session: nothing but BEGIN was sent).
_LOST: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.InternalClientError,
    asyncpg.InterfaceError,
    ConnectionError,
    OSError,
    asyncio.TimeoutError,
)

_ERRORS: tuple[type[BaseException], ...] = (
    asyncpg.PostgresError,
    *_LOST,
)  # what a driver call may raise from the database


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}@{host}" if parts.username else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@functools.lru_cache(maxsize=512)
def _dialect(sql: str) -> tuple[str, tuple[str, ...] | None]:
    """`Storage`'s SQL for asyncpg: `?` becomes $1, $2...; `:name` the same $n each time
    it appears (the names in order are returned, to pick the values)."""
    if "?" in sql:
        count = iter(range(1, sql.count("?") + 1))
        return re.sub(r"\?", lambda _: f"${next(count)}", sql), None
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    return re.sub(r"(?<![:\w]):([A-Za-z_]\w*)", number, sql), tuple(names)


def _args(names: tuple[str, ...] | None, params: Params) -> list[Any]:
    if not names:
        return list(params)
    assert isinstance(params, Mapping)
    return [params[name] for name in names]


class _PgTx:
    """A transaction on the driver's connection."""

    lock = " FOR UPDATE"

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def all(self, sql: str, params: Params = ()) -> list[Any]:
        query, names = _dialect(sql)
        return list(await self.conn.fetch(query, *_args(names, params)))

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        query, _ = _dialect(sql)
        await self.conn.executemany(query, rows)


class _Lease:
    """The advisory locks one `claim` took; `release` hands them back to the driver."""

    def __init__(self, driver: PostgresDriver, scope: GameScope, keys: list[tuple[int, int]]):
        self._driver: PostgresDriver | None = driver
        self.scope = scope
        self.keys = keys

    def release(self) -> None:
        driver, self._driver = self._driver, None
        if driver is not None:
            driver.release(self)


class PostgresDriver(Driver):
    """One asyncpg connection, the lock every transaction takes, and this process's
    shard claim on that connection's session."""

    fallbacks = "shbot_fallbacks(session_state)"

    def __init__(
        self, url: str, conn: Any, busy_timeout: float, session: _ServerSession | None = None
    ) -> None:
        self._url = url
        self._name = redact(url)
        self._conn: Any = conn
        self._session = session  # the server session of `_conn`, ended on a reconnect
        self._closed = False
        self._busy_timeout = busy_timeout
        self._lock = asyncio.Lock()
        self._leases: list[_Lease] = []  # held now: re-taken after a reconnect
        self._to_unlock: list[tuple[int, int]] = []  # released, not yet unlocked
        self._unlocking: set[asyncio.Task[None]] = set()

    @classmethod
    async def connect(cls, url: str, *, busy_timeout: float) -> PostgresDriver:
        """Connect, check the database is shbot's (or empty) and bring its schema to the
        latest version; see `Storage.open`."""
        name = redact(url)
        conn = await _connect(url, name, busy_timeout)
        try:
            await _prepare(conn, name, busy_timeout)
            session = await _identify(conn)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await conn.close()
            if isinstance(exc, StorageError):
                raise
            if isinstance(exc, _ERRORS):
                raise _open_fault(exc, name, busy_timeout) from exc
            raise
        return cls(url, conn, busy_timeout, session)

    @property
    def name(self) -> str:
        return self._name

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
            self._leases.clear()
            if self._conn is not None:
                conn, self._conn = self._conn, None
                with contextlib.suppress(Exception):  # closing drops every advisory lock
                    await conn.close(timeout=self._busy_timeout)

    @asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        """The driver's lock for one call, bounded with the wait for it by
        `ROUND_TRIP_TIMEOUT_S`; past the bound, `ConnectionLost` (or `DatabaseBusy` if the
        lock never came: an earlier call holds it, and meets its own bound).

        At the bound the session is ended (`_cut`) before the call sees its cancellation:
        asyncpg can be asked nothing more of a connection mid-query (a ROLLBACK would wait
        on the hung server too), and the server rolls back what was not committed. The
        next call connects anew (`_live`)."""
        bound = ROUND_TRIP_TIMEOUT_S  # read per call: tests shorten it
        locked, timer = False, asyncio.timeout(bound)
        try:
            async with timer, self._lock:
                locked = True
                when = timer.when()
                assert when is not None
                cut = asyncio.get_running_loop().call_at(when, self._cut)
                try:
                    yield
                finally:
                    cut.cancel()
        except Exception as exc:  # a CancelledError is another's cancellation: it goes on
            if not timer.expired():
                raise
            if not locked:
                raise DatabaseBusy(
                    f"An earlier call to {self._name} has not returned in {bound:g} s; this"
                    " change was not made. Try again once the database answers."
                ) from None
            raise ConnectionLost(
                f"{self._name} did not answer within {bound:g} s (the server or the network"
                " hangs, or a lock is held elsewhere); the last change was not acknowledged."
                " shbot reconnects on the next change."
            ) from exc

    def _cut(self) -> None:
        """End the session of a call that met its bound (see `_turn`)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()  # the server ends the session: its locks go, its work rolls back

    @asynccontextmanager
    async def write(self) -> AsyncIterator[_PgTx]:
        """One write transaction on the claim's session: COMMIT or ROLLBACK."""
        async with self._turn():
            conn, tx = await self._begin()
            try:
                yield _PgTx(conn)
                await tx.commit()
            except BaseException as exc:
                with contextlib.suppress(Exception):
                    await tx.rollback()
                if isinstance(exc, _ERRORS):
                    fault = _fault(exc, self._name, self._busy_timeout)
                    raise fault or StorageError(f"The database refused the change: {exc}.") from exc
                raise

    @asynccontextmanager
    async def read(self) -> AsyncIterator[_PgTx]:
        """A read-only transaction at REPEATABLE READ: one snapshot for its queries."""
        async with self._turn():
            conn, tx = await self._begin(isolation="repeatable_read", readonly=True)
            try:
                yield _PgTx(conn)
            except _ERRORS as exc:
                fault = _fault(exc, self._name, self._busy_timeout)
                raise fault or StorageError(f"The database could not be read: {exc}.") from exc
            finally:
                with contextlib.suppress(Exception):
                    await tx.rollback()

    async def _begin(self, **options: Any) -> tuple[Any, Any]:
        """A started transaction on the live session (under the lock). If BEGIN finds
        the session gone (`_LOST`), the session is dropped and BEGIN tried once
        more on a new one, which first re-takes this process's shards (`_live`)."""
        try:
            conn = await self._live()
            tx = conn.transaction(**options)
            try:
                await tx.start()
            except _LOST:
                conn.terminate()  # closed now: `_live` connects anew
                conn = await self._live()
                tx = conn.transaction(**options)
                await tx.start()
        except _ERRORS as exc:
            fault = _fault(exc, self._name, self._busy_timeout)
            raise fault or StorageError(f"The database could not be used: {exc}.") from exc
        return conn, tx

    async def backup(self, path: str | os.PathLike[str]) -> None:
        raise StorageError(
            f"shbot backup copies SQLite files; back up {self._name} with PostgreSQL's own"
            f" tools instead (pg_dump, or the server's continuous archiving)."
        )

    # --- shard claims ----------------------------------------------------------------

    async def claim(self, scope: GameScope) -> ShardLease:
        """Take `scope`'s advisory locks on this session (see the module's docstring)."""
        async with self._turn():
            conn = await self._live()
            keys = await _take(conn, scope, self._name, self._busy_timeout)
            lease = _Lease(self, scope, keys)
            self._leases.append(lease)
            return lease

    def release(self, lease: _Lease) -> None:
        """Forget a lease; its locks are unlocked before the next transaction."""
        if lease in self._leases:
            self._leases.remove(lease)
            self._to_unlock.extend(lease.keys)
            with contextlib.suppress(RuntimeError):  # no loop: the next use unlocks them
                task = asyncio.get_running_loop().create_task(self._flush())
                self._unlocking.add(task)
                task.add_done_callback(self._unlocking.discard)

    async def _flush(self) -> None:
        with contextlib.suppress(StorageError):  # the next call unlocks them, or a new session
            async with self._turn():
                if self._conn is not None and not self._closed:
                    await self._unlock(self._conn)

    async def _unlock(self, conn: Any) -> None:
        keys, self._to_unlock = self._to_unlock, []
        if conn.is_closed():
            return  # the session is gone, and its locks with it
        try:
            for key in keys:
                await _unlock_one(conn, key)
        except (asyncpg.PostgresError, *_LOST) as exc:
            raise _fault(exc, self._name, self._busy_timeout) or StorageError(str(exc)) from exc

    async def _live(self) -> Any:
        """The connection, after any pending unlocks. A lost connection is replaced, and
        this process's shards re-taken on the new session before it is used: a shard
        another process took meanwhile raises `ShardsLost`."""
        if self._closed:
            raise StorageError("The database is closed.")
        conn = self._conn
        if conn is None or conn.is_closed():
            self._conn = None
            self._to_unlock.clear()  # their session is gone
            conn = await _connect(self._url, self._name, self._busy_timeout)
            self._conn = conn  # already, so that `_cut` ends it too if re-taking hangs
            try:
                # The old session may outlive its cut connection (a COMMIT still waiting
                # for a standby) and hold this process's shards and rows: end it first.
                await _end_session(conn, self._session)
                self._session = await _identify(conn)
                for lease in self._leases:
                    lease.keys = await _take(conn, lease.scope, self._name, self._busy_timeout)
            except BaseException as exc:
                self._conn = None
                if not isinstance(exc, StorageError):
                    conn.terminate()  # cancelled: ending the session drops what it took
                    raise
                with contextlib.suppress(Exception):
                    await conn.close()
                raise ShardsLost(
                    f"This process lost its connection to {self._name}, and with it its"
                    f" shards, which another process holds now ({exc}). Its games are that"
                    " process's: restart this one once the bot's processes agree on their"
                    " SHARD_IDS."
                ) from exc
        if self._to_unlock:
            await self._unlock(conn)
        return conn


# A server session: its backend's pid and start time (a pid alone may be reused).
_ServerSession = tuple[int, Any]


async def _identify(conn: Any) -> _ServerSession | None:
    """The server session `conn` talks to."""
    row = await conn.fetchrow(
        "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
    )
    return None if row is None else (row["pid"], row["backend_start"])


async def _end_session(conn: Any, session: _ServerSession | None) -> None:
    """End `session` (this process's previous one) if it still runs, and wait for it to
    be gone, within half the round-trip bound. Best effort: a role that may not end it
    (or a server before PostgreSQL 14) leaves the claim to say what still holds."""
    if session is None:
        return
    pid, started = session
    with contextlib.suppress(asyncpg.PostgresError):
        await conn.fetchval(
            "SELECT pg_terminate_backend(pid, $3) FROM pg_stat_activity"
            " WHERE pid = $1 AND backend_start = $2",
            pid,
            started,
            int(ROUND_TRIP_TIMEOUT_S * 500),
        )


async def _unlock_one(conn: Any, key: tuple[int, int]) -> None:
    """Drop one advisory lock this session holds (shared for `every`/`count`, else
    exclusive, unless an `every` claim took `every` exclusively)."""
    kind, number = key
    if kind < 0:  # an exclusive `every`, stored negated
        await conn.execute("SELECT pg_advisory_unlock($1, $2)", -kind, number)
    elif kind in (_EVERY, _COUNT):
        await conn.execute("SELECT pg_advisory_unlock_shared($1, $2)", kind, number)
    else:
        await conn.execute("SELECT pg_advisory_unlock($1, $2)", kind, number)


async def _take(conn: Any, scope: GameScope, name: str, wait_s: float) -> list[tuple[int, int]]:
    """Take `scope`'s locks on `conn`'s session, or raise `ShardConflict` (nothing kept).

    The same scheme as `bot.manager.ShardClaim`'s file locks: `every` exclusive for a
    process without SHARD_IDS, shared by sharded ones; `count` N shared by the processes
    of SHARD_COUNT=N (another count held by a live session is found in `pg_locks`); one
    exclusive lock per shard. Claims happen one at a time (a transaction lock).
    """
    taken: list[tuple[int, int]] = []

    async def lock(kind: int, number: int, shared: bool) -> bool:
        function = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        if await conn.fetchval(f"SELECT {function}($1, $2)", kind, number):
            taken.append((kind if shared or kind == _SHARD else -kind, number))
            return True
        return False

    try:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL lock_timeout = {int(wait_s * 1000)}")
            try:
                await conn.execute("SELECT pg_advisory_xact_lock($1, $2)", _GUARD, _CLAIMING)
            except asyncpg.exceptions.LockNotAvailableError:
                raise ShardConflict(
                    f"Another process has been claiming its shards of {name} for"
                    f" {wait_s:g} s: it hangs. Stop it, then start this one again."
                ) from None
            if scope.shard_ids is None:
                if not await lock(_EVERY, 0, shared=False):
                    raise ShardConflict(
                        f"Another process of this bot already drives the games in {name}."
                        " A process without SHARD_IDS runs every shard, so it must be the only"
                        " one: stop the other, or give every process the same SHARD_COUNT and"
                        " its own SHARD_IDS."
                    )
                return taken
            count = scope.shard_count or 1
            if not await lock(_EVERY, 0, shared=True):
                raise ShardConflict(
                    f"A process running every shard (no SHARD_IDS) already drives the games in"
                    f" {name}: stop it, or start it with SHARD_COUNT={count} and its own"
                    " SHARD_IDS too."
                )
            other = await conn.fetchval(
                "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                " AND classid = $1 AND objsubid = 2 AND objid <> $2 AND pid <> pg_backend_pid()"
                " LIMIT 1",
                _COUNT,
                count,
            )
            if other is not None or not await lock(_COUNT, count, shared=True):
                raise ShardConflict(
                    f"Another process of this bot runs with SHARD_COUNT={other or '?'} on"
                    f" {name}, and this one with SHARD_COUNT={count}: every process of one bot"
                    f" must use the same SHARD_COUNT. Stop them all, then start each with"
                    f" SHARD_COUNT={count} and its own SHARD_IDS."
                )
            for shard in sorted(scope.shard_ids):
                if not await lock(_SHARD, shard, shared=False):
                    raise ShardConflict(
                        f"Shard {shard} already runs in another process on {name}. Give each"
                        f" process its own SHARD_IDS: together they list 0..{count - 1}"
                        " once each."
                    )
            return taken
    except BaseException:
        # Session locks outlive the transaction's rollback: hand back what was taken.
        with contextlib.suppress(Exception):
            for key in taken:
                await _unlock_one(conn, key)
        raise


# --- connecting and preparing ---------------------------------------------------------


async def _connect(url: str, name: str, busy_timeout: float) -> Any:
    try:
        conn = await asyncpg.connect(
            url, timeout=max(busy_timeout, 5.0), server_settings=dict(_SESSION)
        )
    except (asyncpg.PostgresError, *_LOST) as exc:
        raise _open_fault(exc, name, busy_timeout) from exc
    try:
        # A row another process keeps locked longer than this is DatabaseBusy, as on SQLite.
        await conn.execute(f"SET lock_timeout = {int(busy_timeout * 1000)}")
    except BaseException:
        conn.terminate()  # not handed out: nobody else would close it
        raise
    return conn


async def _prepare(conn: Any, name: str, busy_timeout: float) -> None:
    """Refuse a database that is not shbot's (or is newer), then migrate it step by step.

    Nothing is written until the database is known to be empty or shbot's at a version
    this code knows. The check and the steps run under a session advisory lock, so
    processes opening one new database at once create the schema once: each waits for
    the one creating it, then finds it done. (A session lock, taken before the check's
    transactions begin: each begins after the previous holder committed, so it sees the
    tables that holder made.) Each step is one transaction with its version bump.
    """
    if await conn.fetchval("SHOW transaction_read_only") == "on":
        raise ReadOnlyDatabase(
            f"{name} is read-only (a standby, or default_transaction_read_only): shbot must"
            " write to it. Point DATABASE_URL at the primary server."
        )
    await conn.execute(f"SET lock_timeout = {int(max(busy_timeout, 30) * 1000)}")
    await conn.execute("SELECT pg_advisory_lock($1, $2)", _GUARD, _MIGRATING)
    try:
        found = await _version(conn, name)
        if found > SCHEMA_VERSION:
            raise NewerDatabase(
                f"{name} was written by a newer version of shbot (schema {found}, this"
                f" version knows {SCHEMA_VERSION}); refusing to touch it. Upgrade shbot, or"
                " point it at another database."
            )
        for version in sorted(MIGRATIONS):
            if version <= found:
                continue
            async with conn.transaction():
                for statement in MIGRATIONS[version]:
                    await conn.execute(statement)
                await conn.execute("UPDATE shbot_schema SET version = $1", version)
    finally:
        with contextlib.suppress(*_ERRORS):  # a lost session has dropped it already
            await conn.execute("SELECT pg_advisory_unlock($1, $2)", _GUARD, _MIGRATING)
            await conn.execute(f"SET lock_timeout = {int(busy_timeout * 1000)}")
    writable = await conn.fetchval(
        "SELECT has_table_privilege('games', 'INSERT') AND has_table_privilege('actions', 'INSERT')"
    )
    if not writable:
        raise ReadOnlyDatabase(
            f"{name}: the user shbot logs in as may read but not write shbot's tables. Grant"
            " it INSERT, UPDATE and DELETE on them, or log in as their owner."
        )


async def _version(conn: Any, name: str) -> int:
    """The schema version (0 for an empty database); `NotShbotDatabase` if the database
    holds tables but not shbot's version table."""
    known = await conn.fetchval(
        "SELECT count(*) FROM pg_tables"
        " WHERE schemaname = current_schema() AND tablename = 'shbot_schema'"
    )
    if not known:
        tables = await conn.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        )
        if tables:
            raise NotShbotDatabase(
                f"{name} holds tables, but not shbot's; refusing to touch it. Point"
                " DATABASE_URL at a new (empty) database."
            )
        return 0
    value = await conn.fetchval("SELECT max(version) FROM shbot_schema")
    if not isinstance(value, int) or value < 0:
        raise DamagedDatabase(
            f"{name} is not a readable shbot database (schema version {value!r}); shbot"
            " will not modify it. Restore a backup or point DATABASE_URL elsewhere."
        )
    return value


def _open_fault(exc: BaseException, name: str, busy_timeout: float) -> StorageError:
    """The typed error of a failure while connecting or preparing: every one is named."""
    fault = _fault(exc, name, busy_timeout, opening=True)
    return fault or StorageError(f"Cannot open the database {name}: {exc}.")


def _fault(
    exc: BaseException, name: str, busy_timeout: float, *, opening: bool = False
) -> StorageError | None:
    """The typed error, in one line, of an asyncpg error (None for any other: a
    constraint, a bad query; except while opening, when every error is named)."""
    detail = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
    errors = asyncpg.exceptions
    if isinstance(exc, errors.InvalidPasswordError | errors.InvalidAuthorizationSpecificationError):
        return PermissionDenied(
            f"The database server refuses shbot's login to {name} ({detail}). Check the user"
            " and password in DATABASE_URL."
        )
    if isinstance(exc, errors.InsufficientPrivilegeError):
        return PermissionDenied(
            f"Permission denied in {name} ({detail}). Grant the user shbot logs in as"
            " access to the database and shbot's tables."
        )
    if isinstance(exc, errors.InvalidCatalogNameError):
        return CannotOpen(
            f"Cannot open the database {name}: {detail}. Create it (createdb), or fix DATABASE_URL."
        )
    if isinstance(exc, errors.ReadOnlySQLTransactionError):
        return ReadOnlyDatabase(
            f"{name} is read-only ({detail}): shbot must write to it. Point DATABASE_URL at"
            " the primary server."
        )
    if isinstance(exc, errors.DiskFullError):
        return DiskFull(
            f"The disk of the database server of {name} is full; the last change was not"
            " stored. Free some space on the server and try again."
        )
    if isinstance(exc, errors.PostgresIOError):
        return DiskError(
            f"The database server failed reading or writing {name} ({detail}); check its"
            " disk, then try again."
        )
    if isinstance(exc, errors.DataCorruptedError | errors.IndexCorruptedError):
        return DamagedDatabase(
            f"{name} is not a readable shbot database ({detail}). Restore a backup, or"
            " repair it with PostgreSQL's tools (REINDEX)."
        )
    if isinstance(
        exc,
        errors.LockNotAvailableError | errors.DeadlockDetectedError | errors.QueryCanceledError,
    ):
        return DatabaseBusy(
            f"{name} is locked by another program (waited {busy_timeout:g} s): end what"
            " holds its rows in a long transaction and try again."
        )
    if isinstance(exc, errors.TooManyConnectionsError):
        return CannotOpen(
            f"Cannot open the database {name}: the server has no connection to spare"
            f" ({detail}). Raise its max_connections, or stop what holds them."
        )
    if isinstance(exc, _LOST):
        if opening:
            return CannotOpen(
                f"Cannot reach the database server of {name} ({detail}). Start it, or fix"
                " the host and port in DATABASE_URL."
            )
        return ConnectionLost(
            f"The connection to {name} was lost ({detail}); the last change was not"
            " acknowledged. shbot reconnects on the next change."
        )
    if opening:
        return StorageError(f"Cannot open the database {name}: {detail}.")
    return None
