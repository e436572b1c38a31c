"""Plays the human seats of a Discord game the way members would: by clicking.

The driver reads only what a member sees: channel messages that mention them and carry
components, and the ephemeral replies to their own clicks. Choices are seeded, so a
test replays the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord
import simcord

from bot.discord.components import ComponentId
from bot.discord.texts import BUTTON_HAND as HAND_LABEL
from bot.discord.texts import HAND_COMING, HAND_NOT_YET

from .harness import Harness, embed_text, mentioned, parts, text

# How every answer to a click on a paused game begins (whatever paused it): the
# decision is still to be made once the game goes on.
PAUSED = "This game is paused"


def components(message: discord.Message | simcord.ResponseMessage) -> list[dict[str, Any]]:
    """The interactive components of a message as raw dicts (buttons and selects), also
    inside a Components V2 layout."""
    out: list[dict[str, Any]] = []
    for part in parts(message):
        raw = part if isinstance(part, dict) else part.to_dict()
        if raw.get("type") in (2, 3):
            out.append(raw)
    return out


def text_of(message: discord.Message | simcord.ResponseMessage) -> str:
    """All the text of a message: content or layout, and embeds."""
    return f"{text(message)}\n{embed_text(message)}"


def decision_of(part: dict[str, Any]) -> tuple[str, int | None] | None:
    """(the decision a component answers, the seat it is for or None when shared);
    None for components that answer no decision (Show my role...)."""
    cid = ComponentId.parse(part.get("custom_id") or "")
    if cid is None or cid.action in ("role", "cancel"):
        return None
    arg = cid.arg or ""
    if cid.action == "hand":  # one button for the President's and Chancellor's hands
        return f"hand:{arg}", None
    if part.get("type") == 3:  # a select: `<seat>`
        return cid.action, int(arg)
    if "." in arg:  # a button of one seat: `<seat>.<index>`
        return cid.action, int(arg.partition(".")[0])
    return cid.action, None  # a vote button, shared by every voter


def undecided(
    table: Harness,
    message: discord.Message,
    member: simcord.MemberActor,
    done: set[tuple[int, str]],
    parked: dict[int, int],
) -> list[dict[str, Any]]:
    """The components of `message` for a decision of `member` not in `done` (one message
    carries a round's decisions in turn: answers are kept by decision, not by message);
    a hand of a member `parked` at the game's current progress waits."""
    if member.id not in mentioned(message):
        return []
    session = table.bot.games.manager.for_channel(table.channel.id)
    seat = None if session is None else session.table.seat_of(member.id)  # known to them
    progress = game_progress(table)
    out = []
    for part in components(message):
        owner = decision_of(part)
        if owner is None or (member.id, owner[0]) in done:
            continue
        if owner[0].startswith("hand:") and parked.get(member.id) == progress:
            continue
        if owner[1] is None or owner[1] == seat:
            out.append(part)
    return out


def game_progress(table: Harness) -> int:
    """How many actions the channel's game has taken (-1: no game running)."""
    session = table.bot.games.manager.for_channel(table.channel.id)
    return -1 if session is None else len(session.game.actions)


def game_paused(table: Harness) -> bool:
    """Whether the channel's game is paused (by a fault, until it is mended or resumed)."""
    session = table.bot.games.manager.for_channel(table.channel.id)
    return session is not None and session.paused


@dataclass
class Driver:
    """Acts for the given members until nothing is left for them to do.

    One message may carry several members' decisions in turn (the round message is
    edited as the round goes): what a member has done is kept by decision, not by
    message."""

    table: Harness
    humans: list[simcord.MemberActor]
    seed: int = 0
    rng: random.Random = field(init=False)
    done: set[tuple[int, str]] = field(default_factory=set)  # (member id, decision)
    replies: list[str] = field(default_factory=list)  # every answer the members got
    hands_opened: int = 0
    # Members whose hand was not ready, and how far the game was then: they look again
    # once it moved (the President discarded; an AI President moves nothing on screen).
    parked: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def mine(self, message: discord.Message, member: simcord.MemberActor) -> list[dict[str, Any]]:
        """The components of `message` that answer a decision of `member` not yet made."""
        return undecided(self.table, message, member, self.done, self.parked)

    def pending(self) -> list[tuple[discord.Message, simcord.MemberActor]]:
        """(prompt message, member) pairs waiting for that member, oldest first."""
        out = []
        for message in self.table.channel_messages():
            if not components(message):
                continue
            for member in self.humans:
                if self.mine(message, member):
                    out.append((message, member))
        return out

    async def act(self, message: discord.Message, member: simcord.MemberActor) -> str:
        """Answer one decision on a message as `member`; returns the reply they saw."""
        parts = self.mine(message, member) or components(message)
        owner = decision_of(parts[0])
        decision = owner[0] if owner is not None else None
        same = [p for p in parts if (o := decision_of(p)) is not None and o[0] == decision]
        group = same or parts
        if decision is not None:
            self.done.add((member.id, decision))
        select = next((c for c in group if c.get("type") == 3), None)
        labels = [c.get("label") for c in group if c.get("type") == 2]
        if select is not None:
            value = self.rng.choice([o["value"] for o in select["options"]])
            result = await member.select(message, [value], custom_id=select["custom_id"])
        elif HAND_LABEL in labels:
            opened = await member.click(message, label=HAND_LABEL)
            self.hands_opened += 1
            assert opened.ephemeral and opened.response is not None, opened
            hand = opened.response
            if not components(hand):  # refused
                if hand.content == HAND_NOT_YET:  # again once the President has discarded
                    self.done.discard((member.id, str(decision)))
                    self.parked[member.id] = game_progress(self.table)
                elif hand.content == HAND_COMING or hand.content.startswith(PAUSED):
                    self.done.discard((member.id, str(decision)))  # again in a moment
                self.replies.append(hand.content)
                return hand.content
            choice = self.rng.choice([c["label"] for c in components(hand)])
            result = await member.click(hand, label=choice)
        else:
            result = await member.click(message, label=self.rng.choice(labels))
        reply = _reply(result)
        if decision is not None and reply.startswith(PAUSED):  # again once the game goes on
            self.done.discard((member.id, decision))
        self.replies.append(reply)
        return reply

    async def next_prompt(self, until: Any, *, still: float = 20.0) -> None:
        """Wait until `until()` or a prompt for a member; fail only once the game has not
        moved for `still` seconds (a game of AI seats at a human pace is slow, not stuck:
        a member who was executed waits for the reveal through many AI moves)."""

        def ready() -> bool:
            return bool(until() or self.pending())

        def ready_or_moved_from(progress: int) -> Callable[[], bool]:
            return lambda: ready() or game_progress(self.table) != progress

        while not ready():
            try:
                await self.table.until(
                    ready_or_moved_from(game_progress(self.table)),
                    timeout=still,
                    what="a prompt for a member (the game did not move)",
                )
            except AssertionError as exc:
                raise AssertionError(f"{exc}\n{self.stuck()}") from None

    def stuck(self) -> str:
        """Where the game and the members stand, for a failure's message: whom the game
        waits for, the prompts it holds open, the prompts shown and what was answered."""
        lines = []
        session = self.table.bot.games.manager.for_channel(self.table.channel.id)
        if session is None:
            lines.append("no game in the channel")
        else:
            game = session.game
            lines.append(
                f"game: phase {game.phase.name}, {len(game.actions)} actions, paused "
                f"{session.paused}, waits for seats {list(game.awaiting())}"
            )
            for member in self.humans:
                seat = session.table.seat_of(member.id)
                held = [] if seat is None else [p.id for p in session.open_prompts(seat)]
                lines.append(f"member {member.id} (seat {seat}): open prompts {held}")
        for message in self.table.channel_messages()[-5:]:
            ids = [c.get("custom_id") for c in components(message)]
            if ids:
                lines.append(f"shown {message.id}: {ids}")
        lines.append(f"done {sorted(self.done)}, parked {self.parked}")
        lines.append(f"last replies {self.replies[-6:]}")
        return "\n".join(lines)

    async def play(self, *, until: Any, limit: int = 400) -> int:
        """Act until `until()` is true; returns the number of actions taken."""
        actions = 0
        while True:
            await self.next_prompt(until)
            if until():
                return actions
            message, member = self.pending()[0]
            reply = await self.act(message, member)
            actions += 1
            assert actions < limit, "the game does not end"
            if reply.startswith(PAUSED) and not until():
                # Clicking again changes nothing until the game goes on (by itself once
                # its fault is mended, or by /resume): wait for that, or fail saying why.
                await self.table.until(
                    lambda: until() or not game_paused(self.table),
                    timeout=20.0,
                    what=f"the paused game to go on ({reply})",
                )


def _reply(result: simcord.InteractionResult) -> str:
    """The text a member saw in answer to a click (deferred answers are edited in)."""
    response = result.response
    if response is not None and response.ephemeral:
        return response.content
    for followup in result.followups:
        return followup.content
    return response.content if response is not None else ""
