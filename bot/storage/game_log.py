"""The append-only game log: a game's seats, actions and status, read back to replay it.

A game is its variant, seed and the actions accepted so far (`engine.GameRecord`); each
action is appended in its own transaction and is durable when `append_action` returns,
before the session announces it. The log refuses an update or a delete in the database
too (triggers). A stored game that no longer reads back is isolated: marked `damaged`
with its reason and skipped, while the others resume (`unfinished_games`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import Action, Party, Role, Variant, WinReason

from .driver import Driver, Params, Tx
from .ladder import UnratableGame, rate_game
from .records import (
    _GAME_COLUMNS,
    _INT64,
    GameDamaged,
    GameEnded,
    GameScope,
    SeatChange,
    SeatRecord,
    SetAside,
    ShownMessage,
    StorageError,
    StoredGame,
    _check_int64,
    _dumps,
    read_back,
)

log = logging.getLogger("bot.storage")

# The statuses of a game that goes on (a paused one resumes); any other is its end.
_LIVE = ("running", "paused")


class GameLog:
    """The games part of `Storage` (which provides the driver and the clock)."""

    _driver: Driver
    _clock: Callable[[], float]

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

    async def append_action(
        self, game_id: int, seq: int, action: Action, *, clear_deadline: bool = False
    ) -> None:
        """Append the action at index `seq` of the game's move stack, in one transaction.

        The action is durable when this returns. A duplicate or out-of-order `seq`, an
        unknown game or one that is over raises `StorageError` and writes nothing.
        `clear_deadline`: the action ends the decision whose deadline is stored; the
        same transaction clears it, so that no restart gives that deadline to the next.
        """
        action_json = _dumps(action.to_dict(), "action")
        now = self._clock()
        async with self._driver.write() as tx:
            # The game's row first (locked on PostgreSQL), then the log's length in a
            # statement of its own: it sees every append that committed while we waited.
            row = await _one(tx, f"SELECT status FROM games WHERE id = ?{tx.lock}", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            status = row[0]
            [(expected,)] = await tx.all(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM actions WHERE game_id = ?", (game_id,)
            )
            if status not in _LIVE:
                raise GameEnded(game_id, status)
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
            if clear_deadline:
                await tx.all(
                    "UPDATE games SET updated_at = ?, deadline = NULL WHERE id = ?",
                    (now, game_id),
                )
            else:
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
        role, which stats use) or "cancelled" (roles optional, stats ignore it).

        A finished game is rated (`bot.storage.ladder`) in the same transaction: its
        players' ratings change exactly when it becomes finished, and only once. Its
        messages' rows go with it (`_drop_messages`)."""
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
            if row["status"] not in _LIVE:
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
            if status == "finished" and winner is not None:
                try:
                    await rate_game(tx, game_id, winner, now)
                except UnratableGame as exc:  # raised before any write: the end is stored
                    log.warning("%s", exc)
            await _drop_messages(tx, game_id)

    async def pause_game(self, game_id: int, reason: str) -> None:
        """Mark a running game paused (its task died), with the cause: a type and a place,
        never an exception's message. It takes no actions until `resume_game`."""
        await self._set_status(game_id, "paused", reason, _LIVE)

    async def abandon_game(self, game_id: int, reason: str) -> None:
        """Mark a running (or paused) game abandoned: it cannot be shown any more (its
        channel was deleted, the bot left the server). Never resumed, never counted in
        stats; `reason` (kept as the pause reason) says why, for hosts."""
        await self._set_status(game_id, "abandoned", reason, _LIVE)

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
        """Remember (or replace) the message shown for `key` in a game; nothing once the
        game is over (the front-end may still be delivering what came before its end,
        and the end dropped the game's rows for good)."""
        async with self._driver.write() as tx:
            # The game's row locked (on PostgreSQL): an end that commits meanwhile waits
            # for this write, then drops its row too.
            row = await _one(tx, f"SELECT status FROM games WHERE id = ?{tx.lock}", (game_id,))
            if row is None or row["status"] not in _LIVE:
                return
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
        await self._set_status(game_id, "running", None, _LIVE)

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
            if status not in _LIVE:  # abandoned, damaged: an end
                await _drop_messages(tx, game_id)

    async def load_game(self, game_id: int) -> StoredGame:
        """The stored game; `record.replay()` rebuilds it. StorageError if unknown."""
        if not _INT64[0] <= game_id <= _INT64[1]:  # a forged button's id: no such row
            raise StorageError(f"No game #{game_id}.")
        async with self._driver.read() as tx:
            row = await _one(tx, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
            if row is None:
                raise StorageError(f"No game #{game_id}.")
            return await _stored_game(tx, row, self._clock())

    async def game_status(self, game_id: int) -> tuple[str, bool]:
        """A game's status, and whether a Discord channel plays it (its guild or channel
        column holds anything), read from its row alone: they read even when the game
        does not (`GameDamaged`), so a damaged terminal game can still be ended
        (`finish_game`, which does not read the record either). StorageError if unknown.
        """
        if not _INT64[0] <= game_id <= _INT64[1]:
            raise StorageError(f"No game #{game_id}.")
        async with self._driver.read() as tx:
            row = await _one(
                tx, "SELECT status, guild_id, channel_id FROM games WHERE id = ?", (game_id,)
            )
        if row is None:
            raise StorageError(f"No game #{game_id}.")
        return str(row["status"]), row["guild_id"] is not None or row["channel_id"] is not None

    async def unfinished_games(
        self, scope: GameScope | None = None, *, set_aside: list[SetAside] | None = None
    ) -> list[StoredGame]:
        """Every running or paused game in `scope` (default: all), oldest first: what
        restart recovery resumes (a restart may have fixed what paused a game).

        A game that does not read back is isolated: marked damaged with its reason (see
        `mark_damaged`), left out, and never returned again; the others come back. Each
        one marked is added to `set_aside`, if given, so that its table can be told.
        """
        games: list[StoredGame] = []
        damaged: list[tuple[GameDamaged, Any, Any]] = []
        now = self._clock()
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'paused')"
                " ORDER BY id",
            )
            for row in rows:
                if scope is not None and not scope.owns(row["guild_id"], row["channel_id"]):
                    continue
                try:
                    games.append(await _stored_game(tx, row, now))
                except GameDamaged as exc:
                    damaged.append((exc, row["guild_id"], row["channel_id"]))
        for fault, guild_id, channel_id in damaged:
            try:
                await self.mark_damaged(fault.game_id, fault.reason)
            except StorageError as error:  # skipped all the same; the next start tries again
                log.error("game %d: could not be marked damaged (%s)", fault.game_id, error)
                continue
            if set_aside is not None:
                # The place only if it reads: it is told, and a damaged one is nobody's.
                set_aside.append(
                    SetAside(
                        fault.game_id,
                        _int_or_none(guild_id),
                        _int_or_none(channel_id),
                        fault.reason,
                    )
                )
        return games

    async def mark_damaged(self, game_id: int, reason: str) -> None:
        """Mark a running (or paused) game damaged: it no longer reads back or replays.
        It is never resumed again and never counted in stats; `reason` (a part and an
        exception type, never a stored value) is kept for hosts and logged once."""
        await self._set_status(game_id, "damaged", reason, _LIVE)
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


def _int_or_none(value: Any) -> int | None:
    """A column that should hold an id: the id, or None if it holds anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _drop_messages(tx: Tx, game_id: int) -> None:
    """Drop a game's rows of the message book as it ends, in the transaction that ends
    it: nothing reads them after (a restart resumes only running and paused games; the
    reveal and the final post work from what the front-end holds in memory), and an end
    that reaches neither (an abandoned or damaged game, a stranded one cancelled) would
    keep them for good."""
    await tx.all("DELETE FROM game_messages WHERE game_id = ?", (game_id,))


async def _one(tx: Tx, sql: str, params: Params = ()) -> Any:
    rows = await tx.all(sql, params)
    return rows[0] if rows else None


async def _require_game(tx: Tx, game_id: int) -> None:
    if await _one(tx, "SELECT 1 FROM games WHERE id = ?", (game_id,)) is None:
        raise StorageError(f"No game #{game_id}.")


async def _stored_game(tx: Tx, row: Any, now: float) -> StoredGame:
    """The game of a `games` row, or `GameDamaged` naming the part that does not read;
    `now` bounds its deadline."""
    game_id = int(row["id"])
    seat_rows = await tx.all(
        "SELECT seat, name, user_id, agent, role FROM seats WHERE game_id = ? ORDER BY seat",
        (game_id,),
    )
    action_rows = await tx.all(
        "SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
    )
    return read_back(game_id, row, seat_rows, action_rows, now)
