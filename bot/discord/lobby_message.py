"""The lobby message: an embed listing the seats and options, with the lobby's buttons."""

from __future__ import annotations

import discord

from engine.variants import MAX_PLAYERS

from . import texts
from .components import ComponentId, button, view_of
from .lobby import Lobby

LOBBY_COLOUR = discord.Colour.from_rgb(0xE0, 0x6C, 0x3B)

JOIN, LEAVE, ADD_AI, START = "join", "leave", "addai", "start"
LOBBY_ACTIONS = (JOIN, LEAVE, ADD_AI, START)


def lobby_embed(lobby: Lobby) -> discord.Embed:
    """The seats (host marked, AI players with their strength) and the options."""
    lines = []
    for index, seat in enumerate(lobby.seats, start=1):
        if seat.is_ai:
            lines.append(f"`{index:>2}` {seat.name} · {lobby.strength_of(seat)}")
        else:
            host = texts.LOBBY_HOST_MARK if seat.user_id == lobby.host_id else ""
            lines.append(f"`{index:>2}` <@{seat.user_id}>{host}")
    fill = len(lobby.table()) - len(lobby.seats)
    if fill > 0:
        lines.append(texts.LOBBY_FILL_NOTE.format(count=fill))
    options = lobby.options
    embed = discord.Embed(
        title=texts.LOBBY_TITLE, description=texts.LOBBY_INTRO, colour=LOBBY_COLOUR
    )
    embed.add_field(
        name=texts.LOBBY_SEATS.format(count=len(lobby.seats), max=MAX_PLAYERS),
        value="\n".join(lines) or texts.LOBBY_NOBODY,
        inline=False,
    )
    embed.add_field(
        name=texts.LOBBY_OPTIONS,
        value=texts.LOBBY_OPTIONS_TEXT.format(
            variant=options.variant,
            size=options.players or "as many as join",
            strength=options.strength,
            fill="yes" if options.fill else "no",
            talk="on" if options.talk else "off",
            turn=options.turn_seconds,
            vote=options.vote_seconds,
        ),
        inline=False,
    )
    return embed


def lobby_view(lobby: Lobby) -> discord.ui.View:
    """Join / Leave / Add AI / Start, routed by the lobby id."""

    def cid(action: str) -> ComponentId:
        return ComponentId(lobby.id, action)

    return view_of(
        button(cid(JOIN), texts.BUTTON_JOIN, style=discord.ButtonStyle.success),
        button(cid(LEAVE), texts.BUTTON_LEAVE),
        button(cid(ADD_AI), texts.BUTTON_ADD_AI, style=discord.ButtonStyle.primary),
        button(cid(START), texts.BUTTON_START, style=discord.ButtonStyle.primary),
    )


def closed_embed(lobby: Lobby, reason: str) -> discord.Embed:
    """The lobby message once the lobby is closed: the seats it had, and why it closed."""
    embed = lobby_embed(lobby)
    embed.description = reason
    embed.colour = discord.Colour.dark_grey()
    return embed
