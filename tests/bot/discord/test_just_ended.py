"""/newgame and /demo in the moments a game takes to show its end (the suspicion chart
is computed, the reveal posted, then the end stored): the channel is not free yet, and
they say why, not that a game is running."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import bot.session as session_module
from bot.discord import texts

from .harness import opened_lobby, told
from .test_game_flow import FAST, open_table, start_game


async def test_a_new_game_asked_as_the_last_one_shows_its_end_is_told_to_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_table(tmp_path, FAST) as table:
        alice = table.members[0]
        chart = asyncio.Event()
        real = session_module.suspicion_after

        async def slow_chart(*args: Any, **kwargs: Any) -> Any:
            await chart.wait()  # the reveal's chart takes its seconds
            return await real(*args, **kwargs)

        monkeypatch.setattr(session_module, "suspicion_after", slow_chart)
        game_id = await start_game(table, [alice], players=5)
        session = table.bot.games.manager.get(game_id)
        assert session is not None
        await alice.slash(table.channel, "afk")  # the AI plays her seat to the end
        await table.until(lambda: session.game.is_over, what="the end", timeout=60)
        assert told(await alice.slash(table.channel, "newgame")) == texts.GAME_JUST_ENDED
        assert told(await alice.slash(table.channel, "demo")) == texts.GAME_JUST_ENDED
        chart.set()
        await table.until(lambda: table.bot.games.game_in(table.channel.id) is None, what="free")
        opened_lobby(await alice.slash(table.channel, "newgame"))  # the next lobby is up
