"""Absent players: timers, one-off AI decisions, takeover for good, /afk and /back.

Timers are tiny (tens of milliseconds); no assertion depends on how long anything took.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import pytest

from agents.base import Answer
from bot.agent_port import DEFAULT_BUDGET_S, InProcessAgents
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.ports import AIControlsSeat, Prompt, PromptKind, Table
from bot.session import GameSession, SessionOptions
from bot.storage import Storage
from bot.timers import Timers
from engine import Action, Claim, Nominate, Phase, PlayerView, Vote

from .conftest import UNTIMED, members, until

TINY = SessionOptions(
    timers=Timers(
        nominate=0.03, vote=0.03, policy=0.03, power=0.03, claim=0.01, max_expiries=2, grace=0.03
    ),
    substitute="selfish",
    suspicion=False,
)


class ShownLate(FakeFrontend):
    """A front-end that takes a second to show each prompt (Discord retrying, a rate
    limit), then `settle` seconds more before the prompt counts as shown."""

    settle = 0.0

    async def ask(self, table: Table, prompt: Prompt) -> None:
        await asyncio.sleep(1.0)
        await super().ask(table, prompt)
        if self.settle:
            await asyncio.sleep(self.settle)


async def test_absent_players_are_covered_once_then_replaced(session_store: Storage) -> None:
    fake = FakeFrontend()  # nobody ever answers
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(2), players=5, fill_with_ai=True, seed=2, options=TINY)
    await asyncio.wait_for(session.run(), 60)
    gid = session.game_id
    assert session.game.is_over
    text = "\n".join(fake.public_text(gid))
    for seat in (0, 1):
        label = session.table.seats[seat].label
        assert f"{label} ran out of time: an AI decides for them this time." in text
        assert f"{label} ran out of time 2 times in a row: an AI plays for them" in text
        assert session.seats[seat].agent == "selfish"
        assert session.seats[seat].user_id == 100 + seat  # still their seat, for stats
    history = await session_store.seat_history(gid)
    assert {(h.seat, h.reason, h.to_agent) for h in history} == {
        (0, "absent", "selfish"),
        (1, "absent", "selfish"),
    }
    stored = await session_store.load_game(gid)
    assert [s.agent for s in stored.seats[:2]] == ["selfish", "selfish"]
    reasons = {reason for _, reason in fake.of(gid, "withdraw")}
    assert "Time is up: an AI decides for you this time." in reasons
    assert all(a.seat >= 2 or not isinstance(a, Claim) for a in session.game.actions)


async def test_a_player_who_is_back_decides_again(session_store: Storage) -> None:
    present = False

    def player(prompt: Prompt) -> int | None:
        return scripted(prompt) if present else None

    fake = FakeFrontend(answer=player)
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(1), players=5, fill_with_ai=True, seed=6, options=TINY)
    await asyncio.wait_for(until(lambda: session.seats[0].is_ai), 30)
    with pytest.raises(AIControlsSeat, match="/back"):
        game = session.game
        await session.submit(0, Nominate(0, 1))
    assert "already plays for you" in await session.afk(100)

    present = True
    mark = len(game.actions)
    assert "Welcome back" in await session.back(100)
    assert not session.seats[0].is_ai
    await asyncio.wait_for(session.run(), 60)
    # Seat 0 decided through its own prompts after coming back.
    later = [a for a in game.actions[mark:] if a.seat == 0 and not isinstance(a, Claim)]
    assert later
    reasons = [h.reason for h in await session_store.seat_history(session.game_id)]
    assert reasons == ["absent", "back"]


async def test_afk_hands_the_pending_decision_to_an_agent_at_once(session_store: Storage) -> None:
    fake = FakeFrontend()  # the humans never answer, and there are no timers
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(5), seed=9, options=UNTIMED)
    game = session.game
    president = game.president
    await until(lambda: bool(session.open_prompts(president)))
    await asyncio.sleep(0.05)
    assert not game.actions  # untimed: the game waits for its human
    reply = await session.afk(100 + president)
    assert "until you type /back" in reply
    await until(lambda: bool(game.actions))
    assert isinstance(game.actions[0], Nominate) and game.actions[0].seat == president
    assert "stepped away" in "\n".join(fake.public_text(session.game_id))
    await session.stop()


async def test_empty_seats_are_filled_only_on_request(session_store: Storage) -> None:
    manager = SessionManager(session_store, FakeFrontend())
    with pytest.raises(ValueError, match="2 seats are empty"):
        await manager.create(members(3), players=5, options=UNTIMED)
    session = await manager.create(members(3), players=5, fill_with_ai=True, options=UNTIMED)
    assert [s.is_ai for s in session.seats] == [False, False, False, True, True]
    assert all(s.name.endswith("(AI)") for s in session.seats[3:])
    await session.stop()


async def test_a_timeout_streak_survives_a_restart(db_dir: Path) -> None:
    # The clock stands still, so each timer still runs its own length in real time, and
    # moving it on between runs makes the stored vote deadline pass while the bot is down
    # (killed: a clean stop would stop the clock with the time left).
    now = [1_000_000.0]
    timers = Timers(
        nominate=0.03, vote=1000, policy=1000, power=1000, claim=1000, max_expiries=2, grace=0.03
    )
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    path = db_dir / "streak.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(), clock=lambda: now[0])  # nobody answers
    session = await manager.create(members(5), seed=3, options=options)
    president = session.game.president
    # The nomination timed out; wait until the vote is asked (its deadline is stored first).
    await until(lambda: all(session.open_prompts(seat) for seat in range(5)))
    assert session.game.phase is Phase.VOTE
    assert session.state()["expiries"] == {str(president): 1}
    for _ in range(100):  # stored with the expiry, in the same burst of writes
        if (await store.load_game(session.game_id)).session_state["expiries"]:
            break
        await asyncio.sleep(0.01)
    assert (await store.load_game(session.game_id)).session_state["expiries"] == {str(president): 1}
    await store.close()  # kill -9: nothing more is written
    with contextlib.suppress(Exception):
        await manager.shutdown()

    now[0] += 2000
    store = await Storage.open(path)
    fake = FakeFrontend()
    restarted = SessionManager(store, fake, clock=lambda: now[0])
    [resumed] = await restarted.recover()
    # The missed vote is the president's second deadline in a row: the seat is handed
    # over, while every other voter has missed only one. (The notice goes out through
    # the outbound queue after the hand-over, so wait for it rather than read at once.)
    label = resumed.table.seats[president].label
    notice = f"{label} ran out of time 2 times in a row"
    await until(lambda: any(notice in text for text in fake.public_text(resumed.game_id)))
    assert resumed.seats[president].is_ai
    assert [s.is_ai for s in resumed.seats].count(True) == 1
    await restarted.shutdown()
    await store.close()


async def test_claim_windows_already_closed_are_not_reopened_by_a_restart(
    db_dir: Path,
) -> None:
    def acts_but_never_claims(prompt: Prompt) -> int | None:
        return None if prompt.kind is PromptKind.CLAIM else scripted(prompt)

    path = db_dir / "claims.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(answer=acts_but_never_claims))
    session = await manager.create(members(5), seed=4, options=UNTIMED)  # no claim deadline

    def claimants(s: GameSession) -> list[int]:
        return sorted(
            p for p in range(5) if any(q.kind is PromptKind.CLAIM for q in s.open_prompts(p))
        )

    await until(lambda: len(claimants(session)) == 2)  # president and chancellor
    president, chancellor = claimants(session)
    [prompt] = session.open_prompts(president)
    assert prompt.options[-1].action is None  # "Say nothing"
    await session.choose(100 + president, prompt.id, len(prompt.options) - 1)
    actions = len(session.game.actions)
    await manager.shutdown()
    await store.close()

    # Restart 1: only the chancellor may still claim; the president said nothing.
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(answer=acts_but_never_claims))
    [resumed] = await manager.recover()
    await until(lambda: bool(claimants(resumed)))
    await asyncio.sleep(0.02)
    assert claimants(resumed) == [chancellor]
    [prompt] = resumed.open_prompts(chancellor)
    await resumed.choose(100 + chancellor, prompt.id, len(prompt.options) - 1)
    # The window is over: the game moves on to its next decision.
    await until(lambda: any(resumed.open_prompts(p) for p in range(5)))
    assert len(resumed.game.actions) == actions
    await manager.shutdown()
    await store.close()

    # Restart 2: nobody is asked to claim again; the next decision is asked at once.
    store = await Storage.open(path)
    fake = FakeFrontend()
    manager = SessionManager(store, fake)
    [resumed] = await manager.recover()
    await until(lambda: bool(fake.prompts(resumed.game_id)))
    await asyncio.sleep(0.02)
    assert all(p.kind is PromptKind.ACTION for p in fake.prompts(resumed.game_id))
    await manager.shutdown()
    await store.close()


async def test_a_players_clock_starts_when_their_prompt_is_shown(session_store: Storage) -> None:
    """A front-end that takes a second to show each prompt (Discord retrying, a rate
    limit) must not eat a 0.6-second clock: the deadline moves by the delay (issue 18,
    item 12). The member answers the moment the prompt is shown."""

    fast = Timers(nominate=0.6, vote=0.6, policy=0.6, power=0.6, claim=0.6, grace=0.6)
    options = SessionOptions(timers=fast, substitute="selfish", suspicion=False)
    fake = ShownLate(answer=scripted)
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(1), players=5, fill_with_ai=True, options=options)
    await until(lambda: len(fake.prompts(session.game_id, 0)) >= 3, timeout=30)
    await session.cancel("enough")
    closed = [reason for _, reason in fake.of(session.game_id, "withdraw")]
    assert not [r for r in closed if r.startswith("Time is up")], closed
    assert session.fallbacks == 0


async def test_an_answer_stored_while_the_clock_moves_is_not_missed(
    session_store: Storage,
) -> None:
    """A prompt shown late moves the deadline, and storing the moved deadline waits for
    the session's lock. A member who answers the moment the prompt is shown holds that
    lock first: the game must see the answer at once, not after the next supervision
    round (`SUPERVISE_EVERY_S`, 30 s) or the rest of a long timer."""

    store_action = session_store.append_action

    async def slow_store(game_id: int, index: int, action: Action, **how: Any) -> None:
        await asyncio.sleep(0.3)  # a busy disk: the answer holds the lock a while
        await store_action(game_id, index, action, **how)

    session_store.append_action = slow_store  # type: ignore[method-assign]
    long = Timers(nominate=120, vote=120, policy=120, power=120, claim=120, grace=120)
    options = SessionOptions(timers=long, substitute="selfish", suspicion=False)
    fake = ShownLate(answer=scripted)
    fake.settle = 0.05  # the answer is being stored before the prompt counts as shown
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(1), players=5, fill_with_ai=True, options=options)
    # Each prompt takes a second to show and is answered at once: three of them in well
    # under one supervision round, unless an answer was missed.
    await until(lambda: len(fake.prompts(session.game_id, 0)) >= 3, timeout=20)
    await session.cancel("enough")
    assert session.fallbacks == 0


async def test_a_restart_right_after_a_decision_gives_the_next_one_its_whole_timer(
    db_dir: Path,
) -> None:
    """The stored deadline belongs to the decision that stored it. The process stops
    the instant a nomination is stored, before the vote stores its own deadline; it
    comes back long after. The vote nobody has seen yet gets its whole timer, not the
    grace period the nomination's long-past deadline would leave it."""
    from .test_recovery import Freezer

    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    store = await Storage.open(db_dir / "deadline.db")
    freezer = Freezer(store, 0, after_write=True)  # gone once the nomination is stored
    manager = SessionManager(freezer, FakeFrontend(), clock=lambda: now[0])  # type: ignore[arg-type]
    session = await manager.create(members(5), seed=5, options=options)
    president = session.game.president
    await until(lambda: bool(session.open_prompts(president)))
    now[0] += 5
    chancellor = session.game.eligible_chancellors()[0]
    nominating = asyncio.create_task(session.submit(president, Nominate(president, chancellor)))
    await asyncio.wait_for(freezer.frozen.wait(), 10)
    nominating.cancel()
    await session.stop()
    await store.close()

    now[0] += 1000  # down for a quarter of an hour
    store = await Storage.open(db_dir / "deadline.db")
    manager = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
    [resumed] = await manager.recover()
    await until(lambda: bool(resumed.open_prompts(0)))
    [prompt] = resumed.open_prompts(0)
    assert resumed.game.phase is Phase.VOTE and prompt.deadline is not None
    assert prompt.deadline - now[0] == pytest.approx(90, abs=1)
    await manager.shutdown()
    await store.close()


class StopsAt:
    """The real storage, until a deadline write that `stop_at(deadline)` picks: the
    process dies just before it."""

    def __init__(self, store: Storage, stop_at: Callable[[float | None], bool]) -> None:
        self.store = store
        self.stop_at = stop_at
        self.frozen = asyncio.Event()
        self.slow_s = 0.0  # seconds an action or a seat takes to store (a busy disk)

    async def append_action(self, game_id: int, seq: int, action: Action, **how: Any) -> None:
        await asyncio.sleep(self.slow_s)
        await self.store.append_action(game_id, seq, action, **how)

    async def set_seat(self, game_id: int, seat: Any, reason: str) -> None:
        await asyncio.sleep(self.slow_s)
        await self.store.set_seat(game_id, seat, reason)

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        if self.stop_at(deadline):
            self.frozen.set()
            await asyncio.Event().wait()  # the process is gone
        await self.store.set_deadline(game_id, deadline)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def _timer_after_restart(path: Path, now: list[float], down_s: float) -> float:
    """Seconds a human's open prompt gives once the game at `path` resumes, `down_s`
    seconds later (nobody answers)."""
    now[0] += down_s
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
    [resumed] = await manager.recover()

    def prompts() -> list[Prompt]:
        return [p for s in resumed.game.awaiting() for p in resumed.open_prompts(s)]

    await until(lambda: bool(prompts()))
    deadline = prompts()[0].deadline
    await manager.shutdown()
    await store.close()
    assert deadline is not None
    return deadline - now[0]


async def test_a_restart_right_after_a_claim_window_gives_the_next_decision_its_whole_timer(
    db_dir: Path,
) -> None:
    """The claim window's deadline ends with the window. The process stops once the
    window is over, the instant before the next decision stores its own deadline; it
    comes back long after. That decision gets its whole timer, not the grace period the
    window's long-past deadline would leave it."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=120, policy=120, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    path = db_dir / "claims.db"
    store = await Storage.open(path)
    fake = FakeFrontend(answer=scripted)

    def next_decision(deadline: float | None) -> bool:
        asked = [c.payload for calls in fake.calls.values() for c in calls if c.method == "ask"]
        return any(p.kind is PromptKind.CLAIM for p in asked) and deadline == now[0] + 120

    stopping = StopsAt(store, next_decision)
    manager = SessionManager(stopping, fake, clock=lambda: now[0])  # type: ignore[arg-type]
    session = await manager.create(members(5), seed=5, options=options)
    await asyncio.wait_for(stopping.frozen.wait(), 30)
    await session.stop()
    await store.close()

    assert await _timer_after_restart(path, now, 1000) == pytest.approx(120, abs=1)


async def test_a_restart_after_a_late_prompt_was_answered_gives_the_next_decision_its_whole_timer(
    db_dir: Path,
) -> None:
    """A prompt shown late moves its deadline, and storing the moved one waits for the
    session's lock. Another member's /afk holds it, and the president's answer queues
    behind that, ahead of the moved deadline: the answer ends the decision and clears
    the deadline, and the moved one must not be stored after that. The process stops
    before the next decision stores its own deadline and comes back long after: that
    decision gets its whole timer, not the grace period of the answered prompt's."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    path = db_dir / "late.db"
    store = await Storage.open(path)

    stopping = StopsAt(store, lambda deadline: deadline == now[0] + 90)  # the vote's
    stopping.slow_s = 1.5  # the /afk holds the lock from 0.5 s to 2 s
    fake = ShownLate(answer=scripted, delay=0.5)  # shown at 1 s, answered at 1.5 s
    manager = SessionManager(stopping, fake, clock=lambda: now[0])  # type: ignore[arg-type]
    session = await manager.create(members(5), seed=5, options=options)
    president = session.game.president
    await until(lambda: bool(session.open_prompts(president)))
    await asyncio.sleep(0.5)
    other = (president + 1) % 5
    await session.afk(100 + other)
    await asyncio.wait_for(stopping.frozen.wait(), 30)
    assert session.game.phase is Phase.VOTE
    await session.stop()
    await store.close()

    assert await _timer_after_restart(path, now, 1000) == pytest.approx(90, abs=1)


class BusyAI(InProcessAgents):
    """The real agents behind an AI service too busy to answer: every decision waits
    until the process is gone (`asked` counts them)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    async def decide(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = DEFAULT_BUDGET_S,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Action]:
        self.asked += 1
        await asyncio.Event().wait()
        raise AssertionError("never answers")


async def _timed_out_while_the_ai_is_busy(path: Path, now: list[float]) -> tuple[int, int]:
    """A game at `path` whose president let the nomination time out; the process dies
    while the stand-in AI is still deciding. Returns the game's id and the president."""
    timers = Timers(
        nominate=0.05, vote=0.05, policy=0.05, power=0.05, claim=0.05, max_expiries=2, grace=0.05
    )
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    store = await Storage.open(path)
    busy = BusyAI()
    manager = SessionManager(store, FakeFrontend(), busy, clock=lambda: now[0])
    session = await manager.create(members(5), seed=3, options=options)
    president = session.game.president
    await until(lambda: busy.asked == 1)
    stored = {str(president): 1}
    while (await store.load_game(session.game_id)).session_state.get("expiries") != stored:
        await asyncio.sleep(0.01)  # the streak and the stand-in are one write
    await manager.shutdown()
    await store.close()
    return session.game_id, president


async def test_a_stand_in_under_way_survives_a_restart(db_dir: Path) -> None:
    """The table was told an AI decides for the president who timed out. The process
    dies while that AI is still thinking: after the restart the AI decides, the
    president is not asked again (a second, whole timer) nor counted absent twice."""
    now = [1_000_000.0]
    path = db_dir / "stand-in.db"
    gid, president = await _timed_out_while_the_ai_is_busy(path, now)

    now[0] += 60
    store = await Storage.open(path)
    fake = FakeFrontend(answer=scripted)  # everyone is back, and answers at once
    manager = SessionManager(store, fake, clock=lambda: now[0])
    [resumed] = await manager.recover()
    await until(lambda: bool(fake.prompts(gid, president)))
    nomination = resumed.game.actions[0]
    assert isinstance(nomination, Nominate) and nomination.seat == president
    # The president's first prompt is their ballot: never the nomination again.
    [first] = fake.prompts(gid, president)[:1]
    assert not any(isinstance(option.action, Nominate) for option in first.options)
    assert not resumed.seats[president].is_ai
    assert "2 times in a row" not in "\n".join(fake.public_text(gid))
    await manager.shutdown()
    await store.close()


@pytest.mark.parametrize(
    ("stored", "warned"),
    [
        (None, False),  # stored before stand-ins were: none pending
        ({"turn": 7, "seats": "president"}, False),  # another decision's: over
        ("garbage", True),
        ({"turn": 0, "seats": ["president"]}, True),
        ({"turn": "0", "seats": "president"}, True),
    ],
)
async def test_stand_ins_stored_for_another_decision_or_unreadable_are_none(
    db_dir: Path, caplog: pytest.LogCaptureFixture, stored: Any, warned: bool
) -> None:
    """Only the stand-ins stored for the decision the game stands at are started again;
    a stored value that does not read is none (a warning), never a failed resume."""
    now = [1_000_000.0]
    path = db_dir / "stand-in.db"
    gid, president = await _timed_out_while_the_ai_is_busy(path, now)
    store = await Storage.open(path)
    state = dict((await store.load_game(gid)).session_state)
    assert state["stand_ins"] == {"turn": 0, "seats": [president]}
    if stored is None:
        del state["stand_ins"]
    elif isinstance(stored, dict) and stored["seats"] == "president":
        state["stand_ins"] = {**stored, "seats": [president]}
    else:
        state["stand_ins"] = stored
    await store.set_session_state(gid, state)
    await store.close()

    store = await Storage.open(path)
    fake = FakeFrontend()
    manager = SessionManager(store, fake, BusyAI(), clock=lambda: now[0])
    assert len(await manager.recover()) == 1
    await until(lambda: bool(fake.prompts(gid, president)))
    [prompt] = fake.prompts(gid, president)[:1]
    assert any(isinstance(option.action, Nominate) for option in prompt.options)
    warning = f"game {gid}: the stored stand-ins do not read; read as none"
    assert (warning in caplog.text) is warned
    await manager.shutdown()
    await store.close()


class StopsAfterTheLastAnswer:
    """The real storage, until the answer that closes the last of the two claim windows
    (president and chancellor) is stored: the process dies right after that write,
    before the claims round wakes up."""

    def __init__(self, store: Storage) -> None:
        self.store = store
        self.frozen = asyncio.Event()
        self.claims = 0

    async def append_action(self, game_id: int, seq: int, action: Action, **how: Any) -> None:
        await self.store.append_action(game_id, seq, action, **how)
        self.claims += isinstance(action, Claim)
        if self.claims == 2:
            await self._freeze()

    async def set_session_state(self, game_id: int, state: Any) -> None:
        if self.frozen.is_set():
            return  # the process is gone: nothing more is written
        await self.store.set_session_state(game_id, state)
        if len(state["claims"]["closed"]) == 2:  # both said nothing
            await self._freeze()

    async def _freeze(self) -> None:
        self.frozen.set()
        await asyncio.Event().wait()  # the process is gone

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.mark.parametrize("answer", ["claim", "say nothing"])
async def test_a_restart_right_after_the_last_claim_gives_the_next_decision_its_whole_timer(
    db_dir: Path, answer: str
) -> None:
    """The last open claim window closes with its answer: the same write clears the
    window's deadline. The process dies right after it, before the claims round wakes
    up, and comes back long after: the next decision gets its whole timer, not the
    grace period the window's long-past deadline would leave it."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=120, policy=120, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    path = db_dir / "last-claim.db"
    store = await Storage.open(path)

    def player(prompt: Prompt) -> int:
        if prompt.kind is not PromptKind.CLAIM:
            return scripted(prompt)
        return 0 if answer == "claim" else len(prompt.options) - 1

    stopping = StopsAfterTheLastAnswer(store)
    manager = SessionManager(stopping, FakeFrontend(answer=player), clock=lambda: now[0])  # type: ignore[arg-type]
    session = await manager.create(members(5), seed=5, options=options)
    await asyncio.wait_for(stopping.frozen.wait(), 30)
    await session.stop()
    await store.close()

    assert await _timer_after_restart(path, now, 1000) == pytest.approx(120, abs=1)


def _stepped_clock() -> tuple[Callable[[], float], list[float]]:
    """The wall clock, which an NTP step or a resumed VM can move by `step[0]`."""
    step = [0.0]
    return (lambda: time.time() + step[0]), step


async def _vote_with_one_absent(
    store: Storage, clock: Callable[[], float], vote: float
) -> tuple[SessionManager, GameSession]:
    timers = Timers(nominate=30, vote=vote, policy=30, power=30, claim=5, max_expiries=9, grace=0.1)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    # Time passes on the monotonic clock; the wall clock is stepped by the test.
    manager = SessionManager(store, FakeFrontend(), clock=clock, steady=time.monotonic)
    session = await manager.create(members(5), seed=3, options=options)
    game = session.game
    await until(lambda: bool(session.open_prompts(game.president)))
    await session.submit(game.president, session.open_prompts(game.president)[0].options[0].action)
    await until(lambda: game.phase is Phase.VOTE and all(session.open_prompts(s) for s in range(5)))
    return manager, session


async def test_a_running_vote_timer_ignores_a_wall_clock_step_back(session_store: Storage) -> None:
    """The wall clock stepped back an hour during a 1 s vote: each ballot woke the loop,
    which counted the time left on the wall clock, and the absent voter's timer waited
    for the hour to pass. A running decision is timed on the monotonic clock."""
    clock, step = _stepped_clock()
    manager, session = await _vote_with_one_absent(session_store, clock, vote=1.0)
    step[0] = -3600.0
    for seat in range(4):  # seat 4 is away
        await session.submit(seat, Vote(seat, True))
    try:
        await until(lambda: session.game.phase is not Phase.VOTE, 10)
    finally:
        await manager.shutdown()


async def test_a_running_vote_timer_is_not_cut_by_a_wall_clock_step_forward(
    session_store: Storage,
) -> None:
    """Stepped forward an hour, one ballot woke the loop and every open timer expired
    at once: 1 s into a 30 s vote, stand-ins voted for the absent."""
    clock, step = _stepped_clock()
    manager, session = await _vote_with_one_absent(session_store, clock, vote=30.0)
    step[0] = 3600.0
    await session.submit(0, Vote(0, True))
    await asyncio.sleep(1.0)
    try:
        assert session.game.phase is Phase.VOTE
        assert set(session.game.votes) == {0}, session.game.votes
    finally:
        await manager.shutdown()


async def test_back_during_its_write_as_the_seats_decision_starts_runs_its_timer(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/back held the lock through its seat write while the game asked the seat's next
    decision: it was reckoned an AI's (no timer), then the member, back, got a prompt
    without a timer, which supervision withdrew at once ("nobody on the clock"). The
    decision waits for the seat to settle: the member gets the prompt with its timer."""
    timers = Timers(nominate=30, vote=30, policy=30, power=30, claim=5, max_expiries=2, grace=1)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    fake = FakeFrontend()
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(5), seed=11, options=options, start=False)
    president = session.game.president
    await session.afk(100 + president)  # an AI plays the President's seat
    stored = session_store.set_seat

    async def slow_set_seat(*args: Any, **kwargs: Any) -> None:
        await asyncio.sleep(0.3)  # a busy database
        await stored(*args, **kwargs)

    monkeypatch.setattr(session_store, "set_seat", slow_set_seat)
    back = asyncio.create_task(session.back(100 + president))
    await asyncio.sleep(0.05)  # /back holds the session lock, its write in flight
    session.start()  # the first decision is the President's nomination
    assert "Welcome back" in await back
    try:
        await until(lambda: bool(session.open_prompts(president)), 5)
        await asyncio.sleep(0.2)
        asked = fake.prompts(session.game_id, president)
        assert asked and all(p.deadline is not None for p in asked), asked
        assert not fake.of(session.game_id, "withdraw")
    finally:
        await manager.shutdown()
