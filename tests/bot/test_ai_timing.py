"""How long an AI seat takes to show its move must not tell its hand or its role.

An agent answers at once when it has one distinct option (a president holding three of
a kind) and a Liberal's ballot is not searched, while other decisions think for their
budget: shown as they come, the delay before "the President passed two policies", or
the order in which AI ballots drop into a vote, would tell the table what an AI holds or
which side it is on. On a paced table (`ai_pace_s` > 0) every AI move is held until its
whole thinking budget has passed, and the AI ballots of one election are shown together.
Timings here are tenths of seconds; the assertions compare moments with each other.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Hashable
from typing import Any

from agents.base import Answer
from bot.ai_seats import AISeats
from bot.timers import Timers
from engine import Action, Claim, Game, Phase, PlayerView, Policy, Role
from engine.chance import FixedChance

L, F, H = Role.LIBERAL, Role.FASCIST, Role.HITLER
BUDGET = 0.3  # the table's thinking budget (s)
PACE = 0.05  # its human pace (s): below the budget


class RevealingPort:
    """Answers as fast as a real agent would, which depends on what the seat holds: at
    once with one distinct option or as a Liberal voting, after `slow` s otherwise."""

    def __init__(self, slow: float) -> None:
        self.slow = slow

    def _delay(self, view: PlayerView) -> float:
        if len(set(view.legal_actions)) == 1:
            return 0.0
        if view.phase is Phase.VOTE and view.role is Role.LIBERAL:
            return 0.0
        return self.slow

    async def decide(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = 2.0,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Action]:
        await asyncio.sleep(self._delay(view))
        return Answer(view.legal_actions[-1], spec)

    async def claim(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = 1.0,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Claim | None]:
        claims = view.legal_claims
        honest = view.role is Role.LIBERAL
        await asyncio.sleep(0.0 if honest else self.slow)
        return Answer(claims[0] if claims else None, spec)


class Shown:
    """The session's side: the moment each move was handed over to be shown."""

    def __init__(self) -> None:
        self.at: dict[int, float] = {}
        self.order: list[int] = []

    async def accept(self, seat: int, turn: int, move: Action) -> None:
        self.at[seat] = asyncio.get_running_loop().time()
        self.order.append(seat)


async def _run(coro: Coroutine[Any, Any, None]) -> None:
    await coro


def seats_of(
    port: RevealingPort, shown: Shown, *, pace: float = PACE, people: bool = True
) -> AISeats:
    return AISeats(
        1,
        port,
        game_seed=7,
        budget_s=BUDGET,
        pace_s=pace,
        timers=Timers.off(),
        accept=shown.accept,
        guard=_run,
        wake=lambda: None,
        people=lambda: people,
    )


def deck(top: list[Policy]) -> list[Policy]:
    """The 17 tiles (6 Liberal, 11 Fascist) with `top` drawn first."""
    rest = [Policy.LIBERAL] * (6 - top.count(Policy.LIBERAL))
    rest += [Policy.FASCIST] * (11 - top.count(Policy.FASCIST))
    return [*top, *rest]


def president_holding(hand: list[Policy]) -> PlayerView:
    """The president's view in the discard phase of a 5-player game, holding `hand`."""
    game = Game(5, chance=FixedChance([L, F, H, L, L], 0, deck(hand)))
    game.apply(game.legal_actions(0)[0])  # nominate
    for seat in range(5):
        game.apply(game.legal_actions(seat)[0])  # Ja
    assert game.phase is Phase.PRESIDENT_DISCARD
    return game.view(0)


async def decide_all(seats: AISeats, views: list[PlayerView]) -> float:
    """Start each view's decision at once and wait for them all; when they started."""
    started = asyncio.get_running_loop().time()
    for view in views:
        assert view.seat is not None
        seats.decide(view.seat, 0, "strong", view)
    await asyncio.wait_for(asyncio.gather(*seats.tasks), 10)
    return started


async def test_a_presidents_discard_shows_at_the_same_moment_whatever_the_hand() -> None:
    F_, L_ = Policy.FASCIST, Policy.LIBERAL
    moments = []
    for hand in ([F_, F_, F_], [F_, L_, F_]):
        view = president_holding(hand)
        shown = Shown()
        started = await decide_all(seats_of(RevealingPort(slow=0.15), shown), [view])
        moments.append(shown.at[0] - started)
    # Three Fascists answer at once, a mixed hand after 0.15 s: both show at the budget.
    assert all(m >= BUDGET - 0.01 for m in moments), moments
    assert abs(moments[0] - moments[1]) < 0.05, moments


class BusyPort(RevealingPort):
    """A loaded AI service: each decision waits `queued` s for a worker, past the
    budget, then a search thinks `think` s more, while a lone option answers at once."""

    def __init__(self, queued: float, think: float) -> None:
        super().__init__(slow=think)
        self.queued = queued

    async def decide(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = 2.0,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Action]:
        await asyncio.sleep(self.queued)
        until = time.monotonic() + self.slow  # what the scheduler let it think to
        await asyncio.sleep(self._delay(view))
        return Answer(view.legal_actions[-1], spec, thought_until=until)


async def test_a_late_start_under_load_does_not_tell_a_lone_option_either() -> None:
    F_, L_ = Policy.FASCIST, Policy.LIBERAL
    moments = []
    for hand in ([F_, F_, F_], [F_, L_, F_]):
        shown = Shown()
        port = BusyPort(queued=BUDGET + 0.05, think=0.15)
        started = await decide_all(seats_of(port, shown), [president_holding(hand)])
        moments.append(shown.at[0] - started)
    # Both started late (after the budget): FFF answered at its start, FLF 0.15 s on;
    # both show when the search could have thought to.
    assert all(m >= BUDGET + 0.05 + 0.15 - 0.01 for m in moments), moments
    assert abs(moments[0] - moments[1]) < 0.05, moments


async def test_ai_ballots_drop_into_the_vote_together_whatever_their_roles() -> None:
    game = Game(5, chance=FixedChance([L, F, H, L, L], 0, deck([])))
    game.apply(game.legal_actions(0)[0])
    assert game.phase is Phase.VOTE
    views = [game.view(seat) for seat in range(5)]
    shown = Shown()
    # The Fascists' ballots come after the budget (a loaded service): the Liberals'
    # must not drop in first.
    started = await decide_all(seats_of(RevealingPort(slow=BUDGET + 0.1), shown), views)
    moments = sorted(shown.at.values())
    assert moments[0] - started >= BUDGET - 0.01, moments
    assert moments[-1] - moments[0] < 0.02, moments
    assert shown.order == [0, 1, 2, 3, 4]  # in seat order, not in the order they came


async def test_an_ai_claim_is_made_at_the_same_moment_whatever_the_role() -> None:
    moments = []
    for roles in ([L, F, H, L, L], [F, L, H, L, L]):  # seat 0 Liberal, then Fascist
        game = Game(5, chance=FixedChance(roles, 0, deck([])))
        while not game.legal_claims(0):
            seat = game.awaiting()[0]
            game.apply(game.legal_actions(seat)[0])
        seats = seats_of(RevealingPort(slow=0.15), Shown())
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.wait_for(seats.claim(0, "strong", game.view(0)), 10)
        moments.append(loop.time() - started)
    assert abs(moments[0] - moments[1]) < 0.05, moments


async def test_unpaced_and_bot_only_tables_show_moves_as_they_come() -> None:
    # Tests and benchmarks (pace 0) wait for nothing; a bot-only game (a demo: nobody
    # plays against the AI) waits for its pace only.
    view = president_holding([Policy.FASCIST] * 3)
    for pace, people in ((0.0, True), (PACE, False)):
        shown = Shown()
        seats = seats_of(RevealingPort(slow=0.15), shown, pace=pace, people=people)
        started = await decide_all(seats, [view])
        assert pace - 0.01 <= shown.at[0] - started < BUDGET / 2
