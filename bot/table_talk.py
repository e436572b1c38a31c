"""What the AI seats of one game say: remarks after a session, and `/ask`.

`agents.talk.TableTalk` gives each AI seat a belief built from the public record only, and
words for it. This collaborator owns that instance for one game: it feeds it the
game's events it has not heard yet and runs it in the suspicion thread (many games must
not starve the event loop). `GameSession` decides when the seats speak and posts what
they say; words are a nicety, so a fault or a busy thread only means silence (a member
who asked is told privately that no answer came: `TalkUnavailable`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import TypeVar

from agents.talk import TableTalk
from engine import Game

from .suspicion import SUSPICION_THREAD

log = logging.getLogger(__name__)

T = TypeVar("T")

# The longest a game waits for its AI seats' remarks after a session.
TALK_WAIT_S = 10.0


class TalkUnavailable(Exception):
    """An AI seat could not answer `/ask` now: a fault, or a thread busy past
    `TALK_WAIT_S` (logged; the game goes on, and the beliefs start over)."""


class TableVoices:
    """The AI seats' words in one game (see the module docstring)."""

    def __init__(self, game_id: int, game: Game, *, executor: Executor = SUSPICION_THREAD) -> None:
        self.game_id = game_id
        self.game = game
        self._executor = executor
        self._talk: TableTalk | None = None  # built when first used
        self._heard = 0  # how many of the game's events it has heard

    async def remarks(self, ai_seats: Sequence[int], names: list[str]) -> list[tuple[int, str]]:
        """What the AI seats say now, as (seat, words); empty when nobody speaks, or
        when they cannot within `TALK_WAIT_S` (logged: the game goes on without them)."""
        try:
            said = await self._in_time(ai_seats, lambda talk: talk.remarks(names))
        except TalkUnavailable:
            return []
        return said or []

    async def ask(self, seat: int, ai_seats: Sequence[int], names: list[str]) -> str | None:
        """AI seat `seat`'s read of the table, from the public record only (None: it has
        nothing to say, or is not among `ai_seats`). Raises `TalkUnavailable` when it
        cannot answer within `TALK_WAIT_S` (logged), so the asker can be told."""
        return await self._in_time(ai_seats, lambda talk: talk.ask(seat, names), asked=True)

    async def _in_time(
        self, ai_seats: Sequence[int], use: Callable[[TableTalk], T], *, asked: bool = False
    ) -> T | None:
        """`_with_talk` within `TALK_WAIT_S`; raises `TalkUnavailable` otherwise."""
        try:
            # Neither a fault nor a thread busy with other games' reveals may hold the
            # game (or the member who asked) up.
            async with asyncio.timeout(TALK_WAIT_S):
                return await self._with_talk(ai_seats, use)
        except Exception as exc:
            # Only the type: a message may quote what a seat believes.
            what = "did not answer" if asked else "did not speak"
            log.warning("game %d: the AI seats %s (%s)", self.game_id, what, type(exc).__name__)
            # The events were counted as heard before the thread heard them: a belief
            # that failed part-way (or was cut off) is rebuilt from every event next time.
            self._talk = None
            raise TalkUnavailable from exc

    async def _with_talk(self, ai_seats: Sequence[int], use: Callable[[TableTalk], T]) -> T | None:
        """`use` the seats' beliefs once they have heard every event so far (None: no
        AI seat), in the executor."""
        if not ai_seats:
            return None
        # A seat handed to an AI since (a timeout, /afk) has heard nothing: start over.
        if self._talk is None or set(ai_seats) - set(self._talk.speakers):
            self._talk, self._heard = TableTalk(self.game.setup, ai_seats), 0
        talk, events = self._talk, self.game.events[self._heard :]
        # Counted as heard now, not when the thread gets to it: the suspicion thread runs
        # one job at a time, in order, so a later call never feeds an event twice.
        self._heard = len(self.game.events)

        def run() -> T:
            talk.hear(events)
            return use(talk)

        return await asyncio.get_running_loop().run_in_executor(self._executor, run)
