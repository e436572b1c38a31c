"""The offline harness: the real bot, driven through discord.py's real dispatch.

simcord (a dev dependency) replaces discord.py's two seams, the HTTP client and the
gateway parsers, with an in-memory Discord; everything in between (the command tree,
`DynamicItem` routing, interaction responses) is discord.py running unmodified. Discord
is never contacted. `Harness` builds a server with a channel and members, starts the
bot, restarts it (a fresh bot object over the same database and the same simulated
Discord, so the old messages and their buttons remain), and finds messages to click.

Game sessions run detached (`detached_games`). simcord waits, after every simulated
action, until every task the bot started is finished or parked on a wait it recognises
(discord.py listeners, views, timers). A game session is long-lived on purpose: its
tasks wait on an `asyncio.Event` for the next answer and on a queue for the next
message, which simcord cannot tell from a hung handler (it fails the action after 5 s).
simcord tracks the tasks created while the bot's own work runs (a context variable of
the creating task), so the harness wraps the calls that start, resume or stop game
sessions to run in a fresh context, which simcord does not track: clicks and commands
are still settled by simcord, and the tests wait for the game's progress by condition
(`Harness.until`), as a member watching the channel would. The bot's code is the
production code: nothing in it knows about the harness.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import discord
import simcord
from simcord.backend import serializers
from simcord.enums import ComponentType, InteractionType

from bot.config import Config
from bot.discord.app import GameDesk, SecretHitlerBot
from bot.discord.frontend import DiscordFrontend
from bot.manager import SessionManager
from bot.session import GameSession
from bot.storage import Storage

T = TypeVar("T")

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


# The calls that start, resume or stop game sessions (their tasks outlive the handler).
_GAME_WORK: tuple[tuple[type, str], ...] = (
    (SessionManager, "create"),
    (SessionManager, "recover"),
    (SessionManager, "resume_paused"),
    (SessionManager, "shutdown"),
    (GameSession, "abandon"),
    (DiscordFrontend, "close"),
)


def _outside_the_bot(original: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """`original`, run as a task in a fresh context: simcord does not track it, nor the
    tasks it starts (they copy its context)."""

    @functools.wraps(original)
    async def detached(*args: Any, **kwargs: Any) -> T:
        coro = original(*args, **kwargs)
        loop = asyncio.get_running_loop()
        task: asyncio.Task[T] = contextvars.Context().run(loop.create_task, coro)  # type: ignore[arg-type]
        return await task

    return detached


@contextmanager
def detached_games() -> Iterator[None]:
    """Game sessions started, resumed and stopped outside simcord's settling, for as long
    as the block runs (see the module docstring). Start from test code, never the bot."""
    originals = [(owner, name, owner.__dict__[name]) for owner, name in _GAME_WORK]
    start = GameSession.start
    try:
        for owner, name, original in originals:
            setattr(owner, name, _outside_the_bot(original))
        GameSession.start = functools.wraps(start)(  # type: ignore[method-assign]
            lambda session: contextvars.Context().run(start, session)
        )
        yield
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
        GameSession.start = start  # type: ignore[method-assign]


@dataclass
class Harness:
    """A simulated server with one channel, eleven members and the bot."""

    env: simcord.Env
    config: Config
    games_factory: Callable[[], GameDesk]
    storage: Storage
    log: _ErrorLog
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
        """Stop the bot (its games stop as on SIGTERM) and start a fresh one on the same
        database and the same simulated Discord."""
        await self.bot.games.stop()
        bot = SecretHitlerBot(
            self.config, self.games_factory(), storage=self.storage, shard_count=1
        )
        await self.env.restart_bot(bot)
        return bot

    def pinged(self, message: discord.Message) -> set[int]:
        """Users a channel message notified, under the `allowed_mentions` it was sent (or
        last edited) with. (simcord computes this like Discord; it is not in the message
        payload, so it is read from simcord's backend model.)"""
        stored = self.env.backend.get_message(self.channel.id, message.id)
        return set(stored.ping_user_ids)

    def expect_warning(self, text: str) -> None:
        """A warning containing `text` is expected: it does not fail the test."""
        self.log.expected.append(text)

    def expect_error(self, text: str) -> None:
        """An error (a log record, or an exception reaching discord.py's handlers)
        containing `text` is expected (a test provokes it): it does not fail the test."""
        self.log.expected_errors.append(text)

    async def until(
        self, condition: Callable[[], bool], *, timeout: float = 20.0, what: str = ""
    ) -> None:
        """Wait (real time) until `condition()` holds: game work runs meanwhile."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or condition}")
            await asyncio.sleep(0.005)

    def channel_messages(self) -> list[discord.Message]:
        """Every message in the channel as a non-member would see it (no ephemerals)."""
        return self.channel.history()

    def message(self, message_id: int) -> discord.Message:
        """A channel message by id, as stored now (edits applied)."""
        for message in self.channel_messages():
            if message.id == message_id:
                return message
        raise LookupError(f"no message {message_id} in the channel")


async def forge_click(
    table: Harness, member: simcord.MemberActor, message: discord.Message, custom_id: str
) -> simcord.InteractionResult:
    """A click on a button with `custom_id` that `message` never carried, as a modified
    client would send it. simcord's own `click` only clicks real components, so this goes
    one level down, to its interaction dispatch; discord.py routes a click only if the
    interaction's message shows the button, so the payload shows it."""
    stored = table.env.backend.get_message(table.channel.id, message.id)
    payload = dict(serializers.message_payload(table.env.backend, stored))
    button = {"type": ComponentType.BUTTON, "style": 4, "label": "End", "custom_id": custom_id}
    payload["components"] = [{"type": 1, "components": [button]}]
    return await member._dispatch_interaction(
        InteractionType.MESSAGE_COMPONENT,
        table.channel,
        {"custom_id": custom_id, "component_type": ComponentType.BUTTON},
        extra={"message": payload},
        source_message_id=stored.id,
    )


def told(result: simcord.InteractionResult) -> str:
    """What the member alone was told: the ephemeral reply, or else the last ephemeral
    followup (a click deferred as an update of its message refuses by followup)."""
    response = result.response
    if response is not None and response.ephemeral:
        return response.content
    private = [f for f in result.followups if f.ephemeral]
    assert private, f"nothing ephemeral in {result!r}"
    return private[-1].content


def public_followup(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The one public message a command posted after its ephemeral deferred reply (a
    public result: the lobby of /newgame, the embed of /history...)."""
    public = [f for f in result.followups if not f.ephemeral]
    assert len(public) == 1, f"no public followup in {result!r}"
    return public[0]


def opened_lobby(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The public lobby message a successful /newgame posted (its public followup); the
    command's own deferred reply is the host's ephemeral note."""
    return public_followup(result)


def parts(message: discord.Message | simcord.ResponseMessage) -> list[Any]:
    """Every component of a message, depth first: action rows and their buttons and
    selects, and a Components V2 layout's containers and text displays (raw dicts for
    simcord's response messages, discord.py objects for channel messages)."""
    out: list[Any] = []

    def walk(items: Sequence[Any]) -> None:
        for item in items:
            out.append(item)
            if isinstance(item, dict):
                walk(item.get("components") or [])
            else:
                walk(getattr(item, "children", None) or [])

    walk(message.components)
    return out


def _kind(part: Any) -> int:
    return int(part.get("type", 0)) if isinstance(part, dict) else int(part.type.value)


def labels(message: discord.Message | simcord.ResponseMessage) -> list[str]:
    """The labels of a message's buttons, in order."""
    out: list[str] = []
    for part in parts(message):
        label = part.get("label") if isinstance(part, dict) else getattr(part, "label", None)
        if label and _kind(part) == 2:
            out.append(label)
    return out


def mentioned(message: discord.Message | simcord.ResponseMessage) -> list[int]:
    """The members a message's text mentions (content or layout), in order, once each."""
    found = (int(user_id) for user_id in re.findall(r"<@!?(\d+)>", text(message)))
    return list(dict.fromkeys(found))


def text(message: discord.Message | simcord.ResponseMessage) -> str:
    """What a message says: its content, or the text displays of its Components V2
    layout (the live board), in order."""
    shown = [message.content] if message.content else []
    for part in parts(message):
        if _kind(part) == 10:
            shown.append(part.get("content", "") if isinstance(part, dict) else part.content)
    return "\n".join(shown)


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
    own_storage: bool = False,
) -> AsyncIterator[Harness]:
    """A running bot in a simulated Discord, over a fresh database in `tmp_path`.

    Usable from a pytest fixture (it avoids `simcord.run`'s clock context, which must be
    left in the task that entered it). Errors the bot swallowed fail the test at the end.
    With `own_storage` the bot opens (and closes) the database itself, as in production;
    otherwise the harness shares one `Storage` across restarts.
    """
    config = replace(config or Config(), database_path=tmp_path / "shbot.db", sync_commands=True)
    storage = None if own_storage else await Storage.open(config.database_path)
    with detached_games():
        async with _running(config, games_factory, storage, own_storage) as table:
            yield table


@asynccontextmanager
async def _running(
    config: Config,
    games_factory: Callable[[], GameDesk],
    storage: Storage | None,
    own_storage: bool,
) -> AsyncIterator[Harness]:
    """The bot started in a simulated Discord; stopped, and its swallowed errors raised,
    at the end."""
    bot = SecretHitlerBot(config, games_factory(), storage=storage, shard_count=1)
    env = simcord.Env(bot)
    failures = _ErrorLog()
    logging.getLogger("bot").addHandler(failures)
    await env.start()
    try:
        yield Harness(env, config, games_factory, storage or bot.storage, failures)
    finally:
        try:
            current = env.bot
            if isinstance(current, SecretHitlerBot):
                await current.games.stop()
                if own_storage:
                    await current.close()  # idempotent: the test may have closed it
            await env.shutdown()
        finally:
            if storage is not None:
                await storage.close()
            logging.getLogger("bot").removeHandler(failures)
    # Exceptions that reached discord.py's error handlers (simcord records them), unless
    # a test provoked them on purpose (`Harness.expect_error`).
    errors = [e for e in env.errors if not failures.allowed_exception(e)]
    if errors:
        raise BaseExceptionGroup(f"the bot raised {len(errors)} error(s)", errors)
    # The bot's handlers, and the session's publisher, log unexpected exceptions instead
    # of raising them (a member reads "something went wrong", the game goes on); in a
    # test those are failures too, unless the test expected them (`Harness.expected`).
    unexpected = [r for r in failures.records if not failures.allowed(r)]
    assert not unexpected, [_describe(r) for r in unexpected]


def _describe(record: logging.LogRecord) -> str:
    text = f"{record.name}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        text += f" ({record.exc_info[1]!r})"
    return text


class _ErrorLog(logging.Handler):
    """Collects WARNING and ERROR records of the bot's loggers."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[logging.LogRecord] = []
        self.expected: list[str] = []  # substrings of warnings a test provokes on purpose
        self.expected_errors: list[str] = []  # and of errors

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def allowed_exception(self, error: BaseException) -> bool:
        """Whether a test provoked this exception (`Harness.expect_error`)."""
        return any(e in str(error) for e in self.expected_errors)

    def allowed(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.levelno >= logging.ERROR:
            return any(e in message for e in self.expected_errors)
        return any(e in message for e in self.expected + self.expected_errors)
