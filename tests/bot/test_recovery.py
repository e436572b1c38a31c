"""Restart recovery: a game killed at any moment resumes to the very same game.

A `Freezer` wraps the real storage and hangs forever at a chosen write (just before or
just after action k is stored), as a process killed there would; the session is then
dropped, the database reopened by a new manager, and the game recovered and finished.
It must end exactly as the same game played without interruption: same decisions,
same elections, same events (only the order in which ballots of one election were
clicked may differ, since that depends on who was faster).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agents.behaviour import FITTED_PATH as BEHAVIOUR_FIT
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.narrate import narrate
from bot.ports import Post, PromptKind, Reveal, StalePrompt, Table
from bot.session import GameSession, SessionOptions
from bot.storage import Storage, StorageError
from bot.timers import Timers
from engine import (
    Action,
    CallSpecialElection,
    ChancellorClaim,
    Claim,
    Discard,
    Enact,
    Execute,
    Game,
    GameRecord,
    Investigate,
    Nominate,
    PresidentClaim,
    ProposeVeto,
    VetoReply,
    Vote,
)
from engine import events as ev

from .conftest import UNTIMED, members, normalised, until

PLAYERS, HUMANS, SEED = 10, 4, 76  # a game with every power, a veto and human claims
# (the fast agents used here never claim; agents that do are covered by the runner's tests)


class Freezer:
    """The real storage, except that the write of action `at` hangs forever."""

    def __init__(self, store: Storage, at: int, *, after_write: bool) -> None:
        self.store = store
        self.at = at
        self.after_write = after_write
        self.frozen = asyncio.Event()

    async def append_action(self, game_id: int, seq: int, action: Action, **how: Any) -> None:
        if seq == self.at and not self.after_write:
            await self._freeze()
        await self.store.append_action(game_id, seq, action, **how)
        if seq == self.at:
            await self._freeze()

    async def _freeze(self) -> None:
        self.frozen.set()
        await asyncio.Event().wait()  # the process is gone

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def _play(store: Any, options: SessionOptions = UNTIMED) -> tuple[GameSession, FakeFrontend]:
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(store, fake)
    session = await manager.create(
        members(HUMANS), players=PLAYERS, fill_with_ai=True, seed=SEED, options=options
    )
    return session, fake


@pytest.fixture(scope="module")
def reference() -> Game:
    """The game played without interruption."""

    async def play() -> Game:
        store = await Storage.open(":memory:")
        session, _ = await _play(store)
        await asyncio.wait_for(session.run(), 30)
        await store.close()
        return session.game

    return asyncio.run(play())


def _kill_points(game: Game) -> dict[str, int]:
    """The first action of each kind, a ballot with others already cast, and claims."""
    points: dict[str, int] = {}
    kinds: dict[str, Callable[[Action], bool]] = {
        "nominate": lambda a: isinstance(a, Nominate),
        "first ballot": lambda a: isinstance(a, Vote),
        "discard": lambda a: isinstance(a, Discard),
        "enact": lambda a: isinstance(a, Enact),
        "veto": lambda a: isinstance(a, ProposeVeto),
        "veto reply": lambda a: isinstance(a, VetoReply),
        "investigate": lambda a: isinstance(a, Investigate),
        "special election": lambda a: isinstance(a, CallSpecialElection),
        "execute": lambda a: isinstance(a, Execute),
        "human claim": lambda a: isinstance(a, Claim) and a.seat < HUMANS,
        "chancellor claim": lambda a: isinstance(a, ChancellorClaim),
        "president claim": lambda a: isinstance(a, PresidentClaim),
    }
    for index, action in enumerate(game.actions):
        for name, matches in kinds.items():
            if name not in points and matches(action):
                points[name] = index
        previous = game.actions[index - 1] if index else None
        if "mid-vote" not in points and isinstance(action, Vote) and isinstance(previous, Vote):
            points["mid-vote"] = index + 2  # three ballots in, more to come
    return points


def test_the_reference_game_covers_every_phase(reference: Game) -> None:
    assert set(_kill_points(reference)) == {
        "nominate",
        "first ballot",
        "mid-vote",
        "discard",
        "enact",
        "veto",
        "veto reply",
        "investigate",
        "special election",
        "execute",
        "human claim",
        "chancellor claim",
        "president claim",
    }


@pytest.mark.parametrize("after_write", [False, True], ids=["before-store", "after-store"])
async def test_a_game_killed_at_any_phase_resumes_identically(
    reference: Game, after_write: bool, db_dir: Path
) -> None:
    for name, index in sorted(_kill_points(reference).items(), key=lambda kv: kv[1]):
        path = db_dir / f"{name}-{after_write}.db"
        store = await Storage.open(path)
        freezer = Freezer(store, index, after_write=after_write)
        first, _ = await _play(freezer)
        await asyncio.wait_for(freezer.frozen.wait(), 30)
        await first.stop()  # the process dies: nothing more is written or shown
        await store.close()

        store = await Storage.open(path)
        fake = FakeFrontend(answer=scripted)
        [resumed] = await SessionManager(store, fake).recover()
        assert len(resumed.game.actions) == index + after_write, name
        await asyncio.wait_for(resumed.wait(), 30)
        assert normalised(resumed.game) == normalised(reference), name
        stored = await store.load_game(resumed.game_id)
        assert stored.status == "finished" and stored.record.actions == resumed.game.actions
        texts = fake.public_text(resumed.game_id)
        notice = next(i for i, t in enumerate(texts) if "The bot restarted" in t)
        # What the stored action caused was never shown: it is, first, then the notice.
        missed = _public_lines(reference, index, resumed.table.labels) if after_write else []
        assert "\n".join(texts[:notice]).splitlines() == missed, name
        await store.close()


class SlowReveal(FakeFrontend):
    """Plays its scripted seats; its reveal takes `takes` seconds (None: never ends)."""

    def __init__(self, takes: float | None) -> None:
        super().__init__(answer=scripted)
        self.takes = takes
        self.revealing = asyncio.Event()

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        self.revealing.set()
        if self.takes is None:
            await asyncio.Event().wait()
        await asyncio.sleep(self.takes)
        await super().reveal(table, reveal)


async def test_a_game_killed_while_its_reveal_is_being_shown_shows_it_after_the_restart(
    reference: Game, db_dir: Path
) -> None:
    """The last action is stored, the reveal is on its way (two images to render, a rate
    limit), and the process dies: after the restart the table still sees how the game
    ended, and it is counted once. Before, the game was stored finished before its
    reveal was shown, and recovery resumes only running games: the ending was lost."""

    class Dies:
        """The real storage, until the process is killed: nothing more is written."""

        def __init__(self, store: Storage) -> None:
            self.store, self.dead = store, False

        async def finish_game(self, *args: Any, **kwargs: Any) -> None:
            assert not self.dead
            await self.store.finish_game(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.store, name)

    path = db_dir / "reveal.db"
    store = await Storage.open(path)
    slow, dies = SlowReveal(None), Dies(store)  # the process dies before it is shown
    session = await SessionManager(dies, slow).create(  # type: ignore[arg-type]
        members(HUMANS), players=PLAYERS, fill_with_ai=True, seed=SEED, options=UNTIMED
    )
    await asyncio.wait_for(slow.revealing.wait(), 30)
    assert (await store.load_game(session.game_id)).status == "running"  # not stored over
    await store.close()  # kill -9: nothing more is written
    dies.dead = True
    with contextlib.suppress(Exception):
        await session.stop()

    store = await Storage.open(path)
    fake = FakeFrontend(answer=scripted)
    [resumed] = await SessionManager(store, fake).recover()
    await asyncio.wait_for(resumed.wait(), 30)
    [shown] = fake.of(resumed.game_id, "reveal")
    assert shown.winner == reference.winner
    stored = await store.load_game(resumed.game_id)
    assert stored.status == "finished"
    assert (await store.player_stats(100)).games == 1  # counted once
    await store.close()


@pytest.mark.parametrize(
    ("reveal_takes", "end_write"),
    [(0.2, "works"), (None, "works"), (0.2, "fails")],
    ids=["shown at the stop", "never shown", "shown, its end not stored"],
)
async def test_a_bot_stopped_while_its_reveal_is_on_its_way_never_loses_it(
    reference: Game, db_dir: Path, reveal_takes: float | None, end_write: str
) -> None:
    """A clean stop (SIGTERM) while the reveal is on its way: shown within the stop's
    last seconds, the game is stored finished (and not shown twice after the restart);
    not shown (Discord cannot take it), the game stays running and the restart shows it.
    Before, a stop stored the game finished whatever happened to its reveal. A stop
    whose write of the end fails still ends (logged), as a kill would leave it."""

    class EndFails:
        def __init__(self, store: Storage) -> None:
            self.store = store

        async def finish_game(self, *args: Any, **kwargs: Any) -> None:
            if end_write == "fails":
                raise StorageError("the disk is full")
            await self.store.finish_game(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.store, name)

    path = db_dir / "stopped-reveal.db"
    store = await Storage.open(path)
    slow = SlowReveal(reveal_takes)
    manager = SessionManager(EndFails(store), slow)  # type: ignore[arg-type]
    session = await manager.create(
        members(HUMANS), players=PLAYERS, fill_with_ai=True, seed=SEED, options=UNTIMED
    )
    await asyncio.wait_for(slow.revealing.wait(), 30)
    await session.stop()  # SIGTERM: it must end, whatever its writes do
    stored = await store.load_game(session.game_id)
    assert len(slow.of(session.game_id, "reveal")) == (0 if reveal_takes is None else 1)
    ended = reveal_takes is not None and end_write == "works"
    assert stored.status == ("finished" if ended else "running")
    await manager.shutdown()
    await store.close()

    store = await Storage.open(path)
    fake = FakeFrontend(answer=scripted)
    restarted = SessionManager(store, fake)
    try:
        resumed = await restarted.recover()
        if not ended:
            [again] = resumed
            await asyncio.wait_for(again.wait(), 30)
            [shown] = fake.of(again.game_id, "reveal")
            assert shown.winner == reference.winner
        else:
            assert resumed == []  # shown once: nothing to show again
        assert (await store.load_game(session.game_id)).status == "finished"
        assert (await store.player_stats(100)).games == 1  # counted once
    finally:
        await restarted.shutdown()
        await store.close()


def _public_lines(reference: Game, index: int, labels: list[str]) -> list[str]:
    """The narration of the public events action `index` of `reference` caused."""
    game = GameRecord(
        reference.players, reference.seed, reference.variant, list(reference.actions[:index])
    ).replay()
    events = game.apply(reference.actions[index])
    return [line for e in events if e.audience is None and (line := narrate(e, labels))]


@pytest.mark.parametrize("killed", ["storing the bookkeeping", "after storing it"])
async def test_a_game_killed_before_its_opening_was_shown_shows_it_after_the_restart(
    db_dir: Path, killed: str
) -> None:
    """The game is stored, its opening (the table's first post, every player's role) is
    on its way, and the process dies: after the restart the table sees the opening and
    each player learns their role. Before, the delivery cursor could not tell "nothing
    shown" from "the opening shown" (both 0): nobody was told their role."""

    class Hangs(FakeFrontend):
        async def post(self, table: Table, post: Post) -> None:
            await asyncio.Event().wait()  # the process dies before it is shown

    class Dies:
        """The real storage, until the process is killed: nothing more is written."""

        def __init__(self, store: Storage) -> None:
            self.store, self.writing = store, asyncio.Event()

        async def set_session_state(self, game_id: int, state: Any) -> None:
            self.writing.set()
            if killed == "storing the bookkeeping":
                await asyncio.Event().wait()
            await self.store.set_session_state(game_id, state)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.store, name)

    path = db_dir / "opening.db"
    store = await Storage.open(path)
    hangs, dies = Hangs(), Dies(store)
    session = await SessionManager(dies, hangs).create(  # type: ignore[arg-type]
        members(5), seed=12, options=UNTIMED
    )
    await asyncio.wait_for(dies.writing.wait(), 10)
    if killed == "after storing it":
        await until(lambda: bool(session.open_prompts(session.game.president)))
    assert not hangs.of(session.game_id, "post")  # nothing reached the table
    await store.close()  # kill -9: nothing more is written
    with contextlib.suppress(Exception):
        await session.stop()

    store = await Storage.open(path)
    fake = FakeFrontend()
    restarted = SessionManager(store, fake)
    try:
        [resumed] = await restarted.recover()
        await until(lambda: bool(fake.prompts(resumed.game_id)))
        await fake.settle()
        labels, public = resumed.table.labels, "\n".join(fake.public_text(resumed.game_id))
        opening = [narrate(e, labels) for e in resumed.game.events if e.audience is None]
        assert all(line in public for line in opening if line), (opening, public)
        for seat in range(5):
            told = [e for p in fake.told(resumed.game_id, seat) for e in p.events]
            assert [type(e) for e in told] == [ev.RoleDealt], (seat, told)
    finally:
        await restarted.shutdown()
        await store.close()


async def test_acknowledged_votes_survive_and_every_voter_is_asked_again(
    db_dir: Path,
) -> None:
    path = db_dir / "vote.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())  # the test votes itself
    session = await manager.create(members(5), seed=12, options=UNTIMED)
    game = session.game
    president = game.president
    await until(lambda: bool(session.open_prompts(president)))
    await session.submit(president, Nominate(president, game.eligible_chancellors()[0]))
    await session.submit(0, Vote(0, True))
    await session.submit(3, Vote(3, False))
    await session.submit(3, Vote(3, True))  # changed: the change is stored too
    await manager.shutdown()  # dropped right after the acknowledgements
    await store.close()

    store = await Storage.open(path)
    fake = FakeFrontend()
    [resumed] = await SessionManager(store, fake).recover()
    assert resumed.game.votes == {0: True, 3: True}
    await until(lambda: len(fake.prompts(resumed.game_id)) == 5)
    await asyncio.sleep(0.01)
    asked = fake.prompts(resumed.game_id)
    # The missing voters, and those who voted: a ballot may change until the last is in.
    assert sorted(p.seat for p in asked) == [0, 1, 2, 3, 4]
    assert {p.id for p in asked} == {"a1"}  # the same prompt id as before the restart
    await resumed.choose(103, "a1", 1)  # seat 3 changes Ja to Nein after the restart
    for seat in (1, 2, 4):
        await resumed.choose(100 + seat, "a1", 0)
    assert len([a for a in resumed.game.actions if isinstance(a, Vote)]) == 7
    [result] = [e for e in resumed.game.events if isinstance(e, ev.ElectionResult)]
    assert result.votes == (True, True, True, False, True)
    await resumed.stop()
    await store.close()


async def test_a_click_just_after_a_restart_waits_for_its_prompt_to_be_asked_again(
    db_dir: Path,
) -> None:
    """The buttons of a prompt stand across a restart: a click that lands before the
    resumed session has asked again is answered once it has, not refused as stale."""
    path = db_dir / "early.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    session = await manager.create(members(5), seed=12, options=UNTIMED)
    president = session.game.president
    await until(lambda: bool(session.open_prompts(president)))
    await session.submit(president, Nominate(president, session.game.eligible_chancellors()[0]))
    await manager.shutdown()
    await store.close()

    store = await Storage.open(path)
    [resumed] = await SessionManager(store, FakeFrontend()).recover()
    assert resumed.open_prompts(1) == ()  # not asked again yet
    await resumed.choose(101, "a1", 0)  # seat 1's Ja, clicked on the old message
    assert resumed.game.votes == {1: True}
    with pytest.raises(StalePrompt, match="no longer open"):  # a truly old button
        await resumed.choose(101, "a0", 0)
    await resumed.stop()
    await store.close()


async def test_a_clean_restart_keeps_the_time_left_on_the_clock(db_dir: Path) -> None:
    """A deploy stops the bot cleanly: the time the bot was down is not the player's.
    Before, the stored deadline ran on while the bot was down (an hour's downtime left
    the 30-s grace; 50 s of it took 50 s off the player's 120)."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish")
    path = db_dir / "left.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
    session = await manager.create(members(5), seed=5, options=options)
    president = session.game.president
    await until(lambda: bool(session.open_prompts(president)))
    [prompt] = session.open_prompts(president)
    assert prompt.deadline == 1_000_120.0
    await session.flush()  # shown: the clock runs (a prompt never shown keeps its timer)
    now[0] = 1_000_020.0  # 100 s left when the bot stops
    await manager.shutdown()
    await store.close()

    # Down 50 s, then (stopped again at once) down for hours, then 95 s into the clock
    # with 25 s left: the grace at least.
    runs = ((1_000_070.0, 0.0, 1_000_170.0), (1_009_000.0, 95.0, 1_009_100.0))
    for down_until, used, expected in (*runs, (1_020_000.0, 0.0, 1_020_030.0)):
        now[0] = down_until
        store = await Storage.open(path)
        restarted = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
        [resumed] = await restarted.recover()
        await until(lambda s=resumed: bool(s.open_prompts(president)))  # type: ignore[misc]
        [prompt] = resumed.open_prompts(president)
        assert prompt.kind is PromptKind.ACTION and prompt.id == "a0"
        assert prompt.deadline == expected
        assert (await store.load_game(resumed.game_id)).deadline == expected
        await resumed.flush()
        now[0] += used
        await restarted.shutdown()
        await store.close()


async def test_a_deadline_missed_while_killed_gets_a_grace_period(db_dir: Path) -> None:
    """A killed bot stops no clock (it cannot say when it died): the stored deadline
    holds, and one that passed while the bot was down gets the grace period."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish")
    path = db_dir / "grace.db"
    for down_until, expected in ((1_000_050.0, 1_000_120.0), (1_009_000.0, 1_009_030.0)):
        now[0] = 1_000_000.0
        path.unlink(missing_ok=True)
        store = await Storage.open(path)
        manager = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
        session = await manager.create(members(5), seed=5, options=options)
        seat = session.game.president
        await until(lambda s=session, p=seat: bool(s.open_prompts(p)))  # type: ignore[misc]
        assert (await store.load_game(session.game_id)).deadline == 1_000_120.0
        await store.close()  # kill -9: nothing more is written
        with contextlib.suppress(Exception):
            await manager.shutdown()

        now[0] = down_until
        store = await Storage.open(path)
        restarted = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
        [resumed] = await restarted.recover()
        await until(lambda s=resumed, p=seat: bool(s.open_prompts(p)))  # type: ignore[misc]
        [prompt] = resumed.open_prompts(seat)
        assert prompt.kind is PromptKind.ACTION and prompt.id == "a0"
        assert prompt.deadline == expected
        await restarted.shutdown()
        await store.close()


async def test_a_seat_whose_stored_agent_no_longer_reads_resumes_playable(
    db_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fit = tmp_path / "fit.json"
    fit.write_bytes(BEHAVIOUR_FIT.read_bytes())
    path = db_dir / "fit.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())  # nobody answers: the game waits
    session = await manager.create(
        members(4),
        players=5,
        fill_with_ai=True,
        ai_spec=f"belief:fit={fit}",
        seed=3,
        options=replace(UNTIMED, substitute=f"belief:fit={fit}"),
    )
    await manager.shutdown()
    await store.close()
    fit.unlink()  # removed while the bot was down

    store = await Storage.open(path)
    fake = FakeFrontend(answer=scripted)
    [resumed] = await SessionManager(store, fake).recover()
    assert resumed.table.seats[4].agent == "belief"  # the default fit, not a dead seat
    assert resumed.options.substitute == "belief"  # who takes over for a missing human
    assert "no longer reads" in caplog.text
    await asyncio.wait_for(resumed.wait(), 60)
    assert resumed.game.is_over and resumed.failure is None
    assert session.game_id == resumed.game_id
    await store.close()


async def test_a_seat_stored_with_no_player_and_no_agent_is_played_by_the_substitute(
    db_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A seat row whose user id and agent were both NULL read back as a human seat of
    nobody: in an untimed game no one ever moved for it and the game stalled in silence.
    Now the game's substitute plays it, with a warning naming the game and the seat."""
    path = db_dir / "nobody.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    options = replace(UNTIMED, substitute="random")
    session = await manager.create(
        [], players=5, fill_with_ai=True, ai_spec="random", seed=3, options=options, start=False
    )
    await manager.shutdown()
    await store.close()
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute("UPDATE seats SET agent = NULL WHERE game_id = ? AND seat = 2", (1,))
        raw.commit()

    caplog.set_level(logging.INFO, logger="bot")
    store = await Storage.open(path)
    restarted = SessionManager(store, FakeFrontend())
    try:
        [resumed] = await restarted.recover()
        assert resumed.game_id == session.game_id
        assert resumed.table.seats[2].agent == "random"
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("game 1" in w and "seat 2" in w for w in warnings), warnings
        await asyncio.wait_for(resumed.wait(), 60)
        assert resumed.game.is_over and resumed.failure is None
    finally:
        await restarted.shutdown()
        await store.close()


@pytest.mark.parametrize(
    ("stored", "expected"),
    [("1e999", 1_000_120.0), ("-1e999", 1_000_120.0), ("1e15", 1_086_400.0)],
    ids=["infinite", "minus infinite", "in 30 million years"],
)
async def test_a_deadline_not_finite_or_absurdly_far_is_read_as_fresh_or_clamped(
    db_dir: Path, caplog: pytest.LogCaptureFixture, stored: str, expected: float
) -> None:
    """A damaged deadline used to resume as stored: an infinite or far one never timed
    the human out (and `int(inf)` fails on Discord's timestamps). Now one that is not
    finite reads as none stored (the decision gets a fresh timer), and one more than a
    day ahead is clamped to a day, each with a warning naming the game and the column."""
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish")
    path = db_dir / "deadline.db"
    store = await Storage.open(path, clock=lambda: now[0])
    manager = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
    session = await manager.create(members(5), seed=5, options=options)
    president = session.game.president
    await until(lambda: bool(session.open_prompts(president)))
    await manager.shutdown()
    await store.close()
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute(f"UPDATE games SET deadline = {stored} WHERE id = ?", (session.game_id,))
        raw.commit()

    caplog.set_level(logging.INFO, logger="bot")
    store = await Storage.open(path, clock=lambda: now[0])
    restarted = SessionManager(store, FakeFrontend(), clock=lambda: now[0])
    try:
        read = (await store.load_game(session.game_id)).deadline
        assert read == (None if "999" in stored else expected)
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any(f"game {session.game_id}" in w and "deadline" in w for w in warnings)
        [resumed] = await restarted.recover()
        await until(lambda: bool(resumed.open_prompts(president)))
        [prompt] = resumed.open_prompts(president)
        assert prompt.kind is PromptKind.ACTION and prompt.deadline == expected
    finally:
        await restarted.shutdown()
        await store.close()


async def test_a_front_ends_notes_survive_a_restart_and_go_when_the_game_ends(
    db_dir: Path,
) -> None:
    """A front-end's note (the open /cancel request on Discord) is stored with the game's
    bookkeeping: a restart gives it back, and it goes once the game is over."""
    path = db_dir / "notes.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    session = await manager.create(members(5), seed=12, options=UNTIMED)
    await until(lambda: bool(session.open_prompts(session.game.president)))
    session.set_note("cancel", {"votes": [101]})
    assert session.note("cancel") == {"votes": [101]}  # at once, before it is stored
    await session.store_notes()
    await manager.shutdown()
    await store.close()

    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    try:
        [resumed] = await manager.recover()
        assert resumed.note("cancel") == {"votes": [101]}
        assert resumed.note("other") is None
        await resumed.cancel("the players agreed")
        assert resumed.note("cancel") is None
        assert "notes" not in (await store.load_game(session.game_id)).session_state
    finally:
        await manager.shutdown()
        await store.close()


async def test_front_end_notes_that_do_not_read_are_none_and_the_game_resumes(
    db_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = db_dir / "bad-notes.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    session = await manager.create(members(5), seed=12, options=UNTIMED)
    await until(lambda: bool(session.open_prompts(session.game.president)))
    session.set_note("cancel", {"votes": [101]})
    await session.store_notes()
    await manager.shutdown()
    await store.close()
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute(
            "UPDATE games SET session_state = json_set(session_state, '$.notes', 'FFL')"
            " WHERE id = ?",
            (session.game_id,),
        )
        raw.commit()

    caplog.set_level(logging.INFO, logger="bot")
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend())
    try:
        [resumed] = await manager.recover()
        assert resumed.note("cancel") is None
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any(f"game {session.game_id}" in w and "notes" in w for w in warnings), warnings
        assert all("FFL" not in r.getMessage() for r in caplog.records)
        assert not resumed.is_over and resumed.failure is None
    finally:
        await manager.shutdown()
        await store.close()
