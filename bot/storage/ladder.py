"""The rating ladder in the database: each finished game rated once, in its finish
transaction, and the ladder read back for `/leaderboard`, `/profile` and `shbot stats`.

The ratings are a function of the stored history (`bot.ratings` does the arithmetic):
`rated_games` keeps the order the ladder took the finished games in, and
`rebuild_ratings` folds them again in that order to the same ladder. Only finished games
count (cancelled, abandoned, damaged ones never reach `finish_game` as finished).

Concurrency: a game's row is locked before it is rated, so it is rated once whichever
process finishes it; the ratings rows a game changes are locked one by one in key order
(PostgreSQL; SQLite serialises every write anyway), so two games sharing a player (an AI
strength, say) are rated one after the other, never interleaved, and never deadlock.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from engine import Party, Role

from .. import ratings
from ..ratings import RatedSeat, Rating
from .driver import Driver, Tx
from .records import RatingRow, StorageError

log = logging.getLogger("bot.storage")

# Who is credited with each seat of a game (see bot.ratings): the human it was dealt to
# (or the first human who took an AI's seat), else the agent spec it was dealt with (the
# first controller the takeover history names, else the one holding it now).
_CREDITED = (
    "SELECT s.seat, s.role, s.dealt_user_id, s.dealt_name,"
    " COALESCE((SELECT c.from_agent FROM seat_changes AS c"
    "   WHERE c.game_id = s.game_id AND c.seat = s.seat ORDER BY c.id LIMIT 1), s.agent)"
    " FROM seats AS s WHERE s.game_id = ? ORDER BY s.seat"
)
_ROW = "player, user_id, name, mu, sigma, games, wins"
# The games the ladder rates: a server's. A terminal game (`shbot play`, no server) would
# move the AI strengths every server's /leaderboard shows, and rank its local player.
_RATED_KIND = "g.guild_id IS NOT NULL"


class Ladder:
    """The ratings part of `Storage` (which provides the driver and the clock)."""

    _driver: Driver
    _clock: Callable[[], float]

    async def rating_ladder(self, guild_id: int | None = None) -> list[RatingRow]:
        """The ladder, best conservative rating (mu - 3 sigma) first: every AI strength,
        and the humans who finished a game in the guild (None: everyone). Ratings are
        global; a server's ladder lists its own players only, not strangers'."""
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_ROW} FROM ratings AS r"
                " WHERE r.user_id IS NULL OR CAST(:guild AS BIGINT) IS NULL OR EXISTS ("
                "  SELECT 1 FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                "  WHERE s.dealt_user_id = r.user_id AND g.status = 'finished'"
                "  AND g.guild_id = :guild)"
                " ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, r.player",
                {"guild": guild_id},
            )
        return [r for r in map(_readable_row, rows) if r is not None]

    async def player_rating(self, player: str) -> tuple[RatingRow, int, int] | None:
        """A player's rating, rank on the whole ladder (1 = best) and the ladder's size,
        or None before their first rated game. `player` is `bot.ratings.human_key` or
        `ai_key`."""
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_ROW}, (SELECT COUNT(*) FROM ratings AS o"
                "  WHERE o.mu - 3 * o.sigma > r.mu - 3 * r.sigma) + 1,"
                " (SELECT COUNT(*) FROM ratings)"
                " FROM ratings AS r WHERE r.player = ?",
                (player,),
            )
        row = _readable_row(rows[0]) if rows else None
        if row is None:
            return None
        return row, int(rows[0][7]), int(rows[0][8])

    async def rate_unrated(self) -> int:
        """Rate the finished games the ladder has not taken in yet (those finished before
        ratings existed), oldest first, one transaction each; returns how many. Run at
        every open: a no-op once every finished game is rated."""
        async with self._driver.read() as tx:
            rows = await tx.all(
                "SELECT g.id FROM games AS g WHERE g.status = 'finished'"
                f" AND {_RATED_KIND} AND NOT EXISTS"
                " (SELECT 1 FROM rated_games AS r WHERE r.game_id = g.id)"
                " ORDER BY g.finished_at, g.id"
            )
        rated = 0
        for (game_id,) in rows:
            try:
                async with self._driver.write() as tx:
                    [game] = await tx.all(
                        f"SELECT status, winner FROM games WHERE id = ?{tx.lock}", (game_id,)
                    )
                    winner = _party(int(game_id), game["winner"])
                    if await rate_game(tx, int(game_id), winner, self._clock()):
                        rated += 1
            except UnratableGame as exc:  # rolled back: the rest of the ladder goes on
                log.warning("%s", exc)
        return rated

    async def rebuild_ratings(self) -> int:
        """Recompute the whole ladder from the finished games, in the order they were
        rated (then any not rated yet), in one transaction; returns the games folded in.
        The result equals the ladder kept game by game: it is a function of the history."""
        now = self._clock()
        folded = 0
        async with self._driver.write() as tx:
            rows = await tx.all(
                "SELECT g.id, g.winner FROM rated_games AS r JOIN games AS g ON g.id = r.game_id"
                f" WHERE g.status = 'finished' AND {_RATED_KIND} ORDER BY r.seq"
            )
            await tx.all("DELETE FROM ratings")
            for game_id, winner in rows:
                try:
                    await _apply(tx, int(game_id), _party(int(game_id), winner), now)
                except UnratableGame as exc:  # checked before any write of its own
                    log.warning("%s", exc)
                else:
                    folded += 1
        return folded + await self.rate_unrated()


async def rate_game(tx: Tx, game_id: int, winner: Party, now: float) -> bool:
    """Rate a finished game inside the caller's transaction (which holds the game's row
    lock), unless it was rated already: False then, and nothing changes."""
    rated = await tx.all("SELECT 1 FROM rated_games WHERE game_id = ?", (game_id,))
    if rated:
        return False
    rateable = await tx.all(
        f"SELECT 1 FROM games AS g WHERE g.id = ? AND {_RATED_KIND}", (game_id,)
    )
    if not rateable:
        return False
    await _apply(tx, game_id, winner, now)
    # Recorded after the ratings rows were locked: the order of `seq` is the order in
    # which games sharing a player changed its rating, which a rebuild repeats.
    await tx.all("INSERT INTO rated_games (game_id, rated_at) VALUES (?, ?)", (game_id, now))
    return True


class UnratableGame(StorageError):
    """A finished game whose stored row cannot be rated (a role or the winner lost, every
    seat on one side): an older release's data, or a hand's edit. It stays unrated."""

    def __init__(self, game_id: int, why: str) -> None:
        super().__init__(f"game {game_id} cannot be rated ({why}): it is left out of the ladder")


def _party(game_id: int, winner: Any) -> Party:
    try:
        return Party(winner)
    except ValueError:
        raise UnratableGame(game_id, "its winner is not stored") from None


async def _apply(tx: Tx, game_id: int, winner: Party, now: float) -> None:
    """Fold one finished game into the stored ratings; `UnratableGame` (before any write)
    if its seats do not read as a game's."""
    seats: list[RatedSeat] = []
    names: dict[str, tuple[int | None, str]] = {}
    won: dict[str, tuple[int, int]] = {}  # player -> (seats, seats won)
    for seat, role, user_id, dealt_name, agent in await tx.all(_CREDITED, (game_id,)):
        try:
            party = Role(role).party
        except ValueError:
            raise UnratableGame(game_id, f"seat {seat} has no role") from None
        if user_id is not None:
            try:
                member = int(user_id)
            except (TypeError, ValueError):
                raise UnratableGame(game_id, f"seat {seat}'s member does not read") from None
            player = ratings.human_key(member)
            names[player] = (member, str(dealt_name))
        else:
            spec = str(agent) if agent else "unknown"
            player = ratings.ai_key(spec)
            names[player] = (None, spec)
        seats.append(RatedSeat(player, party))
        count, wins = won.get(player, (0, 0))
        won[player] = (count + 1, wins + int(party is winner))
    keys = sorted(names)
    if len(keys) < 2:
        return  # one player held every seat (an AI against itself): nobody's skill shows
    if len({s.party for s in seats}) < 2:
        raise UnratableGame(game_id, "every seat is on one side")
    for key in keys:
        for row in await tx.all("SELECT mu, sigma FROM ratings WHERE player = ?", (key,)):
            try:
                _rating(row["mu"], row["sigma"])
            except (TypeError, ValueError):
                raise UnratableGame(game_id, f"the stored rating of {key} does not read") from None
    for key in keys:  # one at a time in key order: see the module's docstring
        user_id, name = names[key]
        await tx.all(
            "INSERT INTO ratings (player, user_id, name, mu, sigma, games, wins, updated_at)"
            " VALUES (?, ?, ?, ?, ?, 0, 0, ?) ON CONFLICT (player) DO NOTHING",
            (key, user_id, name, ratings.START_MU, ratings.START_SIGMA, now),
        )
    current: dict[str, Rating] = {}
    for key in keys:
        [row] = await tx.all(f"SELECT mu, sigma FROM ratings WHERE player = ?{tx.lock}", (key,))
        current[key] = _rating(row["mu"], row["sigma"])
    updated = ratings.rate(seats, winner, current)
    await tx.many(
        "UPDATE ratings SET name = ?, mu = ?, sigma = ?, games = games + ?, wins = wins + ?,"
        " updated_at = ? WHERE player = ?",
        [(names[k][1], updated[k].mu, updated[k].sigma, *won[k], now, k) for k in keys],
    )


def _rating(mu: Any, sigma: Any) -> Rating:
    """A stored rating; ValueError unless both read as finite numbers, sigma positive."""
    rating = Rating(float(mu), float(sigma))
    if not (math.isfinite(rating.mu) and math.isfinite(rating.sigma) and rating.sigma > 0):
        raise ValueError("not a rating")
    return rating


def _readable_row(row: Any) -> RatingRow | None:
    """A ratings row, or None (logged) if it does not read: the ladder shows the rest."""
    player, user_id, name, mu, sigma, games, wins = row[:7]
    try:
        return RatingRow(
            player=str(player),
            user_id=None if user_id is None else int(user_id),
            name=str(name),
            rating=_rating(mu, sigma),
            games=int(games),
            wins=int(wins),
        )
    except (TypeError, ValueError, OverflowError):
        log.warning("the rating of %s does not read: left off the ladder", player)
        return None
