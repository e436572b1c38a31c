"""A won game whose end cannot be stored (the one write fails: a disk hiccup) pauses;
/cancel of it then changed nothing (found by a review): the game was over, so the
session's cancel returned at once, the manager kept the session, and the channel stayed
held although the table was told "/cancel to end it". Now /cancel stores its end, with
its result (a game with a winner is never cancelled), and frees the channel; /resume and
a restart store it too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.discord import texts
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.session import GameSession
from bot.storage import Storage
from bot.storage.records import StorageError

from .conftest import UNTIMED, members, until
from .discord.harness import opened_lobby, text, told
from .discord.test_game_flow import FAST, open_table

CHANNEL = 77


class EndFails:
    """A storage whose writes of a game's end (finished) fail `times` times."""

    def __init__(self, store: Storage, times: int = 1) -> None:
        self.store, self.times = store, times

    async def finish_game(self, *args: Any, **kwargs: Any) -> None:
        if self.times and kwargs.get("status") == "finished":
            self.times -= 1
            raise StorageError("disk hiccup")
        await self.store.finish_game(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def won_unstored(
    session_store: Storage, times: int = 1
) -> tuple[SessionManager, GameSession, FakeFrontend]:
    """A game played to its end whose end was not stored: paused, over, holding its channel."""
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(EndFails(session_store, times), fake)  # type: ignore[arg-type]
    session = await manager.create(members(5), seed=4, options=UNTIMED, channel_id=CHANNEL)
    await asyncio.wait_for(until(lambda: session.paused, 30), 40)
    assert session.game.is_over and session.game.winner is not None
    assert (await session_store.load_game(session.game_id)).status == "paused"
    assert manager.for_channel(CHANNEL) is session
    return manager, session, fake


async def test_cancel_stores_the_end_of_a_won_game_and_frees_the_channel(
    session_store: Storage,
) -> None:
    manager, session, fake = await won_unstored(session_store)
    winner = session.game.winner
    try:
        ended = await manager.cancel(session, "host")
        assert ended is session and not session.paused and session.is_over
        assert manager.for_channel(CHANNEL) is None  # free at once, no watcher to wait for
        stored = await session_store.load_game(session.game_id)
        assert stored.status == "finished" and stored.winner == winner
        assert not any("cancelled" in text for text in fake.public_text(session.game_id))
    finally:
        await manager.shutdown()


async def test_a_cancel_whose_write_fails_again_leaves_it_paused(session_store: Storage) -> None:
    manager, session, _ = await won_unstored(session_store, times=2)
    try:
        with pytest.raises(StorageError):
            await manager.cancel(session, "host")
        assert session.paused and manager.for_channel(CHANNEL) is session
        await manager.cancel(session, "host")  # the database is back
        assert manager.for_channel(CHANNEL) is None
        assert (await session_store.load_game(session.game_id)).status == "finished"
    finally:
        await manager.shutdown()


async def test_resume_stores_the_end(session_store: Storage) -> None:
    manager, session, _ = await won_unstored(session_store)
    try:
        await manager.resume_paused(session.game_id)
        await asyncio.wait_for(until(lambda: manager.for_channel(CHANNEL) is None, 30), 40)
        assert (await session_store.load_game(session.game_id)).status == "finished"
    finally:
        await manager.shutdown()


async def test_a_restart_stores_the_end(session_store: Storage) -> None:
    manager, session, _ = await won_unstored(session_store)
    await manager.shutdown()  # stored paused: the restart resumes it, and it ends
    restarted = SessionManager(session_store, FakeFrontend(answer=scripted))
    try:
        [resumed] = await restarted.recover()
        await asyncio.wait_for(until(lambda: restarted.for_channel(CHANNEL) is None, 30), 40)
        stored = await session_store.load_game(resumed.game_id)
        assert stored.status == "finished" and stored.winner == session.game.winner
    finally:
        await restarted.shutdown()


# --- on Discord: what the host and the channel are told -------------------------------


async def test_on_discord_cancel_stores_the_end_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_table(tmp_path, FAST) as table:
        alice, bob = table.members[:2]
        real = table.storage.finish_game
        fails = [2]  # the game's own write, then the first /cancel's

        async def finish_game(*args: Any, **kwargs: Any) -> None:
            if fails[0] and kwargs.get("status") == "finished":
                fails[0] -= 1
                raise StorageError("disk hiccup")
            await real(*args, **kwargs)

        monkeypatch.setattr(table.storage, "finish_game", finish_game)
        table.expect_error("paused: StorageError")
        table.expect_error("its end could not be stored")
        await alice.slash(table.channel, "demo", players=5, speed="fast")
        manager = table.bot.games.manager
        await table.until(
            lambda: (s := manager.for_channel(table.channel.id)) is not None and s.paused,
            timeout=60,
        )
        session = manager.for_channel(table.channel.id)
        assert session is not None and session.game.is_over
        game_id = session.game_id

        assert told(await bob.slash(table.channel, "newgame")) == texts.GAME_END_NOT_STORED
        assert told(await bob.slash(table.channel, "cancel")) == texts.CANCEL_RIGHTS
        assert told(await alice.slash(table.channel, "cancel")) == texts.END_NOT_STORED
        assert session.paused and table.bot.games.game_in(table.channel.id) == game_id

        before = len(table.channel_messages())
        assert told(await alice.slash(table.channel, "cancel")) == texts.END_STORED
        stored = await table.storage.load_game(game_id)
        assert stored.status == "finished" and stored.winner == session.game.winner
        assert table.bot.games.game_in(table.channel.id) is None
        after = [text(m) for m in table.channel_messages()[before:]]
        assert texts.END_STORED_TABLE in after
        assert not any("cancelled" in t.lower() for t in after), after
        opened_lobby(await bob.slash(table.channel, "newgame"))  # the channel is free


async def test_a_won_game_stranded_at_a_restart_keeps_its_result_when_cancelled(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A won game whose end was not stored, stranded at the next start (its session
    could not be rebuilt): its host's /cancel stored it cancelled, its result lost. It
    is stored finished, with its winner, as any cancel of a won game."""
    manager, session, _ = await won_unstored(session_store)
    winner = session.game.winner
    await manager.shutdown()

    def broken(*args: Any, **kwargs: Any) -> GameSession:
        raise RuntimeError("no session now")

    restarted = SessionManager(session_store, FakeFrontend(answer=scripted))
    monkeypatch.setattr(restarted, "resume", broken)
    try:
        assert await restarted.recover() == []
        assert restarted.is_stranded(session.game_id)
        assert await restarted.cancel_stranded(session.game_id)  # stored finished
        stored = await session_store.load_game(session.game_id)
        assert (stored.status, stored.winner) == ("finished", winner)
        assert not restarted.is_stranded(session.game_id)
    finally:
        await restarted.shutdown()
