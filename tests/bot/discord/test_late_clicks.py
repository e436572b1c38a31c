"""Clicks that come just too late: the member's time ran out and an AI is deciding for
them (paced, so it takes a moment). They are told so, never that the choice is someone
else's (it named them as the one awaited), nor that their policies are on their way."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot import notices
from bot.config import Timers
from bot.discord import texts

from .driver import Driver, components
from .harness import mentioned, text, told
from .test_game_flow import FAST, open_table, start_game
from .test_hand_in_between import _hand_message
from .test_open_decisions import LONG, SHORT_VOTE, until_vote

# The AI standing in for a member thinks 3 s, at least 0.5 s: the late click lands first.
SLOW_STAND_IN = {"ai_pace": 0.5, "ai_seconds": 3.0}


async def test_a_ballot_cast_as_the_vote_timer_runs_out_is_told_time_is_up(
    tmp_path: Path,
) -> None:
    async with open_table(tmp_path, replace(SHORT_VOTE, **SLOW_STAND_IN)) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        vote = await until_vote(table, Driver(table, [alice], seed=1))
        await table.until(
            lambda: "ran out of time" in text(table.message(vote.id)), what="the time-out"
        )
        late = await alice.click(table.message(vote.id), label="Ja")
        assert late.response is not None and late.response.content == notices.TIME_UP


async def test_a_hand_played_as_its_timer_runs_out_is_told_time_is_up(tmp_path: Path) -> None:
    short_turns = Timers(turn_seconds=3, vote_seconds=600, afk_after=5)
    async with open_table(tmp_path, replace(FAST, timers=short_turns, **SLOW_STAND_IN)) as table:
        humans = table.members[:5]
        game_id = await start_game(table, humans)
        await Driver(table, humans, seed=5).play(until=lambda: _hand_message(table) is not None)
        hand = _hand_message(table)
        assert hand is not None
        president = next(m for m in humans if m.id == mentioned(hand)[0])
        opened = await president.click(hand, label=texts.BUTTON_HAND)
        assert opened.response is not None
        choice = components(opened.response)[0]["label"]
        session = table.bot.games.manager.get(game_id)
        assert session is not None
        seat = session.table.seat_of(president.id)
        assert seat is not None
        await table.until(lambda: not session.open_prompts(seat), what="the time-out")
        assert seat in session.game.awaiting()  # the stand-in has not played yet
        again = await president.click(table.message(hand.id), label=texts.BUTTON_HAND)
        assert again.response is not None and again.response.content == notices.TIME_UP
        late = await president.click(opened.response, label=choice)
        assert late.response is not None and late.response.content == notices.TIME_UP


async def test_a_member_back_during_a_vote_may_change_the_ballot_their_ai_cast(
    tmp_path: Path,
) -> None:
    """/afk, the vote opens, the AI votes for them, /back: the vote's pings brought them
    back, and the ballot is theirs to change until the last one is in (as after a
    restart), not 'someone else's choice'."""
    async with open_table(tmp_path, LONG) as table:
        alice, bob = table.members[:2]
        game_id = await start_game(table, [alice, bob], players=5)
        session = table.bot.games.manager.get(game_id)
        assert session is not None
        assert told(await alice.slash(table.channel, "afk")) == notices.AWAY
        vote = await until_vote(table, Driver(table, [bob], seed=1))
        seat = session.table.seat_of(alice.id)
        await table.until(lambda: seat in session.game.votes, what="alice's AI ballot")
        await alice.slash(table.channel, "back")
        cast = "Ja" if session.game.votes[seat] else "Nein"
        other = "Nein" if cast == "Ja" else "Ja"
        changed = await alice.click(table.message(vote.id), label=other)
        assert changed.response is not None
        assert changed.response.content.startswith(f"Your vote is in: **{other}**"), changed
        again = await alice.click(table.message(vote.id), label=other)
        assert again.response is not None
        assert again.response.content == f"You already voted {other}."


async def test_a_member_back_while_their_ai_decides_is_told_so_not_that_time_is_up(
    tmp_path: Path,
) -> None:
    """/afk, the vote opens, /back while the seat's AI is still deciding its ballot: a
    click is told the AI is making this decision (their time was never up), and once
    the AI has voted the ballot is theirs to change."""
    slow_ai = replace(FAST, timers=LONG.timers, ai_pace=3.0, ai_seconds=3.0)
    async with open_table(tmp_path, slow_ai) as table:
        alice, bob = table.members[:2]
        game_id = await start_game(table, [alice, bob], players=5)
        session = table.bot.games.manager.get(game_id)
        assert session is not None
        await alice.slash(table.channel, "afk")
        vote = await until_vote(table, Driver(table, [bob], seed=1))
        seat = session.table.seat_of(alice.id)
        assert seat is not None and seat not in session.game.votes  # her AI is thinking
        assert told(await alice.slash(table.channel, "back")) == notices.WELCOME_BACK
        early = await alice.click(table.message(vote.id), label="Ja")
        assert early.response is not None
        assert early.response.content == notices.AI_DECIDES_THIS_TURN
        await table.until(lambda: seat in session.game.votes, what="her AI's ballot", timeout=30)
        await table.until(lambda: bool(session.open_prompts(seat)), what="her ballot given back")
        other = "Nein" if session.game.votes[seat] else "Ja"
        changed = await alice.click(table.message(vote.id), label=other)
        assert changed.response is not None
        assert changed.response.content.startswith(f"Your vote is in: **{other}**"), changed
