"""The offline harness: the real bot, driven through discord.py's real dispatch.

simcord (a dev dependency) replaces discord.py's two seams, the HTTP client and the
gateway parsers, with an in-memory Discord; everything in between (the command tree,
`DynamicItem` routing, interaction responses) is discord.py running unmodified. Discord
is never contacted. `Harness` builds a server with a channel and members, starts the
bot, restarts it (a fresh bot object over the same database and the same simulated
Discord, so the old messages and their buttons remain), and finds messages to click.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import discord
import simcord

from bot.config import Config
from bot.discord.app import GameDesk, SecretHitlerBot
from bot.storage import Storage

NAMES = (
    "alice",
    "bob",
    "carol",
    "dave",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
)


@dataclass
class Harness:
    """A simulated server with one channel, eleven members and the bot."""

    env: simcord.Env
    config: Config
    games_factory: Callable[[], GameDesk]
    storage: Storage
    guild: simcord.GuildHandle = field(init=False)
    channel: simcord.ChannelHandle = field(init=False)
    members: list[simcord.MemberActor] = field(init=False)

    def __post_init__(self) -> None:
        self.guild = self.env.create_guild(name="Game night")
        self.channel = self.guild.create_text_channel("secret-hitler")
        self.members = [self.guild.add_member(self.env.create_user(n)) for n in NAMES]

    @property
    def bot(self) -> SecretHitlerBot:
        """The bot running now (a new object after each restart)."""
        bot = self.env.bot
        assert isinstance(bot, SecretHitlerBot)
        return bot

    async def restart(self) -> SecretHitlerBot:
        """Stop the bot and start a fresh one on the same database and Discord."""
        bot = SecretHitlerBot(
            self.config, self.games_factory(), storage=self.storage, shard_count=1
        )
        await self.env.restart_bot(bot)
        return bot

    def channel_messages(self) -> list[discord.Message]:
        """Every message in the channel as a non-member would see it (no ephemerals)."""
        return self.channel.history()

    def message(self, message_id: int) -> discord.Message:
        """A channel message by id, as stored now (edits applied)."""
        for message in self.channel_messages():
            if message.id == message_id:
                return message
        raise LookupError(f"no message {message_id} in the channel")


def labels(message: discord.Message | simcord.ResponseMessage) -> list[str]:
    """The labels of a message's buttons, in order."""
    rows: Sequence[Any] = message.components
    out: list[str] = []
    for row in rows:
        children = row["components"] if isinstance(row, dict) else row.children
        for child in children:
            label = child.get("label") if isinstance(child, dict) else getattr(child, "label", None)
            if label:
                out.append(label)
    return out


def embed_text(message: discord.Message | simcord.ResponseMessage) -> str:
    """All the text of a message's embeds, for assertions."""
    parts: list[str] = []
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or ""]
        for fld in embed.fields:
            parts += [fld.name or "", fld.value or ""]
    return "\n".join(parts)


@asynccontextmanager
async def harness(
    tmp_path: Path,
    games_factory: Callable[[], GameDesk],
    *,
    config: Config | None = None,
) -> AsyncIterator[Harness]:
    """A running bot in a simulated Discord, over a fresh database in `tmp_path`.

    Usable from a pytest fixture (it avoids `simcord.run`'s clock context, which must be
    left in the task that entered it). Errors the bot swallowed fail the test at the end.
    """
    config = replace(config or Config(), database_path=tmp_path / "shbot.db", sync_commands=True)
    storage = await Storage.open(config.database_path)
    bot = SecretHitlerBot(config, games_factory(), storage=storage, shard_count=1)
    env = simcord.Env(bot)
    failures = _ErrorLog()
    logging.getLogger("bot").addHandler(failures)
    await env.start()
    try:
        yield Harness(env, config, games_factory, storage)
    finally:
        await env.shutdown()
        await storage.close()
        logging.getLogger("bot").removeHandler(failures)
    errors = env.errors
    if errors:
        raise ExceptionGroup(f"the bot raised {len(errors)} error(s)", errors)  # type: ignore[arg-type]
    # The bot's own handlers log unexpected exceptions instead of raising them (a user
    # gets "something went wrong"); in a test those are failures too.
    assert not failures.records, [r.getMessage() for r in failures.records]


class _ErrorLog(logging.Handler):
    """Collects ERROR records of the bot's loggers."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
