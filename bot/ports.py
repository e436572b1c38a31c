"""The front-end port: what a game session needs from a place where people play.

A `GameSession` (bot/session.py) drives one game and talks to its table only through a
`Frontend`: Discord (bot/discord/), the terminal (bot/frontends/terminal.py) and the test
front-end (bot/frontends/fake.py) implement it. A front-end knows no rules: it renders
what it is given and sends the players' answers back through the session's `GameControl`
methods (`choose` for a picked option, `submit` for a typed action).

Contract, for every implementation:

- Calls come from one task per game, in the order things happened, and each call should
  return promptly: queue slow I/O (HTTP, rate limits) rather than awaiting it inline.
  A front-end error is logged by the session and never stops the game.
- `post` is public: the whole table and every spectator. Its `events` are public events
  only and its `board` is the spectator view, so nothing in a `Post` is secret while the
  game runs.
- `tell` is private to one seat (its role, hand, peek, investigation result). Deliver it
  only to the member sitting at that seat (ephemeral reply, DM, or the terminal player).
- `ask` offers one seat a choice. A `Prompt` is private to its seat as a whole (its
  question may name the seat's hand): show it only to that seat's member, and tell the
  table whom it waits for from `waiting`. The answer arrives later, from any task, as
  `await control.choose(user_id, prompt.id, index)` (or `submit`), which returns (the
  prompt answered) once the action is accepted and stored, or raises
  `engine.IllegalAction` (including the `SessionRefusal` subclasses below) with a
  message to show that player as is.
  `withdraw` says the prompt is closed (answered, timed out, superseded).
- Prompt ids are stable across a restart of the bot: a button carrying
  `sh:v1:<game_id>:<prompt.id>:<option index>` stays valid as long as the prompt is open.
- Calls reach the front-end through the game's outbox (`bot.outbox`), one at a time and
  in order. A front-end retries its own transient failures (a 5xx, a network error, a
  rate limit); what it cannot do is reported by raising a `DeliveryError`: `PlaceLost`
  when the game can no longer be shown anywhere (the game is abandoned), or
  `PermissionLost` when the bot lacks a permission the game needs (the game pauses
  until the same message goes through). `resume` comes first after a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from engine import Action, IllegalAction, Party, Phase, PlayerView, Role, WinReason
from engine.events import Event

from .errors import BotError, Refusal
from .suspicion import SuspicionTrack

__all__ = [
    "AIControlsSeat",
    "DeliveryError",
    "Frontend",
    "GameControl",
    "NotAPlayer",
    "Option",
    "PermissionLost",
    "PlaceLost",
    "Post",
    "Private",
    "Prompt",
    "PromptKind",
    "Reveal",
    "SeatInfo",
    "SessionRefusal",
    "StalePrompt",
    "Table",
    "Waiting",
]


# --- who sits where -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat as a front-end addresses it.

    `user_id` is the member dealt this seat (a Discord user id, or a local id in the
    terminal), None for a seat that only ever had an AI. `agent` is the agent spec when
    an AI decides for the seat now (an AI seat, or a human's seat taken over), else None.
    """

    seat: int
    name: str
    user_id: int | None = None
    agent: str | None = None

    @property
    def is_ai(self) -> bool:
        """Whether an AI decides for this seat now."""
        return self.agent is not None

    @property
    def speaks(self) -> bool:
        """Whether this seat's AI may talk to the table: only a seat no person ever
        played. A person's seat taken over holds what they saw (hands, peeks, checks),
        and its words would carry those secrets to everyone."""
        return self.agent is not None and self.user_id is None

    @property
    def label(self) -> str:
        """How narration names this seat, e.g. "Ada (seat 0)"."""
        return f"{self.name} (seat {self.seat})"


@dataclass(frozen=True, slots=True)
class Table:
    """Where a game is played and who sits at it (a fresh value when a seat changes hands)."""

    game_id: int
    seats: tuple[SeatInfo, ...]
    guild_id: int | None = None
    channel_id: int | None = None

    @property
    def labels(self) -> list[str]:
        """Narration names of every seat, in seat order (what `bot.narrate` expects)."""
        return [s.label for s in self.seats]

    def seat_of(self, user_id: int) -> int | None:
        """The seat dealt to `user_id`, or None if that member does not play here."""
        for info in self.seats:
            if info.user_id == user_id:
                return info.seat
        return None


# --- what the session sends ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Post:
    """A public message: narrated public events or a notice (timeouts, takeovers).

    `board` is the spectator view right after these events (render it as you like);
    `board_changed` is True when the board itself moved (a policy, the tracker, a death),
    a hint for front-ends that redraw the board only then. `last`: the game ends with
    this notice and no reveal follows (it was cancelled): nothing is awaited any more.
    """

    text: str
    events: tuple[Event, ...] = ()
    board: PlayerView | None = None
    board_changed: bool = False
    last: bool = False


@dataclass(frozen=True, slots=True)
class Private:
    """Private information for one seat: its secret events, narrated, and its view."""

    seat: int
    text: str
    events: tuple[Event, ...]
    view: PlayerView


class PromptKind(StrEnum):
    """A decision the game waits for, or an optional claim after a session, peek or probe."""

    ACTION = "action"
    CLAIM = "claim"


@dataclass(frozen=True, slots=True)
class Option:
    """One answer to a prompt: a label to show and the action it stands for.

    `action` is None for "say nothing" in a claim prompt.
    """

    label: str
    action: Action | None


@dataclass(frozen=True, slots=True)
class Prompt:
    """Ask `seat` to choose one of `options` before `deadline` (epoch seconds; None: no limit).

    Private to that seat: `view` is the seat's own view (its hand, role...) and `question`
    may name the hand. `question` and the option labels are ready to show; the front-end
    needs no rules to render them. Ids: "a<turn>" for a decision (the same for every
    voter of one election, and across restarts), "c<turn>.<n>" for a claim prompt.
    """

    id: str
    seat: int
    kind: PromptKind
    question: str
    options: tuple[Option, ...]
    deadline: float | None
    view: PlayerView


@dataclass(frozen=True, slots=True)
class Waiting:
    """Whom the table waits for now; during a vote, who has voted (never how)."""

    phase: Phase
    seats: tuple[int, ...]
    voted: tuple[int, ...]
    deadline: float | None
    text: str


@dataclass(frozen=True, slots=True)
class Reveal:
    """The end of a game: every role, every hidden draw and discard in order, and how
    each AI player's suspicion of each seat evolved (empty when no belief model ran)."""

    winner: Party
    reason: WinReason
    roles: tuple[Role, ...]
    hidden: tuple[Event, ...]  # the private events of the game, in order
    text: str  # a complete text reveal, for front-ends that render nothing themselves
    view: PlayerView  # the final spectator view (everything is visible once it is over)
    suspicion: tuple[SuspicionTrack, ...] = field(default=())


@runtime_checkable
class Frontend(Protocol):
    """What the session needs from a front-end (see the module docstring for the contract)."""

    # How long the outbox waits for more after a burst before it calls `flush`: a front-end
    # that batches messages wants a moment for the game's next step to be queued.
    linger_s: float

    async def post(self, table: Table, post: Post) -> None:
        """Show a public message to the table and spectators."""
        ...

    async def tell(self, table: Table, private: Private) -> None:
        """Show private information to the member at `private.seat` only."""
        ...

    async def ask(self, table: Table, prompt: Prompt) -> None:
        """Offer `prompt` to its seat; return at once (the answer comes via the session)."""
        ...

    async def withdraw(self, table: Table, prompt: Prompt, reason: str) -> None:
        """`prompt` is closed (answered, timed out, superseded): stop offering it."""
        ...

    async def waiting(self, table: Table, waiting: Waiting) -> None:
        """Show whom the game waits for (and, in a vote, who has voted)."""
        ...

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        """The game is over: show everything."""
        ...

    async def flush(self, table: Table) -> None:
        """The outbox has handed over everything it holds for now: show what was held
        back to be shown together (narration merged into the next prompt...)."""
        ...

    async def resume(self, table: Table) -> None:
        """The game carries on after a restart. The prompts still open are asked again
        next, with the same ids: re-use what was shown for them before the restart, and
        close what is not asked again."""
        ...


# --- what a front-end reports ---------------------------------------------------------


class DeliveryError(BotError):
    """A front-end could not show something, for good (its transient failures it retries
    itself). The message is for hosts: it names the cause and never a secret."""


class PlaceLost(DeliveryError):
    """The game cannot be shown any more: its channel is gone, or the bot left the server."""


class PermissionLost(DeliveryError):
    """The bot lacks permissions the game needs where it is played (`missing` names them,
    as a server's settings show them)."""

    def __init__(self, message: str, missing: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.missing = tuple(missing)


# --- what front-ends call -----------------------------------------------------------


class SessionRefusal(Refusal):
    """The session refuses an answer before the rules are consulted; the message is for
    the player. (Rule refusals are the engine's own `IllegalAction` subclasses: a
    front-end answers both, `REFUSALS`.)"""


# What a front-end answers a player with, as is: the rules' refusals and the session's.
REFUSALS = (IllegalAction, Refusal)


class NotAPlayer(SessionRefusal):
    """The member does not play in this game (or is dead and asked to act)."""


class StalePrompt(SessionRefusal):
    """The answer is to a prompt that is no longer open (an earlier phase, a timeout)."""


class AIControlsSeat(SessionRefusal):
    """An AI plays this seat for good; the member must say `/back` first."""


class GameControl(Protocol):
    """The session as a front-end drives it (implemented by `bot.session.GameSession`)."""

    @property
    def game_id(self) -> int:
        """The stored game's id."""
        ...

    @property
    def table(self) -> Table:
        """Who sits where now."""
        ...

    def private_view(self, seat: int) -> PlayerView:
        """The seat's own view (role, hand...): show it to that seat's member only."""
        ...

    def spectator_view(self) -> PlayerView:
        """What anyone may see now."""
        ...

    def open_prompts(self, seat: int) -> Sequence[Prompt]:
        """The prompts `seat` may answer now (to show them again on request)."""
        ...

    async def choose(self, user_id: int, prompt_id: str, option: int) -> Prompt:
        """`user_id` picked `option` (an index) of prompt `prompt_id`; returns that prompt
        once the choice is accepted, raises `IllegalAction` with a player-readable message
        if that is not possible."""
        ...

    async def submit(self, seat: int, action: Action, *, prompt_id: str | None = None) -> None:
        """Play `action` for `seat` (a typed answer); returns once accepted and stored."""
        ...

    async def afk(self, user_id: int) -> str:
        """Hand the member's seat to an AI for good; returns the reply to show."""
        ...

    async def back(self, user_id: int) -> str:
        """Give the seat back to its member from their next decision; returns the reply."""
        ...
