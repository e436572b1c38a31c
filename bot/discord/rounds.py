"""The round message: one channel message per election, edited as the round goes.

A game's channel would otherwise fill with a message per prompt (nomination, hands,
claims, powers) and per line of narration, each scrolling the last away. Instead the
vote message of an election stays the round's message once the result is in: the
legislative session, its claims, any power and the next nomination are edited into it,
each open decision as a *call* (one line naming the member, and that member's
components). While it is the newest, the round's message is the game's live board
(`bot.discord.board`: status, board image, story, controls); the next vote starts the
next round's message, and the old one is edited down to its story.

This module only keeps the round's content and composes it; the front-end
(`bot.discord.frontend`) sends, edits and remembers the messages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import discord

from .. import notices
from ..ports import Prompt
from .components import ComponentId, Route, button

MAX_CONTENT = 2000  # Discord's limit for a message's content
# Reasons a prompt closes that say nothing the narration does not: not repeated.
QUIET_REASONS = frozenset(
    {
        notices.DONE,
        notices.CLAIM_MADE,
        notices.SAID_NOTHING,
        notices.MOVED_ON,
        notices.CLAIM_WINDOW_CLOSED,
        notices.GAME_OVER,
    }
)


@dataclass(slots=True)
class Call:
    """An open decision shown on a round message: its public line and its prompt."""

    prompt: Prompt
    text: str


@dataclass(slots=True)
class RoundMessage:
    """One round's channel message: what happened (`lines`), then the open calls."""

    message_id: int
    lines: list[str] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)  # by `frontend.prompt_key`
    # The buttons narration brought (Show my role, Show what you saw): id, label, style.
    extra: list[tuple[ComponentId, str, discord.ButtonStyle]] = field(default_factory=list)
    board: tuple[str, bytes] | None = None  # a new board image for the next edit
    image: bool = False  # the message holds a board image (shown while it is live)
    live: bool = True  # the game's live board; False once the next round has begun
    dirty: bool = False  # changed since last shown
    shown: tuple[str, bool, tuple[str, ...]] | None = None  # `board.Look.signature` shown
    filed: dict[str, str] = field(default_factory=dict)  # call key -> body in the book

    def body(self) -> str:
        """What happened this round, as the message tells it."""
        return "\n".join(line for line in self.lines if line)

    def text(self) -> str:
        """The message's content: the round so far, then the open calls."""
        calls = "\n".join(call.text for call in self.calls.values())
        return "\n\n".join(part for part in (self.body(), calls) if part)

    def fits(self, more: str) -> bool:
        """Whether `more` characters can join without passing Discord's limit (with
        room left for the calls a round still opens)."""
        return len(self.text()) + len(more) + 2 <= MAX_CONTENT - 400

    def add_line(self, line: str) -> None:
        """One line more (an identical last line is not repeated)."""
        if line and (not self.lines or self.lines[-1] != line):
            self.lines.append(line)
        self.dirty = True

    def routes(self, items: Callable[[Prompt, bool], Sequence[Route]]) -> list[Route]:
        """The components of every open call (named when several share the message),
        then, while it is live, the narration's buttons."""
        named = len(self.calls) > 1
        routes = [r for call in self.calls.values() for r in items(call.prompt, named)]
        if self.live:
            routes += [button(cid, label, style=style) for cid, label, style in self.extra]
        return routes
