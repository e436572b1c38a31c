"""/ask has limits: each one posts in the game's channel and queues belief work on the
suspicion thread that every game shares (where a game's own table talk waits at most
`TALK_WAIT_S`, then is dropped). Through discord.py's real dispatch; the bot's clock is
driven by the test, never slept on.

The policy: in a game with players, only they may ask (spectators watch); in a demo,
which has no players, anyone in the channel may. A member asks at most once every
`ASK_MEMBER_COOLDOWN_S`, and a channel hears at most one /ask every
`ASK_CHANNEL_COOLDOWN_S`. A refusal is private and says when the next /ask can be.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from agents.talk import TableTalk
from bot.discord import games as games_module
from bot.discord import texts
from bot.discord.games import ASK_CHANNEL_COOLDOWN_S, ASK_MEMBER_COOLDOWN_S
from bot.table_talk import TALK_WAIT_S

from .harness import Harness, told
from .test_game_faults_more import private_texts, public_texts
from .test_game_flow import FAST, open_table, start_game


class Clock:
    """The bot's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


def driven(table: Harness) -> Clock:
    clock = Clock()
    table.bot.games.clock = clock
    return clock


def when(at: float) -> str:
    """A Discord timestamp, as a refusal shows it (never early)."""
    return f"<t:{math.ceil(at)}:R>"


def said(result: object) -> list[str]:
    """What an /ask posted in the channel (its table talk)."""
    return [t for t in public_texts(result) if t.startswith("💬 ")]  # type: ignore[arg-type]


def test_the_channel_hears_one_ask_at_a_time() -> None:
    # One /ask of a channel has given up on the thread before the next is let in.
    assert ASK_CHANNEL_COOLDOWN_S > TALK_WAIT_S
    assert ASK_MEMBER_COOLDOWN_S >= ASK_CHANNEL_COOLDOWN_S


async def test_spectators_may_not_ask_in_a_game_with_players(table: Harness) -> None:
    alice, bob, carol = table.members[:3]
    await start_game(table, [alice, bob], players=5)
    driven(table)
    watching = await carol.slash(table.channel, "ask", seat=2)
    assert told(watching) == texts.ASK_PLAYERS_ONLY
    assert public_texts(watching) == []  # nothing said in the channel for her
    # A refused spectator costs the players nothing: alice asks at once.
    asked = await alice.slash(table.channel, "ask", seat=2)
    assert len(said(asked)) == 1


async def test_a_member_and_a_channel_ask_at_most_so_often(table: Harness) -> None:
    alice, bob = table.members[:2]
    await start_game(table, [alice, bob], players=5)
    clock = driven(table)
    start = clock.now
    first = await alice.slash(table.channel, "ask", seat=2)
    assert len(said(first)) == 1

    again = await alice.slash(table.channel, "ask", seat=3)  # another seat: still alice
    assert told(again) == texts.ASK_MEMBER_COOLDOWN.format(when=when(start + ASK_MEMBER_COOLDOWN_S))
    assert said(again) == []
    other = await bob.slash(table.channel, "ask", seat=3)  # another member: the channel
    assert told(other) == texts.ASK_CHANNEL_COOLDOWN.format(
        when=when(start + ASK_CHANNEL_COOLDOWN_S)
    )
    assert said(other) == []

    clock.now = start + ASK_CHANNEL_COOLDOWN_S
    bobs = await bob.slash(table.channel, "ask", seat=3)
    assert len(said(bobs)) == 1
    clock.now = start + ASK_MEMBER_COOLDOWN_S - 1
    still = await alice.slash(table.channel, "ask", seat=2)
    assert told(still) == texts.ASK_MEMBER_COOLDOWN.format(when=when(start + ASK_MEMBER_COOLDOWN_S))
    clock.now = start + ASK_MEMBER_COOLDOWN_S
    alices = await alice.slash(table.channel, "ask", seat=2)
    assert len(said(alices)) == 1


async def test_a_refused_or_failed_ask_does_not_count_against_the_member(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    await start_game(table, [alice, bob], players=5)
    clock = driven(table)
    start = clock.now
    human = await alice.slash(table.channel, "ask", seat=1)  # refused: bob is a person
    assert told(human).startswith(texts.ASK_NOT_AI.split("{")[0])
    table.expect_warning("did not answer")
    real = TableTalk.ask

    def broken(self: TableTalk, seat: int, names: Sequence[str]) -> str:
        raise ValueError("no words")

    monkeypatch.setattr(TableTalk, "ask", broken)
    failed = await alice.slash(table.channel, "ask", seat=2)
    assert private_texts(failed)[-1] == texts.ASK_FAILED
    monkeypatch.setattr(TableTalk, "ask", real)
    # "Try again in a moment": once the channel's turn is back, not after her own.
    clock.now = start + ASK_CHANNEL_COOLDOWN_S
    retried = await alice.slash(table.channel, "ask", seat=2)
    assert len(said(retried)) == 1


async def test_anyone_may_ask_in_a_demo_within_the_channel_limit(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = table.members[:3]
    # It runs on while we ask: its AI waits 30 s before each move. Its narration is not
    # paced, or `cancel` would wait out the 30 s the outbox sleeps after each post.
    monkeypatch.setitem(games_module.DEMO_PACE, "slow", 30.0)
    monkeypatch.setattr(table.bot.games.frontend, "set_pace", lambda game_id, seconds: None)
    started = await alice.slash(table.channel, "demo", players=5, speed="slow")
    assert told(started) == texts.DEMO_STARTING
    clock = driven(table)
    start = clock.now
    asked = await bob.slash(table.channel, "ask", seat=0)  # nobody plays: all watch
    assert len(said(asked)) == 1
    busy = await carol.slash(table.channel, "ask", seat=1)
    assert told(busy) == texts.ASK_CHANNEL_COOLDOWN.format(
        when=when(start + ASK_CHANNEL_COOLDOWN_S)
    )
    game_id = table.bot.games.game_in(table.channel.id)
    assert game_id is not None
    await table.bot.games.manager.get(game_id).cancel("test")  # type: ignore[union-attr]
