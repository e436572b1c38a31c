"""/replay: a finished game of this server, round by round, through discord.py's dispatch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord import texts
from bot.discord.components import ComponentId
from bot.render.steps import step_pages

from .driver import Driver, components
from .harness import Harness, labels, told
from .test_faults import forge_click
from .test_game_flow import FAST, open_table, reveal_posted, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


def _disabled(message: object) -> dict[str, bool]:
    """Each button's label and whether it is disabled."""
    return {c["label"]: bool(c.get("disabled")) for c in components(message)}


async def test_replay_walks_a_finished_game_round_by_round(table: Harness) -> None:
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice], players=5)
    early = await bob.slash(table.channel, "replay", game=game_id)
    assert told(early) == texts.REPLAY_NOT_OVER.format(game=game_id, status="running")
    await Driver(table, [alice], seed=7).play(until=lambda: reveal_posted(table))

    stored = await table.storage.load_game(game_id)
    expected = step_pages(stored.record, [seat.name for seat in stored.seats])
    rounds = len(expected) - 1
    shown = await bob.slash(table.channel, "replay", game=game_id)
    page = shown.response
    assert shown.ephemeral and page is not None  # Bob's alone
    assert page.embeds[0].title == texts.REPLAY_TITLE.format(game=game_id)
    assert page.embeds[0].description == f"```\n{expected[0]}\n```"
    assert "Roles (hidden from the table)" in expected[0]
    assert labels(page) == [texts.BUTTON_PREVIOUS, texts.BUTTON_NEXT]
    assert _disabled(page) == {texts.BUTTON_PREVIOUS: True, texts.BUTTON_NEXT: False}

    for number in range(1, rounds + 1):  # Next, to the last round
        await bob.click(page, label=texts.BUTTON_NEXT)
        page = shown.response
        assert page is not None
        title = texts.REPLAY_ROUND_TITLE.format(game=game_id, round=number, rounds=rounds)
        assert page.embeds[0].title == title
        assert page.embeds[0].description == f"```\n{expected[number]}\n```"
    assert _disabled(page) == {texts.BUTTON_PREVIOUS: False, texts.BUTTON_NEXT: True}
    await bob.click(page, label=texts.BUTTON_PREVIOUS)
    page = shown.response
    assert page is not None
    assert page.embeds[0].description == f"```\n{expected[rounds - 1]}\n```"
    # The belief heatmap is on the pages: a row per seat with its true role.
    assert any(line.strip().startswith(("L ", "F ", "H ")) for line in expected[rounds].split("\n"))


async def test_replay_refuses_unknown_games_and_forged_buttons(table: Harness) -> None:
    alice, bob = table.members[:2]
    unknown = await bob.slash(table.channel, "replay", game=999)
    assert told(unknown) == texts.REPLAY_UNKNOWN.format(game=999)

    game_id = await start_game(table, [alice], players=5)
    await Driver(table, [alice], seed=3).play(until=lambda: reveal_posted(table))
    public = table.channel_messages()[-1]
    before = public.content, [e.to_dict() for e in public.embeds]
    # A replay button forged onto a public message does not turn it into a replay...
    forged = await forge_click(table, bob, public, str(ComponentId(f"R{game_id}", "page", "1")))
    assert told(forged) == texts.UNKNOWN_COMPONENT
    after = table.message(public.id)
    assert (after.content, [e.to_dict() for e in after.embeds]) == before
    # ...and on the asker's own replay, a page that does not exist or another game's id
    # gets a plain refusal; the page shown stays.
    shown = await bob.slash(table.channel, "replay", game=game_id)
    page = shown.response
    assert page is not None
    first = page.embeds[0].description
    for custom_id, refusal in (
        (str(ComponentId(f"R{game_id}", "page", "999")), texts.UNKNOWN_COMPONENT),
        (str(ComponentId("R1000", "page", "1")), texts.REPLAY_UNKNOWN.format(game=1000)),
        (str(ComponentId(f"R{10**20}", "page", "1")), texts.REPLAY_UNKNOWN.format(game=10**20)),
        (str(ComponentId("Rx", "page", "1")), texts.UNKNOWN_COMPONENT),
    ):
        result = await forge_click(table, bob, page, custom_id)  # type: ignore[arg-type]
        # A click on the replay is deferred as an update of it: refusals come as followups.
        refused = [f.content for f in result.followups if f.ephemeral] or [told(result)]
        assert refused[-1] == refusal
    assert shown.response is not None and shown.response.embeds[0].description == first
