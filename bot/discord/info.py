"""The information commands: /rules, /history, /stats, /leaderboard, /profile and
/settings.

They read the storage only through its public API; none of them can show anything
hidden (finished games' roles are public; running games show no more than "in progress").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

import discord

from ..config import Config
from ..ratings import ai_label, spec_of
from ..storage import GameSummary, LeaderboardRow, PlayerStats, RatingRow
from . import texts
from .lobby import SETTING_KEYS, LobbyOptions, default_options

INFO_COLOUR = discord.Colour.from_rgb(0x3B, 0x6C, 0xE0)


class InfoStorage(Protocol):
    """The part of `bot.storage.Storage` these commands read and write."""

    async def recent_games(
        self, *, guild_id: int | None = None, user_id: int | None = None, limit: int = 10
    ) -> list[GameSummary]:
        """Latest games, newest first."""
        ...

    async def player_stats(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        recent: int = 5,
        shown: Callable[[int | None], bool] | None = None,
    ) -> PlayerStats:
        """A human's finished games (those of the channels `shown` accepts)."""
        ...

    async def leaderboard(
        self, guild_id: int | None, *, limit: int = 10, min_games: int = 1
    ) -> list[LeaderboardRow]:
        """Best win rates."""
        ...

    async def rating_ladder(self, guild_id: int | None = None) -> list[RatingRow]:
        """The rating ladder, best first: AI strengths and the guild's humans."""
        ...

    async def player_rating(self, player: str) -> tuple[RatingRow, int, int] | None:
        """A player's rating, rank and the ladder's size."""
        ...

    async def ai_fallbacks(self, guild_id: int | None) -> tuple[int, int]:
        """(finished games, AI decisions that fell back in them)."""
        ...

    async def get_settings(self, guild_id: int) -> dict[str, Any]:
        """A guild's settings."""
        ...

    async def merge_settings(
        self,
        guild_id: int,
        changes: Mapping[str, Any],
        check: Callable[[dict[str, Any]], None] = ...,
    ) -> dict[str, Any]:
        """Merge changes into a guild's settings in one transaction, once `check` passes."""
        ...


def rules_embed() -> discord.Embed:
    """The rules in six short paragraphs."""
    embed = discord.Embed(title=texts.RULES_TITLE, colour=INFO_COLOUR)
    for name, value in texts.RULES:
        embed.add_field(name=name, value=value, inline=False)
    return embed


def outcome(game: GameSummary) -> str:
    """How a stored game ended, in words ("in progress" while it runs)."""
    if game.status == "running":
        return texts.OUTCOME_RUNNING
    if game.status == "paused":
        return texts.OUTCOME_PAUSED
    if game.status == "abandoned":
        return texts.OUTCOME_ABANDONED
    if game.status == "damaged":
        return texts.OUTCOME_DAMAGED
    if game.status == "cancelled" or game.winner is None:
        return texts.OUTCOME_CANCELLED
    winner = "Liberals" if game.winner == "liberal" else "Fascists"
    reason = texts.REASONS.get(game.reason or "", game.reason or "")
    return texts.OUTCOME_WON.format(winner=winner, reason=reason)


def history_embed(games: list[GameSummary]) -> discord.Embed:
    """The latest games, one line each."""
    lines = [
        texts.HISTORY_LINE.format(
            id=g.id,
            players=g.players,
            outcome=outcome(g),
            when=_when(g.finished_at or g.created_at),
        )
        for g in games
    ]
    return discord.Embed(
        title=texts.HISTORY_TITLE,
        description="\n".join(lines) or texts.HISTORY_EMPTY,
        colour=INFO_COLOUR,
    )


def _when(at: object) -> str:
    """A game's time as a Discord relative time, or "?" if the stored value is not a
    date (damaged): one such game must not fail the whole list."""
    if isinstance(at, bool) or not isinstance(at, int | float):
        return "?"
    try:
        return discord.utils.format_dt(datetime.fromtimestamp(at, tz=UTC), "R")
    except (ValueError, OverflowError, OSError):  # NaN, infinite, or beyond the calendar
        return "?"


def stats_embed(name: str, stats: PlayerStats) -> discord.Embed:
    """A member's wins and games, overall and by role."""
    embed = discord.Embed(title=texts.STATS_TITLE.format(name=name), colour=INFO_COLOUR)
    if not stats.games:
        embed.description = texts.STATS_NONE.format(name=name)
        return embed
    embed.description = texts.STATS_BODY.format(
        games=stats.games, wins=stats.wins, rate=stats.win_rate
    )
    embed.add_field(
        name="By role",
        value="\n".join(
            texts.STATS_ROLE.format(role=role.capitalize(), wins=wins, games=games)
            for role, (games, wins) in stats.by_role.items()
        ),
    )
    if stats.recent:
        embed.add_field(
            name="Latest", value="\n".join(f"#{g.id}: {outcome(g)}" for g in stats.recent)
        )
    return embed


LADDER_ROWS = 10  # /leaderboard: the top of the ladder (any AI strength below is added)


def ladder_lines(
    rows: list[RatingRow], strengths: Mapping[str, str], top: int = LADDER_ROWS
) -> list[str]:
    """The top `top` of the ladder, then each AI strength below it (so players always see
    where easy, normal and strong stand), a gap marked where rows are left out."""
    lines: list[str] = []
    last = 0
    for rank, row in enumerate(rows, start=1):
        spec = spec_of(row.player)
        if rank > top and spec is None:
            continue
        if rank > last + 1:
            lines.append(texts.LEADERBOARD_GAP)
        last = rank
        rating = row.rating.ordinal
        if spec is None:
            line = texts.LEADERBOARD_LINE.format(
                rank=rank, rating=rating, user_id=row.user_id, wins=row.wins, games=row.games
            )
        else:
            line = texts.LEADERBOARD_AI_LINE.format(
                rank=rank,
                rating=rating,
                label=ai_label(spec, strengths),
                wins=row.wins,
                games=row.games,
            )
        lines.append(line)
    return lines


def leaderboard_embed(
    rows: list[RatingRow],
    strengths: Mapping[str, str],
    fallbacks: tuple[int, int] = (0, 0),
) -> discord.Embed:
    """The rating ladder of the server's players and every AI strength
    (`strengths`: strength -> agent spec, to name them), and how often the AI seats fell
    back (`fallbacks`: finished games, fallbacks)."""
    embed = discord.Embed(
        title=texts.LEADERBOARD_TITLE,
        description="\n".join(ladder_lines(rows, strengths)) or texts.LEADERBOARD_EMPTY,
        colour=INFO_COLOUR,
    )
    if rows:
        embed.set_footer(text=texts.LEADERBOARD_FOOTER)
    games, fell_back = fallbacks
    if games:  # the alarm of issue 19: in normal operation this stays at 0
        embed.add_field(
            name=texts.AI_FALLBACKS_NAME,
            value=texts.AI_FALLBACKS.format(fallbacks=fell_back, games=games),
        )
    return embed


def profile_embed(
    name: str, standing: tuple[RatingRow, int, int] | None, stats: PlayerStats
) -> discord.Embed:
    """A member's rating and rank on the ladder, and their record over every server
    (the rating is global, so the record beside it is too): games, wins, wins by role."""
    embed = discord.Embed(title=texts.PROFILE_TITLE.format(name=name), colour=INFO_COLOUR)
    if standing is None:
        embed.description = texts.PROFILE_UNRATED.format(name=name)
    else:
        row, rank, of = standing
        embed.description = texts.PROFILE_RATING.format(
            rating=row.rating.ordinal, mu=row.rating.mu, sigma=row.rating.sigma, rank=rank, of=of
        )
    if stats.games:
        embed.add_field(
            name=texts.PROFILE_RECORD_NAME,
            value=texts.PROFILE_RECORD.format(
                games=stats.games, wins=stats.wins, rate=stats.win_rate
            ),
            inline=False,
        )
        embed.add_field(
            name=texts.PROFILE_ROLES_NAME,
            value="\n".join(
                texts.STATS_ROLE.format(role=role.capitalize(), wins=wins, games=games)
                for role, (games, wins) in stats.by_role.items()
            ),
        )
    return embed


def settings_embed(options: LobbyOptions) -> discord.Embed:
    """A guild's defaults for new lobbies."""
    embed = discord.Embed(title=texts.SETTINGS_TITLE, colour=INFO_COLOUR)
    embed.description = texts.LOBBY_OPTIONS_TEXT.format(
        variant=options.variant,
        size=options.players or "as many as join",
        strength=options.strength,
        fill="yes" if options.fill else "no",
        talk="on" if options.talk else "off",
        turn=options.turn_seconds,
        vote=options.vote_seconds,
    )
    return embed


async def update_settings(
    storage: InfoStorage, config: Config, guild_id: int, changes: Mapping[str, Any]
) -> LobbyOptions:
    """Apply the given (non-None) changes to a guild's defaults; `LobbyError` if invalid."""
    wanted = {k: v for k, v in changes.items() if k in SETTING_KEYS and v is not None}

    def check(merged: dict[str, Any]) -> None:
        default_options(config, merged).check()

    # Merged in the database's own transaction: two moderators at once both count.
    return default_options(config, await storage.merge_settings(guild_id, wanted, check))


__all__ = [
    "InfoStorage",
    "history_embed",
    "leaderboard_embed",
    "ladder_lines",
    "outcome",
    "profile_embed",
    "rules_embed",
    "settings_embed",
    "stats_embed",
    "update_settings",
]
