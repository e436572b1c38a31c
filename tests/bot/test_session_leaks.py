"""No public or spectator message, and no INFO log line, carries hidden information.

Many complete games (humans and AIs, every player count, timers on and off) are played
through the fake front-end, and every call the session made is checked: the public
transcript is exactly the narration of the public events, in order, plus notices that
name no secret; boards are spectator views with nothing hidden in them until the game
is over; private messages reach only the seat they belong to.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

import pytest

from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.narrate import narrate
from bot.ports import Post, Private, Prompt, Waiting
from bot.session import GameSession
from bot.storage import Storage
from engine import PlayerView
from engine import events as ev

from .conftest import UNTIMED, members

SECRET_WORDS = ("hitler", "liberal", "fascist")  # no role or tile may be named in a log line


def _hides_everything(board: PlayerView) -> bool:
    return (
        board.seat is None
        and board.role is None
        and all(r is None for r in board.known_roles)
        and board.hand == ()
        and board.legal_actions == ()
        and board.my_vote is None
        and all(e.audience is None for e in board.events)
        and board.winner is None
    )


def _check(session: GameSession, fake: FakeFrontend) -> None:
    game, gid, labels = session.game, session.game_id, session.table.labels
    secrets = {line for e in game.events if e.audience is not None and (line := narrate(e, labels))}
    published: list[ev.Event] = []
    over = False
    for call in fake.calls[gid]:
        payload = call.payload
        if call.method == "post":
            assert isinstance(payload, Post)
            assert all(e.audience is None for e in payload.events)
            if payload.events:
                lines = [line for e in payload.events if (line := narrate(e, labels))]
                assert payload.text == "\n".join(lines)
            # The post announcing the end may show everything (the view of a finished game).
            over = over or any(isinstance(e, ev.GameEnded) for e in payload.events)
            if not over:
                assert not secrets.intersection(payload.text.splitlines())
                assert payload.board is None or _hides_everything(payload.board)
            published.extend(payload.events)
        elif call.method == "waiting":
            assert isinstance(payload, Waiting)
            assert set(payload.voted) <= set(range(game.players))
        elif call.method == "tell":
            assert isinstance(payload, Private)
            assert payload.view.seat == payload.seat
            assert session.seats[payload.seat].user_id is not None
            assert all(
                e.audience is not None and payload.seat in e.audience for e in payload.events
            )
        elif call.method == "ask":
            assert isinstance(payload, Prompt) and payload.view.seat == payload.seat
        elif call.method == "reveal":
            assert over, "the reveal comes after the end"
    # Every public event with something to say reached the table, in order, and nothing
    # else did (ballots cast show in the waiting line instead: who voted, never how).
    public = [e for e in game.events if e.audience is None]
    assert [e for e in published if narrate(e, labels)] == [e for e in public if narrate(e, labels)]
    assert over


@pytest.mark.parametrize("timed", [False, True])
async def test_public_messages_and_logs_carry_no_hidden_information(
    timed: bool, session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    timers = UNTIMED.timers
    if timed:  # humans who never answer: timeouts and takeovers produce notices too
        timers = replace(timers, nominate=0.01, vote=0.01, policy=0.01, power=0.01, claim=0.01)
    fake = FakeFrontend(answer=None if timed else scripted)
    manager = SessionManager(session_store, fake)
    sessions = [
        await manager.create(
            members(2),
            players=5 + i % 6,
            fill_with_ai=True,
            seed=1000 + i,
            options=replace(UNTIMED, timers=timers),
        )
        for i in range(18)
    ]
    await asyncio.wait_for(asyncio.gather(*(s.wait() for s in sessions)), 60)
    for session in sessions:
        _check(session, fake)
    for record in caplog.records:
        message = record.getMessage().lower()
        assert not any(word in message for word in SECRET_WORDS), message
