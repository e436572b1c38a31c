"""bot.storage on PostgreSQL, where it differs from a file: the database refuses what the
schema forbids, a damaged game is isolated, a server or database that cannot be used is
named in one line, many processes create one new database's schema once, and a lost
connection is replaced. Every test here runs on a real server the tests start
(tests/bot/postgres_server.py); the suite shared with SQLite is in test_storage.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import random
import socket
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncpg
import pytest

from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.migrations import SCHEMA_VERSION
from bot.storage import (
    CannotOpen,
    GameDamaged,
    NewerDatabase,
    NotShbotDatabase,
    ReadOnlyDatabase,
    SeatRecord,
    Storage,
    StorageError,
)
from bot.storage.driver import Params
from bot.storage.pg_schema import MIGRATIONS
from bot.storage.postgres import _args, _dialect, _PgTx
from engine import Action, Game, Party, Role, WinReason
from tests.bot.conftest import normalised
from tests.bot.pg_faults import fail_next_begin
from tests.bot.test_recovery import Freezer, _kill_points, _play
from tests.bot.test_storage_faults import DAMAGE, HUMAN, _three_games

if TYPE_CHECKING:
    from tests.bot.postgres_server import PgServer

pytest_plugins = ["tests.bot.postgres_server"]
pytestmark = pytest.mark.postgres
FORK = multiprocessing.get_context("fork")


def _db(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert text and "\n" not in text, text
    return text


async def test_the_action_log_is_append_only_in_the_database_too(
    pg_url: str, pg_server: PgServer
) -> None:
    async with await Storage.open(pg_url) as store:
        game = Game(5, seed=2)
        game_id = await store.create_game(
            players=5, variant=game.variant, seed=2, seats=_seats(), options={}
        )
        await store.append_action(game_id, 0, game.legal_actions(game.awaiting()[0])[0])
    for statement in (
        "UPDATE actions SET action = '{}'",
        "DELETE FROM actions",
        "TRUNCATE actions CASCADE",
    ):
        with pytest.raises(RuntimeError, match="append-only"):
            pg_server.sql(_db(pg_url), statement)
    assert pg_server.sql(_db(pg_url), "SELECT count(*) FROM actions").strip() == "1"


def _seats() -> list[Any]:
    from bot.storage import SeatRecord

    return [SeatRecord(s, f"p{s}", 100 + s if s == 0 else None, None) for s in range(5)]


# The damages PostgreSQL's column types allow (a seed or a user id that is not a number
# cannot be stored there at all).
PG_DAMAGE = sorted(c for c in DAMAGE if "not a number" not in c)


@pytest.mark.parametrize("cause", PG_DAMAGE)
async def test_a_damaged_game_is_marked_and_skipped_while_the_others_resume(
    pg_url: str, pg_server: PgServer, caplog: pytest.LogCaptureFixture, cause: str
) -> None:
    await _three_games(pg_url)  # type: ignore[arg-type]
    statements, where = DAMAGE[cause]
    for statement in statements:
        pg_server.sql(_db(pg_url), statement)
    caplog.set_level(logging.INFO, logger="bot")
    async with await Storage.open(pg_url) as store:
        manager = SessionManager(store, FakeFrontend())
        assert sorted(s.game_id for s in await manager.recover()) == [1, 3]
        await manager.shutdown()
        lines = [r.getMessage() for r in caplog.records if "game 2" in r.getMessage()]
        assert len(lines) == 1 and "damaged" in lines[0] and where in lines[0], lines
        for secret in ("fascist", "liberal", "hitler", "ada", "Ada"):
            assert secret not in lines[0]
        with pytest.raises(GameDamaged) as error:
            await store.load_game(2)
        assert where in _one_line(error.value)
        assert (await store.player_stats(HUMAN)).games == 0
        assert [g.id for g in await store.unfinished_games()] == [1, 3]
    status = pg_server.sql(_db(pg_url), "SELECT status FROM games WHERE id = 2").strip()
    assert status == "damaged"


async def test_damaged_bookkeeping_reads_as_nothing_known(pg_url: str, pg_server: PgServer) -> None:
    """Session state and the AI fallback count in it: damaged text reads as empty."""
    async with await Storage.open(pg_url) as store:
        game_id = await store.create_game(
            players=5, variant=Game(5).variant, seed=1, seats=_seats(), options={}
        )
        await store.set_session_state(game_id, {"fallbacks": 3})
        await store.finish_game(
            game_id,
            status="finished",
            winner=Party.LIBERAL,
            reason=WinReason.FIVE_LIBERAL,
            roles=[Role.LIBERAL] * 3 + [Role.FASCIST, Role.HITLER],
        )
        assert await store.ai_fallbacks(None) == (1, 3)
    pg_server.sql(_db(pg_url), "UPDATE games SET session_state = '{not json'")
    async with await Storage.open(pg_url) as store:
        assert (await store.load_game(game_id)).session_state == {}
        assert await store.ai_fallbacks(None) == (1, 0)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_server_or_database_that_cannot_be_used_is_named_in_one_line(
    pg_server: PgServer, pg_url: str
) -> None:
    nobody = f"postgresql://shbot:secret@127.0.0.1:{_free_port()}/shbot"
    with pytest.raises(CannotOpen) as error:
        await Storage.open(nobody, busy_timeout=2)
    text = _one_line(error.value)
    assert "Cannot reach" in text and "secret" not in text and "shbot@127.0.0.1" in text

    with pytest.raises(CannotOpen, match="Create it"):
        await Storage.open(pg_server.url("no_such_database"))

    with pytest.raises(StorageError, match="pg_dump"):
        async with await Storage.open(pg_url) as store:
            await store.backup("/tmp/never-written")


async def test_a_database_that_is_not_shbots_or_newer_is_refused_untouched(
    pg_server: PgServer,
) -> None:
    other = pg_server.create_database("another_program")
    pg_server.sql("another_program", "CREATE TABLE accounts (id INTEGER)")
    with pytest.raises(NotShbotDatabase) as error:
        await Storage.open(other)
    assert "not shbot's" in _one_line(error.value)
    tables = pg_server.sql(
        "another_program", "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
    )
    assert tables.split() == ["accounts"]

    newer = pg_server.create_database("newer_shbot")
    async with await Storage.open(newer):
        pass
    pg_server.sql("newer_shbot", f"UPDATE shbot_schema SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(NewerDatabase, match="newer version of shbot"):
        await Storage.open(newer)


async def test_a_read_only_database_or_user_is_named_at_open(pg_server: PgServer) -> None:
    url = pg_server.create_database("read_only")
    async with await Storage.open(url):
        pass  # shbot's schema is there
    pg_server.sql("read_only", "CREATE ROLE reader LOGIN")
    pg_server.sql("read_only", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    with pytest.raises(ReadOnlyDatabase, match="may read but not write"):
        await Storage.open(url.replace("shbot@", "reader@"))
    pg_server.sql("read_only", "ALTER DATABASE read_only SET default_transaction_read_only = on")
    with pytest.raises(ReadOnlyDatabase, match="primary server"):
        await Storage.open(url)


def _open_at_once(url: str, barrier: Any, results: Any) -> None:
    barrier.wait()

    async def open_and_close() -> None:
        async with await Storage.open(url, busy_timeout=30):
            pass

    try:
        asyncio.run(open_and_close())
        results.put("ok")
    except Exception as exc:
        results.put(f"{type(exc).__name__}: {exc}")


def test_many_processes_opening_one_new_database_at_once_all_succeed(
    pg_url: str, pg_server: PgServer
) -> None:
    count = 12
    barrier, results = FORK.Barrier(count), FORK.Queue()
    children = [
        FORK.Process(target=_open_at_once, args=(pg_url, barrier, results)) for _ in range(count)
    ]
    for child in children:
        child.start()
    outcomes = [results.get(timeout=120) for _ in children]
    for child in children:
        child.join(timeout=60)
    assert outcomes == ["ok"] * count
    assert pg_server.sql(_db(pg_url), "SELECT version FROM shbot_schema").split() == [
        str(SCHEMA_VERSION)
    ]


async def _one_action_stored(store: Storage) -> tuple[int, Game, Action]:
    """A new 5-player game with its first action stored: (its id, the game, the action)."""
    game = Game(5, seed=9)
    game_id = await store.create_game(
        players=5, variant=game.variant, seed=9, seats=_seats(), options={}
    )
    first = game.legal_actions(game.awaiting()[0])[0]
    await store.append_action(game_id, 0, first)
    game.apply(first)
    return game_id, game, first


def _shbot_sessions(pg_server: PgServer, pg_url: str) -> list[str]:
    """The server process ids of shbot's sessions on the test database."""
    return pg_server.sql(
        _db(pg_url),
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'shbot'"
        " AND pid <> pg_backend_pid()",
    ).split()


async def test_a_lost_connection_is_replaced_and_nothing_acknowledged_is_lost(
    pg_url: str, pg_server: PgServer
) -> None:
    """The server ends the session (a restart, a network fault): the next change
    reconnects; every change acknowledged before is there."""
    async with await Storage.open(pg_url) as store:
        game_id, game, first = await _one_action_stored(store)
        pg_server.sql(
            _db(pg_url),
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'shbot' AND pid <> pg_backend_pid()",
        )
        second = game.legal_actions(game.awaiting()[0])[0]
        with contextlib.suppress(StorageError):  # the change in flight may be refused once
            await store.append_action(game_id, 1, second)
        stored = await store.load_game(game_id)
        if len(stored.record.actions) == 1:
            await store.append_action(game_id, 1, second)
        assert (await store.load_game(game_id)).record.actions == [first, second]


async def test_a_session_ended_while_idle_is_replaced_even_before_asyncpg_sees_it_close(
    pg_url: str, pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server ends the idle session, and the next BEGIN fails before asyncpg knows
    (InternalClientError): nothing but BEGIN was sent, so the change is stored on a new
    session, with no error at all."""
    async with await Storage.open(pg_url) as store:
        game_id, game, first = await _one_action_stored(store)
        pid = _shbot_sessions(pg_server, pg_url)
        pg_server.sql(_db(pg_url), f"SELECT pg_terminate_backend({pid[0]})")
        failed = fail_next_begin(monkeypatch, store._driver._conn)  # type: ignore[attr-defined]
        second = game.legal_actions(game.awaiting()[0])[0]
        await store.append_action(game_id, 1, second)
        assert failed == [1]
        assert (await store.load_game(game_id)).record.actions == [first, second]
        now = _shbot_sessions(pg_server, pg_url)
        assert now and now != pid  # a new session


async def test_schema_version_n_has_the_same_tables_and_columns_on_both_databases(
    pg_url: str, pg_server: PgServer, tmp_path: Path
) -> None:
    """The two schemas share their version numbers: at the latest, the same tables,
    columns and named indexes (PostgreSQL adds only `shbot_schema`, its stand-in for
    `user_version`; keys index themselves on both)."""
    path = tmp_path / "shbot.db"
    async with await Storage.open(path), await Storage.open(pg_url):
        pass
    with contextlib.closing(sqlite3.connect(path)) as raw:
        tables = [
            r[0]
            for r in raw.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        on_sqlite = {
            f"{table}.{column[1]}"
            for table in tables
            for column in raw.execute(f"PRAGMA table_info({table})")
        }
        indexes_on_sqlite = {
            f"{r[0]}.{r[1]}"
            for r in raw.execute(
                "SELECT tbl_name, name FROM sqlite_master"
                " WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'"
            )
        }
    rows = pg_server.sql(
        _db(pg_url),
        "SELECT table_name || '.' || column_name FROM information_schema.columns"
        " WHERE table_schema = 'public' AND table_name <> 'shbot_schema'",
    )
    assert set(rows.split()) == on_sqlite
    indexes = pg_server.sql(
        _db(pg_url),
        "SELECT tablename || '.' || indexname FROM pg_indexes WHERE schemaname = 'public'"
        " AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'",
    )
    assert set(indexes.split()) == indexes_on_sqlite
    assert pg_server.sql(_db(pg_url), "SELECT version FROM shbot_schema").strip() == str(
        SCHEMA_VERSION
    )


async def test_a_version_6_database_gets_the_channel_index_its_lookups_use(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Version 7 indexes the games by channel on PostgreSQL too: the index is built on a
    database that predates it, and the lookups by channel (the last game of a channel,
    the game a lobby started) can run on it, in the order they read."""
    conn = await asyncpg.connect(pg_url)
    try:
        for version in (5, 6):  # the database as version 6 of shbot left it
            async with conn.transaction():
                for statement in MIGRATIONS[version]:
                    await conn.execute(statement)
                await conn.execute("UPDATE shbot_schema SET version = $1", version)
        await conn.execute(
            "INSERT INTO games (guild_id, channel_id, players, variant, seed, options,"
            " created_at, updated_at) VALUES (7, 70, 5, '{}', 9, '{\"lobby\":\"L1\"}', 1, 2)"
        )
    finally:
        await conn.close()
    statements: list[tuple[str, Params]] = []  # the SQL the lookups run, as they run it
    real_all = _PgTx.all

    async def recording(self: _PgTx, sql: str, params: Params = ()) -> list[Any]:
        statements.append((sql, params))
        return await real_all(self, sql, params)

    async with await Storage.open(pg_url) as storage:
        monkeypatch.setattr(_PgTx, "all", recording)
        last = await storage.last_game_in(7, 70)
        assert last is not None and last.channel_id == 70
        assert await storage.game_of_lobby(70, "L1") == last.id
        monkeypatch.undo()
    lookups = [(sql, params) for sql, params in statements if "FROM games" in sql]
    assert len(lookups) == 2
    conn = await asyncpg.connect(pg_url)
    try:
        assert await conn.fetchval("SELECT version FROM shbot_schema") == SCHEMA_VERSION
        indexes = await conn.fetch("SELECT indexname FROM pg_indexes WHERE tablename = 'games'")
        assert "games_by_channel" in {r["indexname"] for r in indexes}
        # One row: the planner would rather read the table, unless told not to.
        await conn.execute("SET enable_seqscan = off")
        for sql, params in lookups:
            query, names = _dialect(sql)
            rows = await conn.fetch(f"EXPLAIN {query}", *_args(names, params))
            plan = " / ".join(r[0] for r in rows)
            assert "games_by_channel" in plan, plan
            assert "Sort" not in plan, plan  # the index gives the order too
    finally:
        await conn.close()


async def test_two_processes_appending_to_one_game_store_each_action_once(
    pg_url: str,
) -> None:
    """What the shard claim prevents, if it ever failed: two stores (two sessions, as two
    processes) append the same game's actions at once. Each index is stored once; the
    loser of each race is told the action is already stored; the log replays."""
    game = Game(7, seed=5)
    rng = random.Random(5)
    while not game.is_over and len(game.actions) < 40:
        seat = game.awaiting()[0]
        game.apply(rng.choice(game.legal_actions(seat)))
    async with await Storage.open(pg_url) as a, await Storage.open(pg_url) as b:
        game_id = await a.create_game(
            players=7,
            variant=game.variant,
            seed=5,
            seats=[SeatRecord(s, f"p{s}", None, "random") for s in range(7)],
            options={},
        )

        async def drive(store: Storage) -> list[str]:
            outcomes = []
            for seq, action in enumerate(game.actions):
                try:
                    await store.append_action(game_id, seq, action)
                    outcomes.append("stored")
                except StorageError as exc:
                    assert "already stored" in str(exc), exc
                    outcomes.append("refused")
            return outcomes

        first, second = await asyncio.gather(drive(a), drive(b))
        assert all({x, y} == {"stored", "refused"} for x, y in zip(first, second, strict=True))
        assert (await a.load_game(game_id)).record.actions == game.actions


@pytest.mark.parametrize("after_write", [False, True], ids=["before-store", "after-store"])
async def test_a_game_killed_mid_play_resumes_identically_on_postgres(
    pg_server: PgServer, after_write: bool
) -> None:
    """test_recovery's kill-and-resume on PostgreSQL, at a few phases: the session stops
    just before (or after) action k is stored, a new manager on a new connection resumes
    it, and it ends exactly as the game played without interruption."""
    async with await Storage.open(":memory:") as memory:
        played, _ = await _play(memory)
        await asyncio.wait_for(played.run(), 30)
    reference = played.game
    points = _kill_points(reference)
    for name in ("mid-vote", "discard", "execute", "president claim"):
        index = points[name]
        url = pg_server.create_database(f"killed_{after_write}_{name.replace(' ', '_')}")
        store = await Storage.open(url)
        freezer = Freezer(store, index, after_write=after_write)
        first, _ = await _play(freezer)
        await asyncio.wait_for(freezer.frozen.wait(), 30)
        await first.stop()
        await store.close()

        async with await Storage.open(url) as store:
            [resumed] = await SessionManager(store, FakeFrontend(answer=scripted)).recover()
            assert len(resumed.game.actions) == index + after_write, name
            await asyncio.wait_for(resumed.wait(), 30)
            assert normalised(resumed.game) == normalised(reference), name
            stored = await store.load_game(resumed.game_id)
            assert stored.status == "finished" and stored.record.actions == resumed.game.actions
