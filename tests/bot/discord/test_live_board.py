"""The live board: one message at a time shows the game as it stands (issue 22).

Driven through discord.py's real dispatch on simcord: the newest round message carries
the status line (election, tracks), the board image inside its Components V2 layout and
the open decisions; older rounds read as their story alone; once the game is over no
live board is left.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import discord
import pytest
from discord import ui

from bot.discord import texts
from bot.discord.board import BOARD_FILE, Look, layout, status_text
from bot.discord.components import ComponentId, button, select
from bot.ports import Waiting
from engine import Game, Phase
from engine import events as ev

from .driver import Driver, components
from .harness import Harness, parts, text
from .test_game_flow import FAST, open_table, reveal_posted, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


STATUS = "**Election"


def live_boards(table: Harness) -> list[discord.Message]:
    return [m for m in table.channel_messages() if STATUS in text(m)]


def shows_image(message: discord.Message) -> bool:
    """The message holds the board and its layout shows it."""
    gallery = [
        p for p in parts(message) if getattr(p, "type", None) is discord.ComponentType.media_gallery
    ]
    return [a.filename for a in message.attachments] == [BOARD_FILE] and len(gallery) == 1


async def test_one_live_board_follows_the_game_and_none_is_left_at_the_end(
    table: Harness,
) -> None:
    humans = table.members[:5]
    game_id = await start_game(table, humans)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    driver = Driver(table, humans, seed=7)
    checked = 0
    while checked < 25:
        await table.until(lambda: bool(driver.pending()) or reveal_posted(table))
        if reveal_posted(table):
            break
        game = session.game
        tracks = f"Liberal **{game.liberal_policies}**/5 · Fascist **{game.fascist_policies}**/6"

        # One live board, showing the board image and the tracks as they stand.
        def showing(tracks: str = tracks) -> bool:
            live = live_boards(table)
            return len(live) == 1 and tracks in text(live[0])

        await table.until(showing, what=f"one live board showing {tracks}")
        board = live_boards(table)[0]
        assert shows_image(board), text(board)
        assert texts.BUTTON_ROLE in str(components(board))
        # The decisions open now are on it (or a claim left open on an older round);
        # every older message is a story, no image.
        for message, _ in driver.pending():
            assert message.id == board.id or texts.PICK_CLAIM in str(components(message))
        for older in table.channel_messages():
            if older.id < board.id and STATUS not in text(older):
                assert not older.attachments, text(older)
        await driver.act(*driver.pending()[0])
        checked += 1
    assert checked >= 5
    await driver.play(until=lambda: reveal_posted(table))
    assert live_boards(table) == []
    assert all(not components(m) for m in table.channel_messages() if "The reveal" not in text(m))


def test_the_layout_puts_status_board_story_and_controls_in_one_container() -> None:
    cid = ComponentId("7", "a3", "0")
    routes = [
        button(cid, "Ja"),
        button(ComponentId("7", "a3", "1"), "Nein"),
        select(
            ComponentId("7", "a4", "2"),
            [discord.SelectOption(label="x", value="0")],
            placeholder="p",
        ),
        button(ComponentId("7", "role"), texts.BUTTON_ROLE),
    ]
    view = layout(Look("the story", tuple(routes), "**Election 2**", image=True))
    (container,) = view.children
    assert isinstance(container, ui.Container)
    kinds = [type(c).__name__ for c in container.children]
    # Buttons side by side, a select on its own row, in order.
    assert kinds == [
        "TextDisplay",
        "MediaGallery",
        "TextDisplay",
        "ActionRow",
        "ActionRow",
        "ActionRow",
    ]
    rows = [c for c in container.children if isinstance(c, ui.ActionRow)]
    assert [len(r.children) for r in rows] == [2, 1, 1]
    # A past round: its story alone, no image, nothing to click.
    past = layout(Look("what happened"))
    assert [type(c).__name__ for c in past.children[0].children] == ["TextDisplay"]


def test_the_status_line_reads_the_public_board_and_whose_turn_it_is() -> None:
    game = Game(5, seed=3)
    view = game.spectator_view()
    turn = Waiting(Phase.NOMINATE, (0,), (), 1_900_000_000.0, "Waiting for Ana to nominate.")
    line = status_text(view, turn)
    assert line.startswith("**Election 1** · Liberal **0**/5 · Fascist **0**/6")
    assert "⏳ Waiting for Ana to nominate." in line and "<t:1900000000:R>" in line
    # A vote shows its own progress in the story: no turn line.
    vote = Waiting(Phase.VOTE, (1, 2), (0,), None, "Votes in: 1 of 5.")
    assert "⏳" not in status_text(view, vote)
    # Nothing from a private view: the status is made from the spectator view alone.
    assert "role" not in line.lower() and "hand" not in line.lower()


async def test_a_demo_is_told_on_one_live_board_per_election(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.discord import games as games_module

    # A pace of its own (a demo shows each line, then waits): tiny, to keep the test short.
    monkeypatch.setitem(games_module.DEMO_PACE, "fast", 0.001)
    async with open_table(tmp_path, FAST) as table:
        await table.members[0].slash(table.channel, "demo", players=6, speed="fast")
        await table.until(lambda: reveal_posted(table), what="the demo's end", timeout=60)
        messages = table.channel_messages()
        game = (await table.storage.recent_games(limit=1))[0]
        stored = await table.storage.load_game(game.id)
        elections = sum(
            isinstance(e, ev.ChancellorNominated) for e in stored.record.replay().events
        )
        # One message per election (and the start, the reveal), not one per line: the
        # lines were edited into the live board one at a time.
        assert len(messages) <= elections + 3, [text(m)[:60] for m in messages]
        assert live_boards(table) == []
        told = "\n".join(text(m) for m in messages)
        assert told.count("nominates") == elections


async def test_a_restart_while_an_ai_thinks_leaves_one_live_board(tmp_path: Path) -> None:
    """The live board before a restart holds no call nor vote (an AI seat is choosing):
    the book still names it, and the restarted bot edits it down to its story once the
    resumed game shows a board of its own."""
    async with open_table(tmp_path, replace(FAST, ai_pace=1.5)) as table:
        alice = table.members[0]
        game_id = await start_game(table, [alice], players=5)

        def an_ai_turn() -> bool:
            live = live_boards(table)
            return len(live) == 1 and "⏳" in text(live[0]) and not driver.pending()

        driver = Driver(table, [alice], seed=1)
        # Alice plays her turns until an AI seat's: she may be the first president (the
        # seats are dealt at random), and then no AI seat would ever get a turn.
        await driver.play(until=an_ai_turn)
        before = live_boards(table)[0]
        await table.restart()
        await table.until(
            lambda: any("The bot restarted" in text(m) for m in table.channel_messages()),
            what="the resumed game's notice",
        )
        await table.until(lambda: len(live_boards(table)) == 1, what="one live board")
        if live_boards(table)[0].id != before.id:
            assert not table.message(before.id).attachments
            assert not components(table.message(before.id))
        session = table.bot.games.manager.get(game_id)
        assert session is not None
        session.ai.pace_s = 0.0  # the rest at test speed (alice may have been executed)
        await driver.play(until=lambda: reveal_posted(table))
        assert live_boards(table) == []
        assert (await table.storage.load_game(game_id)).status == "finished"


async def test_a_restart_mid_vote_keeps_every_line_of_the_rounds_before(table: Harness) -> None:
    """Rounds told before a restart keep their whole story: the board the restarted bot
    edits down is the one the book names, with the story the message shows (a round
    edited down to its story is dropped from the book, so a restart cannot edit it back
    to an older story: the nomination that ended it was lost that way)."""
    alice, bob = table.members[:2]
    await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=4)
    for _ in range(3):  # a few elections in, so that several rounds are told
        while not any("Ja" in str(components(m)) for m in table.channel_messages()):
            pending = driver.pending()
            if pending:
                await driver.act(*pending[0])
            else:
                await asyncio.sleep(0.01)
        told = {m.id: text(m) for m in table.channel_messages() if STATUS not in text(m)}
        await table.restart()
        await table.until(
            lambda: sum("The bot restarted" in text(m) for m in table.channel_messages()) > 0,
            what="the resumed game's notice",
        )
        await asyncio.sleep(0.3)  # the resumed game shows what it waits for
        for message_id, story in told.items():
            now = text(table.message(message_id))
            # Narration, not an open call (a claim's call line leaves when it closes).
            lines = [line for line in story.splitlines() if line and "<@" not in line]
            assert all(line in now for line in lines), (story, now)
        vote = next(m for m in table.channel_messages() if "Ja" in str(components(m)))
        while "Ja" in str(components(table.message(vote.id))):  # on to the next election
            pending = driver.pending()
            if pending:
                await driver.act(*pending[0])
            else:
                await asyncio.sleep(0.01)
