"""History and stats: lists of games, a human's record and the leaderboard, over finished
games only (running, paused, cancelled, abandoned and damaged ones never count)."""

from __future__ import annotations

import json
from collections.abc import Callable

from engine import Role

from .driver import Driver
from .records import _SUMMARY_COLUMNS, GameSummary, LeaderboardRow, PlayerStats

MAX_FALLBACKS = 100_000  # more AI answers than any game has


def _channel(value: object) -> int | None:
    """A stored channel id; None (nobody's channel) if it does not read as one."""
    try:
        return None if value is None else int(str(value))
    except ValueError:
        return None


class History:
    """The stats part of `Storage` (which provides the driver)."""

    _driver: Driver

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

    async def last_game_in(self, guild_id: int, channel_id: int) -> GameSummary | None:
        """The latest game of a channel, of any status (the highest id: the last created),
        or None if none was ever played there."""
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_SUMMARY_COLUMNS} FROM games AS g"
                " WHERE g.guild_id = :guild AND g.channel_id = :channel"
                " ORDER BY g.id DESC LIMIT 1",
                {"guild": guild_id, "channel": channel_id},
            )
        return GameSummary(*rows[0]) if rows else None

    async def game_audience(self, game_id: int) -> tuple[GameSummary, set[int]] | None:
        """Where a game was played and the members dealt or holding its seats, read
        without its record (for a game whose record does not read back); None if there
        is no such game."""
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT {_SUMMARY_COLUMNS} FROM games AS g WHERE g.id = ?", (game_id,)
            )
            seats = await tx.all(
                "SELECT dealt_user_id, user_id FROM seats WHERE game_id = ?", (game_id,)
            )
        if not rows:
            return None
        members = {int(u) for row in seats for u in row if isinstance(u, int)}
        return GameSummary(*rows[0]), members

    async def game_of_lobby(self, channel_id: int, lobby_id: str) -> int | None:
        """The game a lobby started (the lobby's id is in the game's options), of any
        status, or None: a lobby row still stored for a started game is a closed lobby."""
        # The options are compact JSON (`records._dumps`): LIKE narrows the channel's
        # games to those naming the lobby, and the parse below decides.
        needle = json.dumps({"lobby": lobby_id}, separators=(",", ":"))[1:-1]
        escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        async with self._driver.read() as tx:
            rows = await tx.all(
                "SELECT id, options FROM games WHERE channel_id = ?"
                " AND options LIKE ? ESCAPE '\\' ORDER BY id DESC",
                (channel_id, f"%{escaped}%"),
            )
        for game_id, options in rows:
            try:
                data = json.loads(options)
            except ValueError:
                continue  # damaged options: not this lobby's game, as far as anyone can tell
            if isinstance(data, dict) and data.get("lobby") == lobby_id:
                return int(game_id)
        return None

    async def player_stats(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        recent: int = 5,
        shown: Callable[[int | None], bool] | None = None,
    ) -> PlayerStats:
        """A human's finished games (all guilds, or one): wins, wins by role, latest games.
        With `shown`, only the games of the channels it accepts (a record posted in a
        channel counts only the games its readers could see played)."""
        params = {"user": user_id, "guild": guild_id, "recent": recent if shown is None else 50}
        async with self._driver.read() as tx:
            rows = await tx.all(
                "SELECT g.channel_id, s.role, COUNT(*), COALESCE(SUM(s.won), 0)"
                " FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                " WHERE s.dealt_user_id = :user AND g.status = 'finished'"
                " AND (CAST(:guild AS BIGINT) IS NULL OR g.guild_id = :guild)"
                " GROUP BY g.channel_id, s.role",
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
        for channel_id, role, games, wins in rows:
            # A finished game always has roles: skip damaged rows.
            if role in by_role and (shown is None or shown(_channel(channel_id))):
                before_games, before_wins = by_role[role]
                by_role[role] = (before_games + int(games), before_wins + int(wins))
        latest = [GameSummary(*row) for row in recent_rows]
        if shown is not None:
            latest = [g for g in latest if shown(g.channel_id)][:recent]
        return PlayerStats(
            user_id=user_id,
            games=sum(g for g, _ in by_role.values()),
            wins=sum(w for _, w in by_role.values()),
            by_role=by_role,
            recent=tuple(latest),
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
        counted = self._driver.fallbacks
        # A count no game can reach (a damaged row: 1e300, negative) counts as none: two
        # such made SQLite's SUM overflow, and /leaderboard failed for the whole server.
        sane = f"CASE WHEN {counted} BETWEEN 0 AND {MAX_FALLBACKS} THEN {counted} END"
        async with self._driver.read() as tx:
            rows = await tx.all(
                f"SELECT COUNT(*), COALESCE(SUM({sane}), 0)"
                " FROM games WHERE status = 'finished'"
                " AND (CAST(:guild AS BIGINT) IS NULL OR guild_id = :guild)",
                {"guild": guild_id},
            )
        games, fallbacks = rows[0]
        return int(games), int(fallbacks)
