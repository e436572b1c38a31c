"""The running games as the Discord layer sees them: the interface between the bot
(`app`) and the games (`games.DiscordGames`).

The dependency points one way: `app` wires the parts together and imports them; the
parts (`commands`, `games`, `lobby_control`) never import `app`. What they need of the
bot or of each other is a protocol here or in their own module.
"""

from __future__ import annotations

from typing import Protocol

import discord

from ..storage import Storage
from .components import ComponentId
from .lobby_control import GameLauncher


class GameBot(discord.Client):
    """The bot as the games see it: a Discord client with the bot's database.

    `app.SecretHitlerBot` is one; the games take it without importing the app.
    """

    @property
    def storage(self) -> Storage:
        """The database (open once the bot is set up)."""
        raise NotImplementedError


class GameDesk(GameLauncher, Protocol):
    """The running games (see `games.DiscordGames`)."""

    async def start(self, bot: GameBot) -> None:
        """Resume the games that were running when the bot stopped."""
        ...

    async def stop(self) -> None:
        """Stop every session cleanly (their state is already stored)."""
        ...

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """A game component was used: check it against the session and answer."""
        ...

    async def status(self, interaction: discord.Interaction) -> None:
        """Answer /status for the channel's game (or say there is none)."""
        ...

    async def cancel(self, interaction: discord.Interaction) -> None:
        """Answer /cancel for the channel's game (or say there is none)."""
        ...

    async def resume(self, interaction: discord.Interaction) -> None:
        """Answer /resume: carry on the channel's paused game (or say there is none)."""
        ...

    async def role(self, interaction: discord.Interaction) -> None:
        """Answer /role: the member's role and private knowledge, ephemerally."""
        ...

    async def ask(self, interaction: discord.Interaction, seat: int) -> None:
        """Answer /ask: an AI seat's read of the table, in the channel."""
        ...

    async def afk(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        """Answer /afk: an AI plays the member's seat (or, asked by the host, `member`'s)
        until /back."""
        ...

    async def back(self, interaction: discord.Interaction) -> None:
        """Answer /back: the member plays their seat again."""
        ...

    async def demo(self, interaction: discord.Interaction, players: int, speed: str) -> None:
        """Start a bot-only game in the channel (the caller checked it is free)."""
        ...

    async def place_lost(
        self, reason: str, *, channel_id: int | None, guild_id: int | None
    ) -> None:
        """A channel (or a whole server) is gone: abandon every game played there."""
        ...

    def permissions_changed(self, guild_id: int, channel_id: int | None = None) -> None:
        """The bot's permissions (or its access: added to a thread) may have changed in a
        channel (None: anywhere in the server): games paused for want of one try their
        next message again now."""
        ...

    def message_deleted(self, channel_id: int, message_ids: set[int]) -> None:
        """Messages of a channel were deleted (a moderator, a purge): a running game there
        posts again what it still needs shown (its open decisions, its vote, its board)."""
        ...
