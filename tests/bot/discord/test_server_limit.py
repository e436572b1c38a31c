"""A server runs at most GAMES_PER_SERVER games at once, of every kind. The demo limit
applied to /demo alone, and `/newgame players:10 fill:True`, Start, `/afk` made a
bot-only game in any number of channels, each taking AI time from every table the bot
runs (found by a review). A Start or /demo past the limit is refused, privately, and
the lobby stays open for when a game ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.discord import games as games_module
from bot.discord import texts

from .harness import told
from .test_game_flow import FAST, open_table, start_game


async def test_a_start_or_demo_past_the_server_s_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(games_module, "GAMES_PER_SERVER", 1)
    async with open_table(tmp_path, FAST) as table:
        alice, bob = table.members[:2]
        await start_game(table, [alice], players=5)  # the server's one game
        other = table.guild.create_text_channel("second-table")
        await bob.slash(other, "newgame", players=5, fill=True)
        full = texts.SERVER_FULL.format(limit=1)
        assert told(await bob.slash(other, "start")) == full
        assert table.bot.games.game_in(other.id) is None
        assert await table.bot.lobbies.book.get(other.id) is not None  # still open
        third = table.guild.create_text_channel("third-table")
        assert told(await bob.slash(third, "demo", players=5, speed="fast")) == full
        assert table.bot.games.game_in(third.id) is None
