"""The Chancellor opens their hand the instant the President discards.

The President's discard is stored before the session asks for the Chancellor's step
(it stores the step's deadline first), and the one Open your hand button of the session
is on screen all along: a click in between finds the game waiting for the Chancellor and
no prompt open yet. It must not be told that the game has moved on (a member who trusts
that waits for a timer, and the test driver waited for good: the flake of
`test_damaged_rows` and `test_thread_locked`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.discord import games, texts
from engine import Discard, Phase

from .driver import Driver, components
from .harness import Harness, mentioned, text
from .test_game_flow import FAST, open_table, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


def _hand_message(table: Harness) -> discord.Message | None:
    """The round message while a President's hand waits (its button on screen)."""
    session = table.bot.games.manager.for_channel(table.channel.id)
    if session is None or session.game.phase is not Phase.PRESIDENT_DISCARD:
        return None
    return next(
        (
            m
            for m in table.channel_messages()
            if "Legislative session" in text(m)
            and any(c.get("label") == texts.BUTTON_HAND for c in components(m))
        ),
        None,
    )


async def _a_president_holding_policies(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> tuple[discord.Message, Any, Any, asyncio.Event]:
    """Five members play until a government is elected; the storing of the Chancellor's
    deadline waits for the returned event (the step is not asked until it is set).
    Returns (the round message, the President, the Chancellor, the event)."""
    humans = table.members[:5]
    game_id = await start_game(table, humans)
    driver = Driver(table, humans, seed=5)
    await driver.play(until=lambda: _hand_message(table) is not None)
    hand = _hand_message(table)
    assert hand is not None
    president, chancellor = (next(m for m in humans if m.id == i) for i in mentioned(hand))
    session = table.bot.games.manager.get(game_id)
    assert session is not None and session.store is not None
    store, release = session.store, asyncio.Event()
    real = store.set_deadline

    async def slow_set_deadline(game: int, deadline: float | None) -> None:
        if session.game.phase is Phase.CHANCELLOR_ENACT:
            await release.wait()
        await real(game, deadline)

    monkeypatch.setattr(store, "set_deadline", slow_set_deadline)
    return hand, president, chancellor, release


async def _discard(president: Any, hand: discord.Message) -> None:
    opened = await president.click(hand, label=texts.BUTTON_HAND)
    assert opened.response is not None and components(opened.response), opened
    choice = components(opened.response)[0]["label"]
    done = await president.click(opened.response, label=choice)
    assert done.response is not None and done.response.content == f"Done: {choice}."


async def test_a_click_as_the_president_discards_opens_the_chancellors_hand(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    hand, president, chancellor, release = await _a_president_holding_policies(table, monkeypatch)
    await _discard(president, hand)
    click = asyncio.create_task(chancellor.click(hand, label=texts.BUTTON_HAND))
    await asyncio.sleep(0.1)  # the click waits for the step to be asked...
    release.set()  # ...which it is now
    opened = await click
    assert opened.ephemeral and opened.response is not None
    assert opened.response.content != texts.HAND_EMPTY
    assert opened.response.content.startswith("You received "), opened.response.content
    assert components(opened.response)  # the policies to enact


async def test_a_step_asked_too_late_for_the_click_says_to_look_again(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(games, "HAND_WAIT_S", 0.0)  # the step is never asked in time
    hand, president, chancellor, release = await _a_president_holding_policies(table, monkeypatch)
    await _discard(president, hand)
    click = asyncio.create_task(chancellor.click(hand, label=texts.BUTTON_HAND))
    await asyncio.sleep(0.1)  # the click was answered without its hand meanwhile
    release.set()  # (the harness's click returns once the bot settles: after this)
    early = await click
    assert early.response is not None and early.response.content == texts.HAND_COMING
    session = table.bot.games.manager.for_channel(table.channel.id)
    assert session is not None
    seat = session.table.seat_of(chancellor.id)
    assert seat is not None
    await table.until(lambda: bool(session.open_prompts(seat)), what="the step asked")
    again = await chancellor.click(hand, label=texts.BUTTON_HAND)
    assert again.response is not None and again.response.content.startswith("You received ")


async def test_a_click_while_the_discard_is_being_stored_waits_for_the_hand(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The discard is applied (the game stands at the Chancellor's enactment) before its
    write returns: a click then waits for the step too."""
    hand, president, chancellor, release = await _a_president_holding_policies(table, monkeypatch)
    release.set()  # only the discard's own write is held here
    session = table.bot.games.manager.for_channel(table.channel.id)
    assert session is not None and session.store is not None
    store, written = session.store, asyncio.Event()
    real = store.append_action

    async def slow_append(game: int, index: int, action: Any, **kwargs: Any) -> None:
        if isinstance(action, Discard):
            await written.wait()
        await real(game, index, action, **kwargs)

    monkeypatch.setattr(store, "append_action", slow_append)
    seat = session.table.seat_of(president.id)
    assert seat is not None
    [prompt] = session.open_prompts(seat)
    # The President's click, without the harness (it runs one click at a time).
    discard = asyncio.create_task(session.choose(president.id, prompt.id, 0))
    await table.until(lambda: session.game.phase is Phase.CHANCELLOR_ENACT, what="applied")
    click = asyncio.create_task(chancellor.click(hand, label=texts.BUTTON_HAND))
    await asyncio.sleep(0.1)
    written.set()
    opened = await click
    await discard
    assert opened.response is not None
    assert opened.response.content.startswith("You received "), opened.response.content
