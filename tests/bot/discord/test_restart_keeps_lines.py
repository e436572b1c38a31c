"""What the channel read before a restart, it reads after: the lines told on an open
vote stay on it, and the ping lines of a game are still deleted when it ends.

Driven through discord.py's real dispatch on simcord (nothing contacts Discord); a
restart is a fresh bot over the same database and the same simulated Discord.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import discord
import pytest

from bot.discord import texts
from bot.discord.board import Look
from bot.discord.frontend import (
    DiscordFrontend,
    Edited,
    _preamble,
    _told_on_vote,
    _Vote,
    ping_key,
)
from bot.discord.rounds import RoundMessage
from bot.ports import PromptKind, Table, Waiting
from bot.storage import ShownMessage
from engine import Nominate, Phase

from .driver import Driver
from .harness import Harness, text
from .test_game_flow import open_table, reveal_posted, start_game
from .test_open_decisions import LONG, closed_with_result, edits_of, until_vote
from .test_ping_lines import ROUND, TABLE, Channel, prompt


def restarted(table: Harness) -> bool:
    return any("The bot restarted" in text(m) for m in table.channel_messages())


async def test_lines_told_on_an_open_vote_stay_on_it_after_a_restart(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice, bob = table.members[:2]
        await start_game(table, [alice, bob], players=5)
        vote = await until_vote(table, Driver(table, [alice, bob], seed=1))
        # alice steps away: an AI casts her ballot, and the table is told so on the vote
        # message, which stays open for bob's ballot.
        await alice.slash(table.channel, "afk")
        await table.until(
            lambda: "stepped away" in text(table.message(vote.id)), what="the line on the vote"
        )
        before = text(table.message(vote.id))
        told = [line for line in before.splitlines() if "stepped away" in line]
        edits = len(edits_of(table, vote.id))
        await table.restart()
        await table.until(lambda: restarted(table), what="the resumed game's notice")
        # The restarted bot edits the vote to show its state: the line is still there.
        await table.until(lambda: len(edits_of(table, vote.id)) > edits, what="the vote redrawn")
        after = text(table.message(vote.id))
        assert all(line in after.splitlines() for line in told), (before, after)
        # And its result comes after it.
        await bob.click(table.message(vote.id), label="Ja")
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        closed = text(table.message(vote.id))
        assert all(closed.index(line) < closed.index("**Vote closed.**") for line in told)


@pytest.mark.parametrize("deadline", [None, 1_800_000_000.0])
@pytest.mark.parametrize("told", [[], ["bob ran out of time."], ["one", "two\nthree"]])
def test_the_lines_told_on_a_vote_read_back_from_its_text(
    told: list[str], deadline: float | None
) -> None:
    """A restart reads a vote's lines back from the text the book holds."""
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False)
    vote = _Vote("a1", 0, 1, voters={0, 1}, preamble="alice nominates bob.", told=told)
    vote.waiting = Waiting(Phase.VOTE, (1,), (0, 2), deadline, "")
    shown = frontend._vote_text(TABLE, vote)
    assert _preamble(shown) == vote.preamble
    assert "\n".join(_told_on_vote(shown)) == "\n".join(told)
    vote.preamble = ""
    assert "\n".join(_told_on_vote(frontend._vote_text(TABLE, vote))) == "\n".join(told)


class Book:
    """The front-end's `MessageBook`, in memory."""

    def __init__(self) -> None:
        self.rows: dict[str, ShownMessage] = {}

    async def shown_messages(self, game_id: int) -> dict[str, ShownMessage]:
        return dict(self.rows)

    async def remember_message(self, game_id: int, key: str, message: ShownMessage) -> None:
        self.rows[key] = message

    async def forget_message(self, game_id: int, key: str | None = None) -> None:
        if key is None:
            self.rows.clear()
        else:
            self.rows.pop(key, None)


async def test_a_vote_closed_by_a_restart_keeps_the_lines_it_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A vote the restarted game does not ask again closes with the lines it told."""
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False, book=Book())
    vote = _Vote("a1", 0, 1, voters={0}, preamble="alice nominates bob.", told=["bob left."])
    vote.waiting = Waiting(Phase.VOTE, (0,), (), None, "")
    assert frontend.book is not None
    shown = ShownMessage(100, frontend._vote_text(TABLE, vote), None)
    await frontend.book.remember_message(TABLE.game_id, "vote:a1", shown)
    edits: list[str] = []

    async def edit(table: Table, message_id: int, look: Look, **kw: object) -> Edited:
        edits.append(look.story)
        return Edited.DONE

    monkeypatch.setattr(frontend, "_edit", edit)
    await frontend.resume(TABLE)
    await frontend.waiting(TABLE, Waiting(Phase.NOMINATE, (2,), (), None, ""))
    assert edits == [
        "alice nominates bob.\nbob left.\n"
        + texts.VOTE_CLOSED.format(result=texts.CLOSED_BY_RESTART)
    ]


def ping_lines(table: Harness) -> list[discord.Message]:
    """The ping lines in the channel (each links to the message of a call)."""
    return [m for m in table.channel_messages() if "/channels/" in text(m)]


async def test_the_ping_lines_of_a_game_are_deleted_at_its_end_after_a_restart(
    tmp_path: Path,
) -> None:
    async with open_table(tmp_path, LONG) as table:
        humans = table.members[:5]
        await start_game(table, humans)
        driver = Driver(table, humans, seed=3)
        for _ in range(80):  # until a call edited into an earlier message pings its member
            await driver.next_prompt(lambda: False)
            if ping_lines(table):
                break
            await driver.act(*driver.pending()[0])
        [line] = ping_lines(table)
        await table.restart()
        await table.until(lambda: restarted(table), what="the resumed game's notice")
        await driver.play(until=lambda: reveal_posted(table))
        # Every ping line went, the one posted before the restart too.
        await table.until(lambda: not ping_lines(table), what=f"no ping line: {line.id}")


async def test_a_ping_line_filed_before_a_restart_goes_with_the_next_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Restored lines go once a newer one is up and their calls are closed; a row that
    does not read names no call (its line goes too), and never stops the game."""
    book = Book()
    await book.remember_message(TABLE.game_id, ping_key(900), ShownMessage(900, "{", None))
    named = {"prompt:x:0:claim": ROUND}  # closed: nothing is asked again
    filed = ShownMessage(901, json.dumps(named), None)
    await book.remember_message(TABLE.game_id, ping_key(901), filed)
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False, book=book)
    fake = Channel()

    async def edit(*args: object, **kw: object) -> Edited:
        return Edited.DONE

    monkeypatch.setattr(frontend, "_send", fake.send)
    monkeypatch.setattr(frontend, "_edit", edit)
    monkeypatch.setattr(frontend, "_channel", lambda table: fake)
    await frontend.resume(TABLE)
    assert list(frontend.state(TABLE.game_id).pings) == [900, 901]
    frontend.state(TABLE.game_id).round = RoundMessage(ROUND, ["The story so far."])
    await frontend.ask(TABLE, prompt("a4", 2, Nominate(2, 3), PromptKind.ACTION))
    await frontend.flush(TABLE)
    [line] = fake.posted
    assert fake.deleted == [900, 901]
    assert set(book.rows) == {ping_key(line), "board", "prompt:a4:2:action"}
