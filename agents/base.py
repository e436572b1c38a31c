"""The agent protocol: a seat's decision from that seat's view, never the full state.

An agent is made for one seat with a seed and an optional budget. It is shown the
seat's `PlayerView` (the information set: public history plus that seat's secrets)
and returns one of `view.legal_actions`; after a session, a peek or an investigation it
may also return one of `view.legal_claims`. Agents never receive a `Game`.

Determinism: every decision draws from an RNG seeded by (seed, seat, number of events
seen), so an agent rebuilt in a worker process from its spec and the current view
decides exactly as a long-lived one would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar, Generic, Protocol, TypeVar

from engine import Action, Claim, PlayerView
from engine.events import Event


@dataclass(frozen=True, slots=True)
class Budget:
    """How much thinking a decision may take: iterations and/or wall-clock seconds.

    `deadline` is an absolute `time.monotonic()` instant (the same clock in every process
    of a machine) by which the answer is due, whatever the decision spent before its
    search started; a search stops at whichever of its limits comes first. `alone` says
    the scheduler serves this decision's table alone: a cap a search keeps on a clock
    to leave the machine to other tables' decisions may be lifted.
    """

    iterations: int | None = None
    seconds: float | None = None
    deadline: float | None = None
    alone: bool = False


M = TypeVar("M", Action, Claim | None)


@dataclass(frozen=True, slots=True)
class Answer(Generic[M]):
    """An AI's answer to one decision (an Action) or claim window (a Claim or None),
    and how it was reached.

    `fallback` says why this is not the agent's own answer within its deadline (a
    worker that crashed, hung or raised, ...), free of hidden information; None when it
    is. `answered_by` names the agent whose move this is: the seat's own, or the rule
    agent that stood in. `iterations` is the search's count (None: not a search).
    `thought_until` is the `time.monotonic()` instant a scheduler let it think to (None:
    not scheduled): a move shown no sooner than that does not tell whether the agent
    searched or answered at once (a lone option, a ballot it does not search).
    """

    move: M
    answered_by: str
    iterations: int | None = None
    seconds: float = 0.0
    fallback: str | None = None
    thought_until: float | None = None


class Agent(Protocol):
    """An AI player for one seat."""

    name: ClassVar[str]
    seat: int

    def act(self, view: PlayerView) -> Action:
        """Return one of `view.legal_actions` (never called when it is empty)."""
        ...

    def claim(self, view: PlayerView) -> Claim | None:
        """Return one of `view.legal_claims`, or None to stay silent."""
        ...


class AgentBase:
    """Plumbing shared by the agents: seat, seed, budget, per-decision RNG, event feed.

    Subclasses implement `decide` (and `speak` for claims) and may override `on_event`
    to update what they believe; `observe` feeds them each newly visible event once.
    """

    name: ClassVar[str] = "base"

    def __init__(self, seat: int, seed: int | None = None, budget: Budget | None = None) -> None:
        self.seat = seat
        self.seed = random.SystemRandom().randrange(2**63) if seed is None else seed
        self.budget = budget or Budget()
        self.seen = 0  # events of the view already fed to `on_event`
        self.iterations: int | None = None  # the last decision's search iterations, if any

    def rng(self, view: PlayerView) -> random.Random:
        """The RNG of the decision at this point of the game (see the module docstring)."""
        return random.Random(f"{self.name}:{self.seed}:{self.seat}:{len(view.events)}")

    def observe(self, view: PlayerView) -> None:
        """Feed every event of `view` not seen yet to `on_event`, in order."""
        if view.seat != self.seat:
            raise ValueError(f"Seat {self.seat}'s agent was shown seat {view.seat}'s view.")
        for event in view.events[self.seen :]:
            self.on_event(event, view)
        self.seen = len(view.events)

    def on_event(self, event: Event, view: PlayerView) -> None:
        """React to one newly visible event (nothing by default)."""

    def act(self, view: PlayerView) -> Action:
        """Catch up on events, then decide."""
        if not view.legal_actions:
            raise ValueError(f"Seat {self.seat} has nothing to decide now.")
        self.observe(view)
        self.iterations = None  # a decision that searches sets its own count
        action = self.decide(view, self.rng(view))
        assert action in view.legal_actions, f"{self.name} chose an illegal {action}"
        return action

    def claim(self, view: PlayerView) -> Claim | None:
        """Catch up on events, then maybe claim."""
        self.iterations = None  # claims are not searched
        if not view.legal_claims:
            return None
        self.observe(view)
        claim = self.speak(view, self.rng(view))
        assert claim is None or claim in view.legal_claims, f"{self.name}: illegal {claim}"
        return claim

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Choose one of `view.legal_actions`."""
        raise NotImplementedError

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        """Choose one of `view.legal_claims` or stay silent (silent by default)."""
        return None
