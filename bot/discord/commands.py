"""The slash commands. Each is a thin wrapper: parse options, call the lobby, game or
information handlers, which check permissions and answer (ephemerally when refusing).

A guild-only command can still arrive from a DM (a client with stale command metadata):
`app.BotTree.interaction_check` refuses it before any handler runs, so no handler
meets an interaction without a server or channel.

A command that reads or writes the database acknowledges the interaction first: a storage
call can wait behind running games' writes longer than Discord's 3-second window. It
defers ephemerally, never publicly: the first followup after a defer completes the
deferred reply with the defer's visibility, so an error after a public defer would be
shown to the whole channel. A public result is posted as a followup (`announce`).
"""

from __future__ import annotations

from typing import Protocol

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands

from ..config import STRENGTHS, Config
from ..ratings import human_key
from ..storage import Storage
from . import info, texts
from .desk import GameDesk
from .lobby import VARIANTS, LobbyError, LobbyOptions, default_options
from .lobby_control import LobbyControl
from .lobby_message import lobby_embed
from .replay import Replays
from .replies import acknowledge, announce, answer
from .visibility import listed_here

VARIANT_CHOICES = [Choice(name=v, value=v) for v in VARIANTS]
STRENGTH_CHOICES = [Choice(name=s, value=s) for s in STRENGTHS]
Seconds = Range[int, 15, 900]
TableSize = Range[int, 5, 10]


class CommandHost(Protocol):
    """What the commands need of the bot (`app.SecretHitlerBot`, once set up)."""

    @property
    def config(self) -> Config:
        """The bot's configuration."""
        ...

    @property
    def storage(self) -> Storage:
        """The database."""
        ...

    @property
    def lobbies(self) -> LobbyControl:
        """The lobby handlers."""
        ...

    @property
    def games(self) -> GameDesk:
        """The running games."""
        ...

    @property
    def replays(self) -> Replays:
        """/replay's pages and buttons."""
        ...


HISTORY_ROWS = 10  # /history: the latest games shown


class GameCommands(commands.Cog):
    """Every app command of the bot."""

    def __init__(self, bot: CommandHost) -> None:
        self.bot = bot

    # --- the lobby --------------------------------------------------------------------

    @app_commands.command(name="newgame", description="Open a Secret Hitler table here.")
    @app_commands.guild_only()
    @app_commands.describe(
        variant="standard rules, or secrethitler.io's rebalanced 6/7/9-player setups",
        players="table size to fill up to with AI players (5-10)",
        ai="strength of the AI players",
        fill="fill empty seats with AI players at the start",
        talk="AI players say whom they trust and why (on unless set off)",
        turn_seconds="seconds per turn (nominate, legislate, powers)",
        vote_seconds="seconds per vote",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, ai=STRENGTH_CHOICES)
    async def newgame(
        self,
        interaction: discord.Interaction,
        variant: str | None = None,
        players: TableSize | None = None,
        ai: str | None = None,
        fill: bool | None = None,
        talk: bool | None = None,
        turn_seconds: Seconds | None = None,
        vote_seconds: Seconds | None = None,
    ) -> None:
        """Open a lobby with the server's defaults, overridden by the given options."""
        assert interaction.guild_id is not None  # see BotTree.interaction_check
        await acknowledge(interaction)  # an ephemeral "thinking" reply
        settings = await self.bot.storage.get_settings(interaction.guild_id)
        options = default_options(self.bot.config, settings)
        _override(
            options,
            variant=variant,
            players=players,
            strength=ai,
            fill=fill,
            talk=talk,
            turn_seconds=turn_seconds,
            vote_seconds=vote_seconds,
        )
        await self.bot.lobbies.new_game(interaction, options)

    @app_commands.command(name="join", description="Take a seat at the table in this channel.")
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction) -> None:
        """Join the channel's lobby."""
        await self.bot.lobbies.join(interaction)

    @app_commands.command(name="leave", description="Leave the table in this channel.")
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction) -> None:
        """Leave the channel's lobby."""
        await self.bot.lobbies.leave(interaction)

    @app_commands.command(name="addbot", description="Host: add an AI player to the table.")
    @app_commands.guild_only()
    @app_commands.describe(strength="this AI player's strength (default: the table's)")
    @app_commands.choices(strength=STRENGTH_CHOICES)
    async def addbot(self, interaction: discord.Interaction, strength: str | None = None) -> None:
        """Add an AI seat, at its own strength or the table's."""
        await self.bot.lobbies.add_ai(interaction, strength=strength)

    @app_commands.command(name="kick", description="Host: remove a player or an AI from the table.")
    @app_commands.guild_only()
    @app_commands.describe(player="the member to remove", seat="or the seat number in the lobby")
    async def kick(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        seat: Range[int, 1, 10] | None = None,
    ) -> None:
        """Remove a seat."""
        await self.bot.lobbies.kick(interaction, player, seat)

    @app_commands.command(name="start", description="Host: start the game.")
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction) -> None:
        """Start the channel's lobby."""
        await self.bot.lobbies.start(interaction)

    @app_commands.command(
        name="cancel", description="Host or Manage Server: cancel the lobby or the game here."
    )
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction) -> None:
        """Cancel the lobby; mid-game, ask the players to confirm."""
        assert interaction.channel_id is not None  # see BotTree.interaction_check
        if self.bot.games.game_in(interaction.channel_id) is not None:
            await self.bot.games.cancel(interaction)  # a game closed its lobby when it began
            return
        if await self.bot.lobbies.cancel(interaction):
            return
        if self.bot.games.game_in(interaction.channel_id) is not None:
            await self.bot.games.cancel(interaction)  # a Start launched it while this waited
        else:
            await answer(interaction, texts.NO_GAME_HERE)

    @app_commands.command(
        name="resume", description="Host or Manage Server: carry on a paused game here."
    )
    @app_commands.guild_only()
    async def resume(self, interaction: discord.Interaction) -> None:
        """Resume the channel's game after an internal error paused it."""
        await self.bot.games.resume(interaction)

    @app_commands.command(name="status", description="What is going on at the table here.")
    @app_commands.guild_only()
    async def status(self, interaction: discord.Interaction) -> None:
        """The lobby or the game of this channel (public information only)."""
        assert interaction.channel_id is not None  # see BotTree.interaction_check
        await acknowledge(interaction)  # the lobby may have to be read from the database
        lobby = await self.bot.lobbies.book.get(interaction.channel_id)
        if lobby is not None:
            await answer(interaction, embed=lobby_embed(lobby))
            return
        await self.bot.games.status(interaction)

    # --- playing ----------------------------------------------------------------------

    @app_commands.command(name="role", description="Your role in the game here (only you see it).")
    @app_commands.guild_only()
    async def role(self, interaction: discord.Interaction) -> None:
        """The member's role and what they know, ephemerally."""
        await self.bot.games.role(interaction)

    @app_commands.command(name="afk", description="Let an AI play your seat until you are back.")
    @app_commands.guild_only()
    @app_commands.describe(
        member="host or Manage Server: hand this player's seat to an AI (they /back)"
    )
    async def afk(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        """Hand the seat to an AI (the member's own, or, for the host, a missing player's)."""
        await self.bot.games.afk(interaction, member)

    @app_commands.command(name="back", description="Take your seat back from the AI.")
    @app_commands.guild_only()
    async def back(self, interaction: discord.Interaction) -> None:
        """Play the seat again."""
        await self.bot.games.back(interaction)

    @app_commands.command(name="ask", description="Ask an AI player here whom it trusts.")
    @app_commands.guild_only()
    @app_commands.describe(seat="the AI player's seat number, as the table shows it")
    async def ask(self, interaction: discord.Interaction, seat: Range[int, 0, 9]) -> None:
        """An AI seat's read of the table, said in the channel (its own view only)."""
        await self.bot.games.ask(interaction, seat)

    @app_commands.command(name="demo", description="Watch AI players play a whole game here.")
    @app_commands.guild_only()
    @app_commands.describe(players="how many AI players (5-10)", speed="how fast it goes")
    @app_commands.choices(speed=[Choice(name=s, value=s) for s in ("fast", "normal", "slow")])
    async def demo(
        self, interaction: discord.Interaction, players: TableSize = 7, speed: str = "normal"
    ) -> None:
        """A bot-only game, if the channel is free."""
        assert interaction.channel_id is not None  # see BotTree.interaction_check
        if (busy := self.bot.games.why_busy(interaction.channel_id)) is not None:
            await answer(interaction, busy)
            return
        await acknowledge(interaction)  # the lobby may have to be read from the database
        book = self.bot.lobbies.book
        # Under the channel's lobby lock, looked at again: a /newgame opening its lobby
        # (or a Start launching its game) meanwhile is seen, not played beside.
        async with book.lock(interaction.channel_id):
            if (busy := self.bot.games.why_busy(interaction.channel_id)) is not None:
                await answer(interaction, busy)
                return
            if await self.bot.lobbies.current(interaction, interaction.channel_id) is not None:
                await answer(interaction, texts.LOBBY_HERE_NO_DEMO)
                return
            await self.bot.games.demo(interaction, players, speed)

    # --- information ------------------------------------------------------------------

    @app_commands.command(name="rules", description="The rules of Secret Hitler, in short.")
    async def rules(self, interaction: discord.Interaction) -> None:
        """Show the rules to the member who asked."""
        await answer(interaction, embed=info.rules_embed())

    @app_commands.command(name="history", description="The latest games of this server.")
    @app_commands.guild_only()
    async def history(self, interaction: discord.Interaction) -> None:
        """Recent games, newest first."""
        await acknowledge(interaction)  # ephemeral: an error must reach the member alone
        # Posted for the channel: the games its readers could all see played.
        latest = await self.bot.storage.recent_games(guild_id=interaction.guild_id, limit=50)
        games = [g for g in latest if listed_here(interaction, g.channel_id)][:HISTORY_ROWS]
        await announce(interaction, texts.SHOWN_BELOW, embed=info.history_embed(games))

    @app_commands.command(name="stats", description="A player's record in this server.")
    @app_commands.guild_only()
    @app_commands.describe(user="whose record (default: yours)")
    async def stats(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        """Wins and games, overall and by role."""
        who = user or interaction.user
        await acknowledge(interaction)  # ephemeral: an error must reach the member alone
        # Posted for the channel: only the games its readers could see played (a role
        # held in a staff-only game must not be read from the counts by role).
        stats = await self.bot.storage.player_stats(
            who.id,
            guild_id=interaction.guild_id,
            shown=lambda channel_id: listed_here(interaction, channel_id),
        )
        await announce(
            interaction, texts.SHOWN_BELOW, embed=info.stats_embed(who.display_name, stats)
        )

    @app_commands.command(
        name="replay", description="A finished game of this server, round by round."
    )
    @app_commands.guild_only()
    @app_commands.describe(game="the game's number (see /history)")
    async def replay(
        self, interaction: discord.Interaction, game: app_commands.Range[int, 1, None]
    ) -> None:
        """Every round of a finished game with its hidden truth and the AI observer's
        belief, in an ephemeral message with Previous / Next."""
        await acknowledge(interaction)  # ephemeral: the pages are for the member alone
        await self.bot.replays.show(interaction, game)

    @app_commands.command(
        name="leaderboard",
        description="The rating ladder: this server's players and each AI strength.",
    )
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction) -> None:
        """The rating ladder people and AI strengths share (the server's players)."""
        await acknowledge(interaction)  # ephemeral: an error must reach the member alone
        rows = await self.bot.storage.rating_ladder(interaction.guild_id)
        fallbacks = await self.bot.storage.ai_fallbacks(interaction.guild_id)
        embed = info.leaderboard_embed(rows, self.bot.config.ai_specs, fallbacks)
        await announce(interaction, texts.SHOWN_BELOW, embed=embed)

    @app_commands.command(name="profile", description="A player's rating, games and wins by role.")
    @app_commands.guild_only()
    @app_commands.describe(member="whose profile (default: yours)")
    async def profile(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        """A member's rating and rank on the ladder, and their record in every server."""
        who = member or interaction.user
        await acknowledge(interaction)  # ephemeral: an error must reach the member alone
        standing = await self.bot.storage.player_rating(human_key(who.id))
        # The rating is global; the record beside it, posted here, counts only the games
        # this channel's readers could see played (none of another server's).
        stats = await self.bot.storage.player_stats(
            who.id, shown=lambda channel_id: listed_here(interaction, channel_id)
        )
        embed = info.profile_embed(who.display_name, standing, stats)
        await announce(interaction, texts.SHOWN_BELOW, embed=embed)

    @app_commands.command(
        name="settings", description="Manage Server: default options for new tables here."
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(
        variant="default rules",
        players="default table size to fill up to",
        ai="default AI strength",
        fill="fill empty seats with AI by default",
        talk="AI players talk by default",
        turn_seconds="default seconds per turn",
        vote_seconds="default seconds per vote",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, ai=STRENGTH_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction,
        variant: str | None = None,
        players: TableSize | None = None,
        ai: str | None = None,
        fill: bool | None = None,
        talk: bool | None = None,
        turn_seconds: Seconds | None = None,
        vote_seconds: Seconds | None = None,
    ) -> None:
        """Show the server's defaults; with options, change them (Manage Server)."""
        assert interaction.guild_id is not None  # see BotTree.interaction_check
        changes = {
            "variant": variant,
            "players": players,
            "strength": ai,
            "fill": fill,
            "talk": talk,
            "turn_seconds": turn_seconds,
            "vote_seconds": vote_seconds,
        }
        storage = self.bot.storage
        show_only = all(v is None for v in changes.values())
        # default_permissions can be widened by a server admin: check the real permission.
        if not show_only and not interaction.permissions.manage_guild:
            await answer(interaction, texts.SETTINGS_NEED_MANAGE)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        if show_only:
            settings = await storage.get_settings(interaction.guild_id)
            options = default_options(self.bot.config, settings)
            await answer(interaction, embed=info.settings_embed(options))
            return
        try:
            options = await info.update_settings(
                storage, self.bot.config, interaction.guild_id, changes
            )
        except LobbyError as exc:
            await answer(interaction, str(exc))
            return
        # Saved: an answer lost to a fault must not say that nothing changed.
        await answer(
            interaction, texts.SETTINGS_SAVED, embed=info.settings_embed(options), quiet=True
        )


def _override(options: LobbyOptions, **changes: object) -> None:
    for key, value in changes.items():
        if value is not None:
            setattr(options, key, value)
