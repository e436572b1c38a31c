"""No game waits forever: the session's own guarantees, whatever the AI port or its tasks do.

- the AI port raises, or a CancelledError leaks out of it (a worker pool shutting down):
  a rule agent answers, the fallback is logged with its cause and counted;
- an AI claim fails: silence, logged and counted, and the game goes on;
- an AI decision task dies: supervision asks the decision again;
- the game task dies: the game is paused (stored with the cause, the table told, clicks
  answered with the reason), and a host's resume, a restart or a cancel ends the pause.

Every session here also runs the conftest's check that someone is on the clock after
every step. (tests/bot/test_ai_faults.py covers the real AgentService and its workers.)
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from agents.base import Answer
from bot.agent_port import CLAIM_BUDGET_S, DEFAULT_BUDGET_S, InProcessAgents
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.ports import Post, SessionRefusal, Table
from bot.session import GameSession, SessionOptions
from bot.storage import Storage
from bot.timers import Timers
from engine import Action, Claim, Nominate, PlayerView, Vote

from .conftest import UNTIMED, members, until

SECRETS = ("L L F", "Hitler is")  # what the faults below say: never in a log line


class FlakyPort(InProcessAgents):
    """The real in-process agents behind a port that fails now and then: every
    `cancel_every`-th decision loses its future to a cancellation from elsewhere (as a
    pool shutting down does), every `raise_every`-th raises, and every claim raises."""

    def __init__(self, *, cancel_every: int = 5, raise_every: int = 7) -> None:
        super().__init__()
        self.cancel_every = cancel_every
        self.raise_every = raise_every
        self.calls = 0
        self.faults: Counter[str] = Counter()

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
        self.calls += 1
        if self.calls % self.cancel_every == 0:
            self.faults["cancelled"] += 1
            doomed = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(doomed.cancel)
            await doomed  # CancelledError, though nobody cancelled the session's task
        if self.calls % self.raise_every == 0:
            self.faults["raised"] += 1
            raise RuntimeError("the port broke while the hand was L L F")
        return await super().decide(spec, view, seed=seed, budget_s=budget_s)

    async def claim(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = CLAIM_BUDGET_S,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Claim | None]:
        if view.legal_claims:
            self.faults["claim"] += 1
        raise RuntimeError("no claim: Hitler is seat 2")


async def _assert_finished(store: Storage, session: GameSession) -> None:
    game = session.game
    assert game.is_over and session.failure is None and not session.paused
    stored = await store.load_game(session.game_id)
    assert stored.status == "finished" and stored.pause_reason is None
    assert stored.record.actions == game.actions
    assert stored.record.replay().events == game.events  # every move was legal


def _logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    for line in lines:
        assert not any(secret in line for secret in SECRETS), line
    return lines


async def test_a_failing_ai_port_never_stops_a_game(
    session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = FlakyPort()
    manager = SessionManager(session_store, FakeFrontend(answer=scripted), port)
    session = await manager.create(
        members(2), players=7, fill_with_ai=True, seed=17, options=UNTIMED
    )
    await asyncio.wait_for(session.run(), 60)
    await _assert_finished(session_store, session)
    assert port.faults["cancelled"] and port.faults["raised"] and port.faults["claim"]
    # Every fault was answered (a rule agent's move, or silence) and counted, once.
    assert session.fallbacks == sum(port.faults.values())
    assert not [a for a in session.game.actions if isinstance(a, Claim) and a.seat >= 2]
    stored = await session_store.load_game(session.game_id)
    assert stored.session_state["fallbacks"] == session.fallbacks
    lines = _logged(caplog)
    prefix = f"game {session.game_id}: AI fallback at seat "
    assert any(prefix in line and "cancelled" in line for line in lines)
    assert any(prefix in line and "raised RuntimeError" in line for line in lines)
    assert any(prefix in line and "(claim)" in line for line in lines)
    assert session.repairs == 0  # the AI tasks never died: nothing to repair


class StallsOnce(InProcessAgents):
    """The real agents, but the first decision never answers (its task will be killed)."""

    def __init__(self) -> None:
        super().__init__()
        self.stalled: list[int] = []

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
        if not self.stalled:
            assert view.seat is not None
            self.stalled.append(view.seat)
            await asyncio.Event().wait()
        return await super().decide(spec, view, seed=seed, budget_s=budget_s)


async def test_an_ai_decision_task_that_dies_is_asked_again(
    session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = StallsOnce()
    manager = SessionManager(session_store, FakeFrontend(), port)
    session = await manager.create([], players=5, fill_with_ai=True, seed=4, options=UNTIMED)
    await until(lambda: bool(port.stalled))
    [seat] = port.stalled
    task = session.ai.task(seat)
    assert task is not None
    task.cancel()  # the AI task dies: nothing else would ever answer for this seat
    await asyncio.wait_for(session.wait(), 60)
    await _assert_finished(session_store, session)
    assert session.repairs == 1
    assert any(
        f"game {session.game_id}: the AI decision at seat {seat}" in line
        and "ended without a move (cancelled); asking again" in line
        for line in _logged(caplog)
    )


class NamesTables(InProcessAgents):
    """The real agents, noting the table each decision and claim was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Hashable | None] = []

    async def decide(self, spec: str, view: PlayerView, **asked: Any) -> Answer[Action]:
        self.tables.append(asked.get("table"))
        return await super().decide(spec, view, **asked)

    async def claim(self, spec: str, view: PlayerView, **asked: Any) -> Answer[Claim | None]:
        self.tables.append(asked.get("table"))
        return await super().claim(spec, view, **asked)


async def test_every_ai_decision_names_its_game_to_the_port(session_store: Storage) -> None:
    """The AI service can tell a lone table from a busy machine only if every decision
    says which game it is for (see `agents.service`, `Budget.alone`)."""
    port = NamesTables()
    manager = SessionManager(session_store, FakeFrontend(), port)
    session = await manager.create([], players=5, fill_with_ai=True, seed=4, options=UNTIMED)
    await asyncio.wait_for(session.wait(), 60)
    await _assert_finished(session_store, session)
    assert port.tables and set(port.tables) == {session.game_id}


class FailsOnce:
    """The real storage, except that one AI action's write fails (its message quotes a
    secret, as a real one might): the game task dies of it."""

    def __init__(self, store: Storage) -> None:
        self.store = store
        self.failed = False

    async def append_action(self, game_id: int, seq: int, action: Action, **how: Any) -> None:
        if not self.failed and seq >= 3 and action.seat != 0:
            self.failed = True
            raise RuntimeError("disk said no to the hand L L F")
        await self.store.append_action(game_id, seq, action, **how)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


CHANNEL = 77


async def _paused(store: Storage, fake: FakeFrontend) -> tuple[SessionManager, GameSession]:
    """A game (member 100 at seat 0, four AIs) whose task died: it is paused."""
    manager = SessionManager(FailsOnce(store), fake)  # type: ignore[arg-type]
    session = await manager.create(
        members(1), players=5, fill_with_ai=True, seed=7, options=UNTIMED, channel_id=CHANNEL
    )
    await asyncio.wait_for(session.wait(), 30)
    assert session.paused and not session.is_over
    return manager, session


async def test_a_game_whose_task_dies_is_paused_then_resumed_by_a_host(
    session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeFrontend(answer=scripted)
    manager, session = await _paused(session_store, fake)
    gid = session.game_id

    # Stored paused, with the cause: a type and a place, never the message.
    stored = await session_store.load_game(gid)
    assert stored.status == "paused"
    assert stored.pause_reason is not None
    assert stored.pause_reason.startswith("RuntimeError at tests/bot/test_supervision.py:")
    assert stored.pause_reason.endswith("(append_action)")
    assert stored.record.actions == session.game.actions  # the failed action did not happen
    replayed = stored.record.replay()  # and the game taken back is the stored one
    assert session.game.spectator_view() == replayed.spectator_view()
    assert all(session.game.view(s) == replayed.view(s) for s in range(5))
    assert session.pause_reason == stored.pause_reason
    assert any(f"game {gid} paused: RuntimeError at " in line for line in _logged(caplog))
    # The table is told, and the game stays findable for /resume and /cancel.
    notice = fake.public_text(gid)[-1]
    assert notice == (
        "This game is paused because of an internal error (RuntimeError). "
        "A host can type /resume to carry on, or /cancel to end it."
    )
    assert manager.get(gid) is session and manager.for_channel(CHANNEL) is session
    # Every click and command is answered with the reason.
    with pytest.raises(SessionRefusal, match=r"paused .*/resume"):
        await session.choose(100, "a0", 0)
    with pytest.raises(SessionRefusal, match=r"paused .*/resume"):
        await session.submit(0, Nominate(0, 1))
    with pytest.raises(SessionRefusal, match="paused"):
        await session.afk(100)
    await asyncio.sleep(0.05)
    assert not [c for c in fake.calls[gid] if c.method == "reveal"]

    before = list(session.game.actions)
    resumed = await manager.resume_paused(gid)
    assert manager.get(gid) is resumed and resumed is not session
    assert (await session_store.load_game(gid)).status in ("running", "finished")
    await asyncio.wait_for(resumed.wait(), 30)
    await _assert_finished(session_store, resumed)
    assert resumed.game.actions[: len(before)] == before
    assert "The game resumes where it stopped." in fake.public_text(gid)
    assert len(fake.of(gid, "reveal")) == 1
    await until(lambda: manager.get(gid) is None)
    with pytest.raises(ValueError, match="not paused"):
        await manager.resume_paused(gid)


class FailsOnABallot:
    """The real storage, except that the first AI ballot's write fails: the game task
    dies while the human's vote clock runs. With `clock_fails`, the first write of the
    bookkeeping that holds the stopped clock fails too (the database is in trouble:
    the usual cause of such a pause)."""

    def __init__(self, store: Storage, *, clock_fails: bool = False) -> None:
        self.store = store
        self.failed = False
        self.clock_fails = clock_fails

    async def set_session_state(self, game_id: int, state: Any) -> None:
        if self.clock_fails and "clock" in state:
            self.clock_fails = False
            raise RuntimeError("the disk is full")
        await self.store.set_session_state(game_id, state)

    async def append_action(self, game_id: int, seq: int, action: Action, **how: Any) -> None:
        if not self.failed and isinstance(action, Vote) and action.seat != 0:
            self.failed = True
            raise RuntimeError("the disk is full")
        await self.store.append_action(game_id, seq, action, **how)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.mark.parametrize("clock_write", ["stored", "failed at the pause"])
async def test_a_paused_game_keeps_the_time_left_on_its_clock(
    session_store: Storage, clock_write: str
) -> None:
    """Nobody can answer a paused game: its clock stops. Before, the stored deadline ran
    on, and a game paused for an hour gave the player the 30-s grace on /resume. A
    clock the pause could not store is stored by the stop that ends its session."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False)
    failing = clock_write != "stored"
    manager = SessionManager(
        FailsOnABallot(session_store, clock_fails=failing),  # type: ignore[arg-type]
        FakeFrontend(),
        clock=lambda: now[0],
    )
    session = await manager.create(
        members(1), players=5, fill_with_ai=True, seed=7, options=options, channel_id=CHANNEL
    )
    if session.game.president == 0:  # the human nominates: the AIs vote next
        await until(lambda: bool(session.open_prompts(0)))
        await session.submit(0, Nominate(0, session.game.eligible_chancellors()[0]))
    await asyncio.wait_for(session.wait(), 30)
    assert session.paused
    [ballot] = session.open_prompts(0)
    assert ballot.deadline == 1_000_090.0

    now[0] = 1_003_600.0  # an hour later, a host resumes it
    resumed = await manager.resume_paused(session.game_id)
    try:
        await until(lambda: bool(resumed.open_prompts(0)))
        [ballot] = resumed.open_prompts(0)
        assert ballot.deadline == 1_003_690.0  # the 90 s that were left
    finally:
        await manager.shutdown()


async def test_a_restart_resumes_a_paused_game(db_dir: Path) -> None:
    path = db_dir / "paused.db"
    store = await Storage.open(path)
    manager, session = await _paused(store, FakeFrontend(answer=scripted))
    gid = session.game_id
    state = (await store.load_game(gid)).session_state
    await store.set_session_state(gid, {**state, "fallbacks": 4})  # counted before
    await manager.shutdown()
    await store.close()

    store = await Storage.open(path)
    fake = FakeFrontend(answer=scripted)
    [resumed] = await SessionManager(store, fake).recover()
    assert resumed.game_id == gid and not resumed.paused
    assert resumed.fallbacks == 4  # the count survives a restart
    assert (await store.load_game(gid)).status in ("running", "finished")
    await asyncio.wait_for(resumed.wait(), 30)
    await _assert_finished(store, resumed)
    assert "The bot restarted" in fake.public_text(gid)[0]
    await store.close()


async def test_a_paused_game_cancelled_by_a_caller_cancelled_meanwhile_still_closes(
    session_store: Storage,
) -> None:
    """A paused game has no task left to close its session: `cancel` does, even if its
    caller is cancelled while the notice is still being shown, so the manager forgets
    the game (one left registered keeps its channel busy for ever)."""
    shown = asyncio.Event()

    class SlowNotice(FakeFrontend):
        async def post(self, table: Table, post: Post) -> None:
            if "cancelled" in post.text:
                await shown.wait()
            await super().post(table, post)

    fake = SlowNotice(answer=scripted)
    manager, session = await _paused(session_store, fake)
    cancelling = asyncio.create_task(session.cancel("the host ended it"))
    await until(lambda: session.is_over)
    await asyncio.sleep(0.01)  # the cancel waits for its notice to be shown
    cancelling.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelling
    await asyncio.wait_for(session.wait_closed(), 5)
    await until(lambda: manager.for_channel(CHANNEL) is None)
    shown.set()
    await session.flush()
    assert fake.public_text(session.game_id)[-1] == "The game was cancelled: the host ended it"


async def test_cancel_ends_a_paused_game_and_stats_never_count_it(session_store: Storage) -> None:
    fake = FakeFrontend(answer=scripted)
    manager, session = await _paused(session_store, fake)
    gid = session.game_id
    assert (await session_store.player_stats(100)).games == 0  # paused: not counted
    await asyncio.wait_for(session.cancel("the host ended it"), 10)
    stored = await session_store.load_game(gid)
    assert stored.status == "cancelled" and stored.winner is None
    assert stored.pause_reason is None
    assert fake.public_text(gid)[-1] == "The game was cancelled: the host ended it"
    await until(lambda: manager.get(gid) is None)
    assert manager.for_channel(CHANNEL) is None
    assert (await session_store.player_stats(100)).games == 0
    assert await session_store.unfinished_games() == []
    with pytest.raises(ValueError):
        await manager.resume_paused(gid)
