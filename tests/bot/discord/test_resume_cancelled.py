"""A /resume that finds the game cancelled meanwhile (a /cancel, or the players' vote,
ended it between the /resume's look and its rebuild) says the game was cancelled: 'it
stays paused, /cancel ends it' would send the host to cancel a game that is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot import notices
from bot.discord import texts
from engine import Vote

from .driver import Driver
from .harness import Harness, text, told
from .test_game_flow import FAST, open_table, reveal_posted, start_game, stored


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


@pytest.mark.parametrize("fails_in", ["rebuild", "store"])
async def test_a_resume_that_fails_after_stopping_the_paused_game_leaves_it_to_cancel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails_in: str
) -> None:
    """A /resume stops the paused session (its outbox goes with it), then rebuilds the
    game and stores it running. If either fails, the stopped session used to stay the
    channel's: a /cancel then stored the game cancelled through an outbox that was gone,
    so the table was never told, and its paused prompts kept their buttons. The game is
    now stranded (no session holds it): /cancel takes the stranded path, which closes
    what the game showed and tells the channel."""
    async with open_table(tmp_path, FAST) as table:
        alice = table.members[0]
        game_id = await _paused_game(table, monkeypatch)
        manager = table.bot.games.manager
        paused = manager.get(game_id)
        assert paused is not None and paused.paused
        if fails_in == "rebuild":

            def broken(*args: Any, **kwargs: Any) -> Any:
                raise RuntimeError("seat 2 is a fascist")

            monkeypatch.setattr(manager, "_build", broken)
        else:

            async def refused(game: int) -> None:
                raise RuntimeError("the database is locked")

            monkeypatch.setattr(manager.store, "resume_game", refused)
        assert told(await alice.slash(table.channel, "resume")) == texts.RESUME_FAILED
        assert manager.get(game_id) is None and manager.is_stranded(game_id)
        monkeypatch.undo()
        assert told(await alice.slash(table.channel, "cancel")) == texts.GAME_CANCELLED
        notice = notices.cancelled(texts.CANCEL_HOST_ALONE)
        await table.until(
            lambda: any(text(m) == notice for m in table.channel_messages()),
            what="the channel told the game was cancelled",
        )
        assert (await stored(table, game_id)).status == "cancelled"
        assert table.bot.games.game_in(table.channel.id) is None
        assert not any("fascist" in text(m) for m in table.channel_messages())


async def test_a_resume_that_failed_after_stopping_the_paused_game_can_be_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stranded game resumes at the next /resume, and is played to its end."""
    async with open_table(tmp_path, FAST) as table:
        alice = table.members[0]
        game_id = await _paused_game(table, monkeypatch)
        manager = table.bot.games.manager
        build = manager._build

        def broken_once(*args: Any, **kwargs: Any) -> Any:
            monkeypatch.setattr(manager, "_build", build)
            raise RuntimeError("seat 2 is a fascist")

        monkeypatch.setattr(manager, "_build", broken_once)
        assert told(await alice.slash(table.channel, "resume")) == texts.RESUME_FAILED
        assert told(await alice.slash(table.channel, "resume")) == texts.RESUMED
        await Driver(table, [alice], seed=7).play(until=lambda: reveal_posted(table))
        assert (await stored(table, game_id)).status == "finished"
