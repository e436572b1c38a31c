"""The Discord application: the bot class, its start-up and its graceful shutdown.

`run(config)` is what `shbot` calls when `DISCORD_TOKEN` is set. The bot is an
`AutoShardedBot` with `Intents.default()` only: it works through app commands and
components, never by reading messages. Its `setup_hook` opens the database, registers the
`Route` dynamic item (so buttons of messages sent before a restart still work), adds the
commands and syncs them (to `DEV_GUILD_ID` only, when set: instant while developing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from types import TracebackType
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from ..config import Config
from ..errors import failure_cause
from ..gc_tuning import tune_gc
from ..storage import Storage, StorageError
from . import texts
from .commands import GameCommands
from .components import PREFIX, ComponentId, Route
from .desk import GameBot, GameDesk
from .lobby import ChannelSettingsLobbyStore, LobbyBook
from .lobby_control import LobbyControl
from .replay import Replays
from .replies import SEND_FAULTS, answer, fault_words

log = logging.getLogger(__name__)

# A command sync that failed for a reason that passes (the network, Discord's 5xx, its
# rate limit) is tried again after this long, then twice as long each time, up to an hour.
SYNC_RETRY_S = 60.0
SYNC_RETRY_MAX_S = 3600.0

# What the bot needs in a channel; see docs/discord.md.
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)


class BotTree(app_commands.CommandTree["SecretHitlerBot"]):
    """The command tree; a command that fails unexpectedly is logged and answered."""

    async def interaction_check(self, interaction: discord.Interaction[SecretHitlerBot]) -> bool:
        """Refuse a guild-only command that arrived outside a server channel.

        `guild_only()` only tells Discord where to list a command; a client whose command
        list predates it still sends it from a DM. Refused here, no handler ever meets an
        interaction without a server or channel.
        """
        if getattr(interaction.command, "guild_only", False) and (
            interaction.guild_id is None or interaction.channel_id is None
        ):
            await answer(interaction, texts.GUILD_ONLY, quiet=True)
            return False
        return True

    async def on_error(
        self, interaction: discord.Interaction[SecretHitlerBot], error: app_commands.AppCommandError
    ) -> None:
        """Log the failure and tell the member the game is unchanged."""
        if isinstance(error, app_commands.NoPrivateMessage):
            await answer(interaction, texts.GUILD_ONLY, quiet=True)
            return
        name = getattr(interaction.command, "name", "?")
        log.error("command %s failed", name, exc_info=error)
        await answer(interaction, texts.SOMETHING_WRONG, quiet=True)


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with the scopes and permissions it needs."""
    return discord.utils.oauth_url(
        application_id, permissions=PERMISSIONS, scopes=("bot", "applications.commands")
    )


class SecretHitlerBot(commands.AutoShardedBot, GameBot):
    """The bot: app commands, routed components, lobbies and games.

    `storage` may be given (tests share one across restarts); otherwise it is opened
    from `config.database_path` in `setup_hook` and closed by `close()`.
    """

    def __init__(
        self,
        config: Config,
        games: GameDesk,
        *,
        storage: Storage | None = None,
        shard_count: int | None = None,
    ) -> None:
        sharding: dict[str, Any] = {}
        if config.shard_ids is not None:
            sharding["shard_ids"] = list(config.shard_ids)
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            tree_cls=BotTree,
            intents=discord.Intents.default(),
            # Nobody is pinged unless a message says so (the player who must act).
            allowed_mentions=discord.AllowedMentions.none(),
            shard_count=shard_count or config.shard_count,
            **sharding,
        )
        self.config = config
        self.games = games
        self._storage = storage
        self._owns_storage = storage is None
        self._lobbies: LobbyControl | None = None
        self.replays = Replays(self)  # /replay and its Previous / Next buttons
        self._closing = False
        self._sync_retry: asyncio.Task[None] | None = None  # a failed command sync's retry

    # --- wiring -----------------------------------------------------------------------

    @property
    def storage(self) -> Storage:
        """The database (open once `setup_hook` ran)."""
        if self._storage is None:
            raise RuntimeError("The database is not open yet.")
        return self._storage

    @property
    def lobbies(self) -> LobbyControl:
        """The lobby handlers (ready once `setup_hook` ran)."""
        if self._lobbies is None:
            raise RuntimeError("The bot is not set up yet.")
        return self._lobbies

    async def setup_hook(self) -> None:
        """Open the database, register components and commands, resume games, sync."""
        if self._storage is None:
            path = self.config.database_path
            try:
                if self.config.database_url is None:  # a SQLite file: make its directory
                    path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # one clear line (the CLI prints StorageErrors so)
                raise StorageError(
                    f"Cannot create {exc.filename or path.parent} for the database {path}"
                    f" ({exc.strerror or exc})."
                ) from exc
            self._storage = await Storage.open(self.config.database)  # DATABASE_URL or _PATH
        self._lobbies = LobbyControl(
            LobbyBook(ChannelSettingsLobbyStore(self._storage)), self.games
        )
        self.add_dynamic_items(Route)
        await self.add_cog(GameCommands(self))
        await self.games.start(self)
        if self.config.sync_commands and (self.shard_ids is None or 0 in self.shard_ids):
            await self._sync_or_retry()

    async def _sync_or_retry(self) -> None:
        """Sync the app commands; if Discord or the network fails, run all the same (it
        keeps the commands it has: only a changed command waits) and try again beside
        the bot, rather than exit and stop the games resumed a moment ago."""
        if not await self._sync_once(retry_in=SYNC_RETRY_S):
            self._sync_retry = asyncio.create_task(self._sync_later())

    async def _sync_later(self) -> None:
        """Try the sync again, waiting longer each time (up to an hour), until it works."""
        wait = SYNC_RETRY_S
        while True:
            await asyncio.sleep(wait)
            wait = min(wait * 2, SYNC_RETRY_MAX_S)
            if await self._sync_once(retry_in=wait):
                return

    async def _sync_once(self, *, retry_in: float) -> bool:
        """Sync once, saying whether that is the end of it: synced, or refused for good
        (e.g. a command Discord rejects: a bug of ours). False: a fault worth trying
        again in `retry_in` seconds (both logged)."""
        try:
            await self.sync_commands()
        except SEND_FAULTS as exc:
            if not _worth_retrying(exc):
                log.error("the app commands were not synced (%s)", fault_words(exc))
                return True
            log.warning(
                "the app commands were not synced (%s): tried again in %.0f s",
                fault_words(exc),
                retry_in,
            )
            return False
        return True

    async def sync_commands(self) -> None:
        """Register the app commands: on the dev guild only if set (instant), else globally."""
        if self.config.dev_guild_id is not None:
            guild = discord.Object(id=self.config.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild.id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))

    async def on_ready(self) -> None:
        """Log who we are, and the invite link."""
        if self.user is not None:
            log.info("connected as %s; invite: %s", self.user, invite_url(self.user.id))

    # --- the server changes under the games --------------------------------------------

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted: its game is abandoned (nobody can see it any more)."""
        await self.games.place_lost(
            texts.CHANNEL_DELETED, channel_id=channel.id, guild_id=channel.guild.id
        )

    async def on_thread_delete(self, thread: discord.Thread) -> None:
        """A thread was deleted: as a channel."""
        await self.games.place_lost(
            texts.CHANNEL_DELETED, channel_id=thread.id, guild_id=thread.guild.id
        )

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot left a server (removed, or the server deleted): its games are abandoned."""
        await self.games.place_lost(texts.SERVER_LEFT, channel_id=None, guild_id=guild.id)

    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        """A channel's permissions may have changed."""
        self.games.permissions_changed(after.guild.id, after.id)

    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        """A thread was unlocked or reopened, perhaps: its paused games try again."""
        self.games.permissions_changed(after.guild.id, after.id)

    async def on_thread_join(self, thread: discord.Thread) -> None:
        """The bot was added to a thread (or sees one it had not known): a game paused
        because the bot was not in its private thread carries on now. Discord tells no
        thread or permission update of it, so the game would otherwise wait for its
        outbox's next probe (`outbox.PROBE_S`, 30 s)."""
        self.games.permissions_changed(thread.guild.id, thread.id)

    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        """A role's permissions may have changed (the bot's own, among others)."""
        self.games.permissions_changed(after.guild.id)

    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        """The bot's own roles may have changed."""
        if self.user is not None and after.id == self.user.id:
            self.games.permissions_changed(after.guild.id)

    # --- a game's message deleted --------------------------------------------------------

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """A message was deleted (a moderator): if it carried a game's open decision or
        vote, the game posts it again."""
        self.games.message_deleted(payload.channel_id, {payload.message_id})

    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        """Messages were deleted at once (a purge): as one by one."""
        self.games.message_deleted(payload.channel_id, payload.message_ids)

    # --- components -------------------------------------------------------------------

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer clicks on components whose custom_id we no longer understand.

        Our current components are handled by `Route`; anything else is from an older
        version of the bot (or not ours) and would otherwise fail silently for the user.
        """
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        if ComponentId.parse(custom_id) is None:
            log.debug("unknown component %r", custom_id[: len(PREFIX) + 40])
            await answer(interaction, texts.UNKNOWN_COMPONENT, quiet=True)

    async def on_component(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """Route a click to its lobby or game; never leave it unanswered."""
        try:
            if self._lobbies is None:
                await answer(interaction, texts.NOT_READY, quiet=True)
            elif cid.game.startswith("L"):
                await self._lobbies.on_click(interaction, cid)
            elif cid.game.isdigit():
                await self.games.on_click(interaction, cid)
            elif cid.game.startswith("R"):
                await self.replays.on_click(interaction, cid)
            else:
                await answer(interaction, texts.UNKNOWN_COMPONENT, quiet=True)
        except Exception as exc:
            # The kind of click and where it failed only: its option may be the policy a
            # player discarded, and an error's message may quote a hand. The traceback
            # goes to DEBUG only, below the level a host runs at.
            log.error("a click on %s:%s failed: %s", cid.game, cid.action, failure_cause(exc))
            log.debug("the click's traceback", exc_info=True)
            await answer(interaction, texts.SOMETHING_WRONG, quiet=True)

    # --- shutdown -------------------------------------------------------------------------

    async def close(self) -> None:
        """Stop the games, disconnect, then close the database once writes are done."""
        if self._closing:
            return
        self._closing = True
        if self._sync_retry is not None:
            self._sync_retry.cancel()
        with contextlib.suppress(Exception):
            await self.games.stop()
        await super().close()
        if self._owns_storage and self._storage is not None:
            await self._storage.close()
        log.info("closed")


def run(config: Config, games: GameDesk | None = None) -> None:
    """Run the bot until SIGTERM or SIGINT, then shut down gracefully."""
    discord.utils.setup_logging(level=config.log_level_number)
    if not config.discord_token:
        raise SystemExit("DISCORD_TOKEN is not set; see .env.example.")
    if games is None:
        from .games import DiscordGames  # the session manager, the agents, the renderers

        games = DiscordGames(config)
    tune_gc()  # after the imports: see bot.gc_tuning for the measured loop stalls
    asyncio.run(serve(SecretHitlerBot(config, games), config.discord_token))


class Servable(Protocol):
    """What `serve` needs of a bot (a `SecretHitlerBot`; tests pass a stand-in)."""

    async def __aenter__(self) -> Any: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> Any: ...

    async def start(self, token: str) -> None:
        """Log in, connect and run until closed."""
        ...

    async def close(self) -> None:
        """Disconnect and release everything."""
        ...


async def serve(bot: Servable, token: str) -> None:
    """Run `bot` until it stops or SIGTERM / SIGINT arrives, then close it.

    Closing stops the game sessions first (what was acknowledged is stored; they resume
    at the next start), then disconnects, then closes the database once its writes are
    done.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    # remove_signal_handler puts back Python's defaults, not what was installed before
    # (asyncio.run's SIGINT handler, for one): remember those to restore them.
    previous = {sig: signal.getsignal(sig) for sig in signals}
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    try:
        async with bot:
            runner: asyncio.Task[None] = asyncio.create_task(bot.start(token))
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            log.info("shutting down")
            await bot.close()
            stopper.cancel()
            if not runner.done():
                runner.cancel()
            results = await asyncio.gather(runner, stopper, return_exceptions=True)
            failure = results[0]
            if isinstance(failure, Exception):
                raise failure
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)
            handler = previous[sig]
            if handler is not None:  # None: installed outside Python, left alone
                signal.signal(sig, handler)


def _worth_retrying(exc: BaseException) -> bool:
    """Whether a failed request may go through later: a network fault, Discord's 5xx, or
    its rate limit (any other HTTP error answers the same next time)."""
    if isinstance(exc, discord.HTTPException):
        return exc.status == 429 or exc.status >= 500
    return True
