"""A restart after a claims round in which AI seats had their say asks them nothing again.

An AI President who peeked makes one claim a round (its draw) and keeps its peek window
open: the engine lets it claim the peek later, and the round is what decides it will
not. The round used to store the AI seats' windows as over only at its end with people
in it, and never in a round of AI seats alone. So a restart then asked the AI again,
and it claimed what it had kept quiet about, a claim no uninterrupted game makes:

- after a round of AI seats alone, a restart during the next decision ran the round
  again, and the round's clearing of its deadline wiped the decision's clock (its
  member got a whole new timer instead of the time left);
- in a round with a member in it, the new AI claim moved the member's open claim prompt
  on, so the button they had was answered "the game has moved on".

A scripted agent port makes the games exact: it claims whenever it may, backs every
government and enacts Fascist policies, so a 5-player game at seed 3 reaches the peek
with an all-AI government, and the same game with a member as Chancellor reaches it
with her claim window open beside the AI President's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agents.base import Answer
from bot.frontends.fake import FakeFrontend
from bot.manager import Member, SessionManager
from bot.ports import Prompt, PromptKind
from bot.session import GameSession, SessionOptions
from bot.storage import Storage
from bot.timers import Timers
from engine import Action, Claim, Discard, Enact, Game, PeekClaim, Phase, PlayerView, Policy, Vote
from engine import events as ev

from .conftest import until

SEED, PLAYERS, MEMBER = 3, 5, 500
SCRIPTED = SessionOptions(timers=Timers.off(), substitute="selfish", suspicion=False, talk=False)


def scripted_move(actions: list[Action]) -> Action:
    """Ja, discard a Liberal, enact a Fascist: the quickest way to the peek."""
    for action in actions:
        if isinstance(action, Vote) and action.ja:
            return action
        if isinstance(action, Discard) and action.policy is Policy.LIBERAL:
            return action
        if isinstance(action, Enact) and action.policy is Policy.FASCIST:
            return action
    return actions[0]


def after_the_peek(view: PlayerView) -> bool:
    """The nomination after the peeking session (3 Fascist policies down)."""
    return view.phase is Phase.NOMINATE and view.fascist_policies >= 3


class ScriptedPort:
    """An agent port for every AI seat: `scripted_move`, and any legal claim at once.
    With `hold`, the nomination after the peek never comes (the game stands there)."""

    def __init__(self, *, hold: bool) -> None:
        self.hold = hold
        self.claimed: list[Claim] = []

    async def decide(self, spec: str, view: PlayerView, **how: Any) -> Answer[Action]:
        if self.hold and after_the_peek(view):
            await asyncio.Event().wait()
        return Answer(scripted_move(list(view.legal_actions)), "scripted")

    async def claim(self, spec: str, view: PlayerView, **how: Any) -> Answer[Claim | None]:
        claim = view.legal_claims[0] if view.legal_claims else None
        if claim is not None:
            self.claimed.append(claim)
        return Answer(claim, "scripted")


def seat_at_the_peek() -> tuple[int, int]:
    """(the peeking session's Chancellor, the President after it) in the scripted game."""
    game = Game(PLAYERS, seed=SEED)
    chancellor = None
    while not after_the_peek(game.view(game.president)):
        seat = next(iter(game.awaiting()))
        was = game.chancellor
        events = game.apply(scripted_move(list(game.view(seat).legal_actions)))
        if any(isinstance(e, ev.PolicyPeeked) for e in events):
            chancellor = was
    assert chancellor is not None
    return chancellor, game.president


def seated(seat: int) -> list[Member | None]:
    members: list[Member | None] = [None] * PLAYERS
    members[seat] = Member(MEMBER, "Hana")
    return members


async def restarted(path: Path, port: ScriptedPort, clock: Any = None) -> GameSession:
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(), port, **({"clock": clock} if clock else {}))
    [session] = await manager.recover()
    return session


async def stop(session: GameSession) -> None:
    await session.stop()
    assert session.store is not None
    await session.store.close()


async def test_a_round_of_ai_seats_alone_is_not_run_again_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(), ScriptedPort(hold=True))
    session = await manager.create(
        [], players=PLAYERS, fill_with_ai=True, seed=SEED, options=SCRIPTED
    )
    await until(
        lambda: (
            session.ai.deciding(session.game.president)
            and after_the_peek(session.game.view(session.game.president))
        ),
        timeout=20,
    )
    assert not any(isinstance(a, PeekClaim) for a in session.game.actions)  # kept quiet
    actions = len(session.game.actions)
    await manager.shutdown()
    await store.close()

    port = ScriptedPort(hold=True)
    resumed = await restarted(path, port)
    await until(lambda: resumed.ai.deciding(resumed.game.president), timeout=10)
    try:
        assert resumed.game.actions[actions:] == [] and port.claimed == []
    finally:
        await stop(resumed)


async def test_a_restart_after_a_round_of_ai_seats_keeps_the_decision_s_clock(
    tmp_path: Path,
) -> None:
    """The member nominating after the peek had 100 s left at the stop: the restart
    gives them those (the grace period is shorter), not a whole new 120 s."""
    _, president = seat_at_the_peek()
    now = [1_000_000.0]
    timers = Timers(nominate=120, vote=90, policy=90, power=120, claim=20, grace=30)
    options = SessionOptions(timers=timers, substitute="selfish", suspicion=False, talk=False)

    def answer(prompt: Prompt) -> int | None:
        if prompt.kind is PromptKind.CLAIM:
            return len(prompt.options) - 1
        if after_the_peek(prompt.view):
            return None  # the member thinks
        actions = [o.action for o in prompt.options]
        return actions.index(scripted_move(actions))

    path = tmp_path / "game.db"
    store = await Storage.open(path)
    manager = SessionManager(
        store, FakeFrontend(answer=answer), ScriptedPort(hold=False), clock=lambda: now[0]
    )
    session = await manager.create(seated(president), players=PLAYERS, seed=SEED, options=options)

    def nomination(of: GameSession) -> Prompt | None:
        asked = [p for p in of.open_prompts(president) if p.kind is PromptKind.ACTION]
        return asked[0] if asked and after_the_peek(asked[0].view) else None

    await until(lambda: nomination(session) is not None, timeout=20)
    await session.flush()
    now[0] += 20.0  # 100 s left at the stop
    await manager.shutdown()
    await store.close()
    now[0] += 50.0  # down for 50 s: the clock stood still meanwhile

    resumed = await restarted(path, ScriptedPort(hold=False), clock=lambda: now[0])
    try:
        await until(lambda: nomination(resumed) is not None, timeout=10)
        prompt = nomination(resumed)
        assert prompt is not None and prompt.deadline is not None
        assert prompt.deadline - now[0] == 100.0
    finally:
        await stop(resumed)


async def test_a_member_s_claim_prompt_from_before_a_restart_still_answers(
    tmp_path: Path,
) -> None:
    """The member, Chancellor of the peeking session, has her claim window open beside
    the AI President's when the bot restarts: her button from before takes her claim."""
    chancellor, _ = seat_at_the_peek()

    def answer(prompt: Prompt) -> int | None:
        if prompt.kind is PromptKind.CLAIM:
            return None if prompt.view.fascist_policies >= 3 else len(prompt.options) - 1
        actions = [o.action for o in prompt.options]
        return actions.index(scripted_move(actions))

    def claim_prompt(of: GameSession) -> Prompt | None:
        asked = [p for p in of.open_prompts(chancellor) if p.kind is PromptKind.CLAIM]
        return asked[0] if asked and asked[0].view.fascist_policies >= 3 else None

    path = tmp_path / "game.db"
    store = await Storage.open(path)
    manager = SessionManager(store, FakeFrontend(answer=answer), ScriptedPort(hold=True))
    session = await manager.create(seated(chancellor), players=PLAYERS, seed=SEED, options=SCRIPTED)
    await until(lambda: claim_prompt(session) is not None, timeout=20)
    before = claim_prompt(session)
    assert before is not None
    await manager.shutdown()
    await store.close()

    port = ScriptedPort(hold=True)
    resumed = await restarted(path, port)
    try:
        await until(lambda: claim_prompt(resumed) is not None, timeout=10)
        after = claim_prompt(resumed)
        assert after is not None and after.id == before.id
        assert port.claimed == []  # the AI President is not asked again
        await resumed.choose(MEMBER, before.id, len(before.options) - 1)
    finally:
        await stop(resumed)


class SecondClaimThinks(ScriptedPort):
    """After the peek, the second AI seat asked for a claim thinks for good."""

    def __init__(self) -> None:
        super().__init__(hold=True)
        self.asked: list[int] = []
        self.thinking = asyncio.Event()

    async def claim(self, spec: str, view: PlayerView, **how: Any) -> Answer[Claim | None]:
        if view.fascist_policies >= 3:
            self.asked.append(view.seat)
            if len(self.asked) == 2:
                self.thinking.set()
                await asyncio.Event().wait()
        return await super().claim(spec, view, **how)


async def test_a_restart_while_the_second_ai_seat_claims_asks_the_first_nothing(
    tmp_path: Path,
) -> None:
    """At seed 1 the President who peeked sits before the Chancellor, so it claims
    first; the bot restarts while the Chancellor thinks. The President's window was
    stored as over only once the whole round had claimed, and it was asked again."""
    path = tmp_path / "game.db"
    store = await Storage.open(path)
    port = SecondClaimThinks()
    manager = SessionManager(store, FakeFrontend(), port)
    await manager.create([], players=PLAYERS, fill_with_ai=True, seed=1, options=SCRIPTED)
    await until(port.thinking.is_set, timeout=20)
    first = port.asked[0]
    await manager.shutdown()
    await store.close()

    again = ScriptedPort(hold=True)
    resumed = await restarted(path, again)
    try:
        await until(lambda: resumed.ai.deciding(resumed.game.president), timeout=10)
        assert [c.seat for c in again.claimed if c.seat == first] == []
        assert not any(isinstance(c, PeekClaim) for c in again.claimed), again.claimed
    finally:
        await stop(resumed)
