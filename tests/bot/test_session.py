"""bot.session through the fake front-end: whole games, votes, claims and bad input.

Everything runs the real engine, real agents and a real SQLite file; the fake front-end
plays the humans by answering prompts from other tasks, as Discord clicks would.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.ports import NotAPlayer, Post, Prompt, PromptKind, SessionRefusal, StalePrompt, Waiting
from bot.session import GameSession, SessionOptions
from bot.storage import Storage
from engine import (
    Claim,
    GameRecord,
    Nominate,
    Phase,
    PresidentClaim,
    Vote,
)
from engine import events as ev
from engine.errors import DuplicateVote, IllegalTarget, NotYourTurn, WrongPhase

from .conftest import UNTIMED, members, until


@pytest.mark.parametrize("players", range(5, 11))
async def test_a_full_game_with_humans_and_ai_at_every_player_count(
    players: int, session_store: Storage
) -> None:
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(session_store, fake)
    humans = 3
    session = await manager.create(
        members(humans), players=players, fill_with_ai=True, seed=players * 11, options=UNTIMED
    )
    await asyncio.wait_for(session.run(), 30)
    await fake.settle()
    game, gid = session.game, session.game_id
    assert game.is_over and not fake.refusals

    stored = await session_store.load_game(gid)
    assert stored.status == "finished" and stored.winner is game.winner
    assert stored.record.actions == game.actions  # every accepted action was stored
    assert stored.record.replay().events == game.events

    # The humans played through prompts: each of their decisions answered an open prompt.
    asked = {(p.id, p.seat) for p in fake.prompts(gid)}
    human_moves = [a for a in game.actions if a.seat < humans and not isinstance(a, Claim)]
    assert human_moves
    assert all(p.seat < humans for p in fake.prompts(gid))  # AI seats are never prompted
    assert len(asked) >= len({(type(a), a.seat) for a in human_moves})

    # Each human was told their role first, privately; AI-only seats get no messages.
    for seat in range(humans):
        first = fake.told(gid, seat)[0]
        assert isinstance(first.events[0], ev.RoleDealt) and first.view.seat == seat
    assert not [p for p in fake.of(gid, "tell") if p.seat >= humans]

    # One reveal, last, with every role.
    reveals = fake.of(gid, "reveal")
    assert len(reveals) == 1 and fake.calls[gid][-1].method == "reveal"
    assert reveals[0].roles == game.roles and "The reveal" in reveals[0].text
    await until(lambda: manager.get(gid) is None)  # a finished game is forgotten


async def _started(session_store: Storage, humans: int = 5, seed: int = 3) -> GameSession:
    """A game of humans only, nobody answering: the test plays every move itself."""
    manager = SessionManager(session_store, FakeFrontend())
    session = await manager.create(members(humans), seed=seed, options=UNTIMED)
    await until(lambda: bool(session.open_prompts(session.game.president)))
    return session


def _fake(session: GameSession) -> FakeFrontend:
    assert isinstance(session.frontend, FakeFrontend)
    return session.frontend


async def _stored_actions(session: GameSession) -> int:
    assert session.store is not None
    stored = await session.store.load_game(session.game_id)  # type: ignore[attr-defined]
    return len(stored.record.actions)


async def test_votes_are_hidden_until_the_last_one_and_can_be_changed(
    session_store: Storage,
) -> None:
    session = await _started(session_store)
    game, fake, gid = session.game, _fake(session), session.game_id
    president = game.president
    nominee = game.eligible_chancellors()[0]
    await session.submit(president, Nominate(president, nominee), prompt_id="a0")
    await until(lambda: len(session.open_prompts(4)) == 1)
    await session.flush()  # the front-end is shown what the session asked, soon after
    assert {p.seat for p in fake.prompts(gid) if p.id == "a1"} == set(range(5))

    for seat in range(4):
        await session.submit(seat, Vote(seat, True), prompt_id="a1")
    await session.submit(0, Vote(0, False), prompt_id="a1")  # changed before the last vote
    with pytest.raises(DuplicateVote, match="already voted Ja"):
        await session.submit(1, Vote(1, True), prompt_id="a1")
    await session.flush()
    published = [e for p in fake.of(gid, "post") for e in p.events]
    assert not any(isinstance(e, ev.ElectionResult) for e in published)
    waiting = fake.of(gid, "waiting")[-1]
    assert isinstance(waiting, Waiting) and waiting.voted == (0, 1, 2, 3)
    assert waiting.seats == (4,) and "4 of 5" in waiting.text
    # Nothing public tells how anyone voted so far.
    assert not any("Ja:" in text or "Nein:" in text for text in fake.public_text(gid))

    await session.submit(4, Vote(4, False), prompt_id="a1")
    await session.flush()
    result = [e for p in fake.of(gid, "post") for e in p.events if isinstance(e, ev.ElectionResult)]
    assert result == [ev.ElectionResult(president, nominee, (False, True, True, True, False), True)]
    assert game.phase is Phase.PRESIDENT_DISCARD
    await session.stop()


async def test_bad_input_is_refused_with_a_reason_and_changes_nothing(
    session_store: Storage,
) -> None:
    session = await _started(session_store)
    game = session.game
    president = game.president
    other = (president + 1) % 5
    user = {s.seat: s.user_id for s in session.seats}

    async def refused(call: object, error: type[Exception], text: str) -> None:
        before, stored = len(game.actions), await _stored_actions(session)
        with pytest.raises(error, match=text):
            await call  # type: ignore[misc]
        assert len(game.actions) == before and await _stored_actions(session) == stored

    # A click from someone who does not play here.
    await refused(session.choose(999, "a0", 0), NotAPlayer, "not playing in this game")
    # Another player's button.
    await refused(session.choose(user[other], "a0", 0), NotAPlayer, "not yours")
    # Acting for someone else's seat.
    await refused(session.submit(other, Nominate(president, other)), NotAPlayer, "own seat")
    # Out of turn, by a typed command.
    await refused(session.submit(other, Nominate(other, president)), NotYourTurn, "Only")
    # An illegal target.
    await refused(
        session.submit(president, Nominate(president, president)), IllegalTarget, "yourself"
    )
    # A choice that does not exist.
    await refused(session.choose(user[president], "a0", 99), StalePrompt, "no such choice")
    # A vote before there is anything to vote on.
    await refused(session.submit(other, Vote(other, True)), WrongPhase, "not possible now")

    nominee = game.eligible_chancellors()[0]
    await session.choose(user[president], "a0", game.eligible_chancellors().index(nominee))
    assert game.phase is Phase.VOTE
    # The nomination prompt is stale now.
    await refused(session.choose(user[president], "a0", 0), StalePrompt, "no longer open")
    await session.choose(user[other], "a1", 0)  # Ja
    await refused(session.choose(user[other], "a1", 0), DuplicateVote, "already voted")
    await session.stop()


async def test_every_prompt_offers_exactly_the_legal_choices(session_store: Storage) -> None:
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(7), seed=21, options=UNTIMED)
    await asyncio.wait_for(session.run(), 30)
    await fake.settle()
    prompts = fake.prompts(session.game_id)
    assert {p.view.phase for p in prompts if p.kind is PromptKind.ACTION} >= {
        Phase.NOMINATE,
        Phase.VOTE,
        Phase.PRESIDENT_DISCARD,
        Phase.CHANCELLOR_ENACT,
    }
    for prompt in prompts:
        assert prompt.view.seat == prompt.seat
        offered = [o.action for o in prompt.options]
        if prompt.kind is PromptKind.CLAIM:
            assert offered[-1] is None and prompt.options[-1].label == "Say nothing"
            assert tuple(offered[:-1]) == prompt.view.legal_claims
        elif prompt.view.phase is Phase.VOTE:
            assert offered == [Vote(prompt.seat, True), Vote(prompt.seat, False)]
        else:
            assert tuple(offered) == prompt.view.legal_actions
        assert all(o.label for o in prompt.options) and prompt.question


async def test_humans_claim_through_prompts_and_agents_claim_on_their_own(
    session_store: Storage,
) -> None:
    def claims_first(prompt: Prompt) -> int:
        return 0 if prompt.kind is PromptKind.CLAIM else scripted(prompt)

    fake = FakeFrontend(answer=claims_first)
    manager = SessionManager(session_store, fake)
    session = await manager.create(
        members(2), players=5, fill_with_ai=True, seed=8, options=UNTIMED
    )
    await asyncio.wait_for(session.run(), 30)
    await fake.settle()
    game, gid = session.game, session.game_id
    claim_prompts = [p for p in fake.prompts(gid) if p.kind is PromptKind.CLAIM]
    assert claim_prompts and {p.seat for p in claim_prompts} <= {0, 1}
    human_claims = [a for a in game.actions if isinstance(a, Claim) and a.seat < 2]
    assert len(human_claims) >= len({p.id for p in claim_prompts})
    assert any(isinstance(a, PresidentClaim) for a in human_claims)
    # Each claim was announced publicly (claims are talk, the table hears them).
    public = [e for p in fake.of(gid, "post") for e in p.events]
    announced = [e for e in public if isinstance(e, ev.PresidentClaimed)]
    assert len(announced) == sum(isinstance(a, PresidentClaim) for a in game.actions)
    # The claims were recorded with the game and replay.
    stored = await session_store.load_game(gid)
    assert GameRecord.from_json(stored.record.to_json()).replay().events == game.events


async def test_a_claim_window_closes_at_its_deadline(session_store: Storage) -> None:
    def never_claims(prompt: Prompt) -> int | None:
        return None if prompt.kind is PromptKind.CLAIM else scripted(prompt)

    fake = FakeFrontend(answer=never_claims)
    manager = SessionManager(session_store, fake)
    options = replace(UNTIMED, timers=replace(UNTIMED.timers, claim=0.02))
    session = await manager.create(members(5), seed=4, options=options)
    await asyncio.wait_for(session.run(), 30)
    withdrawn = [reason for p, reason in fake.of(session.game_id, "withdraw") if p.kind == "claim"]
    assert withdrawn and set(withdrawn) == {"The claim window is closed."}
    assert not any(isinstance(a, Claim) for a in session.game.actions)


async def test_cancel_ends_the_game_without_a_winner(session_store: Storage) -> None:
    session = await _started(session_store)
    await session.cancel("the host ended it")
    stored = await session_store.load_game(session.game_id)
    assert stored.status == "cancelled" and stored.winner is None
    posts = _fake(session).of(session.game_id, "post")
    assert isinstance(posts[-1], Post) and "cancelled" in posts[-1].text
    with pytest.raises(SessionRefusal, match="over"):
        await session.submit(session.game.president, Nominate(session.game.president, 1))


async def test_the_reveal_shows_how_the_table_and_each_ai_judged_every_seat(
    session_store: Storage,
) -> None:
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(session_store, fake)
    session = await manager.create(
        members(2), players=7, fill_with_ai=True, seed=31, options=replace(UNTIMED, suspicion=True)
    )
    await asyncio.wait_for(session.run(), 30)
    [reveal] = fake.of(session.game_id, "reveal")
    tracks = reveal.suspicion
    assert [(t.observer, t.seat) for t in tracks] == [("The table", None)] + [
        (session.seats[s].name, s) for s in range(2, 7)
    ]
    sessions = sum(
        (isinstance(e, ev.PolicyEnacted) and not e.chaos)
        or (isinstance(e, ev.VetoReplied) and e.agreed)
        for e in session.game.events
    )
    for track in tracks:
        labels = [s.label for s in track.snapshots]
        assert labels[0] == "Start" and labels.count("Session 1") == 1
        assert sum(label.startswith("Session") for label in labels) == sessions
        for snapshot in track.snapshots:
            assert all(abs(sum(row) - 1) < 1e-9 for row in snapshot.marginals)
    start = tracks[0].snapshots[0].marginals  # the table's prior: roles dealt at random
    assert all(abs(row[2] - 1 / 7) < 1e-9 for row in start)
    assert "How the AI read the table" in reveal.text


async def test_ai_moves_come_at_the_tables_pace(session_store: Storage) -> None:
    # Instant agents, a 0.15 s pace: no AI move is shown sooner than that after it was asked.
    manager = SessionManager(session_store, FakeFrontend())
    paced = replace(UNTIMED, ai_pace_s=0.15)
    session = await manager.create([], players=5, fill_with_ai=True, seed=4, options=paced)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await until(lambda: len(session.game.actions) >= 1)
    assert loop.time() - started >= 0.15  # the nomination waited for the pace
    await asyncio.wait_for(session.run(), 120)
    assert session.game.is_over
    stored = await session_store.load_game(session.game_id)
    assert SessionOptions.from_dict(stored.options).ai_pace_s == 0.15


async def test_ai_seats_that_cannot_speak_in_time_do_not_hold_the_game_up(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The suspicion thread stuck (a long reveal of another game, say): the game goes on
    # without the AI seats' remarks after each session.
    import time

    import bot.table_talk as talk_module
    from agents.talk import TableTalk

    def stuck(self: TableTalk, names: object) -> list[tuple[int, str]]:
        time.sleep(0.3)
        return [(1, "never said")]

    monkeypatch.setattr(talk_module, "TALK_WAIT_S", 0.05)
    monkeypatch.setattr(TableTalk, "remarks", stuck)
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(session_store, fake)
    session = await manager.create(
        members(1), players=5, fill_with_ai=True, seed=19, options=UNTIMED
    )
    await asyncio.wait_for(session.run(), 60)
    await fake.settle()
    assert session.game.is_over and not session.paused
    assert "never said" not in "\n".join(fake.public_text(session.game_id))


async def test_a_persons_seat_played_by_an_ai_never_speaks_for_them(
    session_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat an AI took over (/afk, a timeout) holds what its person saw: their hands,
    peeks and checks. Its remarks and /ask answers would be built on those secrets and
    posted to the table, so only seats no person ever played speak."""
    import bot.table_talk as talk_module
    from agents.talk import TableTalk

    speakers: list[tuple[int, ...]] = []

    class Recorded(TableTalk):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            speakers.append(tuple(self.speakers))

    monkeypatch.setattr(talk_module, "TableTalk", Recorded)
    fake = FakeFrontend(answer=scripted)
    manager = SessionManager(session_store, fake)
    session = await manager.create(
        members(2), players=5, fill_with_ai=True, seed=19, options=UNTIMED
    )
    await session.afk(100)  # seat 0's person steps away: an AI plays it now
    assert session.table.seats[0].is_ai
    assert await session.ask_ai(0) is None
    assert await session.ask_ai(2) is not None
    await asyncio.wait_for(session.run(), 120)
    await fake.settle()
    assert session.game.is_over and speakers
    assert all(0 not in seats and 1 not in seats for seats in speakers), speakers
    name = session.table.seats[0].name
    assert not [t for t in fake.public_text(session.game_id) if t.startswith(f"💬 {name}")]


async def test_a_restart_while_the_reveal_is_prepared_still_shows_it(
    db_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suspicion chart takes seconds to compute. A process stopped meanwhile must
    not leave a game stored as finished whose table never saw how it ended: recovery
    resumes only running games, so the game is stored finished once its reveal is
    ready to show."""
    import bot.session as session_module

    real = session_module.suspicion_after
    computing = asyncio.Event()

    async def stopped_meanwhile(*args: object, **kwargs: object) -> list[object]:
        computing.set()
        await asyncio.Event().wait()  # the process stops before this returns
        return []

    monkeypatch.setattr(session_module, "suspicion_after", stopped_meanwhile)
    options = replace(UNTIMED, suspicion=True)
    store = await Storage.open(db_dir / "reveal.db")
    manager = SessionManager(store, FakeFrontend())
    session = await manager.create([], players=5, fill_with_ai=True, seed=4, options=options)
    await asyncio.wait_for(computing.wait(), 60)
    assert session.game.is_over
    await manager.shutdown()
    await store.close()

    monkeypatch.setattr(session_module, "suspicion_after", real)
    store = await Storage.open(db_dir / "reveal.db")
    fake = FakeFrontend()
    manager = SessionManager(store, fake)
    [resumed] = await manager.recover()
    await asyncio.wait_for(resumed.wait(), 60)
    [reveal] = fake.of(resumed.game_id, "reveal")
    assert reveal.suspicion  # the chart, computed this time
    assert (await store.load_game(resumed.game_id)).status == "finished"
    await manager.shutdown()
    await store.close()
