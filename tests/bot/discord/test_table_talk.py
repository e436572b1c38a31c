"""AI players that talk, in Discord: after sessions, and when asked (/ask)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord import texts

from .driver import Driver
from .harness import Harness, text, told
from .test_game_flow import FAST, open_table, reveal_posted, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def test_an_ai_seat_says_whom_it_trusts_when_asked(table: Harness) -> None:
    alice, bob = table.members[:2]
    await start_game(table, [alice, bob], players=5)  # seats 2 to 4 are AI players
    session = table.bot.games.manager.for_channel(table.channel.id)
    assert session is not None and session.options.talk  # on unless the host says off
    name = session.table.seats[2].name

    asked = await alice.slash(table.channel, "ask", seat=2)
    said = [f for f in asked.followups if not f.ephemeral] or [asked.response]
    assert said[-1] is not None and not said[-1].ephemeral  # table talk: everyone reads it
    words = said[-1].content
    assert words.startswith(f"💬 {name}: I trust ") or words.endswith("nobody stands out yet.")
    assert "%" not in words  # words, not the belief's numbers

    human = await bob.slash(table.channel, "ask", seat=0)
    assert told(human) == texts.ASK_NOT_AI.format(label=session.table.seats[0].label)
    # A person's seat an AI plays while they are away does not speak: it knows their
    # hands and checks.
    away = await bob.slash(table.channel, "afk")
    assert away.acknowledged and session.table.seats[1].is_ai
    standing_in = await alice.slash(table.channel, "ask", seat=1)
    assert told(standing_in) == texts.ASK_STANDING_IN.format(label=session.table.seats[1].label)
    await bob.slash(table.channel, "back")
    nobody = await bob.slash(table.channel, "ask", seat=7)
    assert told(nobody) == texts.ASK_NO_SEAT.format(seat=7, last=4)

    # The game plays to its end; whatever the AI players said is theirs, marked as such.
    await Driver(table, [alice, bob], seed=3).play(until=lambda: reveal_posted(table))
    talk = [text(m) for m in table.channel_messages() if "💬" in m.content]
    for message in talk:
        for line in message.splitlines():
            if "💬" in line:
                assert line.startswith("💬 ") and "(AI)" in line.split(":")[0]


async def test_a_host_can_keep_the_ai_players_quiet(table: Harness) -> None:
    alice, bob = table.members[:2]
    await start_game(table, [alice, bob], players=5, talk=False)
    session = table.bot.games.manager.for_channel(table.channel.id)
    assert session is not None and not session.options.talk
    asked = await alice.slash(table.channel, "ask", seat=3)
    assert told(asked) == texts.ASK_TALK_OFF
    await Driver(table, [alice, bob], seed=3).play(until=lambda: reveal_posted(table))
    assert not [m for m in table.channel_messages() if "💬" in m.content]
