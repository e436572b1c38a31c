"""The storage schema as an ordered list of migrations, tracked by `PRAGMA user_version`.

Migration *n* (1-based) turns a database at version n-1 into version n. Each step runs in
one `BEGIN IMMEDIATE` transaction together with the `user_version` bump, so a failed or
interrupted step leaves the database exactly at the previous version. Steps are history:
never edit one that has shipped, append a new one instead.

Version 1 is the event log: games, their seats, seat takeovers, the append-only action
log and guild/channel settings. Version 2 adds what player statistics need: the human
each seat was dealt to (kept when an AI takes the seat over), whether the seat won, and
the indexes the stats and recovery queries use. Version 3 adds the session's own
bookkeeping that the move stack does not hold (timeout streaks, claim windows already
closed), so that a restart does not forget it. Version 4 adds the `paused` status (a game
whose task died: kept, resumable by a host or a restart, never counted in stats) and the
cause stored with it; SQLite cannot alter a CHECK constraint, so the games table is
rebuilt (SQLite's documented procedure: foreign keys off for the step, checked before the
commit, ids and the AUTOINCREMENT counter kept). Version 5 adds the `abandoned` status (a
game that can no longer be shown: its channel was deleted, the bot left the server) and
`damaged` (a stored game that no longer reads), both kept with their reason and never
resumed or counted, by the same rebuild; and `game_messages`, the Discord messages of a
running game (its open vote and prompts) that a restart edits instead of posting anew.
Version 6 adds the rating ladder (`bot.ratings`): each player's rating, and the finished
games it has taken in, in the order it took them, so a game is rated once and a rebuild
folds them in the same order. Version 7 indexes the games by channel (and id, the order
they are read in): the last game of a channel and the game a lobby started are looked up
by channel, which the index by server served only with a scan of the server's games.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

import aiosqlite

Migration = tuple[str, ...]  # SQL statements, run in order in one transaction

_V1: Migration = (
    """
    CREATE TABLE guild_settings (
        guild_id   INTEGER PRIMARY KEY,
        settings   TEXT NOT NULL,            -- JSON object
        updated_at REAL NOT NULL
    )
    """,
    """
    CREATE TABLE channel_settings (
        channel_id INTEGER PRIMARY KEY,
        guild_id   INTEGER,
        settings   TEXT NOT NULL,            -- JSON object
        updated_at REAL NOT NULL
    )
    """,
    """
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reuse the id of a game
        guild_id    INTEGER,
        channel_id  INTEGER,
        players     INTEGER NOT NULL CHECK (players BETWEEN 5 AND 10),
        variant     TEXT NOT NULL,           -- JSON, engine.Variant.to_dict()
        seed        INTEGER NOT NULL,
        status      TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'finished', 'cancelled')),
        options     TEXT NOT NULL,           -- JSON object: the lobby's options
        deadline    REAL,                    -- the pending prompt's deadline (epoch s)
        created_at  REAL NOT NULL,
        updated_at  REAL NOT NULL,
        finished_at REAL,
        winner      TEXT CHECK (winner IN ('liberal', 'fascist')),
        win_reason  TEXT
    )
    """,
    """
    CREATE TABLE seats (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seat    INTEGER NOT NULL CHECK (seat >= 0),
        name    TEXT NOT NULL,
        user_id INTEGER,                     -- the human at the seat, None for an AI seat
        agent   TEXT,                        -- agent spec while an AI controls the seat
        role    TEXT CHECK (role IN ('liberal', 'fascist', 'hitler')),  -- set at the end
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE seat_changes (
        id           INTEGER PRIMARY KEY,
        game_id      INTEGER NOT NULL REFERENCES games (id),
        seat         INTEGER NOT NULL,
        at           REAL NOT NULL,
        from_user_id INTEGER,
        from_agent   TEXT,
        to_user_id   INTEGER,
        to_agent     TEXT,
        to_name      TEXT NOT NULL,
        reason       TEXT NOT NULL,
        FOREIGN KEY (game_id, seat) REFERENCES seats (game_id, seat)
    )
    """,
    """
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seq     INTEGER NOT NULL CHECK (seq >= 0),  -- index in the game's move stack
        action  TEXT NOT NULL,               -- JSON, engine.Action.to_dict()
        at      REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID
    """,
    # The action log is the game: a replay must always find what was announced.
    """
    CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    """
    CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
)

_V2: Migration = (
    # The human a seat was dealt to; stats credit them even after an AI took the seat
    # over for good (the role was theirs). Backfill: the first human the takeover
    # history shows at the seat, else whoever holds it now.
    "ALTER TABLE seats ADD COLUMN dealt_user_id INTEGER",
    "ALTER TABLE seats ADD COLUMN dealt_name TEXT",
    """
    UPDATE seats SET
        dealt_user_id = COALESCE(
            (SELECT c.from_user_id FROM seat_changes AS c
              WHERE c.game_id = seats.game_id AND c.seat = seats.seat
                AND c.from_user_id IS NOT NULL
              ORDER BY c.id LIMIT 1),
            user_id),
        dealt_name = name
    """,
    # Whether the seat's party won; written by finish_game from the engine's Role.party.
    "ALTER TABLE seats ADD COLUMN won INTEGER CHECK (won IN (0, 1))",
    """
    UPDATE seats SET won = (
        SELECT CASE WHEN seats.role = 'liberal' THEN 'liberal' ELSE 'fascist' END = g.winner
          FROM games AS g WHERE g.id = seats.game_id)
     WHERE role IS NOT NULL
       AND game_id IN (SELECT id FROM games WHERE status = 'finished' AND winner IS NOT NULL)
    """,
    "CREATE INDEX seats_by_dealt_user ON seats (dealt_user_id) WHERE dealt_user_id IS NOT NULL",
    "CREATE INDEX seats_by_user ON seats (user_id) WHERE user_id IS NOT NULL",
    "CREATE INDEX games_by_status ON games (status)",
    "CREATE INDEX games_by_guild ON games (guild_id, created_at)",
    "CREATE INDEX seat_changes_by_game ON seat_changes (game_id, seat)",
)

_V3: Migration = (
    # A JSON object written by bot.session: per-seat timeout streaks and the claim
    # windows already closed for the current decision. Games stored before start empty.
    "ALTER TABLE games ADD COLUMN session_state TEXT NOT NULL DEFAULT '{}'",
)

_V4: Migration = (
    """
    CREATE TABLE games_v4 (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reuse the id of a game
        guild_id     INTEGER,
        channel_id   INTEGER,
        players      INTEGER NOT NULL CHECK (players BETWEEN 5 AND 10),
        variant      TEXT NOT NULL,          -- JSON, engine.Variant.to_dict()
        seed         INTEGER NOT NULL,
        status       TEXT NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'paused', 'finished', 'cancelled')),
        options      TEXT NOT NULL,          -- JSON object: the lobby's options
        deadline     REAL,                   -- the pending prompt's deadline (epoch s)
        created_at   REAL NOT NULL,
        updated_at   REAL NOT NULL,
        finished_at  REAL,
        winner       TEXT CHECK (winner IN ('liberal', 'fascist')),
        win_reason   TEXT,
        session_state TEXT NOT NULL DEFAULT '{}',
        -- Why a paused game stopped: an exception's type and where it was raised, never
        -- its message (which may quote a hand or a role). NULL unless paused.
        pause_reason TEXT
    )
    """,
    """
    INSERT INTO games_v4 (id, guild_id, channel_id, players, variant, seed, status, options,
        deadline, created_at, updated_at, finished_at, winner, win_reason, session_state)
    SELECT id, guild_id, channel_id, players, variant, seed, status, options, deadline,
        created_at, updated_at, finished_at, winner, win_reason, session_state FROM games
    """,
    # The AUTOINCREMENT counter goes with the games: an id is never handed out twice.
    "DELETE FROM sqlite_sequence WHERE name = 'games_v4'",
    """
    INSERT INTO sqlite_sequence (name, seq)
    SELECT 'games_v4', seq FROM sqlite_sequence WHERE name = 'games'
    """,
    "DROP TABLE games",
    "ALTER TABLE games_v4 RENAME TO games",
    "CREATE INDEX games_by_status ON games (status)",
    "CREATE INDEX games_by_guild ON games (guild_id, created_at)",
)

_V5: Migration = (
    """
    CREATE TABLE games_v5 (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reuse the id of a game
        guild_id     INTEGER,
        channel_id   INTEGER,
        players      INTEGER NOT NULL CHECK (players BETWEEN 5 AND 10),
        variant      TEXT NOT NULL,          -- JSON, engine.Variant.to_dict()
        seed         INTEGER NOT NULL,
        status       TEXT NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'paused', 'finished', 'cancelled',
                                       'abandoned', 'damaged')),
        options      TEXT NOT NULL,          -- JSON object: the lobby's options
        deadline     REAL,                   -- the pending prompt's deadline (epoch s)
        created_at   REAL NOT NULL,
        updated_at   REAL NOT NULL,
        finished_at  REAL,
        winner       TEXT CHECK (winner IN ('liberal', 'fascist')),
        win_reason   TEXT,
        session_state TEXT NOT NULL DEFAULT '{}',
        -- Why a game paused, was abandoned or found damaged: for hosts, never a secret
        -- (an exception's type and place, never its message). NULL while it runs.
        pause_reason TEXT
    )
    """,
    """
    INSERT INTO games_v5 (id, guild_id, channel_id, players, variant, seed, status, options,
        deadline, created_at, updated_at, finished_at, winner, win_reason, session_state,
        pause_reason)
    SELECT id, guild_id, channel_id, players, variant, seed, status, options, deadline,
        created_at, updated_at, finished_at, winner, win_reason, session_state, pause_reason
    FROM games
    """,
    # The AUTOINCREMENT counter goes with the games: an id is never handed out twice.
    "DELETE FROM sqlite_sequence WHERE name = 'games_v5'",
    """
    INSERT INTO sqlite_sequence (name, seq)
    SELECT 'games_v5', seq FROM sqlite_sequence WHERE name = 'games'
    """,
    "DROP TABLE games",
    "ALTER TABLE games_v5 RENAME TO games",
    "CREATE INDEX games_by_status ON games (status)",
    "CREATE INDEX games_by_guild ON games (guild_id, created_at)",
    # The front-end's messages of a running game that a restart must find again (the
    # vote of the election under way, open prompts), by what they show.
    """
    CREATE TABLE game_messages (
        game_id    INTEGER NOT NULL REFERENCES games (id),
        key        TEXT NOT NULL,            -- e.g. "vote:a12", "prompt:a12:3:action"
        message_id INTEGER NOT NULL,
        content    TEXT NOT NULL,            -- as last shown (public text only)
        deadline   REAL,                     -- the deadline it showed, if any
        PRIMARY KEY (game_id, key)
    )
    """,
)

_V6: Migration = (
    # One row a player of the ladder: a human by user id, an AI strength by agent spec.
    """
    CREATE TABLE ratings (
        player     TEXT PRIMARY KEY,         -- "user:<id>" or "ai:<agent spec>"
        user_id    INTEGER,                  -- the human's id; NULL for an AI
        name       TEXT NOT NULL,            -- the name last played under, or the spec
        mu         REAL NOT NULL,
        sigma      REAL NOT NULL,
        games      INTEGER NOT NULL,         -- rated seats (an AI may hold several a game)
        wins       INTEGER NOT NULL,
        updated_at REAL NOT NULL
    )
    """,
    "CREATE INDEX ratings_by_user ON ratings (user_id) WHERE user_id IS NOT NULL",
    # The finished games the ladder has taken in, in order: a game is rated once, and a
    # rebuild folds the games in this order (the ratings are a function of it).
    """
    CREATE TABLE rated_games (
        seq      INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id  INTEGER NOT NULL UNIQUE REFERENCES games (id),
        rated_at REAL NOT NULL
    )
    """,
)

_V7: Migration = (
    # A channel's games newest first (by id, the order of creation): /status where no
    # game runs reads the last one, a lobby row is checked against the games it started.
    "CREATE INDEX games_by_channel ON games (channel_id, id)",
)

MIGRATIONS: tuple[Migration, ...] = (_V1, _V2, _V3, _V4, _V5, _V6, _V7)
SCHEMA_VERSION = len(MIGRATIONS)


async def run(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
) -> list[sqlite3.Row]:
    """Run one statement to completion and return its rows.

    Every statement goes through here: the cursor is fetched and dropped on the worker
    thread, so no statement is left "in progress" to make a later COMMIT fail.
    """
    return list(await conn.execute_fetchall(sql, params))


async def user_version(conn: aiosqlite.Connection) -> int:
    """The schema version recorded in the database header (0 for a new database)."""
    rows = await run(conn, "PRAGMA user_version")
    return int(rows[0][0]) if rows else 0


async def migrate(
    conn: aiosqlite.Connection,
    *,
    target: int | None = None,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Apply the missing steps up to `target` (default: the latest), one transaction each.

    `conn` must be in autocommit mode (`isolation_level=None`) so that the explicit
    transactions here are the only ones. Returns the version reached. The caller checks
    beforehand that the database is not newer than `migrations` knows.

    Foreign keys are off while the steps run (a step may rebuild a table others refer
    to, which SQLite allows only so) and every step checks them before it commits; the
    connection's setting is restored afterwards.
    """
    target = len(migrations) if target is None else target
    if not 0 <= target <= len(migrations):
        raise ValueError(f"No schema version {target}; this code knows 0..{len(migrations)}.")
    enforced = (await run(conn, "PRAGMA foreign_keys"))[0][0]
    await run(conn, "PRAGMA foreign_keys = OFF")  # a no-op inside a transaction: set here
    try:
        for version in range(1, target + 1):
            await _step(conn, version, migrations[version - 1])
    finally:
        await run(conn, f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")
    return await user_version(conn)


async def _step(conn: aiosqlite.Connection, version: int, migration: Migration) -> None:
    """Bring the database from `version - 1` to `version` in one transaction."""
    await run(conn, "BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        if await user_version(conn) >= version:
            await conn.rollback()
            return
        for statement in migration:
            await run(conn, statement)
        broken = await run(conn, "PRAGMA foreign_key_check")
        if broken:
            raise sqlite3.IntegrityError(
                f"Schema step {version} would break {len(broken)} foreign key reference(s)."
            )
        # PRAGMA takes no bound parameters; `version` is an int from this code.
        await run(conn, f"PRAGMA user_version = {int(version)}")
    except BaseException:
        await conn.rollback()
        raise
    await conn.commit()
