"""`Storage`: the bot's games, seats, settings and stats, in one database driver.

Games are event-sourced: a game is its variant, seed and the actions accepted so far
(`engine.GameRecord`), so restart recovery reloads the unfinished games and replays them.
The game session writes each accepted action here, in its own transaction, *before* it
announces the result: whatever the table has seen survives a crash. The action log is
append-only, in the database too (triggers refuse an update or a delete).

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
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any

from engine import Action, Party, Role, Variant, WinReason

from .driver import Driver, Params, ShardLease, Tx
from .records import (
    _GAME_COLUMNS,
    _SUMMARY_COLUMNS,
    GameDamaged,
    GameScope,
    GameSummary,
    LeaderboardRow,
    PlayerStats,
    SeatChange,
    SeatRecord,
    ShownMessage,
    StorageError,
    StoredGame,
    _check_int64,
    _dumps,
    _json_object,
    read_back,
)

log = logging.getLogger("bot.storage")

BUSY_TIMEOUT_MS = 5000  # another process holding the write lock: wait this long, then fail
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: str | os.PathLike[str]) -> bool:
    """Whether `target` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


class Storage:
    """The bot's database. Open with `await Storage.open(path_or_url)`; `close()` it."""

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
        return cls(driver, clock)

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

    # --- games ---------------------------------------------------------------------
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
        async with self._driver.write() as tx:
            [inserted] = await tx.all(
                "INSERT INTO games (guild_id, channel_id, players, variant, seed, options,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (guild_id, channel_id, players, variant_json, seed, options_json, now, now),
            )
            game_id = int(inserted[0])
            await tx.many(
                "INSERT INTO seats (game_id, seat, name, user_id, agent, dealt_user_id,"
                " dealt_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, s.seat, s.name, s.user_id, s.agent, s.user_id, s.name) for s in seats],
            )
        return game_id

    async def append_action(self, game_id: int, seq: int, action: Action) -> None:
        """Append the action at index `seq` of the game's move stack, in one transaction.

        The action is durable when this returns. A duplicate or out-of-order `seq`, an
        unknown game or one that is over raises `StorageError` and writes nothing.
        """
        action_json = _dumps(action.to_dict(), "action")
        now = self._clock()
        async with self._driver.write() as tx:
            row = await _one(
                tx,
                "SELECT status, (SELECT COALESCE(MAX(seq), -1) + 1 FROM actions"
                f" WHERE game_id = games.id) FROM games WHERE id = ?{tx.lock}",
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
            await tx.all(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
                (game_id, seq, action_json, now),
            )
            await tx.all("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))

    async def set_seat(self, game_id: int, seat: SeatRecord, reason: str) -> None:
        """Record who controls a seat now (AI takeover, player back, /afk) and why.

        The change is appended to the seat's takeover history. The human the seat was
        dealt to keeps it for stats; a seat dealt to an AI is credited to the first
        human who takes it.
        """
        _check_int64(seat.user_id, "user id")
        now = self._clock()
        async with self._driver.write() as tx:
            before = await _one(
                tx,
                f"SELECT user_id, agent FROM seats WHERE game_id = ? AND seat = ?{tx.lock}",
                (game_id, seat.seat),
            )
            if before is None:
                await _require_game(tx, game_id)
                raise StorageError(f"Game #{game_id} has no seat {seat.seat}.")
            await tx.all(
                "UPDATE seats SET name = ?, user_id = ?, agent = ?,"
                " dealt_user_id = COALESCE(dealt_user_id, ?),"
                " dealt_name = CASE WHEN dealt_user_id IS NULL AND CAST(? AS BIGINT) IS NOT NULL"
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
            await tx.all(
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
            await tx.all("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        """Set (or clear, with None) the pending prompt's deadline."""
        if deadline is not None and not math.isfinite(deadline):
            raise StorageError(f"A deadline must be a finite time, not {deadline!r}.")
        async with self._driver.write() as tx:
            updated = await tx.all(
                "UPDATE games SET deadline = ? WHERE id = ? RETURNING id", (deadline, game_id)
            )
            if not updated:
                raise StorageError(f"No game #{game_id}.")

    async def set_session_state(self, game_id: int, state: Mapping[str, Any]) -> None:
        """Replace the session's bookkeeping (a JSON object) for a game."""
        state_json = _dumps(dict(state), "session state")
        async with self._driver.write() as tx:
            updated = await tx.all(
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
        async with self._driver.write() as tx:
            row = await _one(
                tx, f"SELECT status, players FROM games WHERE id = ?{tx.lock}", (game_id,)
            )
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            if row["status"] not in ("running", "paused"):
                raise StorageError(f"Game #{game_id} is already {row['status']}.")
            if roles is not None and len(roles) != row["players"]:
                raise StorageError(
                    f"Game #{game_id} has {row['players']} seats, not {len(roles)} roles."
                )
            await tx.all(
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
                await tx.many(
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
                )

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
        async with self._driver.read() as tx:
            rows = await tx.all(
                "SELECT key, message_id, content, deadline FROM game_messages WHERE game_id = ?",
                (game_id,),
            )
        return {r["key"]: ShownMessage(r["message_id"], r["content"], r["deadline"]) for r in rows}

    async def remember_message(self, game_id: int, key: str, message: ShownMessage) -> None:
        """Remember (or replace) the message shown for `key` in a game."""
        async with self._driver.write() as tx:
            await tx.all(
                "INSERT INTO game_messages (game_id, key, message_id, content, deadline)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, key) DO UPDATE SET"
                " message_id = excluded.message_id, content = excluded.content,"
                " deadline = excluded.deadline",
                (game_id, key, message.message_id, message.content, message.deadline),
            )

    async def forget_message(self, game_id: int, key: str | None = None) -> None:
        """Forget the message of `key` in a game (None: every message of the game)."""
        async with self._driver.write() as tx:
            if key is None:
                await tx.all("DELETE FROM game_messages WHERE game_id = ?", (game_id,))
            else:
                await tx.all(
                    "DELETE FROM game_messages WHERE game_id = ? AND key = ?", (game_id, key)
                )

    async def resume_game(self, game_id: int) -> None:
        """Mark a paused game running again (a running one stays as it is)."""
        await self._set_status(game_id, "running", None, ("running", "paused"))

    async def _set_status(
        self, game_id: int, status: str, reason: str | None, allowed: tuple[str, ...]
    ) -> None:
        async with self._driver.write() as tx:
            row = await _one(tx, f"SELECT status FROM games WHERE id = ?{tx.lock}", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            if row["status"] not in allowed:
                raise StorageError(f"Game #{game_id} is {row['status']}, not {status}.")
            await tx.all(
                "UPDATE games SET status = ?, pause_reason = ?, updated_at = ? WHERE id = ?",
                (status, reason, self._clock(), game_id),
            )

    async def load_game(self, game_id: int) -> StoredGame:
        """The stored game; `record.replay()` rebuilds it. StorageError if unknown."""
        async with self._driver.read() as tx:
            row = await _one(tx, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            return await _stored_game(tx, row)

    async def unfinished_games(self, scope: GameScope | None = None) -> list[StoredGame]:
        """Every running or paused game in `scope` (default: all), oldest first: what
        restart recovery resumes (a restart may have fixed what paused a game).

        A game that does not read back is isolated: marked damaged with its reason (see
        `mark_damaged`), left out, and never returned again; the others come back.
        """
        games: list[StoredGame] = []
        damaged: list[GameDamaged] = []
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'paused')"
                " ORDER BY id",
            )
            for row in rows:
                if scope is not None and not scope.owns(row["guild_id"], row["channel_id"]):
                    continue
                try:
                    games.append(await _stored_game(tx, row))
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
        async with self._driver.read() as tx:
            await _require_game(tx, game_id)
            rows = await tx.all(
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
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_SUMMARY_COLUMNS} FROM games AS g"
                " WHERE (CAST(:guild AS BIGINT) IS NULL OR g.guild_id = :guild)"
                " AND (CAST(:user AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM seats AS s"
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
        async with self._driver.read() as tx:
            rows = await tx.all(
                "SELECT s.role, COUNT(*), COALESCE(SUM(s.won), 0)"
                " FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                " WHERE s.dealt_user_id = :user AND g.status = 'finished'"
                " AND (CAST(:guild AS BIGINT) IS NULL OR g.guild_id = :guild)"
                " GROUP BY s.role",
                params,
            )
            recent_rows = await tx.all(
                f"SELECT {_SUMMARY_COLUMNS} FROM games AS g"
                " WHERE g.status = 'finished'"
                " AND (CAST(:guild AS BIGINT) IS NULL OR g.guild_id = :guild)"
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
        async with self._driver.read() as tx:
            rows = await tx.all(
                "WITH played AS ("
                "  SELECT s.dealt_user_id AS user_id, s.dealt_name AS name, s.won,"
                "    g.finished_at, g.id AS game_id"
                "  FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                "  WHERE g.status = 'finished' AND s.dealt_user_id IS NOT NULL"
                "  AND (CAST(:guild AS BIGINT) IS NULL OR g.guild_id = :guild)),"
                " totals AS ("
                "  SELECT user_id, COUNT(*) AS games, COALESCE(SUM(won), 0) AS wins"
                "  FROM played GROUP BY user_id HAVING COUNT(*) >= :min_games)"
                " SELECT t.user_id,"
                "  (SELECT p.name FROM played AS p WHERE p.user_id = t.user_id"
                "   ORDER BY p.finished_at DESC, p.game_id DESC LIMIT 1),"
                "  t.games, t.wins, CAST(t.wins AS DOUBLE PRECISION) / t.games AS win_rate"
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
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT COUNT(*), COALESCE(SUM({self._driver.fallbacks}), 0)"
                " FROM games WHERE status = 'finished'"
                " AND (CAST(:guild AS BIGINT) IS NULL OR guild_id = :guild)",
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
        async with self._driver.write() as tx:
            await tx.all(
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


async def _one(tx: Tx, sql: str, params: Params = ()) -> Any:
    rows = await tx.all(sql, params)
    return rows[0] if rows else None


async def _require_game(tx: Tx, game_id: int) -> None:
    if await _one(tx, "SELECT 1 FROM games WHERE id = ?", (game_id,)) is None:
        raise StorageError(f"No game #{game_id}.")


async def _stored_game(tx: Tx, row: Any) -> StoredGame:
    """The game of a `games` row, or `GameDamaged` naming the part that does not read."""
    game_id = int(row["id"])
    seat_rows = await tx.all(
        "SELECT seat, name, user_id, agent, role FROM seats WHERE game_id = ? ORDER BY seat",
        (game_id,),
    )
    action_rows = await tx.all(
        "SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
    )
    return read_back(game_id, row, seat_rows, action_rows)
