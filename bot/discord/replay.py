"""/replay: a finished game of this server, round by round, with Previous / Next buttons.

The pages are the terminal's step-through (`bot.render.steps.step_pages`, as `shbot
replay --step` shows them): each round's story, the claims about its government, the
hidden truth of that round, the board after it, and the AI observer's belief so far as a
heatmap (a row per seat, a column per session). The member who asks gets them in an
ephemeral message: nobody else's channel fills up, and everything in them was revealed
when the game ended.

The buttons carry the game and the page they lead to (`sh:v1:R<game>:page:<n>`), so they
work after a restart; every click is checked again (the game is this server's and over,
the page exists), so a forged id gets the same answer as a wrong number. Building the
pages takes about a second for 10 players (the belief), in a thread; the last few games
asked for are kept.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Protocol

import discord

from engine import RecordError

from ..errors import Refusal
from ..storage import GameDamaged, Storage, StorageError
from . import texts
from .components import ComponentId, button, view_of
from .replies import acknowledge, answer
from .visibility import may_replay

log = logging.getLogger(__name__)

PAGE = "page"  # the buttons' action
KEPT = 8  # games whose pages are kept
_LIMIT = 4000  # an embed's description holds 4096 characters; the code fence takes 8


class HasStorage(Protocol):
    """What the replays need of the bot: its database."""

    @property
    def storage(self) -> Storage:
        """The bot's storage (once set up)."""
        ...


class Refused(Refusal):
    """Why a game is not shown; the message is for the member."""


class Replays:
    """Answers `/replay` and its buttons."""

    def __init__(self, bot: HasStorage) -> None:
        self.bot = bot
        self._pages: OrderedDict[int, list[str]] = OrderedDict()

    async def show(self, interaction: discord.Interaction, game_id: int) -> None:
        """The first page of `game_id` (the command, after an ephemeral defer)."""
        try:
            pages = await self._pages_of(game_id, interaction)
        except Refused as refusal:
            await answer(interaction, str(refusal))
            return
        await interaction.edit_original_response(
            content=None, embed=page_embed(game_id, pages, 0), view=page_view(game_id, pages, 0)
        )

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """Previous / Next: the page the button names, in place of the one shown."""
        game_id, number = _parse(cid)
        message = interaction.message
        if game_id is None or number is None or message is None or not message.flags.ephemeral:
            # Replay pages only ever turn in the asker's own ephemeral message: a forged
            # button on a public message must not turn that message into a replay.
            await answer(interaction, texts.UNKNOWN_COMPONENT)
            return
        await acknowledge(interaction, update=True)
        try:
            pages = await self._pages_of(game_id, interaction)
        except Refused as refusal:
            await answer(interaction, str(refusal))
            return
        if number >= len(pages):
            await answer(interaction, texts.UNKNOWN_COMPONENT)
            return
        await interaction.edit_original_response(
            embed=page_embed(game_id, pages, number), view=page_view(game_id, pages, number)
        )

    async def _pages_of(self, game_id: int, interaction: discord.Interaction) -> list[str]:
        """The pages of a finished game of the interaction's server that the member may
        read (`visibility.may_replay`); `Refused` otherwise."""
        unknown = Refused(texts.REPLAY_UNKNOWN.format(game=game_id))
        try:
            stored = await self.bot.storage.load_game(game_id)
        except GameDamaged:
            # Listed by /history: said to be damaged to whoever may see it, not unknown.
            audience = await self.bot.storage.game_audience(game_id)
            if audience is not None:
                where, players = audience
                if _may_see(interaction, where.guild_id, where.channel_id, players):
                    raise Refused(texts.REPLAY_DAMAGED.format(game=game_id)) from None
            raise unknown from None
        except StorageError:
            raise unknown from None
        players = {seat.user_id for seat in stored.seats if seat.user_id is not None}
        if not _may_see(interaction, stored.guild_id, stored.channel_id, players):
            raise unknown  # another server's, or played where this member could not see
        if stored.status != "finished":
            raise Refused(texts.REPLAY_NOT_OVER.format(game=game_id, status=stored.status))
        kept = self._pages.get(game_id)
        if kept is not None:
            self._pages.move_to_end(game_id)
            return kept
        names = [seat.name for seat in stored.seats]
        from ..render.steps import step_pages  # the renderers: only when a replay is asked

        try:
            pages = await asyncio.to_thread(step_pages, stored.record, names)
        except (RecordError, ValueError):
            log.warning("game %d: its record does not replay", game_id, exc_info=True)
            raise Refused(texts.REPLAY_DAMAGED.format(game=game_id)) from None
        self._pages[game_id] = pages
        while len(self._pages) > KEPT:
            self._pages.popitem(last=False)
        return pages


def page_embed(game_id: int, pages: list[str], number: int) -> discord.Embed:
    """Page `number` of a game: its text in a code block (the heatmap is monospaced)."""
    if number == 0:
        title = texts.REPLAY_TITLE.format(game=game_id)
    else:
        title = texts.REPLAY_ROUND_TITLE.format(game=game_id, round=number, rounds=len(pages) - 1)
    body = pages[number]
    if len(body) > _LIMIT:
        body = body[: _LIMIT - 1] + "…"
    embed = discord.Embed(title=title, description=f"```\n{body}\n```")
    embed.set_footer(text=texts.REPLAY_FOOTER)
    return embed


def page_view(game_id: int, pages: list[str], number: int) -> discord.ui.View:
    """Previous / Next, each naming the page it leads to (disabled at either end)."""
    game = f"R{game_id}"
    return view_of(
        button(
            ComponentId(game, PAGE, str(max(number - 1, 0))),
            texts.BUTTON_PREVIOUS,
            disabled=number == 0,
        ),
        button(
            ComponentId(game, PAGE, str(min(number + 1, len(pages) - 1))),
            texts.BUTTON_NEXT,
            style=discord.ButtonStyle.primary,
            disabled=number == len(pages) - 1,
        ),
    )


def _parse(cid: ComponentId) -> tuple[int | None, int | None]:
    """(game, page) of a replay button; None for a part that is not a number."""
    game = cid.game[1:]
    page = cid.arg or ""
    if cid.action != PAGE or not game.isdigit() or not page.isdigit():
        return None, None
    return int(game), int(page)


def _may_see(
    interaction: discord.Interaction,
    guild_id: int | None,
    channel_id: int | None,
    players: set[int],
) -> bool:
    """Whether the member may be shown a game of this server at all (or told it exists):
    it is this server's, and they played it or can see its channel (`may_replay`)."""
    if interaction.guild_id is None or guild_id != interaction.guild_id:
        return False
    return may_replay(interaction, channel_id, players)
