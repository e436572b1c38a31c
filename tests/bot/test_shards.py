"""Every process of one bot shares one database (issue 18, item 13), and the bot never
picks up a terminal game (item 14).

Each process resumes the games of the guilds on its own shards, `(guild_id >> 22) %
SHARD_COUNT`, so changing SHARD_COUNT with games running moves each game to the process
that now receives its guild. Processes that would drive one game twice (a different
SHARD_COUNT, a shard run twice, two processes that each run every shard) are refused at
start with a message that names the fix. The clashes are between real processes: the
claim is made of OS file locks, which only tell processes apart.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Config, ShardConflict, config_from
from bot.frontends.fake import FakeFrontend
from bot.manager import Member, SessionManager, ShardClaim
from bot.session import SessionOptions
from bot.storage import GameScope, ShardsLost, Storage, StorageError
from bot.timers import Timers
from tests.bot.pg_faults import fail_next_begin

FORK = multiprocessing.get_context("fork")
UNTIMED = SessionOptions(timers=Timers.off(), substitute="selfish", suspicion=False)


def guild_on(shard: int, count: int, salt: int = 0) -> int:
    """A guild id (a Discord snowflake) that Discord puts on `shard` of `count`."""
    return (((1000 + salt) * count + shard) << 22) | 12345


def test_the_config_names_the_games_of_this_process() -> None:
    scope = config_from({"SHARD_COUNT": "4", "SHARD_IDS": "2,3"}).game_scope
    assert scope.channel_required and scope.shard_count == 4
    assert scope.shard_ids == frozenset({2, 3})
    for shard in range(4):
        assert scope.owns(guild_on(shard, 4), 7) is (shard in (2, 3))
    assert not scope.owns(guild_on(2, 4), None)  # a game without a channel: the terminal's
    assert not scope.owns(None, 7)  # a DM is shard 0's
    whole = config_from({"SHARD_COUNT": "4"}).game_scope  # one process, every shard
    assert whole.every_shard and whole.owns(guild_on(3, 4), 7) and not whole.owns(1, None)
    assert Config().game_scope == GameScope(channel_required=True)
    with pytest.raises(ValueError):
        GameScope(shard_count=2, shard_ids=frozenset({2}))


pytest_plugins = ["tests.bot.postgres_server"]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "shbot.db"


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
    ]
)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new shared database of each driver: a SQLite file's path, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "shbot.db")
    return str(request.getfixturevalue("pg_url"))


async def _store_games(path: Path | str, guilds: list[int]) -> tuple[list[int], int]:
    """A running game in each guild (a channel each), and one terminal game (no channel)."""
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    ids = []
    for index, guild in enumerate(guilds):
        session = await manager.create(
            [Member(100 + index, f"p{index}")],
            players=5,
            fill_with_ai=True,
            seed=index,
            options=UNTIMED,
            guild_id=guild,
            channel_id=5000 + index,
            start=False,
        )
        ids.append(session.game_id)
    terminal = await manager.create(
        [Member(1, "You")], players=5, fill_with_ai=True, seed=99, options=UNTIMED, start=False
    )
    await manager.shutdown()
    await store.close()
    return ids, terminal.game_id


async def _resume_as(path: Path | str, config: Config) -> set[int]:
    """What one bot process with `config` resumes from the shared database (then stops)."""
    store = await Storage.open(path)
    try:
        manager = SessionManager(store, FakeFrontend())
        resumed = {s.game_id for s in await manager.recover(scope=config.game_scope)}
        await manager.shutdown()
        return resumed
    finally:
        await store.close()


def _sharded(count: int, *ids: int) -> Config:
    return config_from({"SHARD_COUNT": str(count), "SHARD_IDS": ",".join(map(str, ids))})


async def test_every_process_resumes_the_games_of_its_shards_whatever_the_count_was(
    database: str,
) -> None:
    """Games started under SHARD_COUNT=2; the bot restarts with SHARD_COUNT=3, then as
    one process. Each time every game is resumed by exactly one process, the one Discord
    now sends its guild to; the terminal game by none."""
    db = database
    guilds = [guild_on(shard, 6, salt) for salt in range(2) for shard in range(6)]
    games, terminal = await _store_games(db, guilds)
    by_guild = dict(zip(games, guilds, strict=True))
    for count in (2, 3):
        resumed = [await _resume_as(db, _sharded(count, shard)) for shard in range(count)]
        for shard, mine in enumerate(resumed):
            assert mine == {g for g in games if (by_guild[g] >> 22) % count == shard}
        assert sorted(g for mine in resumed for g in mine) == sorted(games)  # once each
    assert await _resume_as(db, Config()) == set(games)  # one process runs every shard

    # The terminal resumes its own game (no scope); nothing was done to it meanwhile.
    async with await Storage.open(db) as store:
        assert (await store.load_game(terminal)).status == "running"
        manager = SessionManager(store, FakeFrontend())
        assert terminal in {s.game_id for s in await manager.recover()}
        await manager.shutdown()


async def test_the_bot_never_picks_up_a_game_without_a_channel(db: Path) -> None:
    """The terminal and the bot share one default database; the bot used to resume
    terminal games and fail with "Game N has no channel"."""

    def no_channel_no_show(method: str, table: Any, payload: Any) -> None:
        if table.channel_id is None:  # what the Discord front-end does
            raise ValueError(f"Game {table.game_id} has no channel.")

    games, terminal = await _store_games(db, [guild_on(0, 1)])
    async with await Storage.open(db) as store:
        bot = SessionManager(store, FakeFrontend(fault=no_channel_no_show))
        resumed = await bot.recover(scope=Config().game_scope)
        assert [s.game_id for s in resumed] == games
        assert bot.get(terminal) is None
        await bot.shutdown()
        stored = await store.load_game(terminal)
        assert stored.status == "running" and stored.pause_reason is None  # left as it was


# --- clashing processes ------------------------------------------------------------------


def _hold(database: str, scope: GameScope, ready: Any, done: Any) -> None:
    """A bot process: claim, say so, run until told to stop."""
    try:
        claim = ShardClaim.take(database, scope)
    except ShardConflict as exc:
        ready.put(f"refused: {exc}")
        return
    ready.put("running")
    done.wait(30)
    claim.release()


class Process:
    """Another bot process holding `scope` of `database` until `stop()`."""

    def __init__(self, database: Path, scope: GameScope) -> None:
        self.ready, self.done = FORK.Queue(), FORK.Event()
        self.process = FORK.Process(
            target=_hold, args=(str(database), scope, self.ready, self.done)
        )
        self.process.start()
        self.state = self.ready.get(timeout=30)

    def stop(self) -> None:
        self.done.set()
        self.process.join(timeout=30)

    def kill(self) -> None:
        assert self.process.pid is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.join(timeout=30)


def _refusal(database: Path, scope: GameScope) -> str:
    with pytest.raises(ShardConflict) as error:
        ShardClaim.take(str(database), scope)
    text = str(error.value)
    assert "\n" not in text and str(database) in text
    return text


def _scope(count: int, *ids: int) -> GameScope:
    return GameScope(True, count, frozenset(ids))


EVERY = GameScope(channel_required=True)


def test_processes_that_would_drive_one_game_twice_are_refused_with_the_fix(db: Path) -> None:
    first = Process(db, _scope(2, 0))
    try:
        assert first.state == "running"
        text = _refusal(db, _scope(2, 0, 1))
        assert "Shard 0 already runs in another process" in text and "own SHARD_IDS" in text
        text = _refusal(db, _scope(3, 2))
        assert "SHARD_COUNT=2" in text and "SHARD_COUNT=3" in text
        assert "same SHARD_COUNT" in text and "Stop them all" in text
        text = _refusal(db, EVERY)
        assert "without SHARD_IDS" in text
        ShardClaim.take(str(db), _scope(2, 1)).release()  # the other half: fine
    finally:
        first.stop()
    ShardClaim.take(str(db), _scope(3, 2)).release()  # the old count is gone: fine


def test_two_processes_running_every_shard_are_refused_and_a_crash_frees_the_claim(
    db: Path,
) -> None:
    first = Process(db, EVERY)
    assert first.state == "running"
    text = _refusal(db, EVERY)
    assert "Another process of this bot already drives the games" in text
    assert "running every shard" in _refusal(db, _scope(2, 1))
    first.kill()  # a crash: the kernel drops its locks, the next start is not blocked
    ShardClaim.take(str(db), EVERY).release()


async def test_the_refusal_comes_from_the_recovery_before_any_game_resumes(db: Path) -> None:
    """What the bot's start calls: `SessionManager.recover(scope=config.game_scope)`."""
    games, _ = await _store_games(db, [guild_on(0, 2), guild_on(1, 2)])
    first = Process(db, _scope(2, 0))
    try:
        async with await Storage.open(db) as store:
            manager = SessionManager(store, FakeFrontend())
            with pytest.raises(ShardConflict) as error:
                await manager.recover(scope=_sharded(4, 0).game_scope)
            # A storage error (bot.storage.conflict), so `shbot` prints it in one line.
            assert isinstance(error.value, StorageError)
            assert manager.sessions == []
            resumed = await manager.recover(scope=_sharded(2, 1).game_scope)
            assert [s.game_id for s in resumed] == games[1:]
            await manager.shutdown()
    finally:
        first.stop()


def _start_at_once(database: str, scope: GameScope, barrier: Any, out: Any) -> None:
    barrier.wait()
    try:
        claim = ShardClaim.take(database, scope)
        out.put((scope.shard_count, "running"))
    except ShardConflict:
        claim = None
        out.put((scope.shard_count, "refused"))
    barrier.wait()  # everyone has tried while the others still run
    if claim is not None:
        claim.release()


def test_processes_starting_at_once_with_different_counts_never_all_run(db: Path) -> None:
    """A rolling restart gone wrong: SHARD_COUNT=2, 3 and 4 processes start together.
    Only processes of one count may run (each of its shards once)."""
    scopes = [_scope(count, shard) for count in (2, 3, 4) for shard in range(2)]
    for _ in range(3):
        barrier, out = FORK.Barrier(len(scopes)), FORK.Queue()
        children = [
            FORK.Process(target=_start_at_once, args=(str(db), scope, barrier, out))
            for scope in scopes
        ]
        for child in children:
            child.start()
        outcomes = [out.get(timeout=30) for _ in children]
        for child in children:
            child.join(timeout=30)
        running = [count for count, state in outcomes if state == "running"]
        assert len(set(running)) == 1 and len(running) == 2, outcomes


# --- PostgreSQL: processes on many hosts, one database ----------------------------------
#
# The claim is session advisory locks on each store's connection: sessions, not OS
# processes, are what PostgreSQL tells apart, so each "process" below is a real process
# with its own store (a forked child), and the fence is tested on two stores' sessions.


def _hold_pg(url: str, scope: GameScope, ready: Any, done: Any) -> None:
    """A bot process on PostgreSQL: open, claim, say so, run until told to stop."""
    import asyncio

    async def run() -> None:
        async with await Storage.open(url) as store:
            try:
                lease = await store.claim_shards(scope)
            except ShardConflict as exc:
                ready.put(f"refused: {exc}")
                return
            ready.put("running")
            await asyncio.get_running_loop().run_in_executor(None, done.wait, 30)
            assert lease is not None
            lease.release()

    asyncio.run(run())


class PgProcess(Process):
    """Another bot process holding `scope` of the database at `url` until `stop()`."""

    def __init__(self, url: str, scope: GameScope) -> None:
        self.ready, self.done = FORK.Queue(), FORK.Event()
        self.process = FORK.Process(target=_hold_pg, args=(url, scope, self.ready, self.done))
        self.process.start()
        self.state = self.ready.get(timeout=60)


async def _pg_refusal(url: str, scope: GameScope) -> str:
    async with await Storage.open(url) as store:
        with pytest.raises(ShardConflict) as error:
            await store.claim_shards(scope)
    text = str(error.value)
    assert "\n" not in text and store.path in text and "@" in store.path
    return text


async def _pg_claims(url: str, scope: GameScope) -> None:
    """A claim that must succeed (then given up)."""
    async with await Storage.open(url) as store:
        lease = await store.claim_shards(scope)
        assert lease is not None
        lease.release()


@pytest.mark.postgres
def test_postgres_refuses_processes_that_would_drive_one_game_twice(pg_url: str) -> None:
    import asyncio

    first = PgProcess(pg_url, _scope(2, 0))
    try:
        assert first.state == "running"
        text = asyncio.run(_pg_refusal(pg_url, _scope(2, 0, 1)))
        assert "Shard 0 already runs in another process" in text and "own SHARD_IDS" in text
        text = asyncio.run(_pg_refusal(pg_url, _scope(3, 2)))
        assert "SHARD_COUNT=2" in text and "SHARD_COUNT=3" in text and "Stop them all" in text
        assert "without SHARD_IDS" in asyncio.run(_pg_refusal(pg_url, EVERY))
        asyncio.run(_pg_claims(pg_url, _scope(2, 1)))  # the other half: fine
    finally:
        first.stop()
    asyncio.run(_pg_claims(pg_url, _scope(3, 2)))  # the old count is gone: fine


@pytest.mark.postgres
def test_postgres_frees_a_killed_processes_shards_for_the_next_owner(pg_url: str) -> None:
    """kill -9: the server ends the dead process's session and its locks with it."""
    import asyncio

    first = PgProcess(pg_url, EVERY)
    assert first.state == "running"
    assert "already drives the games" in asyncio.run(_pg_refusal(pg_url, EVERY))
    first.kill()
    asyncio.run(_pg_claims(pg_url, EVERY))


@pytest.mark.postgres
@pytest.mark.parametrize("begin_fails", [False, True], ids=["closed", "closing"])
async def test_a_process_that_lost_its_session_is_fenced_off_its_games(
    pg_url: str, pg_server: Any, begin_fails: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A partition, seen from the database: the server ends process A's session (as it
    does when A's host goes silent), B takes A's shard and resumes its game. A comes back
    and tries to store its next move: refused, nothing written; B drives the game.

    "closing": A's BEGIN fails with asyncpg's InternalClientError, as it does when A has
    read the server's goodbye but not yet the socket's close (seen once in CI): the same
    refusal, not an untyped error."""
    guild = guild_on(0, 2)
    [game], _ = await _store_games(pg_url, [guild])
    scope = _sharded(2, 0).game_scope
    a = await Storage.open(pg_url)
    b = await Storage.open(pg_url)
    try:
        a_manager = SessionManager(a, FakeFrontend())
        assert [s.game_id for s in await a_manager.recover(scope=scope)] == [game]
        await a_manager.shutdown()  # stops its session task; A's store keeps the claim
        a_lease = await a.claim_shards(scope)
        a_conn = a._driver._conn  # type: ignore[attr-defined]
        with pytest.raises(ShardConflict):
            await b.claim_shards(scope)  # A holds shard 0
        # With a timeout, pg_terminate_backend waits until the session has ended and its
        # advisory locks are gone (without one it returns at once: a race under load).
        pg_server.sql(
            pg_url.rsplit("/", 1)[1],
            "SELECT pg_terminate_backend(pid, 20000) FROM pg_stat_activity"
            " WHERE application_name = 'shbot' AND pid <> pg_backend_pid()"
            " AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
            " AND objid = 0 AND classid = x'53480003'::int AND granted)",
        )
        b_lease = await b.claim_shards(scope)  # A's session is gone: the shard is free
        stored = await b.load_game(game)
        nominate = stored.record.replay().legal_actions(stored.record.replay().awaiting()[0])[0]
        failed = fail_next_begin(monkeypatch, a_conn) if begin_fails else [1]
        with pytest.raises(ShardsLost) as lost:
            await a.append_action(game, 0, nominate)
        assert failed == [1]
        assert "another process holds now" in str(lost.value) and "\n" not in str(lost.value)
        assert (await b.load_game(game)).record.actions == []  # A wrote nothing
        await b.append_action(game, 0, nominate)  # B drives the game
        assert (await b.load_game(game)).record.actions == [nominate]
        assert a_lease is not None and b_lease is not None
        # B lets the shard go; A takes it back on its next write, but its stale move at
        # the same index is refused: the log is B's, and never driven from two places.
        b_lease.release()
        await b.load_game(game)  # B's unlocks happen before its next transaction
        with pytest.raises(StorageError, match="already stored"):
            await a.append_action(game, 0, nominate)
    finally:
        await a.close()
        await b.close()
