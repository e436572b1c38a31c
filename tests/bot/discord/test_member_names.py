"""A member whose display name ends in "(AI)" is seated without the mark: at a table of
people and AI players, only the bot's own label says who is an AI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .driver import text_of
from .harness import Harness
from .test_game_flow import FAST, open_table, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def test_a_member_named_like_an_ai_is_seated_without_the_mark(table: Harness) -> None:
    alice = table.members[0]
    zed = table.guild.add_member(table.env.create_user("zed"), nick="Zed (AI)")
    game_id = await start_game(table, [alice, zed], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    names = [seat.name for seat in session.table.seats]
    assert names[:2] == ["alice", "Zed"]
    assert all(name.endswith(" (AI)") for name in names[2:])  # the AI seats keep theirs
    stored = await table.storage.load_game(game_id)
    assert [s.name for s in stored.seats][:2] == ["alice", "Zed"]
    await table.until(
        lambda: any(
            "is the presidential candidate" in text_of(m) for m in table.channel_messages()
        ),
        what="the opening",
    )
    shown = "\n".join(text_of(m) for m in table.channel_messages())
    assert "Zed (AI)" not in shown, shown
