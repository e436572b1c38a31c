"""Acknowledging interactions before slow work, and answering them afterwards.

Discord drops an interaction that is not acknowledged within 3 seconds, and every storage
call waits on the storage's lock behind running games' writes: a handler acknowledges
first, then touches the database, then answers through the followup and edit APIs.
When the answer's visibility is only known after the database call (a public result or
an ephemeral refusal), the handler defers an ephemeral "thinking" reply: a refusal
completes it, a public result completes it with a short note and is posted as a public
followup (a followup's flags are its own once the original reply is complete).
"""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord

log = logging.getLogger(__name__)

# What a request to Discord can fail with: Discord's refusal (an HTTP error), or the
# network's fault (a dropped connection, a timeout: OSError covers TimeoutError), after
# which it may have been done. As `delivery.attempt` retries them.
SEND_FAULTS = (discord.HTTPException, aiohttp.ClientError, OSError)


def fault_words(exc: BaseException) -> str:
    """A failed request to Discord in words for the log: an HTTP status and code, or
    the type of a transport fault (never its message, which may quote a request)."""
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.code}"
    return type(exc).__name__


async def acknowledge(interaction: discord.Interaction, *, update: bool = False) -> None:
    """Defer the interaction unless it was answered already: as an update of the clicked
    message (`update`, a component click whose message changes), else as an ephemeral
    "thinking" reply that the first followup completes."""
    if interaction.response.is_done():
        return
    if update:
        await interaction.response.defer()
    else:
        await interaction.response.defer(ephemeral=True, thinking=True)


async def answer(
    interaction: discord.Interaction,
    text: str | None = None,
    *,
    quiet: bool = False,
    **kwargs: Any,
) -> None:
    """An ephemeral answer to the member, whether or not the interaction was deferred.

    `kwargs` go to the send call (`embed=`, `view=`...). `quiet`: an answer that cannot be
    sent (the interaction expired, or was answered already, or the network failed) is
    logged instead of raised: for the bot's last-resort answers, on paths that are
    already handling a failure, where a raise would reach the generic handler and tell
    the member the game is unchanged.
    """
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, **kwargs)  # type: ignore[arg-type]
        else:
            await interaction.response.send_message(text, ephemeral=True, **kwargs)
    except SEND_FAULTS as exc:
        if not quiet:
            raise
        log.warning(
            "could not answer an interaction (expired, already answered, or %s)",
            type(exc).__name__,
        )


async def announce(
    interaction: discord.Interaction, note: str, **public: Any
) -> discord.WebhookMessage:
    """After an ephemeral defer: complete the member's reply with `note`, then post the
    public message (`public`: followup.send's arguments) and return it."""
    await interaction.edit_original_response(content=note)
    return await interaction.followup.send(wait=True, **public)
