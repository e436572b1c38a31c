"""A round of claims, alone (bot.claims_round): no session, fake ports, a real game."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from bot.claim_windows import ClaimWindows
from bot.claims_round import ClaimsPorts, ClaimsRound
from bot.deadlines import VISIBLE_SLACK_S, Deadlines
from bot.notices import CLAIM_WINDOW_CLOSED as CLOSED
from engine import Game

from .conftest import until

TURN = 5  # the decision the round belongs to


def after_a_session() -> Game:
    """A game right after its first legislative session: seats 4 (president) and 0
    (chancellor) may claim; nobody else may."""
    game = Game(5, seed=3)
    while not any(game.legal_claims(s) for s in range(game.players)):
        seat = game.awaiting()[0]
        game.apply(game.view(seat).legal_actions[0])
    assert [s for s in range(game.players) if game.legal_claims(s)] == [0, 4]
    return game


class Session:
    """The session's side of a round: its AI seats, the prompts it shows, its saves."""

    def __init__(self, ai: set[int]) -> None:
        self.ai = ai
        self.turn = TURN
        self.asked: list[int] = []  # AI seats asked for a claim, in order
        self.open: set[int] = set()  # humans whose claim prompt is open
        self.issued: list[int] = []
        self.closed: list[tuple[int, str]] = []
        self.saves = 0
        self.failed = False
        self.on_save: Callable[[], None] = lambda: None  # a test looks at the save

    def ports(self) -> ClaimsPorts:
        return ClaimsPorts(
            is_ai=lambda seat: seat in self.ai,
            ai_claim=self.ai_claim,
            issue=self.issue,
            is_open=lambda seat: seat in self.open,
            close=self.close,
            turn=lambda: self.turn,
            check=self.check,
            save=self.save,
        )

    async def ai_claim(self, seat: int) -> None:
        self.asked.append(seat)

    def issue(self, seat: int) -> None:
        self.issued.append(seat)
        self.open.add(seat)

    def close(self, seat: int, reason: str) -> None:
        self.open.discard(seat)
        self.closed.append((seat, reason))

    def check(self) -> None:
        if self.failed:
            raise RuntimeError("the session stopped")

    async def save(self) -> None:
        self.saves += 1
        self.on_save()


class Written:
    """A deadline store that remembers what it was asked to write."""

    def __init__(self) -> None:
        self.writes: list[float | None] = []

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        self.writes.append(deadline)


class Shown:
    """A front-end that shows everything at once, or only when the test says so."""

    def __init__(self, *, at_once: bool = True) -> None:
        self.at_once = at_once
        self.pending: list[asyncio.Future[float]] = []

    def seen(self) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if self.at_once:
            future.set_result(time.monotonic())
        else:
            self.pending.append(future)
        return future

    def show(self) -> None:
        for future in self.pending:
            future.set_result(time.monotonic())
        self.pending.clear()


class Round:
    """A claims round with its windows, clock and wake-up event, ready to run."""

    def __init__(
        self,
        session: Session,
        *,
        pending: set[int],
        limit: float | None,
        shown: Shown,
        resumed: float | None = None,  # the deadline stored before a restart
    ) -> None:
        self.game = after_a_session()
        self.session = session
        self.windows = ClaimWindows(TURN, pending=set(pending))
        self.store = Written()
        self.changed = asyncio.Event()
        self.lock = lock = asyncio.Lock()  # the session's
        self.clock = clock = Deadlines(
            1,
            store=self.store,
            shown=shown,
            lock=lock,
            grace=30.0,
            resumed=resumed,
            resuming=resumed is not None,
        )
        self.round = ClaimsRound(
            self.game,
            self.windows,
            clock,
            session.ports(),
            limit=limit,
            changed=self.changed,
            lock=lock,
            look_again_s=0.05,
        )

    def start(self) -> asyncio.Task[None]:
        return asyncio.create_task(self.round.run())


async def settle(task: asyncio.Task[None], seconds: float = 0.1) -> None:
    """Let the round run a little; it must still be waiting."""
    await asyncio.sleep(seconds)
    assert not task.done()


async def test_ai_seats_claim_at_once_in_seat_order_and_no_window_opens() -> None:
    session = Session(ai={0, 4})
    r = Round(session, pending={4, 2, 0}, limit=30.0, shown=Shown())  # seat 2 has no claim
    await asyncio.wait_for(r.start(), 5)
    assert session.asked == [0, 4]
    assert session.issued == [] and session.closed == []
    assert r.store.writes == []  # no human window: no deadline
    assert r.windows.pending == set() and r.windows.open_seats == set()


async def test_humans_get_a_prompt_and_the_round_ends_once_they_all_answered() -> None:
    session = Session(ai={4})
    r = Round(session, pending={0, 4}, limit=None, shown=Shown())  # an untimed table
    task = r.start()
    await settle(task)
    assert session.asked == [4] and session.issued == [0]
    assert r.windows.open_seats == {0} and r.windows.deadline is None
    session.open.discard(0)  # seat 0 answered (a claim, or "say nothing")
    r.changed.set()
    await asyncio.wait_for(task, 5)
    assert session.closed == [(0, CLOSED)]  # the session withdraws it if it is still open
    assert r.windows.turn == TURN and r.windows.closed == {0, 4}  # stored as over
    assert r.windows.open_seats == set() and r.windows.deadline is None
    assert session.saves == 1


async def test_the_window_closes_when_its_deadline_passes() -> None:
    session = Session(ai=set())
    r = Round(session, pending={0, 4}, limit=0.2, shown=Shown())
    before = time.time()
    task = r.start()
    await settle(task, 0.05)
    assert session.issued == [0, 4]
    [deadline] = r.store.writes  # stored: a restart resumes the window
    assert deadline is not None and before + 0.2 <= deadline <= time.time() + 0.2
    assert r.windows.deadline == deadline  # the humans' prompts show it
    await asyncio.wait_for(task, 5)  # nobody answered
    assert time.time() >= deadline
    assert session.closed == [(0, CLOSED), (4, CLOSED)]
    assert r.windows.closed == {0, 4} and session.saves == 1
    assert r.store.writes == [deadline, None]  # over with its window


async def test_the_round_ends_when_the_game_moves_on_and_closes_at_the_new_decision() -> None:
    session = Session(ai=set())
    r = Round(session, pending={0, 4}, limit=None, shown=Shown())
    task = r.start()
    await settle(task)
    session.turn = TURN + 1  # e.g. the next president nominated meanwhile
    r.changed.set()
    await asyncio.wait_for(task, 5)
    assert session.closed == [(0, CLOSED), (4, CLOSED)]
    assert r.windows.turn == TURN + 1 and r.windows.closed == {0, 4}


async def unseen_past_its_deadline(
    late: float,
) -> tuple[Session, Shown, Round, asyncio.Task[None], float]:
    """A round whose one prompt is still not shown `late` seconds after its window
    opened (with a 0.1 s limit): (session, shown, round, task, the first deadline)."""
    session = Session(ai=set())
    shown = Shown(at_once=False)
    r = Round(session, pending={0}, limit=0.1, shown=shown)
    task = r.start()
    # The window opens and its clock watches the prompt in the same step (no await
    # between): from here the prompt is at least `late` seconds late, however slowly a
    # loaded machine got the round this far.
    await until(lambda: bool(session.issued))
    await settle(task, late)  # long past the deadline, but nobody has seen the prompt
    assert session.closed == []
    [first] = r.store.writes
    assert first is not None
    return session, shown, r, task, first


async def test_the_window_waits_for_its_prompts_to_be_shown() -> None:
    # A slow front-end: the window's clock starts when the table can see the prompts.
    late = VISIBLE_SLACK_S + 0.2
    session, shown, r, task, first = await unseen_past_its_deadline(late)
    shown.show()
    # The round moves the deadline by how late the prompt was shown.
    await until(lambda: r.windows.deadline != first)
    moved = r.store.writes[-1]
    assert moved is not None and moved >= first + late
    assert r.windows.deadline == moved
    assert not task.done()
    await asyncio.wait_for(task, 5)
    assert session.closed == [(0, CLOSED)]


async def test_a_failed_session_stops_the_round_without_storing_it() -> None:
    session = Session(ai=set())
    r = Round(session, pending={0}, limit=None, shown=Shown())
    task = r.start()
    await settle(task)
    session.failed = True  # e.g. an action was not stored: the game task pauses the game
    r.changed.set()
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(task, 5)
    assert session.saves == 0 and r.windows.closed == set()


async def test_a_prompt_shown_as_the_round_looks_again_still_moves_the_deadline() -> None:
    # A loaded machine: the event loop comes back late, so the prompt is shown in the
    # same turn as the round's look-again timer fires. The window must still move its
    # deadline, not close at once on the deadline that ran while nobody saw the prompt.
    session, shown, r, task, first = await unseen_past_its_deadline(VISIBLE_SLACK_S + 0.2)
    time.sleep(0.1)  # the loop is late: the round's look-again timer (0.05 s) is past
    shown.show()
    await until(lambda: r.windows.deadline != first)
    assert r.windows.deadline is not None and r.windows.deadline > first
    assert session.closed == []
    await asyncio.wait_for(task, 5)
    assert session.closed == [(0, CLOSED)]


async def test_an_answer_stored_while_the_deadline_moves_ends_the_round_at_once() -> None:
    # The prompt is shown late, so the round stores a moved deadline; the member's claim
    # is being stored meanwhile (the lock is theirs). Its wake-up must not be lost: the
    # round ends now, not when the moved 30-second window runs out.
    session = Session(ai=set())
    shown = Shown(at_once=False)
    r = Round(session, pending={0}, limit=30.0, shown=shown)
    task = r.start()
    await until(lambda: bool(session.issued))
    await settle(task, VISIBLE_SLACK_S + 0.2)

    async def claim() -> None:
        async with r.lock:  # as the session stores a claim
            shown.show()  # the table sees the prompt as the member answers it
            await asyncio.sleep(0.2)
            session.open.discard(0)
            r.changed.set()

    await claim()
    await asyncio.wait_for(task, 5)
    assert session.closed == [(0, CLOSED)]
    # The first deadline, the moved one, then none once the round is over.
    assert len(r.store.writes) == 3 and r.store.writes[-1] is None


async def test_a_round_clears_its_deadline_before_its_windows_are_stored_as_over() -> None:
    # Once the windows are stored as over, a restart goes on with the next decision: the
    # window's deadline must be gone by then, or that decision resumes it (the grace
    # period of a long-past window instead of its whole timer, and missing it counts as
    # a timeout).
    session = Session(ai=set())
    r = Round(session, pending={0, 4}, limit=30.0, shown=Shown())
    stored_at_save: list[float | None] = []
    session.on_save = lambda: stored_at_save.append(r.clock.stored)
    task = r.start()
    await settle(task)
    [deadline] = r.store.writes
    session.open.clear()  # both answered
    r.changed.set()
    await asyncio.wait_for(task, 5)
    assert stored_at_save == [None]
    assert r.store.writes == [deadline, None]


async def test_a_resumed_round_left_with_no_human_clears_the_windows_deadline() -> None:
    # A restart in a claim window whose seats have all gone to an AI since (/afk): the
    # AI seats claim at once, no window opens, and the window's stored deadline is not
    # the next decision's to resume.
    session = Session(ai={0, 4})
    r = Round(session, pending={0, 4}, limit=30.0, shown=Shown(), resumed=time.time() + 10)
    await asyncio.wait_for(r.start(), 5)
    assert session.asked == [0, 4] and session.issued == []
    assert r.store.writes == [None] and r.clock.stored is None
    full = r.clock.next(120.0)  # the next decision's
    assert full is not None and full > time.time() + 100
