"""Plays the human seats of a Discord game the way members would: by clicking.

The driver reads only what a member sees: channel messages that mention them and carry
components, and the ephemeral replies to their own clicks. Choices are seeded, so a
test replays the same game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import discord
import simcord

from .harness import Harness, embed_text


def components(message: discord.Message | simcord.ResponseMessage) -> list[dict[str, Any]]:
    """The interactive components of a message as raw dicts (buttons and selects)."""
    rows: Any = message.components
    out: list[dict[str, Any]] = []
    for row in rows:
        children = row["components"] if isinstance(row, dict) else row.children
        for child in children:
            out.append(child if isinstance(child, dict) else child.to_dict())
    return out


def text_of(message: discord.Message | simcord.ResponseMessage) -> str:
    """Content and embed text of a message."""
    return f"{message.content}\n{embed_text(message)}"


@dataclass
class Driver:
    """Acts for the given members until nothing is left for them to do."""

    table: Harness
    humans: list[simcord.MemberActor]
    seed: int = 0
    rng: random.Random = field(init=False)
    done: set[tuple[int, int]] = field(default_factory=set)  # (message id, member id)
    replies: list[str] = field(default_factory=list)  # every answer the members got
    hands_opened: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def pending(self) -> list[tuple[discord.Message, simcord.MemberActor]]:
        """(prompt message, member) pairs waiting for that member, oldest first."""
        out = []
        for message in self.table.channel_messages():
            if not components(message):
                continue
            for member in self.humans:
                if member.id in message.raw_mentions and (message.id, member.id) not in self.done:
                    out.append((message, member))
        return out

    async def act(self, message: discord.Message, member: simcord.MemberActor) -> str:
        """Answer one prompt message as `member`; returns the reply they saw."""
        self.done.add((message.id, member.id))
        parts = components(message)
        select = next((c for c in parts if c.get("type") == 3), None)
        labels = [c.get("label") for c in parts if c.get("type") == 2]
        if select is not None:
            value = self.rng.choice([o["value"] for o in select["options"]])
            result = await member.select(message, [value], custom_id=select["custom_id"])
        elif "Open your hand" in labels:
            opened = await member.click(message, label="Open your hand")
            self.hands_opened += 1
            assert opened.ephemeral and opened.response is not None, opened
            hand = opened.response
            choice = self.rng.choice([c["label"] for c in components(hand)])
            result = await member.click(hand, label=choice)
        else:
            result = await member.click(message, label=self.rng.choice(labels))
        reply = _reply(result)
        self.replies.append(reply)
        return reply

    async def play(self, *, until: Any, limit: int = 400) -> int:
        """Act until `until()` is true; returns the number of actions taken."""
        actions = 0
        while True:
            await self.table.until(
                lambda: until() or bool(self.pending()), what="a prompt for a member"
            )
            if until():
                return actions
            message, member = self.pending()[0]
            await self.act(message, member)
            actions += 1
            assert actions < limit, "the game does not end"


def _reply(result: simcord.InteractionResult) -> str:
    """The text a member saw in answer to a click (deferred answers are edited in)."""
    response = result.response
    if response is not None and response.ephemeral:
        return response.content
    for followup in result.followups:
        return followup.content
    return response.content if response is not None else ""
