"""How the game session asks AI players for decisions.

The session depends only on `AgentPort`: `agents.service.AgentService` (worker processes)
satisfies it, and `InProcessAgents` here runs the real agents in this process, inline for
the fast rule agents and on a thread for the others, so the terminal and the tests work
without worker processes. Either way the answer is always one of the view's legal
options and comes within the budget: an agent that fails or overruns is replaced by a
seeded random choice, and the game goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import logging
import random
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Protocol, TypeVar

from agents.base import AgentBase, Budget
from agents.registry import AGENTS, AgentSpec
from engine import Action, Claim, PlayerView

log = logging.getLogger(__name__)

# Strongest first: the agent that stands in for absent players by default.
SUBSTITUTES = ("belief-ismcts", "belief", "selfish")
FAST_AGENTS = frozenset({"random", "selfish"})  # microseconds per decision: run inline
DEFAULT_BUDGET_S = 2.0
CLAIM_BUDGET_S = 1.0

T = TypeVar("T")


class AgentPort(Protocol):
    """AI decisions for one seat's view; implemented by `agents.service.AgentService`."""

    async def decide(
        self, spec: str, view: PlayerView, *, seed: int, budget_s: float = DEFAULT_BUDGET_S
    ) -> Action:
        """One of `view.legal_actions`, within `budget_s` seconds."""
        ...

    async def claim(
        self, spec: str, view: PlayerView, *, seed: int, budget_s: float = CLAIM_BUDGET_S
    ) -> Claim | None:
        """One of `view.legal_claims`, or None to stay silent, within `budget_s` seconds."""
        ...


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the AI at `seat`: a stable function of the game's seed and the seat."""
    digest = hashlib.blake2b(f"shbot:{game_seed}:{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1  # 63 bits: fits SQLite and every agent


@cache
def available(name: str) -> bool:
    """Whether the agent `name` is registered and its module imports."""
    target = AGENTS.get(name)
    if target is None:
        return False
    try:
        importlib.import_module(target.partition(":")[0])
    except ImportError:
        return False
    return True


def default_substitute(budget_s: float = DEFAULT_BUDGET_S) -> str:
    """The spec of the strongest agent that imports, thinking at most `budget_s` seconds."""
    for name in SUBSTITUTES:
        if available(name):
            return name if name in FAST_AGENTS else f"{name}:seconds={budget_s:g}"
    return "random"  # pragma: no cover - selfish ships with the project


class InProcessAgents:
    """Runs the real agents (`agents.registry`) in this process, off the event loop.

    A fresh agent is built for every decision from its spec, seed and seat: agents are
    designed to decide from the view alone (see `agents.base`), exactly as a worker
    process would, and nothing is shared between games.
    """

    def __init__(self, *, inline: frozenset[str] = FAST_AGENTS, grace_s: float = 1.0) -> None:
        self.inline = inline
        self.grace_s = grace_s  # beyond the budget before the fallback answers

    async def decide(
        self, spec: str, view: PlayerView, *, seed: int, budget_s: float = DEFAULT_BUDGET_S
    ) -> Action:
        """The agent's action for `view`; a seeded random legal action if it fails."""
        if not view.legal_actions:
            raise ValueError(f"Seat {view.seat} has nothing to decide now.")
        agent_spec = _capped(spec, budget_s)

        def think() -> Action:
            return _build(agent_spec, view, seed).act(view)

        action = await self._run(agent_spec, think, budget_s, view)
        if action is None or action not in view.legal_actions:
            return _fallback(view, seed).choice(view.legal_actions)
        return action

    async def claim(
        self, spec: str, view: PlayerView, *, seed: int, budget_s: float = CLAIM_BUDGET_S
    ) -> Claim | None:
        """The agent's claim for `view`, or None (also when it fails)."""
        if not view.legal_claims:
            return None
        agent_spec = _capped(spec, budget_s)

        def speak() -> Claim | None:
            return _build(agent_spec, view, seed).claim(view)

        claim = await self._run(agent_spec, speak, budget_s, view)
        return claim if claim in view.legal_claims else None

    async def _run(
        self, spec: AgentSpec, work: Callable[[], T | None], budget_s: float, view: PlayerView
    ) -> T | None:
        try:
            if spec.name in self.inline:
                return work()
            return await asyncio.wait_for(asyncio.to_thread(work), budget_s + self.grace_s)
        except TimeoutError:
            log.warning(
                "agent %s overran %.1fs at seat %s; choosing at random", spec, budget_s, view.seat
            )
        except Exception as exc:  # an agent bug must not stop a game
            # Only the exception's type: its message may quote the seat's hand or role.
            log.warning(
                "agent %s failed (%s) at seat %s; choosing at random",
                spec,
                type(exc).__name__,
                view.seat,
            )
        return None


def _capped(spec: str, budget_s: float) -> AgentSpec:
    """The spec with its time budget no larger than `budget_s`."""
    parsed = AgentSpec.parse(spec)
    seconds = parsed.budget.seconds
    if parsed.name in FAST_AGENTS or (seconds is not None and seconds <= budget_s):
        return parsed
    return replace(parsed, budget=Budget(parsed.budget.iterations, budget_s))


def _build(spec: AgentSpec, view: PlayerView, seed: int) -> AgentBase:
    if view.seat is None:
        raise ValueError("Agents play a seat, not a spectator view.")
    return spec.build(view.seat, seed)


def _fallback(view: PlayerView, seed: int) -> random.Random:
    return random.Random(f"fallback:{seed}:{view.seat}:{len(view.events)}")
