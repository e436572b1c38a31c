"""A /resume that finds the game cancelled meanwhile (a /cancel, or the players' vote,
ended it between the /resume's look and its rebuild) says the game was cancelled: 'it
stays paused, /cancel ends it' would send the host to cancel a game that is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.discord import texts
from engine import Vote

from .driver import Driver
from .harness import Harness, text, told
from .test_game_flow import FAST, open_table, start_game, stored


async def _paused_game(table: Harness, monkeypatch: pytest.MonkeyPatch) -> int:
    """A game of alice and four AI players, paused by a write that failed once."""
    alice = table.members[0]
    table.expect_error("paused: RuntimeError at ")
    table.expect_warning("an action was not stored (RuntimeError)")
    table.expect_error("could not be resumed")
    storage = table.storage
    write = storage.append_action

    async def fails_once(game_id: int, seq: int, action: Any, **how: Any) -> None:
        if isinstance(action, Vote) and action.seat >= 1:  # an AI's ballot: paused
            monkeypatch.setattr(storage, "append_action", write)
            raise RuntimeError("the disk is gone")
        await write(game_id, seq, action, **how)

    monkeypatch.setattr(storage, "append_action", fails_once)
    game_id = await start_game(table, [alice], players=5)
    await Driver(table, [alice], seed=6).play(
        until=lambda: any("This game is paused" in text(m) for m in table.channel_messages())
    )
    return game_id


async def test_a_resume_that_another_resume_beat_says_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The permission came back (its automatic resume), or a second /resume: this one
    finds the game running, and says so, not 'it stays paused'."""
    async with open_table(tmp_path, FAST) as table:
        alice = table.members[0]
        await _paused_game(table, monkeypatch)
        manager = table.bot.games.manager
        resume_paused = manager.resume_paused

        async def beaten(paused: int) -> Any:
            await resume_paused(paused)  # the other one, just before
            return await resume_paused(paused)

        monkeypatch.setattr(manager, "resume_paused", beaten)
        assert told(await alice.slash(table.channel, "resume")) == texts.RESUMED


async def test_a_resume_of_a_game_cancelled_meanwhile_says_it_was_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_table(tmp_path, FAST) as table:
        alice = table.members[0]
        game_id = await _paused_game(table, monkeypatch)
        manager = table.bot.games.manager
        resume_paused = manager.resume_paused

        async def cancelled_first(paused: int) -> Any:
            session = manager.get(paused)
            assert session is not None
            await manager.cancel(session, texts.CANCEL_HOST_ALONE)  # it lands just before
            return await resume_paused(paused)

        monkeypatch.setattr(manager, "resume_paused", cancelled_first)
        assert told(await alice.slash(table.channel, "resume")) == texts.GAME_CANCELLED
        assert (await stored(table, game_id)).status == "cancelled"
        assert table.bot.games.game_in(table.channel.id) is None
