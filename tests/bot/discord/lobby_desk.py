"""The lobby tests' stand-in for the session manager, and their table."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import discord

from bot.discord import texts
from bot.discord.app import SecretHitlerBot
from bot.discord.components import ComponentId
from bot.discord.lobby import Lobby, LobbySeat
from bot.discord.replies import answer

from .harness import Harness, harness, labels


class RecordingDesk:
    """Stands in for the session manager: records the games it is asked to start."""

    def __init__(self) -> None:
        self.launched: list[tuple[Lobby, list[LobbySeat]]] = []
        self.channels: dict[int, int] = {}
        self.deleted: list[tuple[int, set[int]]] = []  # (channel, message ids) told

    async def start(self, bot: SecretHitlerBot) -> None:
        """Nothing to resume."""

    async def stop(self) -> None:
        """Nothing to stop."""

    def game_in(self, channel_id: int) -> int | None:
        return self.channels.get(channel_id)

    def why_busy(self, channel_id: int) -> str | None:
        return None if self.game_in(channel_id) is None else texts.GAME_ALREADY_HERE

    def why_full(self, guild_id: int | None) -> str | None:
        return None

    async def launch(self, lobby: Lobby, table: Sequence[LobbySeat]) -> int:
        self.launched.append((lobby, list(table)))
        game_id = len(self.launched)
        self.channels[lobby.channel_id] = game_id
        return game_id

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        await interaction.response.send_message(f"game click {cid}", ephemeral=True)

    async def status(self, interaction: discord.Interaction) -> None:
        await answer(interaction, "no game")

    async def cancel(self, interaction: discord.Interaction) -> None:
        await answer(interaction, "the game desk's /cancel")

    async def resume(self, interaction: discord.Interaction) -> None:
        await answer(interaction, "no game")

    async def role(self, interaction: discord.Interaction) -> None:
        await answer(interaction, "no game")

    async def afk(self, interaction: discord.Interaction) -> None:
        await answer(interaction, "no game")

    async def back(self, interaction: discord.Interaction) -> None:
        await answer(interaction, "no game")

    async def demo(self, interaction: discord.Interaction, players: int, speed: str) -> None:
        await answer(interaction, "demo")

    async def place_lost(
        self, reason: str, *, channel_id: int | None, guild_id: int | None
    ) -> None:
        """No games here."""

    def permissions_changed(self, guild_id: int, channel_id: int | None = None) -> None:
        """No games here."""

    def message_deleted(self, channel_id: int, message_ids: set[int]) -> None:
        """Recorded: the bot tells the desk of every deleted message."""
        self.deleted.append((channel_id, set(message_ids)))


@asynccontextmanager
async def lobby_table(tmp_path: Path) -> AsyncIterator[Harness]:
    """A harness whose games go to a `RecordingDesk` (as `table.desk`)."""
    desk = RecordingDesk()
    async with harness(tmp_path, lambda: desk) as h:
        h.desk = desk  # type: ignore[attr-defined]
        yield h


def lobby_message(table: Harness) -> discord.Message:
    """The channel's lobby message (the first message with a Join button)."""
    for message in table.channel_messages():
        if "Join" in labels(message):
            return message
    raise LookupError("no lobby message")


def desk(table: Harness) -> RecordingDesk:
    """The harness's stand-in for the session manager."""
    found = table.desk  # type: ignore[attr-defined]
    assert isinstance(found, RecordingDesk)
    return found
