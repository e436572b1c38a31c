"""Discord requests that outlast Discord's bad moments, and what a failure means for a game.

Every request the game front-end makes goes through `attempt`: a transient failure (a
5xx, a network error, a rate limit) is retried with exponential backoff, honouring
Retry-After, for as long as it takes (the game's outbox waits meanwhile; nothing is
dropped). A failure that retrying cannot fix becomes what it means for the game:

- the channel or the server is gone (404 Unknown Channel / Unknown Guild, or the bot is
  no longer in the server): `PlaceLost`, and the game is abandoned;
- the bot lacks a permission there (403 Missing Permissions / Missing Access):
  `PermissionLost` naming the permissions, and the game pauses until they are back
  (Missing Access in a private thread the bot can see the parent of: it is not in the
  thread, and the pause says to add it);
- the game's thread is archived (400 / 50083: Discord archives a thread idle for a
  while, and then refuses edits in it): `ThreadArchived`, upon which the front-end
  reopens the thread and tries again, as any post in it would have reopened it;
- the game's thread is locked (403 / 160005), or archived and the bot may not reopen
  it, or Discord refuses the bot there for a reason of its own (any other 403):
  `PermissionLost` with that cause, and the game pauses until a probe or a channel or
  thread update finds the place open again: the message is kept, never dropped;
- the message to edit was deleted (404 Unknown Message): `MessageGone`, which the
  front-end handles (it posts the message again when it is still needed).

Anything else (a 400: a defect of ours) is raised as it is.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import aiohttp
import discord

from ..ports import PermissionLost, PlaceLost
from . import texts
from .replies import SEND_FAULTS, fault_words

log = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 60.0
UNKNOWN_CHANNEL, UNKNOWN_GUILD, UNKNOWN_MESSAGE = 10003, 10004, 10008
MISSING_ACCESS, MISSING_PERMISSIONS = 50001, 50013
ARCHIVED_THREAD, THREAD_LOCKED = 50083, 160005

# What a game needs where it is played, as a server's settings name it. Sending in a
# thread needs "Send Messages in Threads" instead of "Send Messages".
NEEDED: dict[str, str] = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
}
IN_THREADS = {"send_messages": "send_messages_in_threads"}


class MessageGone(Exception):
    """The message to edit no longer exists (someone deleted it)."""


class ThreadArchived(PermissionLost):
    """The game's thread is archived: the front-end may reopen it (a locked one only a
    moderator may), and the game pauses with this cause only if it cannot."""


def missing_permissions(permissions: discord.Permissions, *, thread: bool = False) -> list[str]:
    """The permissions a game needs that `permissions` lacks, by their names in Discord."""
    missing = []
    for flag, name in NEEDED.items():
        if thread and flag in IN_THREADS:
            flag, name = IN_THREADS[flag], "Send Messages in Threads"
        if not getattr(permissions, flag):
            missing.append(name)
    return missing


def missing_here(interaction: discord.Interaction) -> list[str]:
    """The permissions a game needs that the bot lacks in the interaction's channel
    (Discord sends the bot's permissions there with every interaction)."""
    thread = isinstance(interaction.channel, discord.Thread)
    return missing_permissions(interaction.app_permissions, thread=thread)


async def thread_refusal(interaction: discord.Interaction) -> str | None:
    """Why the bot could not post a game in the interaction's thread, if it is one where
    it cannot (a lobby would open there all the same: interaction followups need no
    permission of the bot, and the game would pause at its first message):

    - a locked thread, unless the bot has Manage Threads there (Discord lets only
      moderators post in a locked thread: 160005);
    - a private thread the bot is not in, unless it has Manage Threads (moderators see
      every private thread). The gateway tells the bot the private threads it joins
      (`Thread.me`); when its cache does not know, Discord is asked (one request, after
      the interaction was acknowledged), so that nobody is refused wrongly.

    An archived thread is no obstacle: the bot's first post reopens it, unless locked.
    """
    channel = interaction.channel
    if not isinstance(channel, discord.Thread):
        return None
    if interaction.app_permissions.manage_threads:
        return None
    if channel.locked:
        return texts.THREAD_LOCKED
    if channel.type is not discord.ChannelType.private_thread or channel.me is not None:
        return None
    me = interaction.client.user
    if me is None:  # not logged in: nothing to ask with
        return None
    try:
        await channel.fetch_member(me.id)
    except (discord.NotFound, discord.Forbidden):  # not a member; or not even shown it
        return texts.THREAD_ADD_BOT
    except SEND_FAULTS as exc:  # Discord's error, or the network's
        # Cannot tell: let the game try (if it cannot post, it pauses and says why).
        log.info("thread %s: the bot's membership was not read (%s)", channel.id, fault_words(exc))
    return None


def permission_lost(missing: Sequence[str], where: str) -> PermissionLost:
    """The error for permissions the bot lacks in `where` (a channel mention or name)."""
    names = ", ".join(missing) if missing else "a permission the game needs"
    return PermissionLost(f"The bot lacks {names} in {where}.", missing)


def retry_after(exc: discord.HTTPException) -> float | None:
    """The Retry-After of a 429, if Discord sent one."""
    headers = getattr(exc.response, "headers", None) or {}
    value = headers.get("Retry-After") or headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


async def attempt(
    call: Callable[[], Awaitable[T]],
    *,
    what: str,
    translate: Callable[[discord.HTTPException], Exception],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """`await call()` until it succeeds or fails for good (see the module docstring).

    `what` names the request in logs (never its content); `translate` turns a final
    HTTP error into what it means for the game."""
    backoff = FIRST_BACKOFF_S
    failures = 0
    while True:
        try:
            return await call()
        except discord.RateLimited as exc:  # longer than discord.py waits by itself
            wait, cause = exc.retry_after, "rate limited"
        except discord.HTTPException as exc:
            if exc.status == 429:
                wait, cause = retry_after(exc) or backoff, "rate limited"
            elif exc.status >= 500:
                wait, cause = backoff, f"Discord error {exc.status}"
            else:
                raise translate(exc) from exc
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            wait, cause = backoff, f"network error ({type(exc).__name__})"
        failures += 1
        level = logging.WARNING if failures == 1 or failures % 10 == 0 else logging.INFO
        log.log(level, "%s failed (%s): try %d again in %.1f s", what, cause, failures + 1, wait)
        # Jitter: many games retrying after one outage do not all come back at once.
        await sleep(wait + random.uniform(0, 0.1 * wait))
        backoff = min(backoff * 2, MAX_BACKOFF_S)


def translate_for(
    client: discord.Client, game_id: int, guild_id: int | None, channel_id: int | None
) -> Callable[[discord.HTTPException], Exception]:
    """How a final HTTP error of a game's request reads for that game."""
    where = f"<#{channel_id}>" if channel_id is not None else "its channel"

    def translate(exc: discord.HTTPException) -> Exception:
        # Before READY the guild cache is empty (restart recovery runs in setup_hook,
        # before the gateway connects): a missing guild then says nothing, and a game
        # taken for gone would be abandoned for good. It pauses instead and is probed
        # again once the guilds are known.
        in_server = (
            guild_id is None or not client.is_ready() or client.get_guild(guild_id) is not None
        )
        if exc.code == UNKNOWN_MESSAGE:
            return MessageGone(str(exc.code))
        if exc.code == UNKNOWN_GUILD or (exc.code == MISSING_ACCESS and not in_server):
            return PlaceLost(f"The bot is no longer in the server of game #{game_id}.")
        if exc.code == UNKNOWN_CHANNEL:
            return PlaceLost(f"The channel of game #{game_id} was deleted.")
        if exc.code == MISSING_ACCESS:
            if outside_private_thread(client, channel_id):
                return PermissionLost(texts.THREAD_BOT_REMOVED.format(where=where))
            return permission_lost(["View Channel"], where)
        if exc.code == MISSING_PERMISSIONS:
            return permission_lost(missing_in(client, channel_id), where)
        if exc.code == THREAD_LOCKED:
            return PermissionLost(texts.THREAD_LOCKED_MIDGAME.format(where=where))
        if exc.code == ARCHIVED_THREAD:
            return ThreadArchived(texts.THREAD_ARCHIVED.format(where=where))
        if exc.status == 403:  # forbidden for a reason of Discord's: wait, never drop
            return PermissionLost(f"Discord refused the bot in {where} ({exc.code}).")
        return exc

    return translate


def outside_private_thread(client: discord.Client, channel_id: int | None) -> bool:
    """Whether Missing Access in `channel_id` means the bot is not in that private
    thread: a cached private thread where the bot sees the parent channel but lacks
    Manage Threads (with which it would see every private thread). A thread the cache
    does not know reads as a missing View Channel, as before."""
    channel = client.get_channel(channel_id) if channel_id is not None else None
    if not isinstance(channel, discord.Thread):
        return False
    if channel.type is not discord.ChannelType.private_thread or channel.guild.me is None:
        return False
    permissions = channel.permissions_for(channel.guild.me)
    return permissions.view_channel and not permissions.manage_threads


def missing_in(client: discord.Client, channel_id: int | None) -> list[str]:
    """What the game needs that the bot lacks in a cached channel (empty when the cache
    cannot tell)."""
    return missing_cached(client, channel_id) or []


def missing_cached(client: discord.Client, channel_id: int | None) -> list[str] | None:
    """What the game needs that the bot lacks in a channel, from the cache; None when
    the cache cannot tell (after a restart, until the gateway has sent the server)."""
    channel = client.get_channel(channel_id) if channel_id is not None else None
    if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
        return None
    me = channel.guild.me
    if me is None:
        return None
    return missing_permissions(
        channel.permissions_for(me), thread=isinstance(channel, discord.Thread)
    )
