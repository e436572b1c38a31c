"""Every open decision stays offered, and its member told, until it is made.

Driven through discord.py's real dispatch on simcord (nothing contacts Discord): a vote
stays open until its result when its last human stops voting (a timeout, /afk); a
deleted game message comes back with its components; a decision edited into an
earlier message pings its member; an edit refused its board image goes in text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import discord

from bot import notices
from bot.config import Timers

from .driver import Driver, components
from .harness import Harness, text
from .test_game_flow import FAST, open_table, start_game

# Long turns (nothing times out by itself), or a short vote (its clock runs out).
LONG = replace(FAST, timers=Timers(turn_seconds=600, vote_seconds=600, afk_after=5))
SHORT_VOTE = replace(FAST, timers=Timers(turn_seconds=600, vote_seconds=2, afk_after=5))


def vote_messages(table: Harness) -> list[discord.Message]:
    """Channel messages offering Ja / Nein."""
    return [
        m for m in table.channel_messages() if any(c.get("label") == "Ja" for c in components(m))
    ]


async def until_vote(table: Harness, driver: Driver) -> discord.Message:
    """Play the members' decisions until a vote message is up; returns it."""
    for _ in range(40):
        await table.until(
            lambda: bool(vote_messages(table)) or bool(driver.pending()), what="a vote"
        )
        if vote_messages(table):
            return vote_messages(table)[0]
        await driver.act(*driver.pending()[0])
    raise AssertionError("no vote came")


def closed_with_result(table: Harness, vote_id: int) -> Callable[[], bool]:
    """Whether the vote message shows the result (every ballot)."""
    return lambda: "**Vote closed.**" in (t := text(table.message(vote_id))) and "Ja:" in t


def public_text(table: Harness) -> str:
    return "\n".join(text(m) for m in table.channel_messages())


# --- 3. a vote stays open until its result --------------------------------------------


async def test_a_vote_stays_open_when_the_last_human_times_out(tmp_path: Path) -> None:
    async with open_table(tmp_path, SHORT_VOTE) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        vote = await until_vote(table, Driver(table, [alice], seed=1))
        # alice never votes: her clock runs out, an AI casts her ballot, the result
        # closes the vote message, which tells it (no second message for it).
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        closed = text(table.message(vote.id))
        assert "ran out of time" in closed  # told before the result, on the vote
        # The channel never reads a line written to alice ("you").
        assert notices.TIME_UP not in public_text(table), closed


async def test_a_vote_stays_open_when_the_last_human_steps_away(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        vote = await until_vote(table, Driver(table, [alice], seed=1))
        await alice.slash(table.channel, "afk")
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        assert notices.AI_PLAYS_NOW not in public_text(table)
        assert "stepped away" in public_text(table)
