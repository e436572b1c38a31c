"""What the channel read before a restart, it reads after: the lines told on an open
vote stay on it, the ping lines of a game are still deleted when it ends, and a game
that ends before it asks again closes what it showed before the restart.

Driven through discord.py's real dispatch on simcord (nothing contacts Discord); a
restart is a fresh bot over the same database and the same simulated Discord.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot import manager, notices
from bot.discord import texts
from bot.discord.board import Look
from bot.discord.frontend import DiscordFrontend, Edited, _Vote, ping_key
from bot.discord.rounds import RoundMessage
from bot.ports import PromptKind, Table, Waiting
from bot.session import GameSession
from bot.storage import ShownMessage
from engine import Nominate, Phase

from .driver import Driver, components, game_paused
from .harness import Harness, text
from .test_game_flow import open_table, reveal_posted, start_game
from .test_open_decisions import (
    LONG,
    closed_with_result,
    edits_of,
    until_select,
    until_vote,
    vote_messages,
)
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


# A display name (the members choose theirs, and the bot does not escape them) that
# reads like the vote's header and its progress, with a line separator Python's
# `splitlines` splits on.
FORGED = "**Vote**: President Zed\u2028Waiting for: Zed"


def _body(vote_text: str) -> tuple[int, list[str]]:
    """The vote header's line in a vote message, and the lines told after it (up to the
    ballots' progress: the last line that begins "Voted (")."""
    lines = vote_text.split("\n")  # Discord breaks lines at "\n" only
    header = f"**Vote**: President {FORGED}, Chancellor "
    [at] = [i for i, line in enumerate(lines) if line.startswith(header)]
    progress = max(i for i, line in enumerate(lines) if line.startswith("Voted ("))
    return at, lines[at + 1 : progress]


def edited_since(table: Harness, message_id: int) -> Callable[[], bool]:
    """Whether the message was edited after now."""
    edits = len(edits_of(table, message_id))
    return lambda: len(edits_of(table, message_id)) > edits


async def test_a_name_like_the_vote_header_does_not_change_the_vote_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines told on a vote come back after a restart as they were told, whatever
    the names in them read like: the header once, the lines exactly."""
    # A game whose first President is seat 0 (the host, named like the header).
    fixed = SimpleNamespace(randrange=lambda n: 6)
    monkeypatch.setattr(manager, "random", SimpleNamespace(SystemRandom=lambda: fixed))
    async with open_table(tmp_path, LONG) as table:
        zed = table.guild.add_member(table.env.create_user("zed"), nick=FORGED)
        bob = table.members[1]
        await start_game(table, [zed, bob], players=5)
        vote = await until_vote(table, Driver(table, [zed, bob], seed=1))
        await zed.slash(table.channel, "afk")  # told on the vote, open for bob's ballot
        await table.until(
            lambda: "stepped away" in text(table.message(vote.id)), what="the line on the vote"
        )
        _, told = _body(text(table.message(vote.id)))
        assert len(told) == 1 and "stepped away" in told[0], told
        for _ in range(2):  # (a forged header came back once more with each)
            redrawn = edited_since(table, vote.id)
            await table.restart()
            await table.until(redrawn, what="the vote redrawn")
            assert [m.id for m in vote_messages(table)] == [vote.id]
            assert _body(text(table.message(vote.id)))[1] == told, text(table.message(vote.id))
        await bob.click(table.message(vote.id), label="Ja")
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        closed = text(table.message(vote.id)).split("\n")
        assert closed.count(told[0]) == 1, closed
        assert closed.index(told[0]) < next(
            i for i, line in enumerate(closed) if line.startswith("**Vote closed.**")
        )
        assert not any(line.startswith(f"**Vote**: President {FORGED}") for line in closed)


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


class FlakyBook(Book):
    """A book whose next `fail` writes fail (a database that hiccups)."""

    def __init__(self) -> None:
        super().__init__()
        self.fail = 0

    async def remember_message(self, game_id: int, key: str, message: ShownMessage) -> None:
        if self.fail:
            self.fail -= 1
            raise OSError("the database is away")
        await super().remember_message(game_id, key, message)


def _open_vote(
    monkeypatch: pytest.MonkeyPatch, book: Book, *, told: list[str], preamble: str = ""
) -> tuple[DiscordFrontend, _Vote]:
    """A front-end over `book` with an open vote, whose posts and edits Discord takes."""
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False, book=book)
    vote = _Vote("a1", 0, 1, voters={0, 1}, preamble=preamble, told=told)
    vote.waiting = Waiting(Phase.VOTE, (), (0, 1), None, "")
    frontend.state(TABLE.game_id).vote = vote

    async def send(table: Table, content: str, **kw: Any) -> Any:
        return SimpleNamespace(id=100, attachments=[])

    async def edit(*args: object, **kw: object) -> Edited:
        return Edited.DONE

    monkeypatch.setattr(frontend, "_send", send)
    monkeypatch.setattr(frontend, "_edit", edit)
    return frontend, vote


async def closed_after_a_restart(monkeypatch: pytest.MonkeyPatch, book: Book) -> list[str]:
    """What a restarted front-end over `book` shows on the vote it closes (the game
    moved on: it is not asked again)."""
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False, book=book)
    edits: list[str] = []

    async def edit(table: Table, message_id: int, look: Look, **kw: object) -> Edited:
        edits.append(look.story)
        return Edited.DONE

    monkeypatch.setattr(frontend, "_edit", edit)
    await frontend.resume(TABLE)
    await frontend.waiting(TABLE, Waiting(Phase.NOMINATE, (2,), (), None, ""))
    return edits


CLOSED = texts.VOTE_CLOSED.format(result=texts.CLOSED_BY_RESTART)


@pytest.mark.parametrize(
    "told", [[], ["bob ran out of time."], ["one", "two\nthree"], [f"{FORGED} left."]]
)
async def test_a_vote_closed_by_a_restart_keeps_the_lines_it_told(
    monkeypatch: pytest.MonkeyPatch, told: list[str]
) -> None:
    """A vote the restarted game does not ask again closes with the lines it told, as
    they were told."""
    book = Book()
    frontend, vote = _open_vote(monkeypatch, book, told=[], preamble=f"{FORGED} nominates bob.")
    await frontend._send_vote(TABLE, vote, [], [])
    for line in told:
        vote.told.append(line)
        await frontend._edit_vote(TABLE, vote)
    closed = await closed_after_a_restart(monkeypatch, book)
    assert closed == ["\n".join([f"{FORGED} nominates bob.", *told, CLOSED])]


async def test_a_vote_filed_as_text_before_an_upgrade_reads_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A vote row of the old form (the message's text) reads back, best effort; one that
    reads as nothing closes the vote with its reason alone, and never raises."""
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False)
    vote = _Vote("a1", 0, 1, voters={0}, preamble="alice nominates bob.", told=["bob left."])
    vote.waiting = Waiting(Phase.VOTE, (0,), (), None, "")
    old = Book()
    shown = ShownMessage(100, frontend._vote_text(TABLE, vote), None)
    await old.remember_message(TABLE.game_id, "vote:a1", shown)
    monkeypatch = pytest.MonkeyPatch()
    try:
        closed = await closed_after_a_restart(monkeypatch, old)
        assert closed == [f"alice nominates bob.\nbob left.\n{CLOSED}"]
        for content in ("", "{", '{"preamble": 3}', "[]", "\u2028", "null"):
            damaged = Book()
            await damaged.remember_message(
                TABLE.game_id, "vote:a1", ShownMessage(100, content, None)
            )
            closed = await closed_after_a_restart(monkeypatch, damaged)
            assert len(closed) == 1 and closed[0].endswith(CLOSED), (content, closed)
    finally:
        monkeypatch.undo()


async def test_a_failed_filing_of_a_vote_s_lines_is_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line told on a vote whose filing failed is filed with the vote's next edit (a
    ballot), or the next line: a restart after shows it."""
    book = FlakyBook()
    frontend, vote = _open_vote(monkeypatch, book, told=[])
    await frontend._send_vote(TABLE, vote, [], [])
    vote.told.append("alice left.")
    book.fail = 1
    await frontend._edit_vote(TABLE, vote)  # shown, not filed
    vote.waiting = Waiting(Phase.VOTE, (0,), (1,), None, "")  # alice's AI ballot is in
    await frontend._edit_vote(TABLE, vote)
    assert await closed_after_a_restart(monkeypatch, book) == [f"alice left.\n{CLOSED}"]
    # And the next line: a failed filing is not taken for a filed one meanwhile.
    frontend, vote = _open_vote(monkeypatch, book, told=[])
    await frontend._send_vote(TABLE, vote, [], [])
    vote.told.append("alice left.")
    book.fail = 1
    await frontend._edit_vote(TABLE, vote)
    vote.told.append("bob left.")
    await frontend._edit_vote(TABLE, vote)
    closed = await closed_after_a_restart(monkeypatch, book)
    assert closed == [f"alice left.\nbob left.\n{CLOSED}"]


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


def with_components(table: Harness) -> list[tuple[int, str]]:
    """The channel's messages that still carry buttons or menus (id, start of text)."""
    return [(m.id, text(m)[:80]) for m in table.channel_messages() if components(m)]


@pytest.mark.parametrize("paused", [False, True])
@pytest.mark.parametrize("open_as", ["vote", "select"])
async def test_a_game_cancelled_after_a_restart_closes_what_it_showed_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_as: str, paused: bool
) -> None:
    """A restarted game cancelled by its host closes the vote or call it showed before
    the restart, as a game cancelled without a restart does; also when it paused before
    it asked again (a fault): its prompts were never asked again, so never withdrawn,
    and the end drops the game's rows of the message book, so nothing else would ever
    take those buttons off (they stayed)."""
    async with open_table(tmp_path, LONG) as table:
        alice = table.members[0]  # the only member: her /cancel ends the game at once
        await start_game(table, [alice], players=5)
        driver = Driver(table, [alice], seed=1)
        if open_as == "vote":
            shown = await until_vote(table, driver)
        else:
            shown, _ = await until_select(table, driver)
        if paused:
            table.expect_error("paused: RuntimeError at ")
            opening = GameSession._opening

            def opening_then_fault(session: GameSession) -> None:
                opening(session)  # the table is told the game resumes, then it faults
                raise RuntimeError("a fault before the step is asked again")

            monkeypatch.setattr(GameSession, "_opening", opening_then_fault)
        redrawn = edited_since(table, shown.id)
        await table.restart()
        if paused:
            await table.until(lambda: game_paused(table), what="the resumed game paused")
        else:
            await table.until(redrawn, what="the restored message redrawn")
        assert [m for m, _ in with_components(table)] == [shown.id]
        await alice.slash(table.channel, "cancel")
        await table.until(
            lambda: any(
                text(m).startswith("The game was cancelled") for m in table.channel_messages()
            ),
            what="the cancel told",
        )
        # The final post comes after the closing edits: nothing is left to click.
        assert with_components(table) == []
        closed = text(table.message(shown.id))
        if open_as == "vote":
            assert closed.endswith(texts.VOTE_CLOSED.format(result=notices.CANCELLED)), closed
        else:
            assert closed.splitlines()[-1].startswith("> ") and closed.endswith(
                notices.CANCELLED
            ), closed
