"""bot.storage on PostgreSQL when the database stops answering: every round trip is
bounded (`bot.storage.postgres.ROUND_TRIP_TIMEOUT_S`), so a query that never returns
(a lock held elsewhere, a COMMIT waiting for a standby that is gone, a partitioned
server) raises `ConnectionLost` in time instead of freezing every game of the process,
the driver reconnects on the next call, and nothing is half-written. Every test runs on
the real server of tests/bot/postgres_server.py; the bound is patched small to keep
them fast, and each test has a generous outer limit so a regression fails, not hangs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

import asyncpg  # type: ignore[import-untyped]
import pytest

import bot.storage.postgres as pg
from bot.errors import BotError
from bot.frontends.fake import FakeFrontend
from bot.manager import SessionManager
from bot.storage import ConnectionLost, SeatRecord, Storage, StorageError
from engine import Game
from tests.bot.conftest import UNTIMED, members, until

if TYPE_CHECKING:
    from tests.bot.postgres_server import PgServer

pytest_plugins = ["tests.bot.postgres_server"]
pytestmark = pytest.mark.postgres

BOUND = 0.5  # the patched round-trip bound (s)
OUTER = 30.0  # a regression fails after this long instead of hanging CI


@pytest.fixture(autouse=True)
def small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg, "ROUND_TRIP_TIMEOUT_S", BOUND)


def _db(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _seats() -> list[SeatRecord]:
    return [SeatRecord(s, f"p{s}", 100 + s if s == 0 else None, None) for s in range(5)]


async def _new_game(store: Storage, seed: int) -> tuple[int, Game]:
    """A new 5-player game with its first action stored: its id and the game."""
    game = Game(5, seed=seed)
    game_id = await store.create_game(
        players=5, variant=game.variant, seed=seed, seats=_seats(), options={}
    )
    first = game.legal_actions(game.awaiting()[0])[0]
    await store.append_action(game_id, 0, first)
    game.apply(first)
    return game_id, game


def _next(game: Game) -> Any:
    return game.legal_actions(game.awaiting()[0])[0]


@asynccontextmanager
async def _locked(url: str, statement: str) -> AsyncIterator[None]:
    """Another client holds a lock (`statement`, in an open transaction) meanwhile."""
    other = await asyncpg.connect(url)
    try:
        async with other.transaction():
            await other.execute(statement)
            yield
    finally:
        await other.close()


@contextmanager
def _dead_synchronous_standby(pg_server: PgServer, database: str) -> Iterator[None]:
    """Every COMMIT waits for a synchronous standby that never connects: the commit
    never returns, with no lock wait and no error (a standby lost in a failover)."""
    pg_server.sql(database, "ALTER SYSTEM SET synchronous_standby_names = 'gone'")
    pg_server.sql(database, "SELECT pg_reload_conf()")
    time.sleep(0.3)  # every backend has read the new setting
    try:
        yield
    finally:
        pg_server.sql(database, "ALTER SYSTEM RESET synchronous_standby_names")
        pg_server.sql(database, "SELECT pg_reload_conf()")
        time.sleep(0.3)


async def _within(call: Any) -> tuple[BaseException | None, float]:
    """Await `call`; what it raised (None if nothing) and how long it took."""
    start = time.monotonic()
    try:
        await asyncio.wait_for(call, OUTER)
    except TimeoutError:
        pytest.fail(f"the call did not return in {OUTER:g} s: the database round trip hangs")
    except BotError as exc:
        return exc, time.monotonic() - start
    return None, time.monotonic() - start


def _cause_in_one_line(error: BaseException | None) -> str:
    assert isinstance(error, ConnectionLost), repr(error)
    text = str(error)
    assert text and "\n" not in text and "did not answer" in text, text
    assert "@" not in text or "shbot@" in text  # the URL without a password
    return text


async def test_a_write_behind_a_lock_held_elsewhere_fails_in_time_and_the_driver_recovers(
    pg_url: str,
) -> None:
    """Another client holds the game's row (a long transaction, a stuck admin session):
    the write raises ConnectionLost within the bound, and so does another game's write
    queued behind it on the driver's lock, instead of both waiting as long as the lock
    is held. Once it is released, writes and reads work again; nothing was half-written.
    (The store's busy timeout is long, as a host may set it: the server's lock_timeout
    does not end the wait first.)"""
    async with await Storage.open(pg_url, busy_timeout=120) as store:
        held, game = await _new_game(store, seed=3)
        other, other_game = await _new_game(store, seed=4)
        async with _locked(pg_url, f"SELECT * FROM games WHERE id = {held} FOR UPDATE"):
            blocked = asyncio.create_task(_within(store.append_action(held, 1, _next(game))))
            await asyncio.sleep(0.05)  # the blocked write holds the driver's lock
            queued = asyncio.create_task(_within(store.set_deadline(other, 1234.0)))
            (error, took), (queued_error, queued_took) = await blocked, await queued
            _cause_in_one_line(error)
            assert took < BOUND + 2, took
            # Behind the hung write on the driver's lock: bounded too (it then runs, or
            # reaches its own bound while reconnecting).
            assert queued_took < 2 * BOUND + 3, queued_took
            assert queued_error is None or isinstance(queued_error, StorageError)
        second = _next(game)
        await store.append_action(held, 1, second)  # the driver reconnected
        await store.append_action(other, 1, _next(other_game))
        await store.set_deadline(other, 99.0)
        stored = await store.load_game(held)
        assert len(stored.record.actions) == 2 and stored.record.actions[1] == second
        assert stored.record.replay()  # the log replays: nothing half-written
        assert (await store.load_game(other)).deadline == 99.0


async def test_a_read_behind_an_exclusive_table_lock_fails_in_time(pg_url: str) -> None:
    """Reads are bounded too (a LOCK TABLE ... ACCESS EXCLUSIVE blocks even SELECT)."""
    async with await Storage.open(pg_url, busy_timeout=120) as store:
        game_id, _ = await _new_game(store, seed=5)
        async with _locked(pg_url, "LOCK TABLE games IN ACCESS EXCLUSIVE MODE"):
            error, took = await _within(store.load_game(game_id))
            _cause_in_one_line(error)
            assert took < BOUND + 2, took
        assert (await store.load_game(game_id)).id == game_id


async def test_a_commit_that_never_returns_fails_in_time_and_the_log_stays_whole(
    pg_url: str, pg_server: PgServer
) -> None:
    """A COMMIT waits for a synchronous standby that is gone: no lock, no error, it just
    never returns. The write raises ConnectionLost within the bound (the change was not
    acknowledged: it may or may not be stored, as with any lost connection); once the
    server commits again the driver reconnects, and the log is a whole prefix of the game."""
    async with await Storage.open(pg_url) as store:
        game_id, game = await _new_game(store, seed=6)
        second = _next(game)
        with _dead_synchronous_standby(pg_server, _db(pg_url)):
            error, took = await _within(store.append_action(game_id, 1, second))
            _cause_in_one_line(error)
            assert took < BOUND + 2, took
        stored = await store.load_game(game_id)
        if len(stored.record.actions) == 1:  # not stored: play it again
            await store.append_action(game_id, 1, second)
        game.apply(second)
        third = _next(game)
        await store.append_action(game_id, 2, third)
        stored = await store.load_game(game_id)
        assert stored.record.actions == [*game.actions, third]


async def test_a_game_whose_write_hangs_is_paused_with_a_reason_not_frozen(
    pg_url: str, pg_server: PgServer
) -> None:
    """At the session level: a player's move whose COMMIT never returns. The player is
    told it failed, the game pauses and the table is told why; a host's /resume
    (`resume_paused`) carries it on once the database answers again."""
    async with await Storage.open(pg_url) as store:
        fake = FakeFrontend()  # nobody answers: the game waits for a human
        manager = SessionManager(store, fake)
        session = await manager.create(members(5), players=5, seed=11, options=UNTIMED)
        await until(lambda: bool(fake.prompts(session.game_id)), OUTER)
        prompt = fake.prompts(session.game_id)[-1]
        user = 100 + prompt.seat
        with _dead_synchronous_standby(pg_server, _db(pg_url)):
            error, took = await _within(session.choose(user, prompt.id, 0))
            assert isinstance(error, StorageError) and took < BOUND + 2, (error, took)
            await until(lambda: session.paused, OUTER)
            await fake.settle()
        text = fake.public_text(session.game_id)
        assert any("paused" in t and "ConnectionLost" in t for t in text), text[-3:]
        resumed = await asyncio.wait_for(manager.resume_paused(session.game_id), OUTER)
        assert not resumed.paused
        await manager.shutdown()


async def test_after_a_hung_commit_the_process_keeps_its_shards(
    pg_url: str, pg_server: PgServer
) -> None:
    """The hung COMMIT's session outlives the connection the driver cut: the server
    only notices a closed socket when it next talks to it, and it is still waiting for
    the standby. That session holds this process's shard locks, so re-taking them on a
    new session failed (`ShardsLost`) as long as the standby stayed away, and every
    game of the process with it. The driver ends its own old session first."""
    from bot.storage import GameScope

    async with await Storage.open(pg_url) as store:
        lease = await store.claim_shards(GameScope(True, 2, frozenset({0})))
        game_id, game = await _new_game(store, seed=8)
        with _dead_synchronous_standby(pg_server, _db(pg_url)):
            error, _ = await _within(store.append_action(game_id, 1, _next(game)))
            _cause_in_one_line(error)
            # Still without a standby: a read commits nothing, so it does not wait.
            error, _ = await _within(store.load_game(game_id))
            assert error is None, repr(error)
            holders = pg_server.sql(
                _db(pg_url),
                "SELECT count(DISTINCT pid) FROM pg_locks WHERE locktype = 'advisory'"
                f" AND classid = {pg._SHARD} AND objid = 0",
            )
            assert holders.strip() == "1", holders  # the new session's, alone
        lease.release()
