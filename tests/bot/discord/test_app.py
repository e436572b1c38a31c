"""The application: intents, mentions, permissions, sharding, command sync, shutdown."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from dataclasses import replace
from pathlib import Path
from types import TracebackType

import aiohttp
import discord
import pytest
import simcord

from bot.agent_port import InProcessAgents
from bot.config import Config
from bot.discord import app
from bot.discord.app import PERMISSIONS, SecretHitlerBot, invite_url, serve
from bot.discord.games import DiscordGames
from bot.storage import Storage, StorageError

from .driver import Driver
from .harness import harness, labels, opened_lobby
from .network_faults import NetworkFaults
from .test_game_flow import FAST, start_game

ROOT = Path(__file__).resolve().parents[3]


def test_default_intents_only_and_no_pings_by_default() -> None:
    bot = SecretHitlerBot(Config(), DiscordGames(Config()))
    assert bot.intents == discord.Intents.default()
    assert not bot.intents.message_content and not bot.intents.members
    mentions = bot.allowed_mentions
    assert mentions is not None
    assert mentions.users is False and mentions.roles is False and mentions.everyone is False


def test_the_documented_invite_link_has_the_permissions_the_bot_needs() -> None:
    docs = (ROOT / "docs" / "discord.md").read_text()
    assert str(PERMISSIONS.value) in docs
    url = invite_url(1234)
    assert "client_id=1234" in url and "scope=bot+applications.commands" in url
    assert f"permissions={PERMISSIONS.value}" in url
    assert not PERMISSIONS.administrator and not PERMISSIONS.mention_everyone


def test_run_refuses_to_start_without_a_token() -> None:
    with pytest.raises(SystemExit, match="DISCORD_TOKEN"):
        app.run(Config())


class _StandInBot:
    """Records what `serve` does with a bot; `start` runs until cancelled (no network)."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.closed = 0

    async def __aenter__(self) -> _StandInBot:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self, token: str) -> None:
        self.started.set()
        await asyncio.Event().wait()

    async def close(self) -> None:
        self.closed += 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_closes_the_bot_gracefully(sig: signal.Signals) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    bot = _StandInBot()
    task = asyncio.create_task(serve(bot, "token"))
    await asyncio.wait_for(bot.started.wait(), 5)
    assert signal.getsignal(sig) != before[sig]  # serve() listens for it
    os.kill(os.getpid(), sig)
    await asyncio.wait_for(task, 5)
    assert bot.closed >= 1
    # The handlers are removed again: the process's own signal handling is back.
    assert {s: signal.getsignal(s) for s in before} == before


async def test_close_stops_games_then_closes_the_database(tmp_path: Path) -> None:
    async with harness(
        tmp_path,
        lambda: DiscordGames(FAST, agents=InProcessAgents()),
        config=FAST,
        own_storage=True,
    ) as table:
        alice = table.members[0]
        game_id = await start_game(table, [alice], players=5)
        driver = Driver(table, [alice], seed=1)
        await table.until(lambda: bool(driver.pending()))
        await driver.act(*driver.pending()[0])
        bot = table.bot
        await bot.close()  # what SIGTERM leads to
        assert isinstance(bot.games, DiscordGames)
        assert bot.games.manager.sessions == []
        with pytest.raises(StorageError):
            await bot.storage.get_settings(1)
    # The game is stored, still running, with the moves made so far: it resumes later.
    async with await Storage.open(tmp_path / "shbot.db") as storage:
        stored = await storage.load_game(game_id)
        assert stored.status == "running"
        assert stored.record.actions


async def test_commands_sync_to_the_dev_guild_only(tmp_path: Path) -> None:
    env_config = replace(FAST, database_path=tmp_path / "shbot.db")
    storage = await Storage.open(env_config.database_path)
    try:
        # The dev guild must exist before the bot syncs to it: create it first.
        bot = SecretHitlerBot(
            env_config,
            DiscordGames(env_config, agents=InProcessAgents()),
            storage=storage,
        )
        env = simcord.Env(bot, shard_count=1)
        dev = env.create_guild(name="dev")
        other = env.create_guild(name="other")
        config = replace(env_config, dev_guild_id=dev.id)
        bot.config = config
        await env.start()
        try:
            alice = dev.add_member(env.create_user("alice"))
            bob = other.add_member(env.create_user("bob"))
            here = dev.create_text_channel("games")
            there = other.create_text_channel("games")
            assert "newgame" in alice.available_commands(here)
            assert bob.available_commands(there) == ()
        finally:
            await env.shutdown()
    finally:
        await storage.close()


async def test_two_shards_and_only_shard_zero_syncs(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "shbot.db")
    try:
        config = replace(FAST, database_path=tmp_path / "shbot.db", shard_count=2)
        bot = SecretHitlerBot(
            config, DiscordGames(config, agents=InProcessAgents()), storage=storage
        )
        env = simcord.Env(bot)
        await env.start()
        try:
            assert sorted(bot.shards) == [0, 1]
            guild = env.create_guild(shard_id=1)
            channel = guild.create_text_channel("games")
            alice = guild.add_member(env.create_user("alice"))
            result = await alice.slash(channel, "newgame")
            assert result.acknowledged and labels(opened_lobby(result))  # the public lobby
        finally:
            await env.shutdown()

        second = replace(config, shard_ids=(1,))
        synced: list[bool] = []
        other = SecretHitlerBot(
            second, DiscordGames(second, agents=InProcessAgents()), storage=storage
        )

        async def spy() -> None:
            synced.append(True)

        other.sync_commands = spy  # type: ignore[method-assign]
        env2 = simcord.Env(other)
        await env2.start()
        try:
            assert other.shard_ids == [1]
            assert synced == []  # shard 0 lives in another process: it syncs
        finally:
            await env2.shutdown()
    finally:
        await storage.close()


@pytest.mark.parametrize(
    "fault",
    [aiohttp.ClientConnectionError("reset"), "rate limited"],
    ids=["network", "429"],
)
async def test_a_failed_command_sync_does_not_stop_the_bot_and_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: BaseException | str
) -> None:
    """Syncing the app commands at startup meets a network fault or Discord's rate limit:
    the bot runs all the same (Discord keeps the commands it has) and syncs once it can,
    rather than exiting (the games it had resumed would stop with it)."""
    monkeypatch.setattr(app, "SYNC_RETRY_S", 0.01)
    storage = await Storage.open(tmp_path / "shbot.db")
    try:
        config = replace(FAST, database_path=tmp_path / "shbot.db")
        bot = SecretHitlerBot(
            config, DiscordGames(config, agents=InProcessAgents()), storage=storage
        )
        env = simcord.Env(bot, shard_count=1)
        if isinstance(fault, BaseException):
            NetworkFaults(monkeypatch).fail("PUT", "/applications/*/commands", fault)
        else:
            env.inject_error("PUT", "/applications/*/commands", status=429, times=1)
        records: list[logging.LogRecord] = []
        handler = logging.Handler()
        handler.emit = records.append  # type: ignore[method-assign]
        logging.getLogger("bot").addHandler(handler)
        await env.start()
        try:
            guild = env.create_guild(name="games")
            channel = guild.create_text_channel("games")
            alice = guild.add_member(env.create_user("alice"))
            for _ in range(500):  # the retry runs beside the bot
                if "newgame" in alice.available_commands(channel):
                    break
                await asyncio.sleep(0.01)
            assert "newgame" in alice.available_commands(channel)
            result = await alice.slash(channel, "newgame")
            assert result.acknowledged and labels(opened_lobby(result))
        finally:
            await env.shutdown()
            logging.getLogger("bot").removeHandler(handler)
        assert any("were not synced" in r.getMessage() for r in records)
    finally:
        await storage.close()
