"""The AI seats of one game: who is thinking now, what each answered, and how it went.

A `GameSession` decides *when* an AI seat acts and applies its move; this collaborator
does the asking. Each decision runs as its own task (one per seat and decision): it asks
the `AgentPort` with the game's thinking budget and, as patience, the table's timer for
the phase (a busy AI service answers late with the seat's own search rather than with a
fallback); it waits for the human pace before the move is shown; then it hands the move
to the session (`accept`), which applies it only if the decision is still open.

How long an AI took must not tell the table what it holds: an agent answers at once
with one distinct option (a President holding three of a kind) and does not search a
Liberal's ballot, but thinks its whole budget otherwise. So on a paced table where
people play (`ai_pace_s` > 0), every AI move and claim is held until its thinking budget
has passed since it was asked (`hold_s`), and the AI ballots of one election are shown
together, in seat order, once all of them are in (`_Election`). When the AI service is
busy, a decision may start late and search past that budget, while an answer found at
once would come back at its late start: so a move is also held until the instant its
search was allowed to think to (`Answer.thought_until`). Unpaced tables (tests,
benchmarks, `AI_PACE=0`) and bot-only games show moves as they come.

Every path ends in a legal move: when the port fails, a rule agent (`agents.fallback`)
answers, never dice. Each answer that is not the seat's own agent's in time is a
*fallback*: logged at INFO with its cause (never a secret) and counted (`fallbacks`,
stored with the game). The iterations each search reached are kept (`iterations`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from agents.base import Answer
from agents.fallback import rule_action
from engine import Action, Claim, Phase, PlayerView

from .agent_port import AgentPort, seat_seed
from .tasks import cancelled_here, consume
from .timers import Timers

log = logging.getLogger(__name__)

# How long an AI seat of an untimed game may wait for the AI service when it is busy.
UNTIMED_PATIENCE_S = 60.0
CLAIM_BUDGET_CAP_S = 1.0  # a claim is a short decision

Accept = Callable[[int, int, Action], Coroutine[Any, Any, None]]  # (seat, decision, move)
Guard = Callable[[Coroutine[Any, Any, None]], Awaitable[None]]


class AISeats:
    """Asks the AI for the seats of one game (see the module docstring)."""

    def __init__(
        self,
        game_id: int,
        agents: AgentPort,
        *,
        game_seed: int,
        budget_s: float,
        pace_s: float,
        timers: Timers,
        accept: Accept,
        guard: Guard,
        wake: Callable[[], None],
        people: Callable[[], bool],
        fallbacks: int = 0,
    ) -> None:
        self.game_id = game_id
        self.agents = agents
        self.game_seed = game_seed
        self.budget_s = budget_s
        self.pace_s = pace_s  # the least time between asking and showing a move
        self._people = people  # whether a person plays at this table (reads the timing)
        self.timers = timers
        self.fallbacks = fallbacks  # answers not the seat's own agent's (survive a restart)
        # Search iterations of each answer that reports them: ballots apart (capped, and
        # four decisions in five at a full table, they would hide the others' figure).
        self.iterations: list[int] = []
        self.ballot_iterations: list[int] = []
        self._accept = accept  # the session applies a move, if its decision is still open
        self._guard = guard  # runs a store write to its end even if we are cancelled
        self._wake = wake  # the session's decision loop looks again
        self._tasks: dict[int, asyncio.Task[None]] = {}  # seat -> its decision under way
        self._election: _Election | None = None  # the AI ballots of the vote under way

    # --- decisions ------------------------------------------------------------------

    def hold_s(self, budget_s: float) -> float:
        """The least time between asking for a move (thought for up to `budget_s`) and
        showing it: the human pace, or the whole budget when people could read how long
        the AI took (see the module docstring)."""
        if not self._hiding():
            return self.pace_s
        return max(self.pace_s, budget_s)

    def _hiding(self) -> bool:
        """Whether the table hides how long the AI took (paced, and a person plays)."""
        return self.pace_s > 0 and self._people()

    async def _wait_to_show(self, shown_at: float, answer: Answer[Any]) -> None:
        """Sleep until `shown_at` (loop time), and where the timing is hidden until the
        instant the answer's search could have thought to (see the module docstring)."""
        loop = asyncio.get_running_loop()
        if answer.thought_until is not None and self._hiding():
            # thought_until is on time.monotonic(); the loop's clock may differ.
            shown_at = max(shown_at, loop.time() + answer.thought_until - time.monotonic())
        if shown_at > loop.time():
            await asyncio.sleep(shown_at - loop.time())  # cancelled with the decision

    def decide(self, seat: int, turn: int, spec: str, view: PlayerView) -> None:
        """Start `seat`'s decision `turn` from `view` (taken by the caller: every AI
        ballot of an election reads the same history)."""
        election = None
        if view.phase is Phase.VOTE and self.hold_s(self.budget_s) > self.pace_s:
            if self._election is None or self._election.turn != turn:
                self._election = _Election(turn)
            election = self._election
            election.asked.add(seat)
        task = asyncio.create_task(
            self._decide(seat, turn, spec, view, election),
            name=f"game-{self.game_id}-ai-{seat}",
        )
        # However it ends (a move, or dead), the decision loop looks again at once.
        task.add_done_callback(lambda _: self._wake())
        task.add_done_callback(consume)  # a task that died is reported by supervision
        self._tasks[seat] = task

    def task(self, seat: int) -> asyncio.Task[None] | None:
        """The seat's decision task of this decision, if one was started."""
        return self._tasks.get(seat)

    def deciding(self, seat: int) -> bool:
        """Whether an AI is thinking for `seat` now."""
        task = self._tasks.get(seat)
        return task is not None and not task.done()

    @property
    def tasks(self) -> list[asyncio.Task[None]]:
        """Every decision task of the current decision."""
        return list(self._tasks.values())

    def end_decision(self) -> None:
        """The decision is over: stop the thinking (accepting re-checks the decision)."""
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()
        self._election = None

    async def _decide(
        self, seat: int, turn: int, spec: str, view: PlayerView, election: _Election | None
    ) -> None:
        try:
            await self._think_and_show(seat, turn, spec, view, election)
        finally:
            if election is not None:
                election.leave(seat)  # shown, or never will be: the others go on

    async def _think_and_show(
        self, seat: int, turn: int, spec: str, view: PlayerView, election: _Election | None
    ) -> None:
        seed = seat_seed(self.game_seed, seat)
        loop = asyncio.get_running_loop()
        shown_at = loop.time() + self.hold_s(self.budget_s)
        try:
            answer = await self.agents.decide(
                spec,
                view,
                seed=seed,
                budget_s=self.budget_s,
                patience_s=patience(self.timers.for_phase(view.phase)),
                table=self.game_id,
            )
        except asyncio.CancelledError:
            if cancelled_here():
                raise  # the decision is over, or the session stops
            # Leaked from inside the port (a worker pool shutting down): not ours to obey.
            answer = await stand_in(view, seed, "the AI decision was cancelled")
        except Exception as exc:  # the port promises an answer; if it fails, never stall
            # Only the type: an agent's message may quote the seat's hand.
            answer = await stand_in(view, seed, f"the AI port raised {type(exc).__name__}")
        self._note(seat, view.phase.value, answer)
        await self._wait_to_show(shown_at, answer)
        if election is not None:
            await election.my_turn(seat)
        await self._guard(self._accept(seat, turn, answer.move))

    # --- claims ---------------------------------------------------------------------

    async def claim(self, seat: int, spec: str, view: PlayerView) -> Claim | None:
        """The seat's claim, or silence (a failed claim is silence, logged and counted),
        made no sooner than `hold_s` after it was asked: a Fascist's lie may take longer
        to choose than a Liberal's plain truth."""
        budget = min(self.budget_s, CLAIM_BUDGET_CAP_S)
        loop = asyncio.get_running_loop()
        said_at = loop.time() + self.hold_s(budget)
        said = await self._claim(seat, spec, view, budget)
        await self._wait_to_show(said_at, said)
        return said.move

    async def _claim(
        self, seat: int, spec: str, view: PlayerView, budget: float
    ) -> Answer[Claim | None]:
        try:
            said = await self.agents.claim(
                spec,
                view,
                seed=seat_seed(self.game_seed, seat),
                budget_s=budget,
                patience_s=patience(self.timers.claim),
                table=self.game_id,
            )
        except asyncio.CancelledError:
            if cancelled_here():
                raise
            said = Answer(None, "silence", fallback="the AI claim was cancelled")
        except Exception as exc:
            said = Answer(None, "silence", fallback=f"the AI port raised {type(exc).__name__}")
        self._note(seat, "claim", said)
        return said

    # --- figures --------------------------------------------------------------------

    def _note(self, seat: int, what: str, answer: Answer[Any]) -> None:
        """Keep an answer's figures: its search iterations, and whether it fell back."""
        if answer.iterations is not None:
            kept = self.ballot_iterations if what == Phase.VOTE.value else self.iterations
            kept.append(answer.iterations)
        if answer.fallback is not None:
            self.fallback(seat, what, answer.fallback)

    def fallback(self, seat: int, what: str, cause: str) -> None:
        """Count and log one answer that is not the seat's own agent's in time.

        `cause` is free of hidden information (the port's contract, and ours)."""
        self.fallbacks += 1
        log.info("game %d: AI fallback at seat %d (%s): %s", self.game_id, seat, what, cause)


class _Election:
    """The AI ballots of one election on a table that hides the AI's timing: each is
    shown once every AI ballot asked is in, in seat order (ballots come in as fast as
    each agent thinks, and a Liberal's is not searched: the order would tell)."""

    def __init__(self, turn: int) -> None:
        self.turn = turn
        self.asked: set[int] = set()  # seats whose ballot is not shown yet
        self.ready: set[int] = set()  # of those, the seats whose ballot is in
        self._changed = asyncio.Event()

    async def my_turn(self, seat: int) -> None:
        """The seat's ballot is in: wait until all are, and every seat before it shown."""
        # Asked again here: an earlier task of this seat that ended (a repair asked anew)
        # took the seat out, and with nothing asked, min() below would have no seat.
        self.asked.add(seat)
        self.ready.add(seat)
        self._changed.set()
        while True:
            self._changed.clear()  # before looking: a change meanwhile still wakes us
            if self.ready >= self.asked and min(self.asked) == seat:
                return
            await self._changed.wait()

    def leave(self, seat: int) -> None:
        """The seat's ballot was shown, or never will be (its task ended)."""
        self.asked.discard(seat)
        self.ready.discard(seat)
        self._changed.set()


def patience(timer: float | None) -> float:
    """How long an AI seat may take past its thinking budget when the AI is busy with
    other tables: the table's own timer for the phase (what a human would be given), or
    a minute when nothing is timed; a thinner search beats a fallback."""
    return UNTIMED_PATIENCE_S if timer is None else timer


async def stand_in(view: PlayerView, seed: int, cause: str) -> Answer[Action]:
    """A rule agent's answer (`agents.fallback`, never dice) for a decision the AI port
    could not answer, computed off the event loop; `cause` says why (no secrets)."""
    started = time.monotonic()
    try:
        move, by = await asyncio.to_thread(rule_action, view, seed)
    except Exception:  # never seen: rule_action itself falls back to a legal action
        move, by = view.legal_actions[0], "first legal action"
    return Answer(move, by, None, time.monotonic() - started, cause or None)
