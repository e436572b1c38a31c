"""The deadlines of a game's prompts, alone (bot.deadlines)."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.deadlines import VISIBLE_SLACK_S, Deadlines, time_left


class Written:
    """A deadline store that remembers what it was asked to write."""

    def __init__(self) -> None:
        self.writes: list[float | None] = []

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        self.writes.append(deadline)


class Shown:
    """A front-end whose messages are shown when the test says so."""

    def __init__(self) -> None:
        self.pending: list[asyncio.Future[float]] = []

    def seen(self) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.pending.append(future)
        return future

    def show(self, at: float) -> None:
        for future in self.pending:
            future.set_result(at)
        self.pending.clear()


def deadlines(
    now: list[float],
    resumed: float | None = None,
    resuming: bool = False,
    left: float | None = None,
) -> tuple[Deadlines, Written, Shown]:
    store, shown = Written(), Shown()
    clock = Deadlines(
        7,
        store=store,
        shown=shown,
        lock=asyncio.Lock(),
        grace=30.0,
        clock=lambda: now[0],
        steady=lambda: now[0],  # no step of the wall clock here: time passes on both
        resumed=resumed,
        resuming=resuming,
        left=left,
    )
    return clock, store, shown


async def test_a_deadline_is_the_timer_from_now_and_none_without_a_timer() -> None:
    now = [1000.0]
    clock, _, _ = deadlines(now)
    assert clock.next(60.0) == 1060.0
    assert clock.next(None) is None
    assert clock.remaining(1060.0) == 60.0
    now[0] = 2000.0
    assert clock.remaining(1060.0) == 0.0  # never negative
    assert clock.remaining(None) is None


async def test_after_a_restart_the_running_deadline_holds_with_a_grace_period() -> None:
    now = [1000.0]
    clock, _, _ = deadlines(now, resumed=1100.0, resuming=True)
    assert clock.next(60.0) == 1100.0  # the stored one: later than now + grace
    clock, _, _ = deadlines(now, resumed=1010.0, resuming=True)
    assert clock.next(60.0) == 1030.0  # nearly over when the bot went down: the grace
    assert clock.next(60.0) == 1060.0  # only the first decision after the restart


async def test_a_clock_stopped_with_the_game_keeps_its_time_left_across_the_downtime() -> None:
    """A clean stop (a deploy) or a pause stops the clock: however long the game is not
    driven, the resumed decision gets the time that was left (the grace at least)."""
    now = [1000.0]
    clock, _, _ = deadlines(now)
    await clock.store(1090.0)
    now[0] = 1010.0
    assert clock.stop_clock()
    assert clock.stopped == {"deadline": 1090.0, "left": 80.0}
    now[0] = 1050.0
    assert not clock.stop_clock()  # a paused game stopped again later: the pause's holds
    assert clock.stopped == {"deadline": 1090.0, "left": 80.0}

    now[0] = 9000.0  # hours later
    resumed, _, _ = deadlines(now, resumed=1090.0, resuming=True, left=80.0)
    assert resumed.stopped == {"deadline": 1090.0, "left": 80.0}  # until a new deadline
    assert resumed.next(90.0) == 9080.0
    await resumed.store(9080.0)
    assert resumed.stopped is None  # the clock runs again
    short, _, _ = deadlines(now, resumed=1090.0, resuming=True, left=5.0)
    assert short.next(90.0) == 9030.0  # the grace at least: the prompt is shown anew
    # Never more than the decision's whole timer (a damaged row may say a day).
    long, _, _ = deadlines(now, resumed=1090.0, resuming=True, left=80_000.0)
    assert long.next(90.0) == 9090.0


async def test_a_clock_stopped_before_its_prompt_was_seen_keeps_the_whole_timer() -> None:
    """A stop while the front-end still has not shown the prompt (Discord rate-limited):
    the player never saw it, so none of the time since it was queued is theirs to lose.
    Before, the stop charged them that time."""
    now = [1000.0]
    clock, _, shown = deadlines(now)
    await clock.store(1090.0)
    seen = clock.watch(lambda: None)
    now[0] = 1030.0
    assert clock.stop_clock()
    assert clock.stopped == {"deadline": 1090.0, "left": 90.0}
    assert not seen.done()

    clock, _, shown = deadlines(now)
    await clock.store(1120.0)
    seen = clock.watch(lambda: None)
    shown.show(time.monotonic())  # seen at once: the clock ran from then
    await asyncio.sleep(0)
    now[0] = 1050.0
    assert clock.stop_clock()
    assert clock.stopped == {"deadline": 1120.0, "left": 70.0}


async def test_a_clock_stops_only_while_a_deadline_runs() -> None:
    now = [1000.0]
    clock, _, _ = deadlines(now)
    assert not clock.stop_clock()  # nobody's clock runs (an AI's turn, an untimed game)
    assert clock.stopped is None
    await clock.store(990.0)
    assert clock.stop_clock()  # already passed: nothing left, the grace comes on resume
    assert clock.stopped == {"deadline": 990.0, "left": 0.0}


async def test_a_deadline_is_stored_only_when_it_changes() -> None:
    clock, store, _ = deadlines([0.0])
    await clock.store(50.0)
    await clock.store(50.0)
    await clock.store(None)
    assert store.writes == [50.0, None]
    assert clock.stored is None


async def test_the_clock_starts_when_the_prompt_is_shown() -> None:
    clock, store, shown = deadlines([0.0])
    await clock.store(100.0)  # the prompt's deadline, stored as it is asked
    woken: list[bool] = []
    seen = clock.watch(lambda: woken.append(True))
    assert clock.unseen(seen)
    shown.show(time.monotonic() + 5.0)  # shown five seconds after it was queued
    await asyncio.sleep(0)
    assert woken == [True] and not seen.cancelled()
    moved = await clock.from_seen(seen, 100.0)
    assert moved is not None and 104.9 < moved < 105.5
    assert store.writes == [100.0, moved]


async def test_a_prompt_shown_at_once_keeps_its_deadline() -> None:
    clock, store, shown = deadlines([0.0])
    seen = clock.watch(lambda: None)
    shown.show(time.monotonic() + VISIBLE_SLACK_S / 2)
    assert await clock.from_seen(seen, 100.0) == 100.0
    assert store.writes == []


async def test_a_deadline_cleared_while_it_was_being_moved_stays_cleared() -> None:
    # The prompt is shown late, and storing the moved deadline waits for the session's
    # lock: an answer holds it, and that answer ends the decision and clears the deadline
    # (`GameSession._accept`). The moved deadline belongs to a decision that is over:
    # stored, a restart would hand it to the next decision (the grace period of a
    # long-past deadline instead of that decision's whole timer).
    lock = asyncio.Lock()
    store, shown = Written(), Shown()
    clock = Deadlines(7, store=store, shown=shown, lock=lock, grace=30.0, clock=lambda: 0.0)
    await clock.store(100.0)
    seen = clock.watch(lambda: None)
    shown.show(time.monotonic() + 5.0)
    async with lock:  # the answer, being stored
        moving = asyncio.create_task(clock.from_seen(seen, 100.0))
        await asyncio.sleep(0.01)
        clock.forget()  # stored with the action that ended the decision
    moved = await moving
    assert store.writes == [100.0] and clock.stored is None
    assert moved == 100.0  # nothing moved: the decision is over


async def test_after_a_restart_a_cleared_deadline_is_not_resumed() -> None:
    # The prompts the stored deadline timed ended before the next ones were asked (a
    # claim window whose seats all went to an AI): those get their whole timer.
    now = [1000.0]
    clock, store, _ = deadlines(now, resumed=1010.0, resuming=True)
    await clock.store(None)
    assert clock.next(60.0) == 1060.0
    assert store.writes == [None]


@pytest.mark.parametrize(
    "stored",
    [{"deadline": 1090.0, "left": "80"}, {"deadline": 1090.0, "left": True}, [1090.0, 80.0]]
    + [{"deadline": 1090.0, "left": x} for x in (float("nan"), -1.0, 1e9)]
    + [{"left": 80.0}]
    + [{"deadline": x, "left": 80.0} for x in (10**400, True, float("inf"), "1090")],
    ids=[
        *("text", "bool", "list", "nan", "negative", "absurd", "no deadline"),
        *("deadline of 400 digits", "deadline true", "deadline infinite", "deadline text"),
    ],
)
def test_a_stored_stopped_clock_that_does_not_read_is_read_as_running(
    stored: object, caplog: pytest.LogCaptureFixture
) -> None:
    """A damaged row: the stored deadline holds (a grace at least), with a warning that
    names the game, never the value."""
    assert time_left(7, stored, 1090.0) is None
    assert [r.getMessage() for r in caplog.records] == [
        "game 7: the stored stopped clock does not read; read as running"
    ]


def test_a_stopped_clock_counts_only_for_its_own_deadline() -> None:
    stopped = {"deadline": 1090.0, "left": 80.0}
    assert time_left(7, stopped, 1090.0) == 80.0
    assert time_left(7, stopped, 2000.0) is None  # a later deadline was stored: it runs
    assert time_left(7, None, 1090.0) is None  # the bot was killed: nothing stopped
    assert time_left(7, stopped, None) is None  # no deadline at all


async def test_the_running_deadline_counts_down_on_the_steady_clock() -> None:
    """A step of the wall clock moves neither the time left on the running deadline
    nor the time a stop keeps; the stored deadline stays wall time."""
    wall, steady = [1000.0], [50.0]
    store, shown = Written(), Shown()
    clock = Deadlines(
        7,
        store=store,
        shown=shown,
        lock=asyncio.Lock(),
        grace=30.0,
        clock=lambda: wall[0],
        steady=lambda: steady[0],
    )
    deadline = clock.next(90.0)
    assert deadline == 1090.0
    await clock.store(deadline)
    wall[0] -= 3600.0  # stepped back an hour
    steady[0] += 10.0
    assert clock.remaining(deadline) == 80.0
    wall[0] += 7200.0  # and forward two
    assert clock.remaining(deadline) == 80.0
    assert clock.remaining(wall[0] + 5.0) == 5.0  # another deadline: on the wall clock
    assert clock.stop_clock() and clock.stopped == {"deadline": 1090.0, "left": 80.0}
    await clock.store(None)
    assert clock.remaining(deadline) == 0.0  # no longer running: read on the wall clock
