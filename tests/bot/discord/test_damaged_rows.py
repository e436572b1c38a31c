"""Damaged database rows on Discord, through discord.py's real dispatch: a game whose
stored host does not read, and game times that do not read in /history."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.discord import info, texts
from bot.discord.games import DiscordGames
from bot.storage import GameSummary, SeatRecord, StoredGame
from engine import STANDARD

from ..test_storage import play_random_game
from .driver import Driver, components
from .harness import Harness, embed_text, forge_click, public_followup, text, told
from .test_game_flow import FAST, open_table, reveal_posted, start_game
from .test_private_games import staff_only


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def damage(table: Harness, statement: str, *params: object) -> None:
    """Edit the database as another program (or a failing disk) would: raw SQL, on the
    bot's own connection (another one would wait on the bot's lock, blocking the loop
    the bot needs to release it)."""
    async with table.storage.driver.write() as tx:
        await tx.all(statement, params)


BAD_HOST = "UPDATE games SET options = json_set(options, '$.host_id', 'abc') WHERE id = ?"


def host_warnings(table: Harness, game_id: int) -> list[str]:
    """The bot's warnings about an unreadable host of `game_id`."""
    lines = [r.getMessage() for r in table.log.records if r.levelno == logging.WARNING]
    return [line for line in lines if f"game {game_id}" in line and "host_id" in line]


# --- a stored host id that does not read ----------------------------------------------


async def test_a_game_whose_stored_host_does_not_read_resumes_at_a_restart(
    table: Harness,
) -> None:
    """`int("abc")` used to fail the game's restore: it was stranded, /resume and /cancel
    answered "Something went wrong" and no new game could open in the channel. Now the
    host reads as unknown (a warning names the game and the column) and the game goes
    on."""
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=11)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    await damage(table, BAD_HOST, game_id)
    table.expect_warning("host_id")

    await table.restart()
    assert table.bot.games.manager.get(game_id) is not None  # resumed, not stranded
    assert (await table.storage.load_game(game_id)).status == "running"
    assert len(host_warnings(table, game_id)) == 1
    await driver.play(until=lambda: reveal_posted(table))
    assert (await table.storage.load_game(game_id)).status == "finished"


async def test_resume_and_cancel_of_a_stranded_game_whose_host_does_not_read_answer(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game stranded for another reason, whose host does not read: /resume and /cancel
    read the host before any handler, and answered "Something went wrong". Now nobody
    is its host: they answer that only a host (or Manage Server) may."""
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice, bob], players=5)
    await damage(table, BAD_HOST, game_id)
    table.expect_error("cannot be resumed (RuntimeError at ")

    def broken(games: DiscordGames, game: StoredGame) -> object:
        raise RuntimeError("a fault of this code")

    monkeypatch.setattr(DiscordGames, "_remember", broken)
    table.expect_warning("host_id")
    await table.restart()
    assert table.bot.games.game_in(table.channel.id) == game_id  # stranded here

    resumed = await alice.slash(table.channel, "resume")
    assert told(resumed) == texts.RESUME_RIGHTS
    cancelled = await alice.slash(table.channel, "cancel")
    assert told(cancelled) == texts.CANCEL_RIGHTS
    assert (await table.storage.load_game(game_id)).status == "paused"


# --- game times that do not read, in /history -----------------------------------------


async def stored_game(table: Harness) -> int:
    """A cancelled game of the table's channel, stored without the bot running it."""
    game_id = await table.storage.create_game(
        players=5,
        variant=STANDARD,
        seed=1,
        seats=[SeatRecord(s, f"p{s}", None, "random") for s in range(5)],
        options={},
        guild_id=table.guild.id,
        channel_id=table.channel.id,
    )
    await table.storage.finish_game(
        game_id, status="cancelled", winner=None, reason=None, roles=None
    )
    return game_id


async def test_history_lists_every_game_though_some_times_do_not_read(table: Harness) -> None:
    """A time stored as text, or too far to be a date, made `datetime.fromtimestamp`
    raise while the list was built: /history failed, hiding every game of the server.
    Now such a time shows as "?" and the other games list as before."""
    alice = table.members[0]
    text_time, far_time, infinite, healthy = [await stored_game(table) for _ in range(4)]
    await damage(
        table, "UPDATE games SET created_at = 'x', finished_at = NULL WHERE id = ?", text_time
    )
    await damage(table, "UPDATE games SET finished_at = 1e20 WHERE id = ?", far_time)
    await damage(table, "UPDATE games SET finished_at = 1e999 WHERE id = ?", infinite)

    shown = await alice.slash(table.channel, "history")
    lines = embed_text(public_followup(shown)).splitlines()
    for game_id in (text_time, far_time, infinite):
        [line] = [line for line in lines if line.startswith(f"`#{game_id}`")]
        assert line.endswith(" · ?"), line
    [line] = [line for line in lines if line.startswith(f"`#{healthy}`")]
    assert line.endswith(":R>"), line  # a Discord relative time, as before


@pytest.mark.parametrize("when", [float("nan"), float("inf"), -1e20, 1e20, "x", None], ids=repr)
def test_a_game_time_that_does_not_read_shows_as_a_question_mark(when: object) -> None:
    game = GameSummary(1, 2, 3, 5, "cancelled", None, None, when, None)  # type: ignore[arg-type]
    assert info.history_embed([game]).description == "`#1` 5 players · cancelled · ?"


# --- a stored demo pace that does not read --------------------------------------------


@pytest.mark.parametrize("pace", ["'fast'", "'Infinity'", "1e308", "-5"])
async def test_a_game_whose_stored_pace_does_not_read_resumes_unpaced(
    table: Harness, pace: str
) -> None:
    """`float("fast")` failed the game's restore like a damaged host (stranded), and
    `float("Infinity")` would have held the game for ever after each public message.
    A pace that does not read is none (a warning names the game and the column)."""
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=11)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    await damage(
        table,
        f"UPDATE games SET options = json_set(options, '$.pace', {pace}) WHERE id = ?",
        game_id,
    )
    table.expect_warning("option pace")
    await table.restart()
    assert table.bot.games.manager.get(game_id) is not None  # resumed, not stranded
    await driver.play(until=lambda: reveal_posted(table))
    assert (await table.storage.load_game(game_id)).status == "finished"


# --- a game set aside at a restart ---------------------------------------------------


async def test_a_game_set_aside_as_damaged_says_so_to_clicks_and_in_history(
    table: Harness,
) -> None:
    """A game whose record no longer reads is set aside at the restart. Its members'
    buttons answered "not running any more" and /history listed it as cancelled: now
    both say it could not be restored."""
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=11)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    message, custom_id = next(
        (m, c["custom_id"])
        for m in table.channel_messages()
        for c in components(m)
        if c.get("custom_id", "").startswith(f"sh:v1:{game_id}:")
    )
    # A record that no longer reads: an action far beyond the game's, not JSON (the
    # game goes on meanwhile, so no index near its own is free for long).
    await damage(
        table,
        "INSERT INTO actions (game_id, seq, action, at) VALUES (?, 999, 'fascist{', 0)",
        game_id,
    )
    table.expect_error("is damaged")
    before = len(table.channel_messages())
    await table.restart()
    assert table.bot.games.manager.get(game_id) is None  # set aside
    # The table is told, without being asked: its game is over, and why in general terms.
    notice = texts.SET_ASIDE.format(game_id=game_id, reason="").split(" (")[0]
    await table.until(
        lambda: any(text(m).startswith(notice) for m in table.channel_messages()[before:]),
        what="the set-aside notice",
    )

    clicked = await forge_click(table, bob, message, custom_id)
    assert told(clicked) == texts.GAME_DAMAGED
    history = await alice.slash(table.channel, "history")
    line = next(
        line for line in embed_text(public_followup(history)).splitlines() if f"#{game_id}" in line
    )
    assert texts.OUTCOME_DAMAGED in line


BAD_ACTION = "INSERT INTO actions (game_id, seq, action, at) VALUES (?, 999, 'fascist{', 0)"


async def test_status_where_a_game_was_set_aside_says_so_until_a_newer_one(
    table: Harness,
) -> None:
    """/status in the channel of a game set aside at a restart answered "No game is
    running", as if none had ever been played there. Now it names the game, says it was
    set aside as damaged and what to do, after a later restart too, until a newer lobby
    or game is in the channel."""
    alice, bob = table.members[:2]
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=11)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    await damage(table, BAD_ACTION, game_id)
    table.expect_error("is damaged")
    await table.restart()
    assert table.bot.games.manager.get(game_id) is None  # set aside
    said = texts.STATUS_SET_ASIDE.format(game_id=game_id)
    assert told(await bob.slash(table.channel, "status")) == said
    await table.restart()  # the notice was posted at the first; /status still knows
    assert told(await bob.slash(table.channel, "status")) == said

    # A newer lobby is what /status shows; a newer game, once over, is no game at all.
    await alice.slash(table.channel, "newgame")
    shown = await bob.slash(table.channel, "status")
    assert shown.response is not None and alice.mention in embed_text(shown.response)
    assert said not in told(shown)
    await alice.slash(table.channel, "cancel")  # the lobby
    assert told(await bob.slash(table.channel, "status")) == said
    newer = await start_game(table, [alice], players=5)
    await alice.slash(table.channel, "cancel")  # the host alone: it ends at once
    assert (await table.storage.load_game(newer)).status == "cancelled"
    assert told(await bob.slash(table.channel, "status")) == texts.NO_GAME_HERE


async def test_status_where_a_game_was_abandoned_says_so(table: Harness) -> None:
    """The bot was removed from the server (its games abandoned) and added back: /status
    in the channel says what became of its game there."""
    alice = table.members[0]
    game_id = await start_game(table, [alice], players=5)
    table.expect_warning("abandoned")
    await table.bot.games.place_lost("the bot left", channel_id=None, guild_id=table.guild.id)
    assert (await table.storage.load_game(game_id)).status == "abandoned"
    said = told(await alice.slash(table.channel, "status"))
    assert said == texts.STATUS_ABANDONED.format(game_id=game_id)


def test_every_way_a_game_ends_has_its_own_words_in_history() -> None:
    base = GameSummary(1, 1, 2, 5, "running", None, None, 0.0, None)
    seen = {
        info.outcome(replace(base, status=status))
        for status in ("running", "paused", "cancelled", "abandoned", "damaged")
    }
    assert len(seen) == 5


# --- /replay of a finished game whose record does not read ----------------------------


async def test_replay_of_a_damaged_finished_game_says_it_is_damaged(table: Harness) -> None:
    """/history listed the game, and /replay said there was no such game. Now it says
    the game cannot be shown, to those who may see it; to a member who could not see
    its channel it is still not said to exist."""
    alice, mallory = table.members[0], table.members[-1]
    game = play_random_game(5, 3)
    assert game.winner is not None and game.win_reason is not None
    game_id = await table.storage.create_game(
        players=5,
        variant=STANDARD,
        seed=3,
        seats=[SeatRecord(s, f"p{s}", None, "random") for s in range(5)],
        options={},
        guild_id=table.guild.id,
        channel_id=table.channel.id,
    )
    await table.storage.append_action(game_id, 0, game.actions[0])
    # The second action as no release writes it (the log is append-only: no UPDATE).
    await damage(
        table, "INSERT INTO actions (game_id, seq, action, at) VALUES (?, 1, '{bad', 1)", game_id
    )
    await table.storage.finish_game(
        game_id, status="finished", winner=game.winner, reason=game.win_reason, roles=game.roles
    )

    damaged = await alice.slash(table.channel, "replay", game=game_id)
    assert told(damaged) == texts.REPLAY_DAMAGED.format(game=game_id)
    staff_only(table, alice.id)
    hidden = await mallory.slash(table.guild.create_text_channel("general"), "replay", game=game_id)
    assert told(hidden) == texts.REPLAY_UNKNOWN.format(game=game_id)
