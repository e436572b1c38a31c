"""One game session: drives an `engine.Game` between its seats, its store and its front-end.

The session asks whoever must act (a human through the front-end, an AI through the
`AgentPort`), applies the answer, writes it to storage and only then announces what it
caused, routing each event by its own `audience`: public events to the table, private
ones to the seat they belong to. It never decides by itself what is secret.

Flow of one game (`_run`): the opening is announced; then, until the game is over, the
session either offers the claims a session, peek or investigation opened (AI seats claim
at once, humans get an optional prompt for a short window), or runs one *decision*: the
seats in `game.awaiting()` are asked (every living player at once during a vote) and the
session waits until the game moves on or the deadline passes, when an agent decides for
each absent human and, after repeated expiries, keeps their seat until they are back.

Someone is always on the clock: every seat the game awaits has a human with an open
prompt (and a running timer when the phase has one) or a live AI decision. The session
checks this after every step (`unattended`) and repairs it: an AI decision that ended
without a move is asked again. Every AI path ends in a legal move: when the AI port
fails, a rule agent (`agents.fallback`) answers, never dice; each such fallback is
logged with its cause and counted (`fallbacks`). A game whose task dies is *paused*
(stored with the cause, the table told), never left "running" with nobody to move; a
host resumes it (`SessionManager.resume_paused`), or a restart does.

Everything a restart needs is in storage: the actions (replayed to the identical game),
the seats' controllers, the pending deadline and the session's bookkeeping (each seat's
timeout streak, the stand-ins deciding for the seats that timed out, the claim windows
already closed, the fallback count, how much of the game the table was shown). Prompt
ids derive from the game alone, so buttons issued before a restart still work after it.

Collaborators, each in its own module: `bot.outbox.Outbox` delivers what the table is
shown, in order, and reports a game that cannot be shown (abandoned) or lacks a
permission (paused); `bot.deadlines.Deadlines` keeps the prompts' deadlines (a player's
clock starts when the outbox has shown their prompt); `bot.ai_seats.AISeats` asks the
AI for the AI seats and counts their fallbacks; `bot.claim_windows.ClaimWindows` keeps
who may still claim and `bot.claims_round.ClaimsRound` runs a round of claims through
the ports the session gives it (`ClaimsPorts`); `bot.table_talk.TableVoices` has the
AI seats hear the game and speak (after a session, `/ask`); `bot.analysis` computes
the suspicion tracks and builds the reveal once the game is over; `bot.wording` words
the prompts.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import enum
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from engine import (
    Action,
    Claim,
    Game,
    GameRecord,
    IllegalAction,
    Nominate,
    Party,
    Phase,
    PlayerView,
    Role,
    Vote,
    WinReason,
)
from engine import events as ev
from engine.claims import OpenClaims

from . import notices
from .agent_port import DEFAULT_BUDGET_S, AgentPort, default_substitute, seat_seed
from .ai_seats import AISeats, stand_in
from .analysis import reveal_of, suspicion_after
from .claim_windows import ClaimWindows, closed_at, new_claim_windows
from .claims_round import ClaimsPorts, ClaimsRound
from .deadlines import Deadlines, time_left
from .errors import EndedElsewhere, failure_cause
from .narrate import narrate
from .outbox import Message, Outbox, Resumed, Withdrawal
from .ports import (
    AIControlsSeat,
    DeliveryError,
    Frontend,
    NotAPlayer,
    Option,
    PermissionLost,
    PlaceLost,
    Post,
    Private,
    Prompt,
    PromptKind,
    Reveal,
    SeatInfo,
    SessionRefusal,
    StalePrompt,
    Table,
    Waiting,
)
from .suspicion import SuspicionTrack
from .table_talk import TableVoices
from .tasks import cancelled_here, consume
from .timers import Timers
from .wording import CLAIM_QUESTION, SAY_NOTHING, WAITING_FOR, action_question, option_label

log = logging.getLogger(__name__)

T = TypeVar("T")


# The decision loop wakes at least this often to check that someone is on the clock, even
# when nothing tells it to (a safety net: an AI task that ends always wakes it at once).
SUPERVISE_EVERY_S = 30.0

# A click that lands just after a restart, on a button the resumed session has not yet
# asked again (it may first wait for AI claims), waits up to this long for it.
ASKED_AGAIN_WITHIN_S = 10.0

# The game is stored finished once its reveal is shown, or after this long at most (a
# front-end held back by a missing permission must not hold back the stats too).
REVEAL_WAIT_S = 60.0
# The delivery cursor of a game whose opening (the first post, every player's role) is
# not shown yet: 0 says the opening was, and no action's messages.
OPENING_UNSHOWN = -1
# A stop waits this long at most to store the time left on a player's clock, or the
# end of a game whose reveal its last seconds showed.
STOP_WRITE_S = 5.0

# Public events after which front-ends that draw the board should redraw it.
BOARD_EVENTS = (
    ev.GameStarted,
    ev.PolicyEnacted,
    ev.ElectionTrackerAdvanced,
    ev.PlayerExecuted,
    ev.DeckReshuffled,
    ev.GameEnded,
)


class SessionStore(Protocol):
    """What a session writes (implemented by `bot.storage.Storage`)."""

    async def append_action(
        self, game_id: int, seq: int, action: Action, *, clear_deadline: bool = False
    ) -> None:
        """Store the action at index `seq` of the game's move stack, durably (and clear
        the stored deadline in the same write when told)."""
        ...

    async def set_seat(self, game_id: int, seat: Any, reason: str) -> None:
        """Record who controls a seat now (a `bot.storage.SeatRecord`)."""
        ...

    async def set_deadline(self, game_id: int, deadline: float | None) -> None:
        """Record the pending prompt's deadline."""
        ...

    async def set_session_state(self, game_id: int, state: Mapping[str, Any]) -> None:
        """Record the session's bookkeeping (`GameSession.state()`)."""
        ...

    async def pause_game(self, game_id: int, reason: str) -> None:
        """Mark the game paused (its task died), with the cause (a type and a place)."""
        ...

    async def abandon_game(self, game_id: int, reason: str) -> None:
        """Mark the game abandoned (it cannot be shown any more): never counted, never
        resumed; `reason` says why, for hosts."""
        ...

    async def finish_game(
        self,
        game_id: int,
        *,
        status: str,
        winner: Party | None,
        reason: WinReason | None,
        roles: Sequence[Role] | None,
    ) -> None:
        """Mark the game finished or cancelled."""
        ...


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """Per-game settings, stored with the game's options (JSON)."""

    timers: Timers = field(default_factory=Timers)
    substitute: str | None = None  # the agent for absent players; None: strongest available
    ai_budget_s: float = DEFAULT_BUDGET_S  # seconds an AI may think per decision
    suspicion: bool = True  # record the exact belief's suspicion tracks for the reveal
    talk: bool = True  # AI seats say whom they trust least after a session (`agents.talk`)
    # The least time between asking an AI seat and showing its move: people follow a
    # table where moves come at a human pace. 0 (none) in tests and benchmarks.
    ai_pace_s: float = 0.0

    @property
    def substitute_spec(self) -> str:
        """The agent spec that stands in for absent humans."""
        return self.substitute or default_substitute(self.ai_budget_s)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "timers": self.timers.to_dict(),
            "substitute": self.substitute,
            "ai_budget_s": self.ai_budget_s,
            "suspicion": self.suspicion,
            "talk": self.talk,
            "ai_pace_s": self.ai_pace_s,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionOptions:
        """Read the session's part of a game's stored options (other keys are ignored)."""
        return cls(
            timers=Timers.from_dict(dict(data.get("timers") or {})),
            substitute=data.get("substitute"),
            ai_budget_s=float(data.get("ai_budget_s", DEFAULT_BUDGET_S)),
            suspicion=bool(data.get("suspicion", True)),
            talk=bool(data.get("talk", True)),
            ai_pace_s=_seconds(data.get("ai_pace_s")),
        )


def _seconds(value: Any) -> float:
    """A stored non-negative number of seconds; 0 for anything else (an old game)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if 0.0 <= value < 3600.0 else 0.0


@dataclass(slots=True)
class _Resume:
    """What recovery found out from replaying a stored game."""

    turn: int
    claim_pending: set[int]
    vote_start: Game | None  # the game before the first vote of a running election
    deadline: float | None
    expiries: dict[int, int]  # seat -> deadlines missed in a row
    claims_closed: set[int]  # seats whose claim windows of decision `turn` are over
    fallbacks: int = 0  # AI fallbacks counted before the restart
    notice: str = notices.RESTART_NOTICE  # what the table is told when the game carries on
    shown: int = 0  # actions whose every message the table was shown
    unshown: tuple[ev.Event, ...] = ()  # what the later actions caused, to announce again
    notes: dict[str, Any] = field(default_factory=dict)  # the front-end's (`GameSession.note`)
    stand_ins: set[int] = field(default_factory=set)  # timed-out seats an AI decides `turn` for
    left: float | None = None  # seconds left on `deadline`'s clock when it stopped (None: ran on)


class HandOver(enum.Enum):
    """What a host's hand-over of a member's seat did (`GameSession.hand_over`)."""

    HANDED = "handed"
    ALREADY = "already"  # an AI plays the seat already
    PRESENT = "present"  # the member's time never ran out: they play on


class GameSession:
    """Drives one game; implements `bot.ports.GameControl` for its front-end.

    Create through `bot.manager.SessionManager` (which stores the game first), then
    `start()` it, or `await run()` to play it to the end.
    """

    def __init__(
        self,
        game_id: int,
        game: Game,
        seats: Sequence[SeatInfo],
        *,
        frontend: Frontend,
        agents: AgentPort,
        store: SessionStore | None,
        options: SessionOptions | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        clock: Callable[[], float] = time.time,
        steady: Callable[[], float] = time.monotonic,
        resume: _Resume | None = None,
    ) -> None:
        if game.seed is None:
            raise ValueError("A session needs a seeded game, so that it can be stored.")
        if [s.seat for s in seats] != list(range(game.players)):
            raise ValueError(f"A {game.players}-player game needs seats 0..{game.players - 1}.")
        self.game_id = game_id
        self.game = game
        self.frontend = frontend
        self.agents = agents
        self.store = store
        self.options = options or SessionOptions()
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.clock = clock
        self.suspicion: list[SuspicionTrack] = []  # filled by a belief model, shown at the end
        self.failure: BaseException | None = None  # set when the session had to stop
        # Why the game is paused (an exception's type and where), None while it is not.
        self.pause_reason: str | None = None
        # AI answers that were not the seat's own agent's in time (stored: survives a
        # restart), and the search iterations of each AI answer that reports them.
        self.repairs = 0  # times supervision found nobody on the clock and asked again
        # Called after every step of a decision, once the session has made sure someone
        # is on the clock (tests check the invariant here).
        self.on_step: list[Callable[[GameSession], None]] = []
        # Called once messages go through again after a missing permission paused the
        # game (the manager resumes it).
        self.on_restored: Callable[[GameSession], Awaitable[None]] | None = None
        self.abandoned: str | None = None  # why the game cannot be shown any more, if so
        self._seats = list(seats)
        self._table = self._make_table()
        self._substitute = self.options.substitute_spec
        self._fresh = resume is None
        self._resume_notice = resume.notice if resume else notices.RESTART_NOTICE
        self._turn = resume.turn if resume else 0
        self._claims = ClaimWindows(  # who may still claim, and whose windows are over
            self._turn,
            pending=set(resume.claim_pending) if resume else set(),
            closed=set(resume.claims_closed) if resume else set(),
        )
        self._vote_start = resume.vote_start if resume else None
        self._lock = asyncio.Lock()
        self._changed = asyncio.Event()
        self._open: dict[int, dict[PromptKind, Prompt]] = {}
        self.ai = AISeats(  # asks the AI for the AI seats, and counts how it went
            game_id,
            agents,
            game_seed=game.seed,
            budget_s=self.options.ai_budget_s,
            pace_s=self.options.ai_pace_s,
            timers=self.options.timers,
            accept=self._accept_ai,
            guard=self._guarded,
            wake=self._changed.set,
            people=lambda: any(info.user_id is not None for info in self._seats),
            fallbacks=resume.fallbacks if resume else 0,
        )
        self._asked: int | None = None  # the decision whose seats are all being asked
        self._voices = TableVoices(game_id, game)  # the AI seats' words
        self._decision_deadline: float | None = None  # its running timer, if any
        self._expiries: dict[int, int] = dict(resume.expiries) if resume else {}
        # The seats that timed out at decision `_stand_ins_turn`, for which an AI decides
        # (stored: a restart starts the AI again rather than asking the human anew).
        self._stand_ins: set[int] = set(resume.stand_ins) if resume else set()
        self._stand_ins_turn = self._turn
        self._notes: dict[str, Any] = dict(resume.notes) if resume else {}
        self._saving = asyncio.Lock()  # one bookkeeping write at a time (`_save_state`)
        self._unshown = resume.unshown if resume else ()
        self._outbox = Outbox(
            game_id,
            frontend,
            shown=resume.shown if resume else OPENING_UNSHOWN,
            on_fault=self._delivery_fault,
            on_restored=self._delivery_restored,
            on_shown=self._shown,
        )
        self._deadlines = Deadlines(  # when each prompt's time runs out
            game_id,
            store=store,
            shown=self._outbox,
            lock=self._lock,
            grace=self.options.timers.grace,
            clock=clock,
            steady=steady,
            resumed=resume.deadline if resume else None,
            resuming=resume is not None,
            left=resume.left if resume else None,
        )
        self._claims_round = ClaimsRound(  # offers the claim windows between two decisions
            game,
            self._claims,
            self._deadlines,
            ClaimsPorts(
                is_ai=lambda seat: self._seats[seat].is_ai,
                ai_claim=self._ai_claim,
                issue=self._issue_claim_prompt,
                is_open=lambda seat: PromptKind.CLAIM in self._open.get(seat, {}),
                close=lambda seat, reason: self._close(seat, PromptKind.CLAIM, reason),
                turn=lambda: self._turn,
                check=self._raise_failure,
                save=self._save_state,
            ),
            limit=self.options.timers.claim,
            changed=self._changed,
            lock=self._lock,
            look_again_s=SUPERVISE_EVERY_S,
        )
        # A new game stores its bookkeeping once at the start: from then on a restart
        # reads the delivery cursor (a game stored without one counts as all shown).
        self._stored_state: dict[str, Any] = self.state() if resume else {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._task: asyncio.Task[None] | None = None
        self._cancelled = False
        self._started = asyncio.Event()
        # Set once the session has asked for the step the game stands at (or stopped):
        # before that, a prompt missing from `_open` may just not be asked again yet.
        self._asked_once = asyncio.Event()
        # Set once the session has asked for the step the game stands at, cleared when an
        # action moves the game to its next step (set for good once it asks no more): an
        # answer is stored before the next step's prompts are issued.
        self._step_asked = asyncio.Event()
        self._closed = asyncio.Event()  # set once the session will do nothing more
        self._end_unstored = False  # the reveal is on its way: the end is not stored yet
        self._reveal_queued = 0  # the outbox's `queued` once the reveal was put
        self._end_stored = False  # a paused game that is won needs it stored (`_end_won`)

    # --- construction from storage ----------------------------------------------------

    @classmethod
    def resume(
        cls,
        game_id: int,
        record: GameRecord,
        seats: Sequence[SeatInfo],
        *,
        deadline: float | None,
        frontend: Frontend,
        agents: AgentPort,
        store: SessionStore | None,
        options: SessionOptions | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        clock: Callable[[], float] = time.time,
        steady: Callable[[], float] = time.monotonic,
        state: Mapping[str, Any] | None = None,
        notice: str = notices.RESTART_NOTICE,
    ) -> GameSession:
        """Rebuild a stored game by replaying its record, ready to carry on where it stopped.

        `state` is the bookkeeping the session stored (`state()`); unreadable parts of it
        are ignored. `notice` tells the table the game carries on. Raises
        `engine.RecordError` if the record does not replay.
        """
        game, turn, pending = replay(record)
        expiries, closed, fallbacks, shown = _read_state(
            state or {}, turn, game.players, len(record.actions)
        )
        stand_ins = _read_stand_ins(game_id, state or {}, turn, game.players)
        vote_start = None
        if game.phase is Phase.VOTE:
            # AI ballots are decided from the view before the first ballot of the election
            # (as an uninterrupted session does), so a restart mid-vote changes nothing.
            first = _first_vote_of_election(record.actions)
            if first is not None and first < len(record.actions):
                vote_start = GameRecord(
                    record.players, record.seed, record.variant, record.actions[:first]
                ).replay()
        return cls(
            game_id,
            game,
            seats,
            frontend=frontend,
            agents=agents,
            store=store,
            options=options,
            guild_id=guild_id,
            channel_id=channel_id,
            clock=clock,
            steady=steady,
            resume=_Resume(
                turn,
                pending - closed,
                vote_start,
                deadline,
                expiries,
                closed,
                fallbacks,
                notice,
                shown,
                tuple(game.events if shown == OPENING_UNSHOWN else game.events_since(shown)),
                _read_notes(game_id, state or {}),
                stand_ins,
                time_left(game_id, (state or {}).get("clock"), deadline),
            ),
        )

    @property
    def unshown(self) -> Sequence[ev.Event]:
        """The events the table had not been shown when the game stopped (the last of
        `game.events`): the session shows them when it resumes, and empties this."""
        return self._unshown

    # --- GameControl: what front-ends call ----------------------------------------------

    @property
    def table(self) -> Table:
        """Who sits where now."""
        return self._table

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        """Every seat's current controller."""
        return tuple(self._seats)

    @property
    def turn(self) -> int:
        """The decision counter: it moves whenever the game waits for a new decision."""
        return self._turn

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (or was cancelled)."""
        return self.game.is_over or self._cancelled

    @property
    def closed(self) -> bool:
        """Whether the session will do nothing more (`wait_closed`)."""
        return self._closed.is_set()

    @property
    def paused(self) -> bool:
        """Whether the game is paused: its task died; `/resume` or a restart resumes it."""
        return self.pause_reason is not None and not self._cancelled

    def unattended(self) -> list[int]:
        """The seats the current decision awaits that nobody is on the clock for.

        On the clock: a human with an open action prompt (and a running timer when the
        phase has one), or an AI with a live decision task. During a vote the awaited
        seats are the voters who have not voted. Empty while no decision is being asked
        (between two decisions, during claims, once the game is over or paused).
        """
        if self.is_over or self.paused or self._asked != self._turn:
            return []
        timed = self.options.timers.for_phase(self.game.phase) is not None
        missing = []
        for seat in self.game.awaiting():
            if self.ai.deciding(seat):
                continue
            human = not self._seats[seat].is_ai
            prompt = self._open.get(seat, {}).get(PromptKind.ACTION)
            if human and prompt is not None and (not timed or self._decision_deadline):
                continue
            missing.append(seat)
        return missing

    def private_view(self, seat: int) -> PlayerView:
        """The seat's own view (role, hand...): for that seat's member only."""
        return self.game.view(seat)

    def spectator_view(self) -> PlayerView:
        """What anyone may see now."""
        return self.game.spectator_view()

    def open_prompts(self, seat: int) -> Sequence[Prompt]:
        """The prompts `seat` may answer now."""
        return tuple(self._open.get(seat, {}).values())

    def ai_decides(self, seat: int) -> bool:
        """Whether an AI is deciding the step that awaits `seat` in its member's place:
        their time ran out (or their seat is handed over) and the AI has not played yet."""
        return seat in self.game.awaiting() and (
            self._seats[seat].is_ai or self._standing_in(seat) or self.ai.deciding(seat)
        )

    def ai_decides_notice(self, seat: int) -> str:
        """What the member of `seat` is told who acts on a step an AI decides for them
        (`ai_decides`): their time ran out, or they came back while their AI decided."""
        return notices.TIME_UP if self._standing_in(seat) else notices.AI_DECIDES_THIS_TURN

    async def prompts_when_asked(self, seat: int, within: float) -> Sequence[Prompt]:
        """`open_prompts(seat)`, once the session has asked for the step the game stands
        at if the game awaits `seat` now: an answer that moves the game on (a President's
        discard) is stored before the next step is asked (its deadline is stored first),
        and a look in between must not find nothing asked of the seat. Waits `within`
        seconds at most."""
        if not self._step_asked.is_set() and seat in self.game.awaiting():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(within):
                    await self._step_asked.wait()
        return self.open_prompts(seat)

    async def choose(self, user_id: int, prompt_id: str, option: int) -> Prompt:
        """`user_id` picked option number `option` of prompt `prompt_id`.

        Returns the prompt once the choice is accepted and stored; raises `IllegalAction`
        (with a message for the player) and changes nothing otherwise.
        """
        seat = self._table.seat_of(user_id)
        if seat is None:
            raise NotAPlayer("You are not playing in this game.")
        if self.paused:
            raise SessionRefusal(self.paused_text())
        prompt = await self._prompt_asked(seat, prompt_id)
        if not 0 <= option < len(prompt.options):
            raise StalePrompt("There is no such choice.")
        action = prompt.options[option].action
        if action is None:  # "say nothing" to a claim prompt
            await self._guarded(self._say_nothing(seat))
        else:
            await self.submit(seat, action, prompt_id=prompt_id)
        return prompt

    async def _say_nothing(self, seat: int) -> None:
        async with self._lock:
            self._close(seat, PromptKind.CLAIM, notices.SAID_NOTHING)
            if seat in self._claims.open_seats:
                self._claims.close(self._turn, [seat])
                if not self._claim_windows_open():
                    await self._clear_claim_deadline()
                await self._save_state()
            self._changed.set()

    async def submit(self, seat: int, action: Action, *, prompt_id: str | None = None) -> None:
        """Play `action` for `seat` (a human's answer or a typed command).

        With `prompt_id`, the answer must belong to that prompt, still open. Returns once
        accepted and stored; raises `IllegalAction` and changes nothing otherwise. The
        store write finishes even if the caller is cancelled meanwhile.
        """
        await self._guarded(self._submit(seat, action, prompt_id))

    async def afk(self, user_id: int) -> str:
        """Hand the member's seat to an AI until they say `/back`; returns the reply."""
        seat = self._member_seat(user_id)
        async with self._lock:
            if self._seats[seat].is_ai:
                return notices.ALREADY_AWAY
            await self._hand_over(seat, "afk")
            self._post_notice(notices.stepped_away(self._label(seat)))
        return notices.AWAY

    async def hand_over(self, user_id: int, by: str) -> HandOver:
        """The host (`by` names them to the table) hands a missing member's seat to an AI
        until they say `/back`: only once the member's time ran out (a player still
        playing keeps their seat: the /cancel majority counts the members at the table,
        and a host who could empty it would cancel alone)."""
        seat = self._member_seat(user_id)
        async with self._lock:
            if self._seats[seat].is_ai:
                return HandOver.ALREADY
            if not self._expiries.get(seat):
                return HandOver.PRESENT
            await self._hand_over(seat, "host")
            self._post_notice(notices.handed_over(self._label(seat), by))
        return HandOver.HANDED

    async def back(self, user_id: int) -> str:
        """Give the seat back to its member from their next decision; returns the reply."""
        seat = self._member_seat(user_id)
        async with self._lock:
            info = self._seats[seat]
            if not info.is_ai:
                return notices.ALREADY_BACK
            await self._set_controller(seat, None, "back")
            self._expiries[seat] = 0
            await self._save_state()
            self._post_notice(notices.came_back(self._label(seat)))
            self._changed.set()  # a ballot their AI cast is theirs again (`_reconcile`)
        return notices.WELCOME_BACK

    # --- running ------------------------------------------------------------------------

    def start(self) -> None:
        """Start driving the game in the background (idempotent)."""
        if self._task is None:
            self._started.set()
            self._outbox.start()
            self._task = asyncio.create_task(self._run(), name=f"game-{self.game_id}")

    async def wait_started(self) -> None:
        """Wait until `start()` has been called."""
        await self._started.wait()

    async def wait(self) -> None:
        """Wait until the game is over (or the session stopped) and everything is shown."""
        if self._task is not None:
            try:
                await asyncio.shield(self._task)
            except asyncio.CancelledError:
                if not self._task.cancelled():  # we are cancelled, not the game stopped
                    raise
        await self.flush()

    async def wait_closed(self) -> None:
        """Wait until the session will do nothing more: the game ended or was cancelled,
        or the session was stopped. (A paused game's session stays open: it still
        answers clicks, and `cancel` ends it.)"""
        await self._closed.wait()

    async def run(self) -> None:
        """Play the game to its end (or until it pauses)."""
        self.start()
        await self.wait()

    async def flush(self) -> None:
        """Wait until the front-end has been given everything queued so far."""
        await self._outbox.join()

    @property
    def outbox(self) -> Outbox:
        """What the table is yet to be shown (read-only use: its figures)."""
        return self._outbox

    async def stop(self) -> None:
        """Stop driving the game without ending it (shutdown): it resumes after a restart.

        Whatever was acknowledged is stored; prompts stay valid for the next start.
        """
        for task in [self._task, *self._tasks, *self.ai.tasks]:
            if task is not None and not task.done():
                task.cancel()
        pending = [t for t in (self._task, *self._tasks, *self.ai.tasks) if t]
        await asyncio.gather(*pending, return_exceptions=True)
        try:
            if not self.is_over:
                # The time the bot is down is not the player's. Stored here even if the
                # clock stopped earlier: the pause's own write may have failed.
                self._deadlines.stop_clock()
                if self._deadlines.stopped is not None:
                    await self._last_write(self._save_state(), "the stopped clock")
            # Show what was already decided, unless the front-end hangs; the rest is shown
            # after the restart (the stored cursor says what was not).
            await self._outbox.finish(5.0)
            if self._end_unstored and self._outbox.delivered >= self._reveal_queued:
                await self._last_write(self._store_end(), "the end")  # the reveal is shown
        finally:
            self._asked_once.set()
            self._step_asked.set()
            self._closed.set()

    async def _last_write(self, write: Awaitable[None], what: str) -> None:
        """A stop's write: bounded (a database that hangs must not hold the shutdown)
        and never raising (the stop must end); lost, it leaves what a kill would."""
        try:
            async with asyncio.timeout(STOP_WRITE_S):
                await write
        except Exception as exc:
            log.warning(
                "game %d: %s was not stored at the stop (%s)",
                self.game_id,
                what,
                type(exc).__name__,
            )

    async def cancel(self, reason: str) -> None:
        """End the game without a winner (a host's decision); nothing is revealed.

        A paused game is ended the same way (it is never counted in stats), unless it
        was won: its end is stored then, with its result (`_end_won`); raises if that
        write fails (still paused)."""
        async with self._lock:
            if self.paused and self.game.is_over:
                await self._end_won()
            elif self.is_over:
                return
            else:
                await self._cancel(reason)
        try:
            await self.wait()
        finally:  # even if our caller is cancelled meanwhile: the game is over
            self._closed.set()

    async def _cancel(self, reason: str) -> None:
        """`cancel` of a game without a winner, the lock held."""
        if self.store is not None:
            await self.store.finish_game(
                self.game_id, status="cancelled", winner=None, reason=None, roles=None
            )
        await self._drop_notes()
        was_paused = self.paused
        self._cancelled = True
        self._close_all(notices.CANCELLED)
        self._show(Post(notices.cancelled(reason), last=True))
        if self._task is not None:
            self._task.cancel()
        if was_paused:  # the dead game task left the outbox running for this
            self._outbox.close()

    async def _end_won(self) -> None:
        """`cancel` of a won game that paused before its end was stored (the write
        failed, or a fault came as it ended), the lock held: a game with a winner is never
        cancelled, so its end is stored, with its result, as `/resume` would store it.
        Raises if that write fails again: the game stays paused, and a later `/cancel`,
        `/resume` or restart stores it."""
        if not self._end_stored:
            if not self._reveal_queued:  # it paused before the reveal: shown now
                self._show(self.reveal())
            await self._store_end()
        log.info("game %d: its end is stored at last (it was paused)", self.game_id)
        self.pause_reason = None
        self._close_all(notices.GAME_OVER)
        self._outbox.close()  # the dead game task left it running for this
        try:
            await self._drop_notes()
        except Exception as exc:  # the end is stored: the notes are only bookkeeping
            log.warning(
                "game %d: its notes were not dropped (%s)", self.game_id, type(exc).__name__
            )

    async def _run(self) -> None:
        try:
            self._opening()
            await self._save_state()
            while not self.game.is_over:
                self._raise_failure()
                if self._claims.pending:
                    await self._claims_round.run()
                    await self._table_talk()  # the session is over: the AI seats speak
                else:
                    await self._decision()
            self._raise_failure()
            await self._finish()
        except asyncio.CancelledError as exc:
            if cancelled_here():
                raise  # our own stop or cancel
            await self._pause(exc)  # it leaked from something we awaited: a fault
        except Exception as exc:  # keep the game stored and resumable; tell the table
            await self._pause(exc)
        finally:
            self._asked_once.set()  # nothing more will be asked: clicks are answered now
            self._step_asked.set()
            for task in self.ai.tasks:
                task.cancel()
            if self.pause_reason is None:
                self._outbox.close()  # it shows what is queued, then ends
                self._closed.set()

    async def _pause(self, exc: BaseException) -> None:
        """The game task is dying: store the game as paused with the cause, tell the table.

        The session stays registered: clicks are answered (refused, with the reason),
        `cancel` ends the game, `SessionManager.resume_paused` carries it on.
        """
        root = self.failure or exc
        self.failure = root
        if isinstance(root, EndedElsewhere):
            await self._ended_elsewhere(root)
            return
        if isinstance(root, DeliveryError):  # a host-readable cause, free of secrets
            cause = str(root)
            log.warning("game %d paused: %s", self.game_id, cause)
        else:
            cause = failure_cause(root)
            # The type and the place only: an exception's message may quote a hand or a role.
            log.error("game %d paused: %s", self.game_id, cause)
            log.debug("game %d: what paused it", self.game_id, exc_info=root)
        async with self._lock:
            self.pause_reason = cause
            self._asked = None
            self._deadlines.stop_clock()  # nobody can answer while it is paused
            # Prompts stay open, as across a restart: their buttons answer that the game is
            # paused, and work again once it is resumed (prompt ids derive from the game).
            self._post_notice(self.paused_text())
            if self.store is not None:
                try:
                    await self.store.pause_game(self.game_id, cause)
                except Exception as store_exc:  # still paused here; a restart resumes it
                    log.error(
                        "game %d: the pause was not stored (%s)",
                        self.game_id,
                        type(store_exc).__name__,
                    )
                else:  # and its stopped clock (a store failing now is not asked twice)
                    await self._save_state()
        outbox = self._outbox
        if isinstance(root, PermissionLost) and outbox.blocked is None and outbox.lost is None:
            # The permission came back while the game task was busy, before this pause:
            # the outbox said so then (not paused yet, ignored) and never will again.
            log.info("game %d: messages went through again before the pause", self.game_id)
            await self._delivery_restored()

    async def _ended_elsewhere(self, ended: EndedElsewhere) -> None:
        """The game's row says it ended while this session played it (`shbot cancel` on a
        terminal game another process plays): nothing to pause or resume. The table is
        told, the prompts close, and the session ends as a cancelled one does."""
        log.warning("game %d was %s elsewhere: it stops here", self.game_id, ended.status)
        async with self._lock:
            self._cancelled = True
            self._asked = None
            self._deadlines.stop_clock()
            self._close_all(notices.CANCELLED)
            self._show(Post(notices.ended_elsewhere(ended.status), last=True))

    def _opening(self) -> None:
        if self._fresh:
            self._route(self.game.events)
            return
        # What the table was not shown before the restart, then where the game stands.
        self._show(Resumed())
        self._route(self._unshown, mark=self._outbox.shown + 1)
        self._unshown = ()
        self._post_notice(self._resume_notice, board=True)

    async def _decision(self) -> None:
        """Ask for the current decision and wait until the game moves past it."""
        game, turn = self.game, self._turn
        clock = self._deadlines
        async with self._lock:
            # Under the lock: a /back (or /afk) storing its seat settles first, so a member
            # back from it is asked with a timer, not reckoned an AI's and then prompted
            # without one (which supervision withdrew at once).
            nobody_asked = all(
                self._seats[s].is_ai or self._standing_in(s) for s in game.awaiting()
            )
        deadline = clock.next(self.options.timers.for_phase(game.phase))
        if nobody_asked:
            deadline = None  # nobody is asked: no human's clock to run
        await clock.store(deadline)
        self._decision_deadline = deadline
        self._asked = turn
        try:
            await self._supervise(turn, deadline)
            self._asked_once.set()  # an AI's turn asks nobody
            if self._turn == turn:
                self._step_asked.set()
            # After the prompts: a front-end may build its message from both.
            self._announce_waiting(deadline)
            seen = clock.watch(self._changed.set) if deadline else None
            while True:
                # Cleared before looking, never after an await: a move made while this
                # loop was busy (storing a moved deadline) must still wake it.
                self._changed.clear()
                if self._turn != turn or game.is_over:
                    break
                self._raise_failure()
                if seen is not None and seen.done():
                    moved = await clock.from_seen(seen, deadline)
                    if moved != deadline:
                        deadline = self._decision_deadline = moved
                        self._announce_waiting(deadline)
                    seen = None
                remaining = clock.remaining(deadline)
                if clock.unseen(seen):
                    remaining = None  # the clock has not started: nobody sees the prompt yet
                limit = SUPERVISE_EVERY_S if remaining is None else remaining
                limit = min(limit, SUPERVISE_EVERY_S)
                try:
                    await self._wait_changed(limit)
                except TimeoutError:
                    if remaining is not None and remaining <= SUPERVISE_EVERY_S:
                        async with self._lock:
                            if self._turn == turn and not game.is_over:
                                await self._expire(turn)
                        deadline = self._decision_deadline = None
                        await clock.store(None)
                await self._supervise(turn, deadline)
        finally:
            self._asked = None
        self._end_turn()

    async def _wait_changed(self, timeout: float | None) -> None:
        """Wait until something changed, or raise TimeoutError after `timeout` seconds."""
        # asyncio.timeout, not wait_for: in Python 3.11, wait_for swallows a cancellation
        # that arrives as the event is set, and a stopped session would go on waiting.
        async with asyncio.timeout(timeout):
            await self._changed.wait()

    async def _supervise(self, turn: int, deadline: float | None) -> None:
        """After every step: make sure each awaited seat has someone on the clock."""
        # Under the lock: an action being stored has changed the game but not yet the
        # decision counter, and must not be mistaken for a decision nobody answers.
        async with self._lock:
            if self._turn == turn and not self.game.is_over and not self.paused:
                self._check_clock(turn, deadline)

    def _check_clock(self, turn: int, deadline: float | None) -> None:
        self._reconcile(turn, deadline)
        for seat in self.unattended():  # never expected: an AI decides, as at a timeout
            self.repairs += 1
            log.warning(
                "game %d: nobody on the clock for seat %d (phase %s): an AI decides",
                self.game_id,
                seat,
                self.game.phase.value,
            )
            self._close(seat, PromptKind.ACTION, notices.AI_DECIDES_HERE)
            self._spawn_ai(seat, turn, self._seats[seat].agent or self._substitute)
        for hook in self.on_step:
            hook(self)

    async def _table_talk(self) -> None:
        """What the AI seats say after a session (off: `SessionOptions.talk`)."""
        if not self.options.talk or self.game.is_over:
            return
        for seat, words in await self._voices.remarks(self._speakers(), self._names()):
            self._post_notice(notices.remark(self._table.seats[seat].name, words))

    async def ask_ai(self, seat: int) -> str | None:
        """An AI seat's read of the table (`/ask`), from its own view only; None if the
        seat does not speak (`SeatInfo.speaks`: a person's seat never does)."""
        if not self._seats[seat].speaks or self.game.is_over:
            return None
        return await self._voices.ask(seat, self._speakers(), self._names())

    def _ai_seats(self) -> list[int]:
        return [s for s, info in enumerate(self._seats) if info.is_ai]

    def _speakers(self) -> list[int]:
        return [s for s, info in enumerate(self._seats) if info.speaks]

    def _names(self) -> list[str]:
        return [seat.name for seat in self._table.seats]

    async def _finish(self) -> None:
        game = self.game
        assert game.winner is not None and game.win_reason is not None
        self._close_all(notices.GAME_OVER)
        # The chart first: recovery resumes only running games, so a game stored as
        # finished while its reveal was still being computed (seconds) would never show
        # its table how it ended.
        if self.options.suspicion and not self.suspicion:
            names = [s.name for s in self._seats]
            self.suspicion = await suspicion_after(self.game_id, game, names, self._ai_seats())
        # Shown before it is stored finished, for the same reason: a process that dies
        # while the reveal is on its way (images to render, a rate limit) resumes the
        # game and shows it again, rather than never. A front-end that cannot show it
        # within `REVEAL_WAIT_S` (a permission missing) does not hold the stats back. A
        # stop meanwhile leaves the end to `stop`, which stores it once the outbox's
        # last seconds have shown the reveal (else the restart shows it).
        self._show(self.reveal())
        self._end_unstored, self._reveal_queued = True, self._outbox.queued
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.flush(), REVEAL_WAIT_S)
        await self._store_end()
        await self._drop_notes()

    async def _store_end(self) -> None:
        """Store the finished game (rated, counted), once (a failed write is not tried
        again here: the game pauses, unfinished in storage, and a host's /cancel
        (`_end_won`), /resume or the restart stores its end)."""
        game = self.game
        self._end_unstored = False
        if self.store is not None:
            await self.store.finish_game(
                self.game_id,
                status="finished",
                winner=game.winner,
                reason=game.win_reason,
                roles=game.roles,
            )
        self._end_stored = True

    def reveal(self) -> Reveal:
        """Everything about the finished game: roles, hidden events, suspicion tracks."""
        return reveal_of(self.game, self._table.labels, self.suspicion)

    # --- deciding -------------------------------------------------------------------------

    def _reconcile(self, turn: int, deadline: float | None) -> None:
        """Make sure every seat the game waits for is being asked: AI or human prompt.

        During a vote, humans who have voted keep their ballot prompt (after a restart
        too): a ballot may be changed until the last one is in.
        """
        awaited = self.game.awaiting()
        seats = list(awaited)
        if self.game.phase is Phase.VOTE:
            seats += [s for s in sorted(self.game.votes) if not self._seats[s].is_ai]
        for seat in seats:
            info = self._seats[seat]
            task = self.ai.task(seat)
            if task is not None and (not task.done() or seat not in awaited):
                # A ballot cast by the AI that played the seat until /back: the member
                # may change it now, as after a restart.
                back = task.done() and not info.is_ai and not self._standing_in(seat)
                if back and PromptKind.ACTION not in self._open.get(seat, {}):
                    self._issue(self._action_prompt(seat, deadline))
                continue  # an AI decides this one (a stand-in, or the seat's own AI)
            if task is not None:
                # The AI decision ended without a move (its task died): ask it again.
                self.repairs += 1
                log.info(
                    "game %d: the AI decision at seat %d (phase %s) ended without a move "
                    "(%s); asking again",
                    self.game_id,
                    seat,
                    self.game.phase.value,
                    _how_it_ended(task),
                )
                self._spawn_ai(seat, turn, info.agent or self._substitute)
                continue
            if self._standing_in(seat):
                # Timed out before a restart, and the table was told an AI decides: it
                # does (again), rather than a second prompt with a whole new timer. A
                # ballot it cast stands, as it would have without the restart.
                if seat in awaited:
                    self._spawn_ai(seat, turn, info.agent or self._substitute)
                continue
            if info.is_ai:
                self._close(seat, PromptKind.ACTION, notices.AI_DECIDES_HERE)
                self._spawn_ai(seat, turn, info.agent or self._substitute)
            elif PromptKind.ACTION not in self._open.get(seat, {}):
                self._issue(self._action_prompt(seat, deadline))

    def _standing_in(self, seat: int) -> bool:
        """Whether an AI decides the current decision for `seat`, which timed out."""
        return self._stand_ins_turn == self._turn and seat in self._stand_ins

    def _stand_in(self, seat: int, turn: int) -> None:
        """Note that an AI decides decision `turn` for `seat` (stored with the state)."""
        if self._stand_ins_turn != turn:
            self._stand_ins_turn, self._stand_ins = turn, set()
        self._stand_ins.add(seat)

    def _spawn_ai(self, seat: int, turn: int, spec: str) -> None:
        # The view is taken now: all AI ballots of an election see the same history.
        source = self._vote_start if self._vote_start is not None else self.game
        self.ai.decide(seat, turn, spec, source.view(seat))

    async def _accept_ai(self, seat: int, turn: int, action: Action) -> None:
        async with self._lock:
            # Only while the decision is still open for this seat: a human may have answered
            # first, and a ballot already cast must not be flipped by a late stand-in.
            if self._turn != turn or self.is_over or seat not in self.game.awaiting():
                await self._save_state()  # a fallback counted meanwhile
                return
            self._close(seat, PromptKind.ACTION, notices.AI_DECIDED)
            try:
                await self._accept(action)
            except IllegalAction:  # never stall: a rule agent's legal move beats none
                view = self.game.view(seat)
                self.ai.fallback(seat, view.phase.value, "the AI answered an illegal action")
                move = (await stand_in(view, seat_seed(self._seed, seat), "")).move
                await self._accept(move)
            await self._save_state()

    async def _ai_claim(self, seat: int) -> None:
        """An AI seat's claim, or silence; a failed claim is silence (logged, counted)."""
        claim = await self.ai.claim(
            seat, self._seats[seat].agent or self._substitute, self.game.view(seat)
        )

        async def accept() -> None:
            async with self._lock:
                if claim is not None:
                    if claim in self.game.legal_claims(seat):
                        await self._accept(claim)
                    else:
                        self.ai.fallback(seat, "claim", "the AI answered an illegal claim")
                # Its say had: its window is over, stored with its claim. A restart must
                # not ask it again: an AI President who peeked claims its draw and keeps
                # its peek, and asked again it claims the peek, which no uninterrupted
                # game does (and the new action moves the members' open prompts on).
                self._claims.close(self._turn, [seat])
                await self._save_state()

        await self._guarded(accept())

    @property
    def fallbacks(self) -> int:
        """AI answers that were not the seat's own agent's in time (survives a restart)."""
        return self.ai.fallbacks

    @property
    def ai_iterations(self) -> list[int]:
        """The search iterations of each AI answer that reported them, ballots apart."""
        return self.ai.iterations

    @property
    def ai_ballot_iterations(self) -> list[int]:
        """The search iterations of each AI ballot that reported them."""
        return self.ai.ballot_iterations

    async def _expire(self, turn: int) -> None:
        """The deadline passed: an agent decides for every human still awaited."""
        timers = self.options.timers
        for seat in list(self.game.awaiting()):
            info = self._seats[seat]
            if info.is_ai or self.ai.deciding(seat):
                continue
            self._expiries[seat] = self._expiries.get(seat, 0) + 1
            self._close(seat, PromptKind.ACTION, notices.TIME_UP)
            label = self._label(seat)
            log.info("game %d: seat %d timed out", self.game_id, seat)
            handed_over = self._expiries[seat] >= timers.max_expiries
            if handed_over:
                await self._hand_over(seat, "absent")
            self._post_notice(
                notices.timed_out(label, self._expiries[seat], handed_over=handed_over)
            )
            self._spawn_ai(seat, turn, self._seats[seat].agent or self._substitute)
            self._stand_in(seat, turn)
        await self._save_state()  # the streaks and the stand-ins, in one write

    async def _submit(self, seat: int, action: Action, prompt_id: str | None) -> None:
        async with self._lock:
            if self.is_over:
                raise SessionRefusal("This game is over.")
            if self.failure is not None or self.paused:
                raise SessionRefusal(self.paused_text())
            if not 0 <= seat < self.game.players:
                raise NotAPlayer(f"There is no seat {seat} in this game.")
            if action.seat != seat:
                raise NotAPlayer("You can only act for your own seat.")
            if prompt_id is not None:
                self._find_prompt(seat, prompt_id)  # `choose` waited for it to be asked
            is_claim = isinstance(action, Claim)
            if not is_claim and self._seats[seat].is_ai:
                raise AIControlsSeat("An AI plays your seat now. Type /back to take it back.")
            await self._accept(action)
            if is_claim:
                self._close(seat, PromptKind.CLAIM, notices.CLAIM_MADE)
                if seat in self._claims.open_seats and self.game.legal_claims(seat):
                    self._issue_claim_prompt(seat)  # e.g. the peek after the session
            elif self._expiries.get(seat):
                self._expiries[seat] = 0  # the streak is broken
                await self._save_state()

    # --- accepting an action ----------------------------------------------------------

    async def _accept(self, action: Action) -> list[ev.Event]:
        """Apply, store, then announce `action` (the caller holds the lock)."""
        game = self.game
        claims_before = game.open_claims
        events = game.apply(action)  # IllegalAction: nothing changed
        # An action that ends the decision ends its deadline too, in the same write: a
        # restart before the next decision stores its own must not find this one. So
        # does the claim that closes the last open claim window.
        advances = _advance_turn(self._turn, action, events) != self._turn
        ends = advances or self._closes_claim_windows(action)
        clear = ends and self._deadlines.stored is not None
        if advances:  # the game stands at the next step already, not asked before the write
            self._step_asked.clear()
        if self.store is not None:
            try:
                await self.store.append_action(
                    self.game_id, len(game.actions) - 1, action, clear_deadline=clear
                )
            except BaseException as exc:
                # Not stored, so it did not happen: back to the stored game (the move
                # stack takes it back; replaying the whole game is not needed).
                game.undo()
                if advances:
                    self._step_asked.set()  # the step it stood at is asked still
                if not isinstance(exc, asyncio.CancelledError):
                    self._fail(exc)
                raise
        if clear:
            self._deadlines.forget()
        self._account(action, events, claims_before)
        self._route(events)
        if self.game.phase is Phase.VOTE and any(isinstance(e, ev.VoteCast) for e in events):
            self._announce_waiting(self._deadlines.stored)
        self._changed.set()
        return events

    def _closes_claim_windows(self, action: Action) -> bool:
        """Whether `action`, just applied, is a human's claim that closes the last claim
        window open now."""
        in_window = isinstance(action, Claim) and action.seat in self._claims.open_seats
        return in_window and not self._claim_windows_open()

    async def _clear_claim_deadline(self) -> None:
        """The last claim window is over: clear its deadline before the windows are
        stored as over, so that a restart in between offers them again (their whole
        timer) rather than give this deadline to the next decision. The claims round
        clears it too, but only once it wakes up."""
        stored = self._deadlines.stored
        try:
            await self._deadlines.store(None)
        except Exception as exc:  # best effort, as the bookkeeping: the round clears it
            self._deadlines.stored = stored  # still in the database: the round tries again
            log.warning(
                "game %d: the claim deadline was not cleared (%s)",
                self.game_id,
                type(exc).__name__,
            )

    def _claim_windows_open(self) -> bool:
        """Whether a human's claim window is still open: not over (claimed all there
        was to claim, or said nothing) for the current decision."""
        claims = self._claims
        over = claims.closed if claims.turn == self._turn else set()
        return any(s not in over and self.game.legal_claims(s) for s in claims.open_seats)

    def _account(self, action: Action, events: Sequence[ev.Event], before: OpenClaims) -> None:
        turn = _advance_turn(self._turn, action, events)
        if turn != self._turn:
            self._turn = turn
            self._vote_start = None
            for seat in list(self._open):  # every earlier decision is settled now
                reason = notices.DONE if seat == action.seat else notices.MOVED_ON
                self._close(seat, PromptKind.ACTION, reason)
        if not isinstance(action, Claim):
            self._claims.opened(before, self.game.open_claims)

    def _end_turn(self) -> None:
        self.ai.end_decision()  # only the thinking: accepting is shielded, re-checks the turn

    # --- routing events to the table --------------------------------------------------

    def _route(self, events: Iterable[ev.Event], *, mark: int | None = None) -> None:
        """Announce `events`: public ones to the table, private ones to their seat.

        `mark`: how many actions the events derive from (default: every stored one)."""
        labels = self._table.labels
        public: list[ev.Event] = []
        private: dict[int, list[ev.Event]] = {}
        for event in events:
            audience = event.audience
            if audience is None:
                public.append(event)
            else:
                for seat in audience:
                    private.setdefault(seat, []).append(event)
        lines = [line for e in public if (line := narrate(e, labels)) is not None]
        if lines:
            self._show(
                Post(
                    "\n".join(lines),
                    tuple(public),
                    board=self.game.spectator_view(),
                    board_changed=any(isinstance(e, BOARD_EVENTS) for e in public),
                ),
                mark=mark,
            )
        for seat in sorted(private):
            if self._seats[seat].user_id is None:
                continue  # an AI-only seat: its agent reads the view when it decides
            secret = private[seat]
            text = "\n".join(line for e in secret if (line := narrate(e, labels)) is not None)
            self._show(Private(seat, text, tuple(secret), self.game.view(seat)), mark=mark)

    def _post_notice(self, text: str, *, board: bool = False) -> None:
        self._show(Post(text, (), board=self.game.spectator_view() if board else None))

    def _announce_waiting(self, deadline: float | None) -> None:
        game = self.game
        if game.is_over:
            return
        awaited = tuple(game.awaiting())
        voted = tuple(sorted(game.votes)) if game.phase is Phase.VOTE else ()
        names = ", ".join(self._label(s) for s in awaited)
        if game.phase is Phase.VOTE:
            living = game.alive_count
            text = notices.votes_in(len(voted), living, names)
        else:
            text = notices.waiting_for(names, WAITING_FOR[game.phase])
        self._show(Waiting(game.phase, awaited, voted, deadline, text))

    def _show(self, message: Message, *, mark: int | None = None) -> None:
        """Queue `message` for the table, in order (see `bot.outbox`)."""
        self._outbox.put(message, self._table, len(self.game.actions) if mark is None else mark)

    # --- delivery faults -------------------------------------------------------------

    async def _shown(self, shown: int) -> None:
        """The outbox delivered everything the first `shown` actions caused: store it."""
        await self._save_state()

    async def _delivery_fault(self, exc: DeliveryError) -> None:
        """The front-end cannot show this game: abandon it, or pause it until it can."""
        if isinstance(exc, PlaceLost):
            await self._abandon(str(exc))
        elif isinstance(exc, PermissionLost):
            self._fail(exc)  # the game task pauses the game with this cause

    async def _delivery_restored(self) -> None:
        """Messages go through again: the manager resumes the paused game."""
        if self.on_restored is not None and self.paused:
            await self.on_restored(self)

    async def abandon(self, reason: str) -> None:
        """End the game for good, without a winner: it cannot be shown any more (its
        channel or server is gone). Stored as abandoned with `reason`; its AI stops."""
        await self._abandon(reason)

    async def _abandon(self, reason: str) -> None:
        async with self._lock:
            if self.is_over:
                return
            self.abandoned = reason
            self._cancelled = True
            log.warning("game %d abandoned: %s", self.game_id, reason)
            if self.store is not None:
                try:
                    await self.store.abandon_game(self.game_id, reason)
                except Exception as exc:  # a restart tries again (and abandons it again)
                    log.error(
                        "game %d: the abandon was not stored (%s)",
                        self.game_id,
                        type(exc).__name__,
                    )
            await self._drop_notes()
        for task in [self._task, *self.ai.tasks]:  # the AI work stops too
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        self._outbox.close()
        self._closed.set()

    def paused_text(self) -> str:
        """What a player is told while the game is paused."""
        failure = self.failure
        if isinstance(failure, DeliveryError):
            return notices.paused_by_delivery(str(failure))
        if failure is not None:
            return notices.paused_by_error(type(failure).__name__)
        return notices.PAUSED

    # --- prompts ------------------------------------------------------------------------

    def _prompt_id(self) -> str:
        return f"a{self._turn}"

    def _action_prompt(self, seat: int, deadline: float | None) -> Prompt:
        view = self.game.view(seat)
        labels = self._table.labels
        if view.phase is Phase.VOTE:
            actions: Sequence[Action] = (Vote(seat, True), Vote(seat, False))
        else:
            actions = view.legal_actions
        options = tuple(Option(option_label(a, labels), a) for a in actions)
        question = action_question(view, labels)
        return Prompt(self._prompt_id(), seat, PromptKind.ACTION, question, options, deadline, view)

    def _issue_claim_prompt(self, seat: int) -> None:
        view = self.game.view(seat)
        labels = self._table.labels
        options = tuple(Option(option_label(c, labels), c) for c in view.legal_claims)
        prompt = Prompt(
            f"c{self._turn}.{len(self.game.actions)}",
            seat,
            PromptKind.CLAIM,
            CLAIM_QUESTION,
            (*options, Option(SAY_NOTHING, None)),
            self._claims.deadline,
            view,
        )
        self._issue(prompt)

    def _issue(self, prompt: Prompt) -> None:
        self._open.setdefault(prompt.seat, {})[prompt.kind] = prompt
        self._show(prompt)
        self._asked_once.set()

    def _close(self, seat: int, kind: PromptKind, reason: str) -> None:
        prompt = self._open.get(seat, {}).pop(kind, None)
        if prompt is not None:
            self._show(Withdrawal(prompt, reason))

    def _close_all(self, reason: str) -> None:
        for seat in list(self._open):
            for kind in list(self._open[seat]):
                self._close(seat, kind, reason)

    async def _prompt_asked(self, seat: int, prompt_id: str) -> Prompt:
        """The open prompt `prompt_id` of `seat`; just after a (re)start, once the
        session has asked for its step: the buttons shown before a restart stand, with
        the same prompt ids, and a click on them must not be refused as stale."""
        try:
            return self._find_prompt(seat, prompt_id)
        except SessionRefusal:
            if self._asked_once.is_set():
                raise
        try:
            async with asyncio.timeout(ASKED_AGAIN_WITHIN_S):
                await self._asked_once.wait()
        except TimeoutError:
            log.warning(
                "game %d: the step is not asked %.0f s after the start",
                self.game_id,
                ASKED_AGAIN_WITHIN_S,
            )
        if self.paused:
            raise SessionRefusal(self.paused_text())
        return self._find_prompt(seat, prompt_id)

    def _find_prompt(self, seat: int, prompt_id: str) -> Prompt:
        for prompt in self._open.get(seat, {}).values():
            if prompt.id == prompt_id:
                return prompt
        if self.is_over:
            raise StalePrompt("This game is over.")
        if prompt_id == self._prompt_id() and self.ai_decides(seat):
            raise StalePrompt(self.ai_decides_notice(seat))  # the AI has not played yet
        if prompt_id == self._prompt_id():  # someone else's button
            names = ", ".join(self._label(s) for s in self.game.awaiting())
            raise NotAPlayer(f"That choice is not yours: the game waits for {names}.")
        raise StalePrompt("That choice is no longer open: the game has moved on.")

    # --- seats ---------------------------------------------------------------------------

    def _member_seat(self, user_id: int) -> int:
        seat = self._table.seat_of(user_id)
        if seat is None:
            raise NotAPlayer("You are not playing in this game.")
        if self.is_over:
            raise SessionRefusal("This game is over.")
        if self.paused:
            raise SessionRefusal(self.paused_text())
        return seat

    async def _hand_over(self, seat: int, reason: str) -> None:
        await self._set_controller(seat, self._substitute, reason)
        self._close(seat, PromptKind.ACTION, notices.AI_PLAYS_NOW)

    async def _set_controller(self, seat: int, agent: str | None, reason: str) -> None:
        info = replace(self._seats[seat], agent=agent)
        if self.store is not None:
            from .storage import SeatRecord  # the storage module is optional for the port

            await self.store.set_seat(
                self.game_id, SeatRecord(info.seat, info.name, info.user_id, info.agent), reason
            )
        self._seats[seat] = info
        self._table = self._make_table()
        self._changed.set()

    def _make_table(self) -> Table:
        return Table(self.game_id, tuple(self._seats), self.guild_id, self.channel_id)

    def _label(self, seat: int) -> str:
        return self._seats[seat].label

    # --- deadlines and failures -----------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The bookkeeping a restart needs beyond the move stack (JSON-ready)."""
        state: dict[str, Any] = {
            "expiries": {str(seat): n for seat, n in sorted(self._expiries.items()) if n},
            "claims": self._claims.state(),
            "fallbacks": self.ai.fallbacks,
            "shown": self._outbox.shown,
        }
        if self._stand_ins and self._stand_ins_turn == self._turn:
            # Only the current decision's: an older one's stand-ins are over.
            state["stand_ins"] = {"turn": self._turn, "seats": sorted(self._stand_ins)}
        if self._notes:
            state["notes"] = copy.deepcopy(self._notes)
        if (stopped := self._deadlines.stopped) is not None:
            state["clock"] = stopped
        return state

    async def _save_state(self) -> None:
        """Store `state()` if it changed. Best effort: the move stack is what matters,
        and a lost write only means a streak restarts, a claim is offered again or a
        front-end's note is forgotten."""
        await self._store_state()

    async def _store_state(self) -> bool:
        """`_save_state`, saying whether the state is stored now (True without a store:
        nothing more durable is to be had)."""
        if self.store is None:
            return True
        # One write at a time, each of the state as it is when its turn comes: two in
        # flight (the game's and a front-end's note) could land in either order and
        # leave the older state stored.
        async with self._saving:
            state = self.state()
            if state == self._stored_state:
                return True
            try:
                await self.store.set_session_state(self.game_id, state)
            except Exception as exc:
                log.warning(
                    "game %d: bookkeeping not stored (%s)", self.game_id, type(exc).__name__
                )
                return False
            self._stored_state = state
            return True

    # --- the front-end's notes ------------------------------------------------------------

    def note(self, key: str) -> Any:
        """What the front-end noted under `key` (`set_note`), or None. Notes are kept with
        the game's bookkeeping, so a restart gives them back; they may read as anything
        a damaged row holds: the front-end checks them."""
        return copy.deepcopy(self._notes.get(key))

    def set_note(self, key: str, value: Any) -> None:
        """Note a JSON-ready `value` under `key` (None drops it) while the game runs: at
        once here, stored by `store_notes` (two steps, so that a front-end may answer its
        member in between, within Discord's 3 seconds, and still count two clicks one
        after the other). The notes go when the game ends."""
        if value is None:
            self._notes.pop(key, None)
        else:
            self._notes[key] = copy.deepcopy(value)

    def stored_note(self, key: str) -> Any:
        """What the database holds under `key` (`note` as last stored), or None; the note
        itself without a store (nothing more durable is to be had). A front-end rolls a
        note back to it after a failed store: the note in memory before may hold what
        was never stored either."""
        if self.store is None:
            return self.note(key)
        return copy.deepcopy(self._stored_state.get("notes", {}).get(key))

    async def store_notes(self) -> bool:
        """Store the notes now, with the rest of the bookkeeping; whether they are stored
        (a failure is logged, and the next write of the bookkeeping tries again), so that
        a front-end tells its member a note counts only once it would survive a crash."""
        return await self._store_state()

    async def _drop_notes(self) -> None:
        """The game is over: what the front-end noted for it while it ran goes too."""
        if self._notes:
            self._notes.clear()
            await self._save_state()

    def _fail(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
            if not isinstance(exc, DeliveryError):  # the outbox logged that one
                # A warning: the game task pauses the game next and logs that as the error.
                log.warning(
                    "game %d: an action was not stored (%s)", self.game_id, type(exc).__name__
                )
        self._changed.set()

    def _raise_failure(self) -> None:
        if self.failure is not None:
            raise RuntimeError(f"Game {self.game_id} stopped.") from self.failure

    async def _guarded(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` to completion even if our caller is cancelled (store writes)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(consume)
        return await asyncio.shield(task)

    @property
    def _seed(self) -> int:
        assert self.game.seed is not None
        return self.game.seed


# --- pure helpers (also used by recovery) --------------------------------------------------


def replay(record: GameRecord) -> tuple[Game, int, set[int]]:
    """Replay `record`: the game, its decision counter, and the seats whose claim windows
    the last decision opened and that may still claim (offered again after a restart)."""
    game = GameRecord(record.players, record.seed, record.variant).replay()
    turn = 0
    pending: set[int] = set()
    for index, action in enumerate(record.actions):
        before = game.open_claims
        try:
            events = game.apply(action)
        except IllegalAction as exc:
            from engine import RecordError

            raise RecordError(f"Action {index} ({action}) does not replay: {exc}") from exc
        turn = _advance_turn(turn, action, events)
        if not isinstance(action, Claim):
            pending = new_claim_windows(before, game.open_claims)
    return game, turn, {s for s in pending if game.legal_claims(s)}


def _read_state(
    state: Mapping[str, Any], turn: int, players: int, actions: int
) -> tuple[dict[int, int], set[int], int, int]:
    """The timeout streaks, the claim windows closed at decision `turn`, the AI
    fallbacks counted so far and how many of the `actions` the table was shown
    (`OPENING_UNSHOWN`: not even the opening), read from a stored `GameSession.state()`;
    whatever does not fit the game is dropped (a game stored before the cursor existed
    counts as shown, unless it has no action yet: its opening is shown again)."""
    expiries: dict[int, int] = {}
    raw = state.get("expiries")
    if isinstance(raw, dict):
        for key, value in raw.items():
            if str(key).isdigit() and int(key) < players and type(value) is int and value > 0:
                expiries[int(key)] = value
    closed = closed_at(state, turn, players)
    fallbacks = state.get("fallbacks")
    shown = state.get("shown")
    return (
        expiries,
        closed,
        fallbacks if type(fallbacks) is int and fallbacks > 0 else 0,
        shown
        if type(shown) is int and OPENING_UNSHOWN <= shown <= actions
        else actions or OPENING_UNSHOWN,
    )


def _read_stand_ins(game_id: int, state: Mapping[str, Any], turn: int, players: int) -> set[int]:
    """The seats for which an AI was deciding decision `turn` (they timed out), read from
    a stored `GameSession.state()`: none stored (an older game), or stored for another
    decision, is none; a value that does not read is none too, with a warning that
    names the game, never the value."""
    raw = state.get("stand_ins")
    if raw is None:
        return set()
    seats = raw.get("seats") if isinstance(raw, dict) else None
    if (
        not isinstance(raw, dict)
        or type(raw.get("turn")) is not int
        or not isinstance(seats, list)
        or not all(type(s) is int and 0 <= s < players for s in seats)
    ):
        log.warning("game %d: the stored stand-ins do not read; read as none", game_id)
        return set()
    return set(seats) if raw["turn"] == turn else set()


def _read_notes(game_id: int, state: Mapping[str, Any]) -> dict[str, Any]:
    """The front-end's notes in a stored `GameSession.state()`: none stored, or notes
    that do not read, are none (a warning names the game, never the stored value: a
    damaged row may hold anything)."""
    notes = state.get("notes")
    if notes is None:
        return {}
    if not isinstance(notes, dict):
        log.warning("game %d: the stored front-end notes do not read; read as none", game_id)
        return {}
    return dict(notes)


def _advance_turn(turn: int, action: Action, events: Sequence[ev.Event]) -> int:
    """Every decision but a ballot or a claim moves the game on; so does a complete vote."""
    if isinstance(action, Claim):
        return turn
    if isinstance(action, Vote):
        return turn + any(isinstance(e, ev.ElectionResult) for e in events)
    return turn + 1


def _first_vote_of_election(actions: Sequence[Action]) -> int | None:
    """Index of the first ballot after the last nomination, if any."""
    for index in range(len(actions) - 1, -1, -1):
        if isinstance(actions[index], Nominate):
            for later in range(index + 1, len(actions)):
                if isinstance(actions[later], Vote):
                    return later
            return None
    return None


def _how_it_ended(task: asyncio.Task[Any]) -> str:
    """A finished task's end in public words: cancelled, or the type of what it raised."""
    if task.cancelled():
        return "cancelled"
    exc = task.exception()
    return "no error" if exc is None else f"it raised {type(exc).__name__}"
