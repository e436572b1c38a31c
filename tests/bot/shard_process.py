"""One bot process of a sharded deployment, its Discord simulated: `python -m
tests.bot.shard_process new|resume` (issue 23; run by tests/bot/test_two_processes.py).

Everything of the production bot process runs here as `bot.discord.app.run` builds it:
the configuration read from the environment by `load_config` (DATABASE_URL, SHARD_COUNT,
SHARD_IDS...), `DiscordGames`, `tune_gc`, and a `SecretHitlerBot` that opens the database
itself and claims its shards in `setup_hook`. Only the Discord connection differs: the
bot is attached to a simcord `Env` instead of the gateway. simcord is an in-memory Discord
(it replaces discord.py's HTTP client and gateway parsers inside this process; it serves
no socket), so each process has a Discord of its own holding the one server of its shard,
and a restarted process builds that server again with the same ids (simcord's ids come
from a fixed virtual clock and a counter: the same creations in the same order give the
same ids). Its old messages died with the killed process; the resumed game posts anew.

Two members (alice, bob) play a 5-player table, AI players filling the other seats: in
`new` mode alice opens it with /newgame; in `resume` mode the bot resumes what the
database holds for its shard. The members click through `tests.bot.discord.driver`.

Reports go to stdout, one JSON object a line:
- `ready`: the process runs; `games`: the games its sessions drive right after start.
- `refused`: the start was refused (a `StorageError`, such as a `ShardConflict`).
- `ack`: a member's click was acknowledged; `prefix`: the game's actions up to that
  member's last action (stored before the acknowledgement, and everything before it too).
- `done`: the game's reveal was posted; `actions`: its whole log as this process drove it.
- `log`: a warning or error the bot logged. `stopped`: SIGTERM handled, the bot closed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

import discord
import simcord

from bot.agent_port import InProcessAgents
from bot.config import load_config
from bot.discord.app import SecretHitlerBot
from bot.discord.games import DiscordGames
from bot.gc_tuning import tune_gc
from bot.storage import StorageError

from .discord.driver import Driver, components, text_of
from .discord.harness import detached_games

# A restarted process's message ids must not repeat the killed one's (the database keeps
# the ids of the messages the game showed): its Discord clock starts 30 days later.
RESTART_CLOCK_S = 30 * 24 * 3600.0


def report(event: str, **fields: Any) -> None:
    """One line for the test process."""
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


class Reporter(logging.Handler):
    """The bot's warnings and errors, reported (the test fails on unexpected ones)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({record.exc_info[1]!r})"
        report("log", level=record.levelname, logger=record.name, text=text)


class Table:
    """What `Driver` reads of a table (the harness's `Harness`, for one process's
    channel): the bot, the channel, its messages, and a wait by condition."""

    def __init__(self, env: simcord.Env, bot: SecretHitlerBot, shard: int) -> None:
        self.env, self.bot = env, bot
        self.guild = env.create_guild("Game night", shard_id=shard)
        self.channel = self.guild.create_text_channel("secret-hitler")
        self.members = [self.guild.add_member(env.create_user(n)) for n in ("alice", "bob")]

    def channel_messages(self) -> list[discord.Message]:
        return self.channel.history()

    async def until(
        self, condition: Callable[[], bool], *, timeout: float = 60.0, what: str = ""
    ) -> None:
        """Wait until `condition()` holds (a deadline, so a hang fails the process)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or condition}")
            await asyncio.sleep(0.005)


def reveal_posted(table: Table) -> bool:
    return any("The reveal" in text_of(m) for m in table.channel_messages())


async def open_game(table: Table) -> int:
    """/newgame by alice, Join by bob, Start: the game's id."""
    alice, bob = table.members
    await alice.slash(table.channel, "newgame", players=5)
    lobby = table.channel.last_message
    assert lobby is not None
    await bob.click(lobby, label="Join")
    started = await alice.click(lobby, label="Start")
    assert started.acknowledged, started
    game_id = table.bot.games.game_in(table.channel.id)
    assert game_id is not None
    return game_id


async def play(table: Table, game_id: int, seed: int) -> None:
    """Click for alice and bob until the reveal; report each acknowledged click."""
    driver = Driver(table, table.members, seed=seed)  # type: ignore[arg-type]
    manager = table.bot.games.manager
    session = manager.get(game_id)
    assert session is not None
    humans = {session.table.seat_of(m.id) for m in table.members}
    while True:
        try:
            await table.until(lambda: reveal_posted(table) or bool(driver.pending()))
        except AssertionError:  # say what the members saw, to tell a hang from a slip
            seen = [
                (m.content[-300:], [c.get("custom_id") for c in components(m)])
                for m in table.channel_messages()[-3:]
            ]
            waits = session.game.phase.value, session.game.awaiting()
            raise AssertionError(f"no turn for the members; game {waits}; saw {seen}") from None
        if reveal_posted(table):
            break
        message, member = driver.pending()[0]
        await driver.act(message, member)
        actions = list(session.game.actions)
        mine = [i for i, a in enumerate(actions) if a.seat in humans]
        if mine:
            report("ack", game=game_id, prefix=[repr(a) for a in actions[: mine[-1] + 1]])
    report("done", game=game_id, actions=[repr(a) for a in session.game.actions])


async def run(mode: str) -> int:
    with detached_games():  # game sessions outside simcord's settling (see the harness)
        return await _run(mode)


async def _run(mode: str) -> int:
    config = load_config()
    assert config.shard_ids is not None and len(config.shard_ids) == 1, config.shard_ids
    logging.getLogger("bot").addHandler(Reporter())
    games = DiscordGames(config, agents=InProcessAgents())
    tune_gc()  # as `bot.discord.app.run`
    bot = SecretHitlerBot(config, games)  # opens DATABASE_URL in setup_hook, as in production
    # Commands are global, synced by shard 0's process: this Discord knows them anyway.
    env = simcord.Env(bot, strict_sync=False)
    table = Table(env, bot, config.shard_ids[0])
    if mode == "resume":
        env.backend.advance_clock(RESTART_CLOCK_S)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await env.start()
    except StorageError as exc:
        report("refused", error=str(exc))
        return 3
    driving = sorted(s.game_id for s in bot.games.manager.sessions)
    report("ready", games=driving, shard=config.shard_ids[0])
    game_id = await open_game(table) if mode == "new" else driving[0]
    player = asyncio.create_task(play(table, game_id, seed=game_id))
    await asyncio.wait({player, asyncio.create_task(stop.wait())}, return_when="FIRST_COMPLETED")
    if player.done():
        player.result()  # a failure ends the process with its traceback
        await stop.wait()
    else:
        player.cancel()
    await bot.games.stop()
    await env.shutdown()
    await bot.close()
    report("stopped", errors=[repr(e) for e in env.errors])
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    sys.exit(asyncio.run(run(sys.argv[1])))
