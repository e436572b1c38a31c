"""How the game session asks AI players for decisions.

The session depends only on `AgentPort`: `agents.service.AgentService` (worker processes)
satisfies it, and `InProcessAgents` here runs the real agents in this process, inline for
the fast rule agents and on a thread for the others, so the terminal and the tests work
without worker processes. Either way the answer is always one of the view's legal
options and comes within the budget: an agent that fails or overruns is replaced by a
rule agent's answer (`agents.fallback`), the answer says why, and the game goes on.

`ai_service(backend, ...)` builds the bot's `AgentService` for AI_BACKEND: worker
processes of this machine ("local"), or tasks on a Ray cluster ("ray"); the queue,
deadlines and fallbacks are the service's own either way.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import logging
import time
from collections.abc import Callable, Hashable
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Protocol, TypeVar

from agents.base import AgentBase, Answer, Budget
from agents.fallback import rule_action
from agents.registry import AGENTS, AgentSpec
from engine import Action, Claim, PlayerView

if TYPE_CHECKING:  # the service imports pebble and the worker machinery: only when used
    from agents.service import AgentService

log = logging.getLogger(__name__)

# Strongest first: the agent that stands in for absent players by default.
SUBSTITUTES = ("belief-ismcts", "belief", "selfish")
FAST_AGENTS = frozenset({"random", "selfish"})  # microseconds per decision: run inline
DEFAULT_BUDGET_S = 2.0
CLAIM_BUDGET_S = 1.0

T = TypeVar("T")


class AgentPort(Protocol):
    """AI decisions for one seat's view; implemented by `agents.service.AgentService`.

    Both calls always answer, in time: when the seat's agent cannot, the answer says why
    in `Answer.fallback` (for the game's log and its fallback count).
    """

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
        """One of `view.legal_actions`, within `budget_s` seconds of thinking.

        `patience_s`: how long past `budget_s` the table can wait (its timer) when the
        port is busy with other seats: a busy port answers late with a thinner search
        rather than with a fallback (None: the port's own default). `table`: the game
        the seat plays in, so a port serving several games can tell when it serves
        one alone (see `agents.service`)."""
        ...

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
        """One of `view.legal_claims`, or None to stay silent, within `budget_s` seconds
        (`patience_s`, `table`: as for `decide`)."""
        ...


def ai_service(
    backend: str = "local", *, workers: int | None = None, ray_address: str | None = None
) -> AgentService:
    """The bot's AI service (not started): `workers` processes of this machine, or with
    `backend="ray"` one task per decision on the Ray cluster at `ray_address` (None: a
    Ray instance started on this machine), as many at once as the cluster has CPUs."""
    from agents.service import AgentService

    if backend == "local":
        return AgentService(workers=workers)
    if backend == "ray":
        from agents.ray_backend import ray_pools  # the [scale] extra

        return AgentService(pools=ray_pools(ray_address))
    raise ValueError(f"Unknown AI backend {backend!r} (local or ray).")


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
    process would, and nothing is shared between games. An agent that fails or overruns
    is replaced by the rule agents of `agents.fallback` (never by a random choice).
    """

    def __init__(self, *, inline: frozenset[str] = FAST_AGENTS, grace_s: float = 1.0) -> None:
        self.inline = inline
        self.grace_s = grace_s  # beyond the budget before the fallback answers

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
        """The agent's action for `view`; a rule agent's if it fails (one thread per
        decision: nothing queues, so `patience_s` has nothing to wait for, and no
        decision is planned around others, so `table` changes nothing)."""
        if not view.legal_actions:
            raise ValueError(f"Seat {view.seat} has nothing to decide now.")
        agent_spec = _capped(spec, budget_s)
        started = time.monotonic()

        def think() -> tuple[Action, int | None]:
            agent = _build(agent_spec, view, seed)
            return agent.act(view), agent.iterations

        result, problem = await self._run(agent_spec, think, budget_s)
        if result is not None and result[0] in view.legal_actions:
            return Answer(result[0], agent_spec.name, result[1], time.monotonic() - started)
        problem = problem or "the agent answered an illegal action"
        _warn(agent_spec.name, view, problem)
        move, by = rule_action(view, seed)
        return Answer(move, by, None, time.monotonic() - started, problem)

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
        """The agent's claim for `view`, or None (silence, also when it fails)."""
        agent_spec = _capped(spec, budget_s)
        if not view.legal_claims:
            return Answer(None, agent_spec.name)
        started = time.monotonic()

        def speak() -> tuple[Claim | None, int | None]:
            agent = _build(agent_spec, view, seed)
            return agent.claim(view), agent.iterations

        result, problem = await self._run(agent_spec, speak, budget_s)
        if result is not None and (result[0] is None or result[0] in view.legal_claims):
            return Answer(result[0], agent_spec.name, result[1], time.monotonic() - started)
        problem = problem or "the agent answered an illegal claim"
        _warn(agent_spec.name, view, problem)
        return Answer(None, agent_spec.name, None, time.monotonic() - started, problem)

    async def _run(
        self, spec: AgentSpec, work: Callable[[], T], budget_s: float
    ) -> tuple[T | None, str | None]:
        """The work's result, or None and what went wrong (free of hidden information)."""
        try:
            if spec.name in self.inline:
                return work(), None
            async with asyncio.timeout(budget_s + self.grace_s):  # wait_for: see service
                return await asyncio.to_thread(work), None
        except TimeoutError:
            return None, f"no answer within {budget_s:g} s"
        except Exception as exc:  # an agent bug must not stop a game
            # Only the exception's type: its message may quote the seat's hand or role.
            return None, f"the agent raised {type(exc).__name__}"


def _warn(name: str, view: PlayerView, problem: str) -> None:
    # Public facts only: the agent, the seat, the phase and what went wrong.
    log.info(
        "AI fallback: agent %s at seat %s (phase %s): %s",
        name,
        view.seat,
        view.phase.value,
        problem,
    )


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
