"""bot.storage under real faults (issue 18, item 9): many processes opening one new file at
once, damaged games among healthy ones, a read-only database, a path the bot may not
open, a locked database, a full one.

Everything here is a real SQLite file and, where the fault is between processes, real
processes. Permission faults need an unprivileged process: as root (which no file mode
stops), the test forks a child that drops to the `nobody` user before it opens the
database, so the kernel refuses it exactly as it would refuse a bot running as a plain
user.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import multiprocessing
import os
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.frontends.fake import FakeFrontend
from bot.manager import Member, SessionManager
from bot.migrations import SCHEMA_VERSION
from bot.session import SessionOptions
from bot.storage import (
    CannotOpen,
    ConnectionLost,
    DatabaseBusy,
    DiskFull,
    GameDamaged,
    NotShbotDatabase,
    PermissionDenied,
    ReadOnlyDatabase,
    SeatRecord,
    ShardsLost,
    Storage,
    StorageError,
    StoredGame,
)
from bot.storage.sqlite import SQLiteDriver
from bot.timers import Timers
from engine import STANDARD, Game, Nominate

FORK = multiprocessing.get_context("fork")
NOBODY = 65534
UNTIMED = SessionOptions(timers=Timers.off(), substitute="selfish", suspicion=False)


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert text and "\n" not in text, text
    return text


# --- the first open of a new file, from many processes at once -------------------------


def _open_after(path: str, barrier: Any, results: Any) -> None:
    barrier.wait()

    async def open_and_close() -> None:
        store = await Storage.open(path)
        await store.close()

    try:
        asyncio.run(open_and_close())
        results.put("ok")
    except Exception as exc:
        results.put(f"{type(exc).__name__}: {exc}")


def test_many_processes_opening_one_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    """200 bots started at once on a new file: each checked "is this shbot's database?"
    in two reads, and a process that initialised the file between them made the others
    call it "not one of shbot's". Now the check reads one snapshot, so a file another
    process is initialising is either still empty or already shbot's."""
    processes, rounds = 48, 3  # before the fix, most rounds of 48 lost at least one bot
    for round_ in range(rounds):
        path = tmp_path / f"new-{round_}.db"
        barrier, results = FORK.Barrier(processes), FORK.Queue()
        children = [
            FORK.Process(target=_open_after, args=(str(path), barrier, results))
            for _ in range(processes)
        ]
        for child in children:
            child.start()
        outcomes = Counter(results.get(timeout=30) for _ in children)
        for child in children:
            child.join(timeout=30)
        assert outcomes == Counter({"ok": processes}), outcomes
        with contextlib.closing(sqlite3.connect(path)) as check:
            assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# --- a damaged game among healthy ones ---------------------------------------------------

HUMAN = 555  # the one human of every game here


async def _three_games(path: Path) -> None:
    """Games 1, 2 and 3, each with a few moves, stored by a manager (not started)."""
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    for seed in (1, 2, 3):
        session = await manager.create(
            [Member(HUMAN, "Ada")],
            players=5,
            fill_with_ai=True,
            seed=seed,
            options=UNTIMED,
            guild_id=10,
            channel_id=100 + seed,
            start=False,
        )
        game = Game(5, seed=seed)
        president = game.president
        action = Nominate(president, game.eligible_chancellors()[0])
        await store.append_action(session.game_id, 0, action)
    await manager.shutdown()
    await store.close()


def _damage(path: Path, *statements: str) -> None:
    """Edit the file as another program (or a failing disk) would: raw SQL, no shbot."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        for statement in statements:
            raw.execute(statement)
        raw.commit()


# JSON nested deeper than Python's parser recurses (about 1000 levels): RecursionError.
TOO_DEEP = "[" * 2000 + "]" * 2000

# Each way a stored game can stop reading back, with what the stored reason must say.
DAMAGE = {
    "variant not JSON": (["UPDATE games SET variant = '{\"name\": ' WHERE id = 2"], "variant"),
    "variant unknown": (["UPDATE games SET variant = '[1, 2]' WHERE id = 2"], "variant"),
    "variant of no known name": (
        ['UPDATE games SET variant = \'{"name": "foo"}\' WHERE id = 2'],
        "variant",
    ),
    "variant deck absurdly large": (
        [
            "UPDATE games SET variant ="
            ' \'{"name": "custom", "liberal_tiles": 1000000000}\' WHERE id = 2'
        ],
        "variant",
    ),
    "action not JSON": (
        ["INSERT INTO actions (game_id, seq, action, at) VALUES (2, 1, 'fascist{', 0)"],
        "action 1",
    ),
    "action of no known kind": (
        [
            "INSERT INTO actions (game_id, seq, action, at)"
            ' VALUES (2, 1, \'{"type": "discard", "seat": 0, "policy": "fascist"}\', 0)'
        ],
        "action 1",
    ),
    "action missing": (
        ["INSERT INTO actions (game_id, seq, action, at) VALUES (2, 3, '{}', 0)"],
        "action 1",
    ),
    "seat missing": (["DELETE FROM seats WHERE game_id = 2 AND seat = 3"], "seats"),
    "seat user id not a number": (
        ["UPDATE seats SET user_id = 'ada' WHERE game_id = 2 AND seat = 0"],
        "seat 0",
    ),
    "options not JSON": (["UPDATE games SET options = 'fascist' WHERE id = 2"], "options"),
    "options too deep": (
        ['UPDATE games SET options = \'{"a": ' + TOO_DEEP + "}' WHERE id = 2"],
        "options",
    ),
    "action too deep": (
        [f"INSERT INTO actions (game_id, seq, action, at) VALUES (2, 1, '{TOO_DEEP}', 0)"],
        "action 1",
    ),
    "variant too deep": (["UPDATE games SET variant = '" + TOO_DEEP + "' WHERE id = 2"], "variant"),
    "seed not a number": (["UPDATE games SET seed = 'liberal' WHERE id = 2"], "seed"),
}


@pytest.mark.parametrize("cause", sorted(DAMAGE))
async def test_a_damaged_game_is_marked_and_skipped_while_the_others_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, cause: str
) -> None:
    """One damaged row used to fail every resume and the bot's start. Now that game is
    logged (without a secret), stored as damaged with its reason, never counted and
    never resumed again; the others resume."""
    path = tmp_path / "shbot.db"
    await _three_games(path)
    statements, where = DAMAGE[cause]
    _damage(path, *statements)
    caplog.set_level(logging.INFO, logger="bot")

    store = await Storage.open(path)
    try:
        manager = SessionManager(store, FakeFrontend())
        resumed = await manager.recover()
        assert sorted(s.game_id for s in resumed) == [1, 3]
        [lost] = manager.set_aside  # for its table to be told
        assert lost.game_id == 2 and where in lost.reason
        await manager.shutdown()

        lines = [r.getMessage() for r in caplog.records if "game 2" in r.getMessage()]
        assert len(lines) == 1 and "damaged" in lines[0] and where in lines[0], lines
        for secret in ("fascist", "liberal", "hitler", "ada", "Ada"):
            assert secret not in lines[0], lines[0]  # no role, hand or name in the log

        [summary] = [g for g in await store.recent_games() if g.id == 2]
        assert summary.status == "damaged"
        with pytest.raises(GameDamaged) as error:
            await store.load_game(2)
        assert "game #2" in _one_line(error.value).lower() and where in str(error.value)
        assert error.value.game_id == 2
        assert (await store.player_stats(HUMAN)).games == 0  # never counted
        assert [g.id for g in await store.unfinished_games()] == [1, 3]  # never again
    finally:
        await store.close()
    with contextlib.closing(sqlite3.connect(path)) as check:
        status, reason = check.execute(
            "SELECT status, pause_reason FROM games WHERE id = 2"
        ).fetchone()
    assert status == "damaged" and where in reason
    assert "fascist" not in reason and "liberal" not in reason


async def test_session_state_too_deep_reads_as_nothing_known_and_every_game_resumes(
    tmp_path: Path,
) -> None:
    """Bookkeeping nested too deep to parse raised RecursionError out of the read: the
    start-up's recovery, and `load_game`, died with it. Now it reads as nothing known,
    as any other unreadable bookkeeping does, and the game resumes."""
    path = tmp_path / "shbot.db"
    await _three_games(path)
    _damage(path, f"UPDATE games SET session_state = '{TOO_DEEP}' WHERE id = 2")

    store = await Storage.open(path)
    try:
        assert (await store.load_game(2)).session_state == {}
        manager = SessionManager(store, FakeFrontend())
        resumed = await manager.recover()
        assert sorted(s.game_id for s in resumed) == [1, 2, 3]
        await manager.shutdown()
    finally:
        await store.close()


@pytest.mark.parametrize(
    "text",
    ["{not json", TOO_DEEP, "[1, 2]", '"fascist"'],
    ids=["not JSON", "too deep", "a list", "a string"],
)
async def test_unreadable_session_state_is_logged_once_per_read_and_read_as_nothing_known(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str
) -> None:
    """Unreadable bookkeeping used to read as {} in silence: a host saw a game forget its
    expiries and claim windows with nothing in the log. Now each read warns, naming the
    game and the column only (the text may hold anything), and the game still loads."""
    path = tmp_path / "shbot.db"
    await _three_games(path)
    _damage(path, f"UPDATE games SET session_state = '{text}' WHERE id = 2")
    caplog.set_level(logging.INFO, logger="bot")

    store = await Storage.open(path)
    try:
        assert (await store.load_game(2)).session_state == {}
        assert (await store.load_game(1)).session_state == {}  # healthy: no warning
    finally:
        await store.close()
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    line = warnings[0].getMessage()
    assert "game 2" in line and "session_state" in line, line
    assert "fascist" not in line and "[" not in line and "{" not in line, line


async def test_a_record_that_does_not_replay_is_marked_damaged_and_the_others_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every stored action reads, but the log does not replay (`engine.RecordError`): a
    nomination by a seat that is not the president."""
    path = tmp_path / "shbot.db"
    await _three_games(path)
    game = Game(5, seed=2)
    wrong = next(s for s in range(5) if s != game.president)
    illegal = Nominate(wrong, next(s for s in range(5) if s not in (wrong, game.president)))
    _damage(
        path,
        "INSERT INTO actions (game_id, seq, action, at) VALUES (2, 1, "
        f"'{json.dumps(illegal.to_dict())}', 0)",
    )
    caplog.set_level(logging.INFO, logger="bot")

    store = await Storage.open(path)
    try:
        manager = SessionManager(store, FakeFrontend())
        resumed = await manager.recover()
        assert sorted(s.game_id for s in resumed) == [1, 3]
        [lost] = manager.set_aside  # for its table to be told
        assert lost.game_id == 2 and "replay" in lost.reason
        await manager.shutdown()
        lines = [r.getMessage() for r in caplog.records if "game 2" in r.getMessage()]
        assert len(lines) == 1 and "damaged" in lines[0] and "replay" in lines[0], lines
        assert "nominate" not in lines[0].lower()  # the action itself is never quoted
        [summary] = [g for g in await store.recent_games() if g.id == 2]
        assert summary.status == "damaged"
        again = SessionManager(store, FakeFrontend())
        assert sorted(s.game_id for s in await again.recover()) == [1, 3]
        await again.shutdown()
    finally:
        await store.close()


# Stored options that read as JSON but not as a session's options.
BAD_OPTIONS = {
    "budget not a number": "json_set(options, '$.ai_budget_s', 'abc')",
    "budget null": "json_set(options, '$.ai_budget_s', json('null'))",
    "timers not an object": "json_set(options, '$.timers', 'x')",
    "timer negative": "json_set(options, '$.timers.vote', -5)",
    "substitute not text": "json_set(options, '$.substitute', 5)",
}


@pytest.mark.parametrize("cause", sorted(BAD_OPTIONS))
async def test_options_that_do_not_read_mark_the_game_damaged_and_the_others_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, cause: str
) -> None:
    """Such a game used to be stored paused as "not resumed" (as a fault of this code
    is), tried again at every start, and every /resume failed. Now it is damaged, like
    any other row that does not read, and never tried again."""
    path = tmp_path / "shbot.db"
    await _three_games(path)
    _damage(path, f"UPDATE games SET options = {BAD_OPTIONS[cause]} WHERE id = 2")
    caplog.set_level(logging.INFO, logger="bot")

    store = await Storage.open(path)
    try:
        manager = SessionManager(store, FakeFrontend())
        assert sorted(s.game_id for s in await manager.recover()) == [1, 3]
        assert manager.stranded_in(102) is None
        await manager.shutdown()
        lines = [r.getMessage() for r in caplog.records if "game 2" in r.getMessage()]
        assert len(lines) == 1 and "damaged" in lines[0] and "options" in lines[0], lines
        [summary] = [g for g in await store.recent_games() if g.id == 2]
        assert summary.status == "damaged"
        assert [g.id for g in await store.unfinished_games()] == [1, 3]  # never again
    finally:
        await store.close()


def _fails_for_game_2(stored: StoredGame) -> FakeFrontend:
    """A recovery callback that fails for game 2, as a fault of this code would."""
    if stored.id == 2:
        raise KeyError("seat 3 plays fascist")  # a message that must never be logged
    return FakeFrontend()


async def test_a_game_that_fails_to_resume_for_another_reason_is_paused_not_lost(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A game whose record replays but whose session cannot be built at a start (a fault
    of this code, of an agent, of the front-end) used to be logged and skipped: stored as
    running, held by no session, so no click, /resume or /cancel could reach it until the
    next restart. Now it is stored paused with its cause and kept as stranded: the manager
    names it for its channel, resumes it on demand, or cancels it."""
    path = tmp_path / "shbot.db"
    await _three_games(path)
    caplog.set_level(logging.INFO, logger="bot")

    store = await Storage.open(path)
    try:
        manager = SessionManager(store, FakeFrontend())
        resumed = await manager.recover(_fails_for_game_2)
        assert sorted(s.game_id for s in resumed) == [1, 3]
        stored = await store.load_game(2)
        assert stored.status == "paused"
        assert stored.pause_reason is not None and "KeyError" in stored.pause_reason
        lines = [r.getMessage() for r in caplog.records if "game 2" in r.getMessage()]
        assert lines and all("fascist" not in line for line in lines), lines
        assert manager.get(2) is None
        stranded = manager.stranded_in(102)
        assert stranded is not None and stranded.id == 2 and stranded.status == "paused"
        assert manager.stranded_in(101) is None  # game 1 runs: it is its session's

        session = await manager.resume_paused(2)  # the fault is gone: a host resumes it
        assert manager.get(2) is session and manager.stranded_in(102) is None
        assert (await store.load_game(2)).status == "running"
        await manager.shutdown()

        again = SessionManager(store, FakeFrontend())
        resumed = await again.recover(_fails_for_game_2)  # stranded again at this start
        assert again.stranded_in(102) is not None
        await again.cancel_stranded(2)
        assert again.stranded_in(102) is None
        [summary] = [g for g in await store.recent_games() if g.id == 2]
        assert summary.status == "cancelled"
        with pytest.raises(ValueError):
            await again.resume_paused(2)  # cancelled: nothing to resume
        await again.shutdown()
    finally:
        await store.close()


async def test_a_stranded_game_whose_pause_was_not_stored_still_resumes_on_demand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two faults in a row: the session cannot be built, and the pause cannot be stored
    (the game stays `running` in the database). It is still the channel's stranded game,
    and a host's /resume (`resume_paused`) carries it on."""
    path = tmp_path / "shbot.db"
    await _three_games(path)

    async def no_pause(game_id: int, reason: str) -> None:
        raise StorageError("the database is locked")

    store = await Storage.open(path)
    try:
        monkeypatch.setattr(store, "pause_game", no_pause)
        manager = SessionManager(store, FakeFrontend())
        await manager.recover(_fails_for_game_2)
        assert (await store.load_game(2)).status == "running"  # the pause was not stored
        assert manager.stranded_in(102) is not None
        session = await manager.resume_paused(2)
        assert manager.get(2) is session and manager.stranded_in(102) is None
        await manager.shutdown()
    finally:
        await store.close()


# --- files the bot may read but not write, or not open at all ---------------------------


def _as_another_user(action: Callable[[], None]) -> str:
    """Run `action` in a forked child that cannot override file modes; return
    "ok" or "<ErrorType>: <message>".

    As root (which file modes do not stop) the child drops to `nobody` first.
    """
    results = FORK.Queue()

    def child() -> None:
        if os.geteuid() == 0:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        try:
            action()
            results.put("ok")
        except Exception as exc:
            results.put(f"{type(exc).__name__}: {exc}")

    process = FORK.Process(target=child)
    process.start()
    outcome = results.get(timeout=30)
    process.join(timeout=30)
    return str(outcome)


def _open(path: Path) -> Callable[[], None]:
    def action() -> None:
        async def open_and_close() -> None:
            store = await Storage.open(path)
            await store.close()

        asyncio.run(open_and_close())

    return action


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the unprivileged child can reach (pytest's own is private to root)."""
    directory = Path(tempfile.mkdtemp(prefix="shbot-faults-"))
    directory.chmod(0o777)
    try:
        yield directory
    finally:
        for sub in [directory, *directory.rglob("*")]:
            with contextlib.suppress(OSError):
                sub.chmod(0o777 if sub.is_dir() else 0o666)
        shutil.rmtree(directory, ignore_errors=True)


def _shbot_file(folder: Path) -> Path:
    """A healthy shbot database with one game in `folder`, closed (WAL checkpointed)."""
    folder.mkdir(exist_ok=True)
    path = folder / "shbot.db"

    async def make() -> None:
        async with await Storage.open(path) as store:
            await store.create_game(
                players=5,
                variant=STANDARD,
                seed=1,
                seats=[SeatRecord(s, f"p{s}", None, "random") for s in range(5)],
                options={},
            )

    asyncio.run(make())
    return path


def _give_to_the_child(*paths: Path) -> None:
    if os.geteuid() == 0:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


def test_a_read_only_database_file_is_named_read_only_at_open(shared_dir: Path) -> None:
    """It used to open, and the first move failed; or it was called "damaged"."""
    path = _shbot_file(shared_dir / "data")
    before = path.read_bytes()
    _give_to_the_child(path.parent, path)
    path.chmod(0o444)
    outcome = _as_another_user(_open(path))
    assert outcome.startswith("ReadOnlyDatabase: "), outcome
    assert "read-only" in outcome and str(path) in outcome and "damaged" not in outcome
    assert "write access" in outcome  # the fix
    assert path.read_bytes() == before


def test_a_database_in_a_read_only_directory_is_named_read_only(shared_dir: Path) -> None:
    """SQLite writes its -wal and -shm files beside the database: the directory must be
    writable too. This was reported as a damaged database."""
    path = _shbot_file(shared_dir / "data")
    _give_to_the_child(path)
    path.parent.chmod(0o555)
    outcome = _as_another_user(_open(path))
    assert outcome.startswith("ReadOnlyDatabase: "), outcome
    assert str(path.parent) in outcome and "directory" in outcome and "damaged" not in outcome


def test_a_new_database_in_a_read_only_directory_is_named_read_only(shared_dir: Path) -> None:
    folder = shared_dir / "data"
    folder.mkdir()
    folder.chmod(0o555)
    outcome = _as_another_user(_open(folder / "shbot.db"))
    assert outcome.startswith(("ReadOnlyDatabase: ", "PermissionDenied: ")), outcome
    assert str(folder) in outcome and "damaged" not in outcome


def test_a_directory_the_bot_may_not_enter_is_permission_denied(shared_dir: Path) -> None:
    path = _shbot_file(shared_dir / "data")
    path.parent.chmod(0o000)
    outcome = _as_another_user(_open(path))
    assert outcome.startswith("PermissionDenied: "), outcome
    assert "ermission denied" in outcome and str(path) in outcome
    assert "read and write access" in outcome  # the fix


def test_a_file_the_bot_may_not_read_is_permission_denied(shared_dir: Path) -> None:
    path = _shbot_file(shared_dir / "data")
    _give_to_the_child(path.parent)
    path.chmod(0o000)
    outcome = _as_another_user(_open(path))
    assert outcome.startswith("PermissionDenied: "), outcome
    assert str(path) in outcome


def test_the_cli_names_a_read_only_database_in_one_line(shared_dir: Path) -> None:
    """`shbot stats` on a database it may only read: exit 1, one line, no traceback."""
    from bot import cli

    path = _shbot_file(shared_dir / "data")
    _give_to_the_child(path.parent, path)
    path.chmod(0o444)

    def action() -> None:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main(["stats", "--db", str(path)])
        text = err.getvalue()
        assert code == 1 and text.count("\n") == 1 and "Traceback" not in text, text
        raise RuntimeError(text.strip())  # hands the line back to the test

    outcome = _as_another_user(action)
    assert outcome.startswith("RuntimeError: shbot: "), outcome
    assert "read-only" in outcome


async def test_a_path_under_a_regular_file_cannot_be_opened(tmp_path: Path) -> None:
    """Root-proof: no file mode involved. The cause is named, no traceback."""
    (tmp_path / "notes.txt").write_text("not a directory")
    path = tmp_path / "notes.txt" / "shbot.db"
    with pytest.raises(CannotOpen) as error:
        await Storage.open(path)
    text = _one_line(error.value)
    assert "notes.txt" in text and "not a directory" in text


async def test_a_file_that_is_not_a_database_is_named_so(tmp_path: Path) -> None:
    path = tmp_path / "shbot.db"
    path.write_bytes(b"hello\n" * 1000)
    with pytest.raises(NotShbotDatabase) as error:
        await Storage.open(path)
    assert str(path) in _one_line(error.value) and "not" in str(error.value)


# --- a locked database, a full disk ------------------------------------------------------


async def test_a_database_locked_by_another_program_is_named_busy(tmp_path: Path) -> None:
    path = tmp_path / "shbot.db"
    store = await Storage.open(path, busy_timeout=0.2)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN EXCLUSIVE")  # say, an sqlite3 shell left in a transaction
        started = time.monotonic()
        with pytest.raises(DatabaseBusy) as error:
            await store.set_settings(1, {"x": 1})
        assert time.monotonic() - started < 3
        text = _one_line(error.value)
        assert "locked" in text and str(path) in text
        other.execute("ROLLBACK")
        await store.set_settings(1, {"x": 1})  # and it works again once released
        assert await store.get_settings(1) == {"x": 1}
    finally:
        other.close()
        await store.close()


async def test_a_full_database_is_named_full(tmp_path: Path) -> None:
    """SQLite's own SQLITE_FULL, as a full disk raises it: the file may not grow."""
    path = tmp_path / "shbot.db"
    store = await Storage.open(path)
    try:
        assert isinstance(store.driver, SQLiteDriver)
        pages = (await store.driver.live().execute_fetchall("PRAGMA page_count"))[0][0]
        await store.driver.live().execute(f"PRAGMA max_page_count = {int(pages)}")
        with pytest.raises(DiskFull) as error:
            for guild in range(10_000):
                await store.set_settings(guild, {"padding": "x" * 2000})
        text = _one_line(error.value)
        assert "full" in text and str(path) in text
    finally:
        await store.close()


def test_every_storage_fault_is_a_storage_error() -> None:
    """Callers (the CLI, the bot's start) catch one type and print its one line."""
    for kind in (
        CannotOpen,
        PermissionDenied,
        ReadOnlyDatabase,
        NotShbotDatabase,
        DatabaseBusy,
        DiskFull,
        GameDamaged,
        ConnectionLost,
        ShardsLost,
    ):
        assert issubclass(kind, StorageError)
