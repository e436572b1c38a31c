"""The live board: how a game's current message looks, as a Components V2 layout.

The newest message of a game is its live board: a status line (which election, the
policy tracks, the election tracker, whose turn and until when), the board image, the
story of the round so far (the vote in progress with who has voted, the result, the
session, claims, powers) and the controls of every open decision. It is edited in
place as the round goes (`bot.discord.frontend`). When the next election opens the
next live board, the old one is edited down to its story alone: a short announcement
of what that round did, no image, no controls. A message edited in place at the top
of a busy channel scrolls out of sight; the newest one is where players look.

Components V2 (discord.py >= 2.6) puts the image, the text and the controls in one
container, in that order, which an embed cannot (an embed's image comes after its text
and its buttons sit outside it). Nothing here reads a private view: the status comes
from the spectator view the session posts (`bot.ports.Post.board`) and from `Waiting`,
both public by the port's contract.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import discord
from discord import ui
from discord.ui import Button

from engine import Phase, PlayerView
from engine import events as ev
from engine.variants import CHAOS_AT, FASCIST_TO_WIN, LIBERAL_TO_WIN

from ..ports import Waiting
from . import texts
from .components import Route

BOARD_FILE = "board.png"
MAX_TEXT = 4000  # Discord's limit for all the text displays of one message
ROW_BUTTONS = 5  # buttons that fit in one action row
COLOUR = discord.Colour.dark_gold()


@dataclass(frozen=True, slots=True)
class Look:
    """What a game message shows: status line, image, story, controls."""

    story: str
    routes: Sequence[Route] = ()
    status: str = ""  # empty on a retired round: its story says it all
    image: bool = False  # shows `BOARD_FILE` (attached to the message)
    pings: tuple[int, ...] = field(default=())  # members a new message may ping

    def text(self) -> str:
        """Everything the message says, as one text (what a restart stores)."""
        return "\n\n".join(part for part in (self.status, self.story) if part)

    def signature(self) -> tuple[str, bool, tuple[str, ...]]:
        """What a member would see: an edit is needed only when this changes."""
        ids = tuple(str(route.cid) for route in self.routes)
        return self.text(), self.image, ids


def layout(look: Look) -> ui.LayoutView:
    """The message: one container holding the status, the board, the story, the controls."""
    children: list[ui.Item[ui.LayoutView]] = []
    if look.status:
        children.append(ui.TextDisplay(look.status))
    if look.image:
        children.append(ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{BOARD_FILE}")))
    story = look.story or texts.BOARD_NO_STORY
    room = MAX_TEXT - len(look.status)
    children.append(ui.TextDisplay(story if len(story) <= room else story[: room - 1] + "…"))
    children.extend(_rows(look.routes))
    view = ui.LayoutView(timeout=None)
    view.add_item(ui.Container(*children, accent_colour=COLOUR))
    return view


def _rows(routes: Sequence[Route]) -> list[ui.ActionRow[ui.LayoutView]]:
    """Action rows: up to five buttons side by side, a select menu on a row of its own."""
    rows: list[list[ui.Item[ui.LayoutView]]] = []
    for route in routes:
        item = cast(ui.Item[ui.LayoutView], route)  # a routed item fits any view
        last = rows[-1] if rows else None
        if (
            isinstance(route.item, Button)
            and last is not None
            and len(last) < ROW_BUTTONS
            and all(isinstance(cast(Route, i).item, Button) for i in last)
        ):
            last.append(item)
        else:
            rows.append([item])
    return [ui.ActionRow(*row) for row in rows]


def election_number(view: PlayerView) -> int:
    """Which election the table is at: nominations so far (the running one included)."""
    return sum(isinstance(e, ev.ChancellorNominated) for e in view.events)


def status_text(view: PlayerView | None, waiting: Waiting | None) -> str:
    """The status line: the election, the tracks, then whose turn it is (a vote shows its
    own progress in the story) and when it runs out."""
    lines = []
    if view is not None:
        lines.append(
            texts.BOARD_STATUS.format(
                election=max(1, election_number(view)),
                liberal=view.liberal_policies,
                liberal_goal=LIBERAL_TO_WIN,
                fascist=view.fascist_policies,
                fascist_goal=FASCIST_TO_WIN,
                tracker=view.election_tracker,
                chaos=CHAOS_AT,
                pile=view.draw_pile,
            )
        )
    if waiting is not None and waiting.phase is not Phase.VOTE and waiting.seats:
        turn = texts.BOARD_TURN.format(waiting=waiting.text)
        if waiting.deadline is not None:
            turn += texts.PROMPT_DEADLINE.format(when=f"<t:{int(waiting.deadline)}:R>")
        lines.append(turn)
    return "\n".join(lines)
