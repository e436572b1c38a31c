"""/status while the government's members may claim what they held: the round's last
decision is over (its line would name the Chancellor still "to enact a policy"), and
the game waits for the claims."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.ports import PromptKind

from .driver import Driver
from .harness import Harness, embed_text
from .test_game_flow import open_table, start_game
from .test_open_decisions import LONG


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, LONG) as h:
        yield h


async def test_status_names_the_claims_awaited_not_the_last_decision(table: Harness) -> None:
    humans = table.members[:5]
    game_id = await start_game(table, humans)
    session = table.bot.games.manager.get(game_id)
    assert session is not None

    def claimants() -> list[int]:
        return [
            seat
            for seat in range(5)
            if any(p.kind is PromptKind.CLAIM for p in session.open_prompts(seat))
        ]

    await Driver(table, humans, seed=5).play(until=lambda: bool(claimants()))
    status = await humans[0].slash(table.channel, "status")
    assert status.response is not None
    said = embed_text(status.response)
    assert "to enact a policy" not in said, said
    names = [session.table.labels[seat] for seat in claimants()]
    assert f"Waiting for the claims of {', '.join(names)}." in said, said
