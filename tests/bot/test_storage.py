"""bot.storage: the event log replays games exactly, survives a hard kill, migrates,
refuses damaged or newer files, counts stats for humans only, and backs up online."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from bot.cli import stats_text
from bot.migrations import _V1, MIGRATIONS, SCHEMA_VERSION, migrate, user_version
from bot.ratings import RatedSeat, ai_key, human_key, ladder
from bot.storage import (
    GameDamaged,
    RatingRow,
    SeatRecord,
    ShownMessage,
    Storage,
    StorageError,
)
from bot.storage.driver import Params
from bot.storage.sqlite import _SQLiteTx
from engine import (
    REBALANCED,
    STANDARD,
    Action,
    Game,
    Nominate,
    Party,
    Power,
    Role,
    Variant,
    WinReason,
)

ROOT = Path(__file__).resolve().parents[2]
L, F, H = Role.LIBERAL, Role.FASCIST, Role.HITLER


def ticking_clock(start: float = 1_700_000_000.0) -> Callable[[], float]:
    """A clock that moves one second per reading, so orderings by time are certain."""
    ticks = itertools.count()
    return lambda: start + next(ticks)


def play_random_game(players: int, seed: int, variant: Variant = STANDARD) -> Game:
    """A complete seeded game of random legal actions, with claims mixed in."""
    game = Game(players, seed=seed, variant=variant)
    rng = random.Random(seed)
    while not game.is_over:
        claims = [c for s in range(players) for c in game.legal_claims(s)]
        if claims and rng.random() < 0.4:
            game.apply(rng.choice(claims))
            continue
        seat = rng.choice(game.awaiting())
        game.apply(rng.choice(game.legal_actions(seat)))
    return game


def seats_for(players: int, humans: dict[int, tuple[int, str]] | None = None) -> list[SeatRecord]:
    """Seats: the given ones human (seat -> (user id, name)), the others AI."""
    humans = humans or {}
    return [
        SeatRecord(s, humans[s][1], humans[s][0], None)
        if s in humans
        else SeatRecord(s, f"Bot{s} (AI)", None, "random")
        for s in range(players)
    ]


async def won_by_liberals(
    store: Storage,
    seats: list[SeatRecord],
    *,
    guild_id: int | None = 7,
    channel_id: int | None = None,
) -> int:
    """A five-player game stored finished (Liberals win, roles L F L H L) unplayed."""
    game_id = await store.create_game(
        players=5,
        variant=STANDARD,
        seed=1,
        seats=seats,
        options={},
        guild_id=guild_id,
        channel_id=channel_id,
    )
    await store.finish_game(
        game_id,
        status="finished",
        winner=Party.LIBERAL,
        reason=WinReason.FIVE_LIBERAL,
        roles=[L, F, L, H, L],
    )
    return game_id


pytest_plugins = ["tests.bot.postgres_server"]

# Both drivers run every test that takes `storage` or `database`; PostgreSQL's half is
# marked `postgres` and runs on a real server the tests start (tests/bot/postgres_server).
DRIVERS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


@pytest.fixture(params=DRIVERS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database of each driver: a SQLite file's path, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "shbot.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(params=DRIVERS)
async def storage(request: pytest.FixtureRequest) -> AsyncIterator[Storage]:
    """An open store of each driver: SQLite in memory, or a fresh PostgreSQL database."""
    target = ":memory:" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    store = await Storage.open(target, clock=ticking_clock())
    yield store
    await store.close()


OpenStorage = Callable[[Path | str], Awaitable[Storage]]


@pytest.fixture
async def open_storage() -> AsyncIterator[OpenStorage]:
    """`Storage.open` for file databases, closing whatever a failing test left open."""
    opened: list[Storage] = []

    async def _open(path: Path | str) -> Storage:
        store = await Storage.open(path)
        opened.append(store)
        return store

    yield _open
    for store in opened:
        await store.close()  # a no-op for the ones the test closed itself


async def store_game(storage: Storage, game: Game, **kwargs: object) -> int:
    """Create the game and append every action it has so far."""
    assert game.seed is not None
    game_id = await storage.create_game(
        players=game.players,
        variant=game.variant,
        seed=game.seed,
        seats=seats_for(game.players, {0: (111, "Ada")}),
        options={"timer": 60, "demo": False},
        **kwargs,  # type: ignore[arg-type]
    )
    for seq, action in enumerate(game.actions):
        await storage.append_action(game_id, seq, action)
    return game_id


# --- the event log ------------------------------------------------------------------

CUSTOM = Variant(
    "custom",
    liberal_tiles=7,
    fascist_tiles=10,
    powers=(Power.INVESTIGATE, None, Power.POLICY_PEEK, Power.EXECUTION, Power.EXECUTION),
)


@pytest.mark.parametrize(
    ("players", "seed", "variant"),
    [(5, 1, STANDARD), (7, 2, STANDARD), (10, 3, STANDARD), (6, 4, REBALANCED), (8, 5, CUSTOM)],
)
async def test_a_stored_game_replays_to_the_identical_game(
    storage: Storage, players: int, seed: int, variant: Variant
) -> None:
    game = play_random_game(players, seed, variant)
    assert any(a.kind.endswith("claim") for a in game.actions)  # claims are in the log too
    game_id = await store_game(storage, game, guild_id=42, channel_id=7)
    assert game.winner is not None and game.win_reason is not None
    await storage.finish_game(
        game_id, status="finished", winner=game.winner, reason=game.win_reason, roles=game.roles
    )

    stored = await storage.load_game(game_id)
    assert stored.record.actions == game.actions
    assert stored.record.variant == variant
    replayed = stored.record.replay()
    assert replayed.events == game.events
    assert replayed.roles == game.roles
    assert (stored.status, stored.winner, stored.reason) == (
        "finished",
        game.winner,
        game.win_reason,
    )
    assert stored.roles == game.roles
    assert (stored.guild_id, stored.channel_id) == (42, 7)
    assert stored.options == {"timer": 60, "demo": False}
    assert stored.seats[0] == SeatRecord(0, "Ada", 111, None)
    assert stored.seats[1] == SeatRecord(1, "Bot1 (AI)", None, "random")
    assert stored.finished_at is not None and stored.finished_at > stored.created_at


async def test_unfinished_games_are_the_running_ones_with_their_actions(storage: Storage) -> None:
    full = play_random_game(7, 11)
    half = Game(7, seed=11)
    for action in full.actions[: len(full.actions) // 2]:
        half.apply(action)
    running = await store_game(storage, half)
    finished = await store_game(storage, full)
    assert full.winner and full.win_reason
    await storage.finish_game(
        finished, status="finished", winner=full.winner, reason=full.win_reason, roles=full.roles
    )
    cancelled = await store_game(storage, Game(5, seed=3))
    await storage.finish_game(cancelled, status="cancelled", winner=None, reason=None, roles=None)
    fresh = await store_game(storage, Game(6, seed=4))  # no action yet

    unfinished = await storage.unfinished_games()
    assert [g.id for g in unfinished] == [running, fresh]
    resumed = unfinished[0].record.replay()
    assert resumed.events == half.events and resumed.awaiting() == half.awaiting()
    assert unfinished[1].record.actions == []
    assert (await storage.load_game(cancelled)).status == "cancelled"


async def test_a_paused_game_keeps_its_cause_resumes_and_takes_no_actions_meanwhile(
    storage: Storage,
) -> None:
    game = play_random_game(5, 23)
    game_id = await store_game(storage, Game(5, seed=23))
    await storage.append_action(game_id, 0, game.actions[0])
    cause = "RuntimeError at bot/session.py:12 (_decision)"
    await storage.pause_game(game_id, cause)
    stored = await storage.load_game(game_id)
    assert (stored.status, stored.pause_reason) == ("paused", cause)
    assert [g.id for g in await storage.unfinished_games()] == [game_id]  # a restart resumes it
    with pytest.raises(StorageError, match="is paused"):
        await storage.append_action(game_id, 1, game.actions[1])
    [summary] = await storage.recent_games()
    assert summary.status == "paused"

    await storage.resume_game(game_id)
    stored = await storage.load_game(game_id)
    assert (stored.status, stored.pause_reason) == ("running", None)
    await storage.append_action(game_id, 1, game.actions[1])

    await storage.pause_game(game_id, cause)  # paused again, then ended by a host
    await storage.finish_game(game_id, status="cancelled", winner=None, reason=None, roles=None)
    stored = await storage.load_game(game_id)
    assert (stored.status, stored.pause_reason) == ("cancelled", None)
    with pytest.raises(StorageError, match="is cancelled, not paused"):
        await storage.pause_game(game_id, cause)
    with pytest.raises(StorageError, match="is cancelled, not running"):
        await storage.resume_game(game_id)
    with pytest.raises(StorageError, match=r"No game #999\."):
        await storage.pause_game(999, cause)
    assert (await storage.player_stats(111)).games == 0


async def test_a_game_id_beyond_64_bits_is_no_game(storage: Storage) -> None:
    """A forged button may carry any number: no stored game has it, so it reads as unknown
    (a StorageError the front-ends answer), not as the driver's OverflowError."""
    for game_id in (2**63, -(2**63) - 1, 10**20):
        with pytest.raises(StorageError, match=rf"No game #{game_id}\."):
            await storage.load_game(game_id)


async def test_append_refuses_duplicate_out_of_order_and_closed_games(storage: Storage) -> None:
    game = play_random_game(5, 21)
    game_id = await store_game(storage, Game(5, seed=21))
    first, second = game.actions[0], game.actions[1]
    await storage.append_action(game_id, 0, first)

    with pytest.raises(StorageError, match="already stored"):
        await storage.append_action(game_id, 0, second)
    with pytest.raises(StorageError, match="out of order: the next one is 1"):
        await storage.append_action(game_id, 2, second)
    with pytest.raises(StorageError, match=r"No game #999\."):
        await storage.append_action(999, 0, first)
    assert (await storage.load_game(game_id)).record.actions == [first]  # nothing written

    await storage.append_action(game_id, 1, second)  # the lock and transaction recovered
    await storage.finish_game(game_id, status="cancelled", winner=None, reason=None, roles=None)
    with pytest.raises(StorageError, match="is cancelled"):
        await storage.append_action(game_id, 2, game.actions[2])
    assert (await storage.load_game(game_id)).record.actions == [first, second]


async def test_the_action_log_is_append_only_in_the_database_too(
    tmp_path: Path, open_storage: OpenStorage
) -> None:
    path = tmp_path / "shbot.db"
    storage = await open_storage(path)
    game_id = await store_game(storage, play_random_game(5, 2))
    await storage.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("UPDATE actions SET action = '{}' WHERE game_id = ?", (game_id,))
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM actions WHERE game_id = ?", (game_id,))
    raw.close()


async def test_unknown_games_and_bad_input_give_clear_errors(storage: Storage) -> None:
    with pytest.raises(StorageError, match=r"No game #5\."):
        await storage.load_game(5)
    with pytest.raises(StorageError, match=r"No game #5\."):
        await storage.set_deadline(5, 1.0)
    with pytest.raises(StorageError, match=r"No game #5\."):
        await storage.set_seat(5, SeatRecord(0, "x", 1, None), "afk")
    with pytest.raises(StorageError, match=r"seats 0\.\.4"):
        await storage.create_game(
            players=5, variant=STANDARD, seed=1, seats=seats_for(4), options={}
        )
    with pytest.raises(StorageError, match="JSON"):
        await storage.create_game(
            players=5, variant=STANDARD, seed=1, seats=seats_for(5), options={"x": object()}
        )
    game_id = await storage.create_game(
        players=5, variant=STANDARD, seed=1, seats=seats_for(5), options={}
    )
    with pytest.raises(StorageError, match="has no seat 7"):
        await storage.set_seat(game_id, SeatRecord(7, "x", 1, None), "afk")
    with pytest.raises(StorageError, match="winner, win reason and roles"):
        await storage.finish_game(
            game_id, status="finished", winner=Party.LIBERAL, reason=None, roles=None
        )
    with pytest.raises(StorageError, match="not fascist"):
        await storage.finish_game(
            game_id,
            status="finished",
            winner=Party.FASCIST,
            reason=WinReason.FIVE_LIBERAL,
            roles=[L, L, L, F, H],
        )
    with pytest.raises(StorageError, match="5 seats, not 3 roles"):
        await storage.finish_game(
            game_id,
            status="finished",
            winner=Party.LIBERAL,
            reason=WinReason.FIVE_LIBERAL,
            roles=[L, F, H],
        )
    with pytest.raises(StorageError, match="not 'paused'"):
        await storage.finish_game(game_id, status="paused", winner=None, reason=None, roles=None)
    assert (await storage.load_game(game_id)).status == "running"


async def test_deadline_is_stored_and_cleared_when_the_game_ends(storage: Storage) -> None:
    game_id = await store_game(storage, Game(5, seed=1))
    await storage.set_deadline(game_id, 1234.5)
    assert (await storage.load_game(game_id)).deadline == 1234.5
    await storage.set_deadline(game_id, None)
    assert (await storage.load_game(game_id)).deadline is None
    await storage.set_deadline(game_id, 99.0)
    await storage.finish_game(game_id, status="cancelled", winner=None, reason=None, roles=None)
    assert (await storage.load_game(game_id)).deadline is None


async def _end(storage: Storage, game_id: int, game: Game, end: str) -> None:
    """End a stored game as `end` says, the way the bot does."""
    if end == "finished":
        await storage.finish_game(
            game_id, status="finished", winner=game.winner, reason=game.win_reason, roles=game.roles
        )
    elif end == "cancelled":
        await storage.finish_game(game_id, status="cancelled", winner=None, reason=None, roles=None)
    elif end == "abandoned":
        await storage.abandon_game(game_id, "the channel was deleted")
    else:
        await storage.mark_damaged(game_id, "actions: RecordError")


async def test_a_damaged_game_s_status_and_place_still_read_and_it_can_be_cancelled(
    storage: Storage,
) -> None:
    """A game whose record does not read back (`GameDamaged`) still tells its status and
    whether a Discord channel plays it, from its row alone: what `shbot cancel` needs
    to end a damaged terminal game, and to leave a channel's alone."""
    here = await store_game(storage, Game(5, seed=1))
    there = await store_game(storage, Game(5, seed=2), guild_id=6, channel_id=5)
    async with storage.driver.write() as tx:
        await tx.all("UPDATE games SET variant = ? WHERE id IN (?, ?)", ('{"name": ', here, there))
    for game_id in (here, there):
        with pytest.raises(GameDamaged):
            await storage.load_game(game_id)
    assert await storage.game_status(here) == ("running", False)
    assert await storage.game_status(there) == ("running", True)
    await storage.pause_game(here, "DiskError at bot/session.py:1 (_store)")
    assert await storage.game_status(here) == ("paused", False)
    await storage.finish_game(here, status="cancelled", winner=None, reason=None, roles=None)
    assert await storage.game_status(here) == ("cancelled", False)
    assert [g.id for g in await storage.unfinished_games()] == []  # (there: marked damaged)
    assert await storage.game_status(there) == ("damaged", True)
    with pytest.raises(StorageError, match="No game #99"):
        await storage.game_status(99)


@pytest.mark.parametrize("paused", [False, True])
@pytest.mark.parametrize("end", ["finished", "cancelled", "abandoned", "damaged"])
async def test_every_end_of_a_game_drops_its_messages(
    storage: Storage, end: str, paused: bool
) -> None:
    """The message book's rows of a game (its open vote, calls, board and ping lines)
    go when it ends, however it ends: nothing reads them once it is over (a restart
    resumes only running and paused games), and an abandoned game never reaches the
    front-end's reveal or final post, which dropped them. A row filed as it ends (the
    front-end still delivering what came before) is not kept either."""
    game = play_random_game(5, 31)
    game_id = await store_game(storage, game)
    other = await store_game(storage, Game(5, seed=32))
    keys = {"vote:a3": '{"preamble": "", "told": []}', "board": "story", "ping:9": "{}"}
    for number, (key, content) in enumerate(keys.items()):
        for game_of in (game_id, other):
            await storage.remember_message(game_of, key, ShownMessage(number, content, 5.0))
    if paused:
        await storage.pause_game(game_id, "RuntimeError at bot/session.py:12 (_decision)")
        assert set(await storage.shown_messages(game_id)) == set(keys)  # it resumes
    await _end(storage, game_id, game, end)
    assert (await storage.load_game(game_id)).status == end
    assert await storage.shown_messages(game_id) == {}
    await storage.remember_message(game_id, "board", ShownMessage(7, "late", None))
    assert await storage.shown_messages(game_id) == {}
    await storage.forget_message(game_id)  # (the front-end's own drop: still fine)
    # Another game's rows stay.
    assert set(await storage.shown_messages(other)) == set(keys)


async def test_session_state_round_trips_and_damage_reads_as_empty(
    storage: Storage, tmp_path: Path, open_storage: OpenStorage
) -> None:
    game_id = await store_game(storage, Game(5, seed=1))
    assert (await storage.load_game(game_id)).session_state == {}
    state = {"expiries": {"2": 1}, "claims": {"turn": 4, "closed": [0, 3]}}
    await storage.set_session_state(game_id, state)
    assert (await storage.load_game(game_id)).session_state == state
    assert [g.session_state for g in await storage.unfinished_games()] == [state]
    with pytest.raises(StorageError, match="No game #99"):
        await storage.set_session_state(99, state)
    with pytest.raises(StorageError, match="session state cannot be stored"):
        await storage.set_session_state(game_id, {"x": float("nan")})

    # Damaged bookkeeping must not stop a game from loading: it reads as nothing known.
    path = tmp_path / "damaged.db"
    other = await open_storage(path)
    damaged = await store_game(other, Game(5, seed=2))
    await other.close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE games SET session_state = '{not json' WHERE id = ?", (damaged,))
    raw.close()
    other = await open_storage(path)
    assert (await other.load_game(damaged)).session_state == {}
    await other.close()


async def test_concurrent_appends_are_serialised_and_close_waits_for_them(
    database: str,
    open_storage: OpenStorage,
) -> None:
    path = database
    storage = await open_storage(path)
    games = [play_random_game(n, n) for n in (5, 7, 9)]
    ids = [await store_game(storage, Game(g.players, seed=g.seed)) for g in games]
    # Interleave the three games' appends as concurrent tasks, each game's in order.
    tasks = [
        asyncio.create_task(storage.append_action(game_id, seq, action))
        for seq in range(max(len(g.actions) for g in games))
        for game_id, g in zip(ids, games, strict=True)
        for action in g.actions[seq : seq + 1]
    ]
    await asyncio.sleep(0)  # let them queue on the lock, then close behind them
    await storage.close()
    assert all(t.done() for t in tasks)  # close waited for every write queued before it
    await asyncio.gather(*tasks)  # and none of them failed
    with pytest.raises(StorageError, match="closed"):
        await storage.append_action(ids[0], len(games[0].actions), games[0].actions[0])

    reopened = await open_storage(path)
    stored = [len((await reopened.load_game(i)).record.actions) for i in ids]
    assert stored == [len(g.actions) for g in games]
    for game_id, game in zip(ids, games, strict=True):
        assert (await reopened.load_game(game_id)).record.replay().events == game.events
    with pytest.raises(StorageError, match="closed"):
        await storage.load_game(ids[0])
    await reopened.close()


# --- seats and takeovers ------------------------------------------------------------


async def test_seat_takeovers_are_recorded_and_stats_credit_the_dealt_human(
    storage: Storage,
) -> None:
    game_id = await storage.create_game(
        players=5,
        variant=STANDARD,
        seed=9,
        seats=seats_for(5, {0: (1, "Ada"), 1: (2, "Boris")}),
        options={},
        guild_id=1,
    )
    await storage.set_seat(
        game_id, SeatRecord(0, "Ada (AI)", 1, "belief-ismcts:seconds=2"), "timeout"
    )
    await storage.set_seat(game_id, SeatRecord(0, "Ada", 1, None), "back")
    # Boris leaves for good; the session may even drop his id from the seat.
    await storage.set_seat(game_id, SeatRecord(1, "Boris (AI)", None, "selfish"), "left")
    # A seat dealt to an AI, taken by a human who arrives late.
    await storage.set_seat(game_id, SeatRecord(4, "Chen", 3, None), "joined")

    stored = await storage.load_game(game_id)
    assert stored.seats[0] == SeatRecord(0, "Ada", 1, None)
    assert stored.seats[1] == SeatRecord(1, "Boris (AI)", None, "selfish")
    assert stored.seats[4] == SeatRecord(4, "Chen", 3, None)
    history = await storage.seat_history(game_id)
    assert [(c.seat, c.from_user_id, c.from_agent, c.to_agent, c.reason) for c in history] == [
        (0, 1, None, "belief-ismcts:seconds=2", "timeout"),
        (0, 1, "belief-ismcts:seconds=2", None, "back"),
        (1, 2, None, "selfish", "left"),
        (4, None, "random", None, "joined"),
    ]
    assert history[0].at < history[-1].at

    await storage.finish_game(
        game_id,
        status="finished",
        winner=Party.FASCIST,
        reason=WinReason.SIX_FASCIST,
        roles=[L, H, L, L, F],
    )
    boris = await storage.player_stats(2)
    assert (boris.games, boris.wins, boris.by_role["hitler"]) == (1, 1, (1, 1))
    chen = await storage.player_stats(3)
    assert (chen.games, chen.wins, chen.by_role["fascist"]) == (1, 1, (1, 1))
    board = await storage.leaderboard(1)
    assert [(r.user_id, r.name) for r in board] == [(2, "Boris"), (3, "Chen"), (1, "Ada")]


# --- stats --------------------------------------------------------------------------


async def _finished(
    storage: Storage,
    guild: int,
    humans: dict[int, tuple[int, str]],
    roles: list[Role],
    reason: WinReason | None,
) -> int:
    game_id = await storage.create_game(
        players=len(roles),
        variant=STANDARD,
        seed=len(roles),
        seats=seats_for(len(roles), humans),
        options={},
        guild_id=guild,
        channel_id=guild * 10,
    )
    if reason is None:
        await storage.finish_game(game_id, status="cancelled", winner=None, reason=None, roles=None)
    else:
        await storage.finish_game(
            game_id, status="finished", winner=reason.winner, reason=reason, roles=roles
        )
    return game_id


async def test_player_stats_count_finished_games_of_humans_only(storage: Storage) -> None:
    ada, boris, chen = 1, 2, 3
    a = await _finished(
        storage, 1, {0: (ada, "Ada"), 1: (boris, "Boris")}, [L, H, L, F, L], WinReason.FIVE_LIBERAL
    )
    b = await _finished(
        storage,
        1,
        {0: (ada, "Ada"), 1: (boris, "Boris")},
        [F, L, H, L, L],
        WinReason.HITLER_ELECTED,
    )
    c = await _finished(
        storage,
        2,
        {2: (ada, "Ada G2"), 0: (chen, "Chen")},
        [H, L, L, F, L, L, L],
        WinReason.SIX_FASCIST,
    )
    cancelled = await _finished(storage, 1, {0: (ada, "Ada")}, [L, L, L, F, H], None)
    running = await storage.create_game(
        players=5,
        variant=STANDARD,
        seed=1,
        seats=seats_for(5, {0: (ada, "Ada")}),
        options={},
        guild_id=1,
    )

    stats = await storage.player_stats(ada)
    assert (stats.games, stats.wins) == (3, 2)
    assert stats.win_rate == pytest.approx(2 / 3)
    assert stats.by_role == {"liberal": (2, 1), "fascist": (1, 1), "hitler": (0, 0)}
    assert [g.id for g in stats.recent] == [c, b, a]  # finished games only, newest first
    assert stats.recent[0].winner == "fascist" and stats.recent[0].reason == "six_fascist"
    in_guild = await storage.player_stats(ada, guild_id=1)
    assert (in_guild.games, in_guild.wins, in_guild.win_rate) == (2, 2, 1.0)
    stranger = await storage.player_stats(99)
    assert (stranger.games, stranger.win_rate, stranger.recent) == (0, 0.0, ())

    everywhere = await storage.leaderboard(None)
    assert [(r.user_id, r.name, r.games, r.wins) for r in everywhere] == [
        (chen, "Chen", 1, 1),
        (ada, "Ada G2", 3, 2),  # the name last played with
        (boris, "Boris", 2, 0),
    ]
    assert everywhere[1].win_rate == pytest.approx(2 / 3)
    assert [r.user_id for r in await storage.leaderboard(None, min_games=2)] == [ada, boris]
    assert [r.user_id for r in await storage.leaderboard(None, limit=1)] == [chen]
    guild_one = await storage.leaderboard(1)
    assert [(r.user_id, r.name, r.games, r.wins) for r in guild_one] == [
        (ada, "Ada", 2, 2),
        (boris, "Boris", 2, 0),
    ]
    assert await storage.leaderboard(3) == []

    recent = await storage.recent_games(guild_id=1)
    assert [g.id for g in recent] == [running, cancelled, b, a]
    assert [g.status for g in recent] == ["running", "cancelled", "finished", "finished"]
    assert [g.id for g in await storage.recent_games(user_id=chen)] == [c]
    assert [g.id for g in await storage.recent_games(limit=2)] == [running, cancelled]
    assert (await storage.recent_games(guild_id=2))[0].players == 7


async def test_the_last_game_of_a_channel_is_its_newest_of_any_status(storage: Storage) -> None:
    """What /status tells of a channel where no game runs (a game set aside or abandoned)."""

    async def game(channel: int, guild: int = 1) -> int:
        return await storage.create_game(
            players=5,
            variant=STANDARD,
            seed=1,
            seats=seats_for(5),
            options={},
            guild_id=guild,
            channel_id=channel,
        )

    assert await storage.last_game_in(1, 10) is None
    await game(10)
    other = await game(11)
    damaged = await game(10)
    await storage.mark_damaged(damaged, "action 3 does not read (ValueError)")
    last = await storage.last_game_in(1, 10)
    assert last is not None and (last.id, last.status) == (damaged, "damaged")
    last = await storage.last_game_in(1, 11)
    assert last is not None and last.id == other
    assert await storage.last_game_in(2, 10) is None  # another server's channel
    newer = await game(10)
    last = await storage.last_game_in(1, 10)
    assert last is not None and (last.id, last.status) == (newer, "running")


async def test_the_game_a_lobby_started_is_found_by_the_lobby_s_id(storage: Storage) -> None:
    """How a lobby row left behind by a failed close is known to be a started lobby."""

    async def game(channel: int, options: dict[str, object]) -> int:
        return await storage.create_game(
            players=5,
            variant=STANDARD,
            seed=1,
            seats=seats_for(5),
            options=options,
            guild_id=1,
            channel_id=channel,
        )

    first = await game(10, {"host_id": 5, "lobby": "L1a", "timer": 60})
    longer = await game(10, {"lobby": "L1a0"})  # the first's id is a prefix of its id
    await game(11, {"lobby": "L2"})
    await game(10, {"demo": True})
    await game(10, {"lobby": "Lxa"})  # matches "L_a" if `_` were a wildcard
    await storage.abandon_game(first, "the channel was deleted")
    assert await storage.game_of_lobby(10, "L1a") == first  # of any status
    assert await storage.game_of_lobby(10, "L1a0") == longer
    assert await storage.game_of_lobby(11, "L1a") is None  # another channel's
    assert await storage.game_of_lobby(10, "L2") is None
    assert await storage.game_of_lobby(10, "L_a") is None
    assert await storage.game_of_lobby(10, "l1A") is None  # SQLite's LIKE ignores case
    assert await storage.game_of_lobby(12, "L1a") is None


async def test_settings_round_trip_and_replace(storage: Storage) -> None:
    assert await storage.get_settings(5) == {}
    await storage.set_settings(5, {"timers": {"vote": 120}, "ai": "belief-ismcts"})
    await storage.set_settings(6, {"ai": "random"})
    assert await storage.get_settings(5) == {"timers": {"vote": 120}, "ai": "belief-ismcts"}
    await storage.set_settings(5, {"ai": "selfish"})
    assert await storage.get_settings(5) == {"ai": "selfish"}
    assert await storage.get_settings(6) == {"ai": "random"}
    assert await storage.get_channel_settings(50) == {}
    await storage.set_channel_settings(5, 50, {"lobby": True})
    assert await storage.get_channel_settings(50) == {"lobby": True}


# --- files: damage, newer schema, migrations -----------------------------------------


async def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "shbot.db"
    garbage = b"this is not an sqlite file \x00\xff" * 200
    path.write_bytes(garbage)
    with pytest.raises(StorageError, match="not a readable shbot database") as error:
        await Storage.open(path)
    assert str(path) in str(error.value) and "Restore a backup" in str(error.value)
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shbot.db"]


# A wrecked table page makes SQLite itself fail; a wrecked index page is only found by
# the integrity check at open (a plain open would run until a query touched it).
@pytest.mark.parametrize("wrecked", ["actions", "seats_by_dealt_user"])
async def test_a_malformed_database_is_refused_untouched(
    tmp_path: Path, open_storage: OpenStorage, wrecked: str
) -> None:
    path = tmp_path / "shbot.db"
    storage = await open_storage(path)
    await store_game(storage, play_random_game(10, 0))
    await storage.close()  # the last connection checkpoints the WAL into the file
    with sqlite3.connect(path) as raw:
        page_size = raw.execute("PRAGMA page_size").fetchone()[0]
        (root,) = raw.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (wrecked,))
    raw.close()
    data = bytearray(path.read_bytes())
    start = (root[0] - 1) * page_size
    data[start : start + page_size] = b"\xa5" * page_size  # wreck the b-tree's root page
    path.write_bytes(bytes(data))
    with pytest.raises(StorageError, match="not a readable shbot database"):
        await Storage.open(path)
    assert path.read_bytes() == bytes(data)


async def test_a_database_from_a_newer_shbot_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "shbot.db"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 999")
    raw.close()
    before = path.read_bytes()
    with pytest.raises(StorageError) as error:
        await Storage.open(path)
    message = str(error.value)
    assert f"schema 999, this version knows {SCHEMA_VERSION}" in message
    assert "newer version of shbot" in message and "refusing to touch it" in message
    assert path.read_bytes() == before


async def test_a_path_that_cannot_be_opened_gives_a_clear_error(tmp_path: Path) -> None:
    """And leaves no worker thread behind (one still running when the event loop
    closes dies with an error in its thread)."""
    before = set(threading.enumerate())
    path = tmp_path / "no such folder" / "shbot.db"
    with pytest.raises(StorageError, match=r"Cannot open the database .*no such folder"):
        await Storage.open(path)
    assert not [t for t in set(threading.enumerate()) - before if t.is_alive()]


async def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    raw.close()
    with pytest.raises(StorageError, match="not one of shbot's"):
        await Storage.open(path)


async def test_a_version_1_database_is_upgraded_with_its_games(
    tmp_path: Path, open_storage: OpenStorage
) -> None:
    path = tmp_path / "old.db"
    game = play_random_game(5, 8)
    assert game.winner is not None and game.win_reason is not None
    async with aiosqlite.connect(path, isolation_level=None) as raw:
        assert await migrate(raw, target=1) == 1
        # Data as version 1 wrote it: Boris's seat (1) was taken over and his id dropped.
        await raw.execute(
            "INSERT INTO games (id, guild_id, channel_id, players, variant, seed, status, options,"
            " created_at, updated_at, finished_at, winner, win_reason)"
            " VALUES (1, 7, 70, 5, ?, 8, 'finished', '{}', 10.0, 20.0, 20.0, ?, ?)",
            (json.dumps(STANDARD.to_dict()), game.winner.value, game.win_reason.value),
        )
        names = ["Ada", "Boris (AI)", "c", "d", "e"]
        users = [1, None, None, None, None]
        for seat, role in enumerate(game.roles):
            await raw.execute(
                "INSERT INTO seats (game_id, seat, name, user_id, agent, role)"
                " VALUES (1, ?, ?, ?, ?, ?)",
                (seat, names[seat], users[seat], None if users[seat] else "random", role.value),
            )
        await raw.execute(
            "INSERT INTO seat_changes (game_id, seat, at, from_user_id, from_agent, to_user_id,"
            " to_agent, to_name, reason)"
            " VALUES (1, 1, 15.0, 2, NULL, NULL, 'random', 'Boris (AI)', 'left')"
        )
        for seq, action in enumerate(game.actions):
            await raw.execute(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (1, ?, ?, 12.0)",
                (seq, json.dumps(action.to_dict())),
            )

    storage = await open_storage(path)
    stored = await storage.load_game(1)
    assert stored.record.replay().events == game.events
    assert stored.session_state == {}  # version 3's bookkeeping starts empty
    ada_won = game.roles[0].party is game.winner
    boris_won = game.roles[1].party is game.winner
    ada = await storage.player_stats(1)
    assert (ada.games, ada.wins) == (1, int(ada_won))
    boris = await storage.player_stats(2)  # found through the takeover history
    assert (boris.games, boris.wins) == (1, int(boris_won))
    assert {r.user_id for r in await storage.leaderboard(7)} == {1, 2}
    # Finished before ratings existed: rated when the upgraded database first opens.
    rated = {r.player: (r.games, r.wins) for r in await storage.rating_ladder()}
    assert rated[human_key(1)] == (1, int(ada_won)) and rated[human_key(2)] == (1, int(boris_won))
    assert rated[ai_key("random")][0] == 3
    await storage.close()
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    check.close()


async def test_a_version_3_database_gets_the_paused_status_and_keeps_its_games(
    tmp_path: Path, open_storage: OpenStorage
) -> None:
    """Version 4 rebuilds the games table (a CHECK constraint cannot be altered): every
    game, seat and action stays, ids are never reused, foreign keys still hold."""
    path = tmp_path / "v3.db"
    game = play_random_game(5, 9)
    async with aiosqlite.connect(path, isolation_level=None) as raw:
        await raw.execute("PRAGMA foreign_keys = ON")
        assert await migrate(raw, target=3) == 3
        await raw.execute(
            "INSERT INTO games (id, guild_id, channel_id, players, variant, seed, options,"
            " created_at, updated_at, session_state)"
            " VALUES (5, 7, 70, 5, ?, 9, '{}', 10.0, 20.0, '{\"fallbacks\": 2}')",
            (json.dumps(STANDARD.to_dict()),),
        )
        for seat in range(5):
            await raw.execute(
                "INSERT INTO seats (game_id, seat, name, user_id, dealt_user_id)"
                " VALUES (5, ?, ?, ?, ?)",
                (seat, f"p{seat}", 100 + seat, 100 + seat),
            )
        for seq, action in enumerate(game.actions[:6]):
            await raw.execute(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (5, ?, ?, 12.0)",
                (seq, json.dumps(action.to_dict())),
            )

    storage = await open_storage(path)
    stored = await storage.load_game(5)
    assert stored.status == "running" and stored.pause_reason is None
    assert stored.record.actions == game.actions[:6]
    assert stored.session_state == {"fallbacks": 2}
    assert [s.user_id for s in stored.seats] == [100, 101, 102, 103, 104]
    await storage.pause_game(5, "KeyError at bot/session.py:1 (_run)")
    assert (await storage.load_game(5)).status == "paused"
    assert await store_game(storage, Game(5, seed=1)) == 6  # the id counter went along
    await storage.close()
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert check.execute("PRAGMA foreign_key_check").fetchall() == []
        indexes = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert {"games_by_status", "games_by_guild"} <= indexes
        check.execute("PRAGMA foreign_keys = ON")
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            check.execute("INSERT INTO seats (game_id, seat, name) VALUES (99, 0, 'x')")
    check.close()


async def test_a_version_6_database_gets_the_channel_index_its_lookups_use(
    tmp_path: Path, open_storage: OpenStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Version 7 indexes the games by channel: the last game of a channel (/status where
    no game runs) and the game a lobby started are found through it, without a scan of a
    server's games or a sort."""
    path = tmp_path / "v6.db"
    async with aiosqlite.connect(path, isolation_level=None) as raw:
        assert await migrate(raw, target=6) == 6
        await raw.execute(
            "INSERT INTO games (id, guild_id, channel_id, players, variant, seed, options,"
            ' created_at, updated_at) VALUES (3, 7, 70, 5, ?, 9, \'{"lobby":"L1"}\', 1, 2)',
            (json.dumps(STANDARD.to_dict()),),
        )
    storage = await open_storage(path)
    statements: list[tuple[str, Params]] = []  # the SQL the lookups run, as they run it
    real_all = _SQLiteTx.all

    async def recording(self: _SQLiteTx, sql: str, params: Params = ()) -> list[Any]:
        statements.append((sql, params))
        return await real_all(self, sql, params)

    monkeypatch.setattr(_SQLiteTx, "all", recording)
    last = await storage.last_game_in(7, 70)
    assert last is not None and last.id == 3
    assert await storage.game_of_lobby(70, "L1") == 3
    monkeypatch.undo()
    await storage.close()
    lookups = [(sql, params) for sql, params in statements if "FROM games" in sql]
    assert len(lookups) == 2
    with contextlib.closing(sqlite3.connect(path)) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        indexes = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert "games_by_channel" in indexes
        for sql, params in lookups:
            plan = " / ".join(r[3] for r in check.execute(f"EXPLAIN QUERY PLAN {sql}", params))
            assert "USING INDEX games_by_channel" in plan, plan
            assert "TEMP B-TREE" not in plan, plan  # the index gives the order too


async def test_storage_enforces_foreign_keys_after_migrating(storage: Storage) -> None:
    with pytest.raises(StorageError, match=r"(?i)foreign key"):
        async with storage.driver.write() as tx:
            await tx.all("INSERT INTO seats (game_id, seat, name) VALUES (99, 0, 'x')")


async def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "shbot.db"
    broken = (_V1, ("CREATE TABLE half_done (x INTEGER)", "THIS IS NOT SQL"))
    async with aiosqlite.connect(path, isolation_level=None) as raw:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(raw, migrations=broken)
        assert await user_version(raw) == 1
        tables = await raw.execute_fetchall(
            "SELECT name FROM sqlite_master WHERE name = 'half_done'"
        )
        assert list(tables) == []
        assert await migrate(raw) == len(MIGRATIONS)  # the real next step still applies


# --- backups and durability ------------------------------------------------------------


async def test_backup_while_games_are_written_is_a_consistent_copy(
    tmp_path: Path, open_storage: OpenStorage
) -> None:
    storage = await open_storage(tmp_path / "live.db")
    finished = play_random_game(7, 30)
    done_id = await store_game(storage, finished)
    assert finished.winner and finished.win_reason
    await storage.finish_game(
        done_id,
        status="finished",
        winner=finished.winner,
        reason=finished.win_reason,
        roles=finished.roles,
    )
    live = play_random_game(9, 31)
    live_id = await store_game(storage, Game(9, seed=31))
    half = len(live.actions) // 2
    writes = [storage.append_action(live_id, s, a) for s, a in enumerate(live.actions[:half])]
    backup = tmp_path / "backups" / "shbot-backup.db"
    backup.parent.mkdir()
    await asyncio.gather(*writes[:10], storage.backup(backup), *writes[10:])
    await storage.close()

    copy = await open_storage(backup)
    assert (await copy.load_game(done_id)).record.replay().events == finished.events
    record = (await copy.load_game(live_id)).record
    # Exactly the writes queued before the backup (the lock is FIFO), none half done.
    assert record.actions == live.actions[:10]
    record.replay()
    assert [g.id for g in await copy.recent_games()] == [live_id, done_id]
    await copy.close()
    assert sorted(p.name for p in backup.parent.iterdir()) == ["shbot-backup.db"]


CHILD = """
import asyncio, json, sys
from bot.storage import SeatRecord, Storage
from engine import Action, STANDARD

async def main(db: str, plan_path: str) -> None:
    storage = await Storage.open(db)
    with open(plan_path) as f:
        plan = json.load(f)
    for game in plan:
        seats = [SeatRecord(s, f"p{s}", None, "random") for s in range(game["players"])]
        game_id = await storage.create_game(
            players=game["players"], variant=STANDARD, seed=game["seed"], seats=seats, options={}
        )
        for seq, action in enumerate(game["actions"]):
            await storage.append_action(game_id, seq, Action.from_dict(action))
            print("ok", game_id, seq, flush=True)
    print("done", flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_acknowledged_actions_survive_a_hard_kill(
    tmp_path: Path, database: str, open_storage: OpenStorage
) -> None:
    games = [play_random_game(5 + i % 6, 100 + i) for i in range(12)]
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            [
                {"players": g.players, "seed": g.seed, "actions": [a.to_dict() for a in g.actions]}
                for g in games
            ]
        )
    )
    db = database
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(plan)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    acked: list[tuple[int, int]] = []
    for line in child.stdout:
        if line.startswith("ok "):
            _, game_id, seq = line.split()
            acked.append((int(game_id), int(seq)))
        if len(acked) == 150:  # well into the run, with writes in full flow
            child.send_signal(signal.SIGKILL)
            break
    rest = child.stdout.read()  # the same buffered reader: no acknowledgement is skipped
    assert child.stderr is not None
    errors = child.stderr.read()
    child.wait(timeout=30)
    for line in rest.splitlines():  # acknowledgements printed before the kill landed
        if line.startswith("ok "):
            _, game_id, seq = line.split()
            acked.append((int(game_id), int(seq)))
    assert child.returncode == -signal.SIGKILL, errors
    assert "done" not in rest  # the kill interrupted the writes
    if not db.startswith("postgresql://"):  # the WAL was never checkpointed away
        assert Path(db + "-wal").exists()

    storage = await open_storage(db)
    for game_id in {g for g, _ in acked}:
        stored = (await storage.load_game(game_id)).record
        expected = games[game_id - 1].actions
        last_acked = max(seq for g, seq in acked if g == game_id)
        assert len(stored.actions) > last_acked  # every acknowledged action is there
        assert len(stored.actions) <= last_acked + 2  # at most one write was in flight
        assert stored.actions == expected[: len(stored.actions)]
        stored.replay()
    await storage.close()


FORGETFUL_CHILD = """
import asyncio, sys
from bot.storage import SeatRecord, Storage
from engine import Nominate, STANDARD

async def main(db: str) -> None:
    storage = await Storage.open(db)  # and never closed, as after a crash
    seats = [SeatRecord(s, f"p{s}", None, "random") for s in range(5)]
    game_id = await storage.create_game(
        players=5, variant=STANDARD, seed=1, seats=seats, options={}
    )
    print("created", game_id, flush=True)

asyncio.run(main(sys.argv[1]))
"""


async def test_a_process_that_never_closes_the_storage_still_exits(
    database: str, open_storage: OpenStorage
) -> None:
    db = database
    result = subprocess.run(
        [sys.executable, "-c", FORGETFUL_CHILD, str(db)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,  # without the daemon worker thread this would hang forever
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["created", "1"]
    storage = await open_storage(db)
    assert [g.id for g in await storage.unfinished_games()] == [1]


def test_actions_are_stored_as_their_json_form() -> None:
    # The log stores Action.to_dict(); this guards the contract the migrations rely on.
    action = Nominate(seat=2, chancellor=4)
    assert Action.from_dict(json.loads(json.dumps(action.to_dict()))) == action


async def test_ai_fallbacks_are_summed_over_finished_games(storage: Storage) -> None:
    """The fallback alarm (issue 19) as `shbot stats` reads it: the count each session
    stored, over finished games only."""
    assert await storage.ai_fallbacks(None) == (0, 0)
    for guild, count, reason in (
        (1, 3, WinReason.FIVE_LIBERAL),
        (2, 1, WinReason.FIVE_LIBERAL),
        (1, 7, None),
    ):
        game_id = await storage.create_game(
            players=5,
            variant=STANDARD,
            seed=5,
            seats=seats_for(5, {0: (1, "Ada")}),
            options={},
            guild_id=guild,
            channel_id=guild * 10,
        )
        await storage.set_session_state(game_id, {"fallbacks": count})
        if reason is None:  # cancelled: not counted
            await storage.finish_game(
                game_id, status="cancelled", winner=None, reason=None, roles=None
            )
        else:
            await storage.finish_game(
                game_id,
                status="finished",
                winner=reason.winner,
                reason=reason,
                roles=[L, H, L, F, L],
            )
    assert await storage.ai_fallbacks(None) == (2, 4)
    assert await storage.ai_fallbacks(1) == (1, 3)


@pytest.mark.parametrize("count", [1e300, 2**62, -5, "many", [3]], ids=repr)
async def test_a_fallback_count_that_does_not_read_counts_nothing(
    database: str, count: object
) -> None:
    """Two games with a damaged count (1e300) made SQLite's SUM overflow: /leaderboard
    and `shbot stats` failed for the whole server. Such a count reads as none."""
    async with await Storage.open(database) as storage:
        for value in (count, count, 2):
            game_id = await storage.create_game(
                players=5, variant=STANDARD, seed=5, seats=seats_for(5), options={}, guild_id=1
            )
            await storage.set_session_state(game_id, {"fallbacks": value})
            await storage.finish_game(
                game_id,
                status="finished",
                winner=Party.LIBERAL,
                reason=WinReason.FIVE_LIBERAL,
                roles=[L, H, L, F, L],
            )
        assert await storage.ai_fallbacks(1) == (3, 2)


# --- the rating ladder --------------------------------------------------------------

STRONG = "belief-ismcts:seconds=2"


def _ladder(rows: list[RatingRow]) -> dict[str, tuple[float, float, int, int]]:
    return {r.player: (r.rating.mu, r.rating.sigma, r.games, r.wins) for r in rows}


async def test_finished_games_are_rated_once_and_a_rebuild_gives_the_same_ladder(
    database: str,
) -> None:
    """Only finished games count, each once (a second finish, a restart, a reopen change
    nothing); seats are credited as the stats credit them; the ladder equals the pure
    fold of the games, and a rebuild from the stored history gives it again."""
    ada, boris, chen = human_key(1), human_key(2), human_key(3)
    strong = ai_key(STRONG)
    expected: list[tuple[list[RatedSeat], Party]] = []
    store = await Storage.open(database, clock=ticking_clock())
    try:
        # Game 1: Ada and Boris with three strong AIs; Liberals win.
        roles = [L, F, L, H, L]
        seats = seats_for(5, {0: (1, "Ada"), 1: (2, "Boris")})
        seats = [s if s.user_id else SeatRecord(s.seat, s.name, None, STRONG) for s in seats]
        one = await store.create_game(
            players=5, variant=STANDARD, seed=1, seats=seats, options={}, guild_id=1
        )
        await store.finish_game(
            one,
            status="finished",
            winner=Party.LIBERAL,
            reason=WinReason.FIVE_LIBERAL,
            roles=roles,
        )
        expected.append(
            (
                [
                    RatedSeat([ada, boris, strong, strong, strong][s], r.party)
                    for s, r in enumerate(roles)
                ],
                Party.LIBERAL,
            )
        )
        # Game 2: Boris goes idle and an AI plays his seat; an AI seat is taken by Chen.
        # Boris keeps his result, Chen is credited with the seat he took; Fascists win.
        two = await store.create_game(
            players=5,
            variant=STANDARD,
            seed=2,
            guild_id=2,
            options={},
            seats=seats_for(5, {0: (2, "Boris")}),
        )
        await store.set_seat(two, SeatRecord(0, "Boris (AI)", 2, STRONG), "timeout")
        await store.set_seat(two, SeatRecord(4, "Chen", 3, None), "joined")
        roles = [L, F, L, L, H]
        await store.finish_game(
            two,
            status="finished",
            winner=Party.FASCIST,
            reason=WinReason.HITLER_ELECTED,
            roles=roles,
        )
        players = [boris, ai_key("random"), ai_key("random"), ai_key("random"), chen]
        expected.append(
            ([RatedSeat(players[s], r.party) for s, r in enumerate(roles)], Party.FASCIST)
        )
        # Neither a cancelled nor an abandoned game counts.
        cancelled = await store.create_game(
            players=5,
            variant=STANDARD,
            seed=3,
            seats=seats_for(5, {0: (1, "Ada")}),
            options={},
            guild_id=1,
        )
        await store.finish_game(cancelled, status="cancelled", winner=None, reason=None, roles=None)
        abandoned = await store.create_game(
            players=5,
            variant=STANDARD,
            seed=4,
            seats=seats_for(5, {0: (1, "Ada")}),
            options={},
            guild_id=1,
        )
        await store.abandon_game(abandoned, "channel deleted")

        want = ladder(expected)
        kept = _ladder(await store.rating_ladder())
        assert {p: (mu, sigma) for p, (mu, sigma, _, _) in kept.items()} == {
            p: (r.mu, r.sigma) for p, r in want.items()
        }
        assert kept[ada][2:] == (1, 1) and kept[boris][2:] == (2, 0) and kept[chen][2:] == (1, 1)
        assert kept[strong][2:] == (3, 2)  # three seats, two of them Liberal
        assert kept[ai_key("random")][2:] == (3, 1)
        ranked = [r.rating.ordinal for r in await store.rating_ladder()]
        assert ranked == sorted(ranked, reverse=True)

        # A replayed finish is refused and rates nothing; nothing is left to catch up.
        with pytest.raises(StorageError, match="already finished"):
            await store.finish_game(
                one,
                status="finished",
                winner=Party.LIBERAL,
                reason=WinReason.FIVE_LIBERAL,
                roles=[L, F, L, H, L],
            )
        assert await store.rate_unrated() == 0
        assert _ladder(await store.rating_ladder()) == kept
        assert await store.rebuild_ratings() == 2
        assert _ladder(await store.rating_ladder()) == kept
    finally:
        await store.close()
    # A restart (a new process opening the database) rates nothing again.
    async with await Storage.open(database) as again:
        assert _ladder(await again.rating_ladder()) == kept
        # A server's ladder: every AI strength, and its own players only.
        guild_one = [r.player for r in await again.rating_ladder(1)]
        assert sorted(guild_one) == sorted([ada, boris, strong, ai_key("random")])
        assert [r.player for r in await again.rating_ladder(3)] == [
            p for p in (r.player for r in await again.rating_ladder()) if p.startswith("ai:")
        ]
        row, rank, of = await again.player_rating(chen) or pytest.fail("Chen is rated")
        assert (row.user_id, row.name, row.games, row.wins) == (3, "Chen", 1, 1)
        everyone = [r.player for r in await again.rating_ladder()]
        assert (rank, of) == (everyone.index(chen) + 1, len(everyone))
        assert await again.player_rating(human_key(99)) is None


async def test_a_game_rated_by_one_store_is_not_rated_by_another(database: str) -> None:
    """Two stores (two processes) on one database: whichever rates a game, it is rated
    once; a game of one AI against itself is taken in but moves nobody."""
    async with await Storage.open(database) as a, await Storage.open(database) as b:
        selfplay = await a.create_game(
            players=5, variant=STANDARD, seed=5, seats=seats_for(5), options={}, guild_id=1
        )
        await a.finish_game(
            selfplay,
            status="finished",
            winner=Party.LIBERAL,
            reason=WinReason.FIVE_LIBERAL,
            roles=[L, F, L, H, L],
        )
        assert await b.rating_ladder() == []  # taken in, but nobody's skill showed
        assert await b.rate_unrated() == 0 and await a.rate_unrated() == 0
        game = await b.create_game(
            players=5,
            variant=STANDARD,
            seed=6,
            seats=seats_for(5, {0: (1, "Ada")}),
            options={},
            guild_id=1,
        )
        await b.finish_game(
            game,
            status="finished",
            winner=Party.FASCIST,
            reason=WinReason.SIX_FASCIST,
            roles=[L, F, L, H, L],
        )
        assert await a.rate_unrated() == 0
        ada, _, _ = await a.player_rating(human_key(1)) or pytest.fail("Ada is rated")
        assert (ada.games, ada.wins) == (1, 0) and ada.rating.mu < 25


@pytest.mark.parametrize(
    ("winner", "roles"),
    [
        ("liberal", ["liberal", None, "liberal", "fascist", "hitler"]),  # a role lost
        (None, ["liberal", "liberal", "liberal", "fascist", "hitler"]),  # the winner lost
        ("liberal", ["liberal"] * 5),  # every seat on one side
    ],
    ids=["no-role", "no-winner", "one-side"],
)
async def test_a_damaged_finished_game_of_an_older_database_is_left_unrated(
    tmp_path: Path, open_storage: OpenStorage, winner: str | None, roles: list[str | None]
) -> None:
    """Opening rates the finished games an older release left unrated: one damaged row
    among them raised out of `Storage.open`, and the bot, `shbot stats` and `shbot
    backup` could not start at all. It is left unrated (and said so); the rest is rated."""
    path = tmp_path / "v5.db"
    good = play_random_game(5, 8)
    assert good.winner is not None
    async with aiosqlite.connect(path, isolation_level=None) as raw:
        assert await migrate(raw, target=5) == 5
        for game_id, won, dealt in ((1, winner, roles), (2, good.winner.value, None)):
            await raw.execute(
                "INSERT INTO games (id, guild_id, channel_id, players, variant, seed, status,"
                " options, created_at, updated_at, finished_at, winner, win_reason)"
                " VALUES (?, 7, 70, 5, ?, 9, 'finished', '{}', 1, 2, ?, ?, 'five_liberal')",
                (game_id, json.dumps(STANDARD.to_dict()), game_id, won),
            )
            for seat in range(5):
                role = dealt[seat] if dealt else good.roles[seat].value
                user = 10 * game_id + seat
                await raw.execute(
                    "INSERT INTO seats (game_id, seat, name, user_id, dealt_user_id,"
                    " dealt_name, role) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, seat, f"p{user}", user, user, f"p{user}", role),
                )
    storage = await open_storage(path)
    rated = {r.player for r in await storage.rating_ladder()}
    assert rated == {human_key(20 + seat) for seat in range(5)}  # game 2 only
    assert await storage.rate_unrated() == 0  # tried again, and left again
    assert await storage.rebuild_ratings() == 1
    assert {r.player for r in await storage.rating_ladder()} == rated


async def test_a_game_played_outside_any_server_is_not_rated(database: str) -> None:
    """A terminal game (`shbot play`, no server) moved the AI strengths every server's
    /leaderboard shows, and put its player (local id 1) on the ladder."""
    async with await Storage.open(database) as store:
        for guild_id in (None, 4):
            await won_by_liberals(store, seats_for(5, {0: (1, "You")}), guild_id=guild_id)
            if guild_id is None:
                assert await store.rating_ladder() == []
                assert await store.rate_unrated() == 0  # not waiting to be rated either
        assert {r.games for r in await store.rating_ladder()} == {1, 4}  # the server's game
        assert await store.rebuild_ratings() == 1


@pytest.mark.parametrize("mu", ["'garbage'", "9e999"])
async def test_a_damaged_rating_row_is_skipped_and_games_still_finish(
    tmp_path: Path, open_storage: OpenStorage, mu: str
) -> None:
    """A ratings row whose mu does not read (a hand's edit, a disk): `shbot stats` was a
    traceback and /leaderboard failed for the whole server; a game finishing with that
    player would have failed to store its end. The row is skipped, the game finishes
    unrated, and the rest of the ladder is as it was."""
    storage = await open_storage(tmp_path / "g.db")
    await won_by_liberals(storage, seats_for(5, {0: (1, "Ada")}))  # Ada, the random AI rated
    async with storage.driver.write() as tx:
        await tx.all(f"UPDATE ratings SET mu = {mu} WHERE player = ?", (ai_key("random"),))
    assert [r.player for r in await storage.rating_ladder()] == [human_key(1)]
    assert await storage.player_rating(ai_key("random")) is None
    row, _, _ = await storage.player_rating(human_key(1)) or pytest.fail("Ada is rated")
    assert row.games == 1

    later = await won_by_liberals(storage, seats_for(5, {0: (2, "Boris")}))  # the damaged AI
    assert (await storage.load_game(later)).status == "finished"
    assert await storage.player_rating(human_key(2)) is None  # left unrated, whole
    stats = await stats_text(storage, None)
    assert "Ada" in stats


async def test_two_settings_changes_at_once_both_count(database: str) -> None:
    """Two moderators' /settings at once: each read the settings, merged its change and
    wrote the whole back, so one change was lost though both were confirmed."""
    from bot.config import Config
    from bot.discord.info import update_settings
    from bot.discord.lobby import LobbyError

    async with await Storage.open(database) as a, await Storage.open(database) as b:
        config = Config()
        changes = [{"fill": False}, {"turn_seconds": 200}, {"talk": True}, {"vote_seconds": 90}]
        await asyncio.gather(
            *(update_settings(s, config, 7, c) for s, c in zip([a, b, a, b], changes, strict=True))
        )
        assert await a.get_settings(7) == {
            "fill": False,
            "turn_seconds": 200,
            "talk": True,
            "vote_seconds": 90,
        }

        def refuse(merged: dict[str, object]) -> None:
            raise LobbyError("no")

        with pytest.raises(LobbyError):  # refused whole: nothing of it is stored
            await a.merge_settings(7, {"fill": True, "talk": False}, refuse)
        assert (await b.get_settings(7))["talk"] is True
        with pytest.raises(LobbyError):  # nor a first row for a server without one
            await a.merge_settings(8, {"fill": True}, refuse)
        assert await b.get_settings(8) == {}


async def test_an_unrated_game_whose_seat_does_not_read_is_left_unrated(
    tmp_path: Path, open_storage: OpenStorage
) -> None:
    """A finished, unrated game whose dealt member id does not read: `Storage.open`
    raised, and the bot, `shbot stats` and `shbot backup` could not start."""
    storage = await open_storage(tmp_path / "g.db")
    game_id = await won_by_liberals(storage, seats_for(5, {0: (1, "Ada")}))
    async with storage.driver.write() as tx:  # an older database: not rated yet, damaged
        await tx.all("DELETE FROM rated_games")
        await tx.all("DELETE FROM ratings")
        await tx.all("UPDATE seats SET dealt_user_id = 'x' WHERE game_id = ?", (game_id,))
    assert await storage.rate_unrated() == 0
    assert await storage.rating_ladder() == []


async def test_a_record_shown_here_skips_a_game_whose_channel_does_not_read(
    tmp_path: Path, open_storage: OpenStorage
) -> None:
    """`player_stats(shown=)` read every game's channel id as a number: one that does
    not read (SQLite keeps any value) made /stats and /profile fail for that player. It
    is nobody's channel."""
    storage = await open_storage(tmp_path / "g.db")
    for channel in (70, 71):
        await won_by_liberals(storage, seats_for(5, {0: (1, "Ada")}), channel_id=channel)
    async with storage.driver.write() as tx:
        await tx.all("UPDATE games SET channel_id = 'general' WHERE channel_id = 71")
    seen = await storage.player_stats(1, shown=lambda channel: channel == 70)
    assert seen.games == 1 and [g.channel_id for g in seen.recent] == [70]
