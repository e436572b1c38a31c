"""Terminal games on top of the game session: a spectated bot-only demo, or one local
player against AI players. Both are stored like every game (replay and stats see them).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import AsyncIterator
from typing import TextIO

from agents.registry import AgentSpec
from engine import STANDARD, Variant

from .agent_port import FAST_AGENTS, AgentPort, available
from .frontends.terminal import LineReader, TerminalFrontend, read_stdin
from .manager import BOT_NAMES, Member, SessionManager
from .session import GameSession, SessionOptions
from .storage import Storage
from .timers import Timers

__all__ = ["BOT_NAMES", "LOCAL_USER_ID", "check_agent", "play_demo", "play_terminal", "run_demo"]

LOCAL_USER_ID = 1  # the terminal player's user id in the database


def check_agent(spec: str) -> str:
    """`spec` if it names an agent that can run here; ValueError with a reason otherwise."""
    from agents.registry import AgentSpec

    parsed = AgentSpec.parse(spec)  # ValueError for an unknown agent or a bad budget
    if not available(parsed.name):
        raise ValueError(f"Agent {parsed.name!r} is not available in this installation.")
    return spec


async def run_demo(
    players: int = 7,
    seed: int | None = None,
    *,
    agent: str = "selfish",
    variant: Variant = STANDARD,
    out: TextIO,
    delay: float = 0.0,
    db_path: str | os.PathLike[str] = ":memory:",
) -> GameSession:
    """Play one bot-only game through a session, narrated to `out` as a spectator sees it,
    then the reveal; the game is stored in `db_path`."""
    return await _play_stored(
        [],
        TerminalFrontend(out, delay=delay),
        players=players,
        seed=seed,
        agent=agent,
        variant=variant,
        out=out,
        db_path=db_path,
        extra_options={"demo": True},
    )


def play_demo(
    players: int = 7,
    seed: int | None = None,
    *,
    agent: str = "selfish",
    variant: Variant = STANDARD,
    out: TextIO,
    delay: float = 0.0,
    db_path: str | os.PathLike[str] = ":memory:",
) -> GameSession:
    """`run_demo` for synchronous callers."""
    return asyncio.run(
        run_demo(players, seed, agent=agent, variant=variant, out=out, delay=delay, db_path=db_path)
    )


async def play_terminal(
    players: int = 7,
    seat: int = 0,
    seed: int | None = None,
    *,
    agent: str = "selfish",
    name: str = "You",
    variant: Variant = STANDARD,
    out: TextIO,
    read_line: LineReader = read_stdin,
    db_path: str | os.PathLike[str] = ":memory:",
) -> GameSession:
    """One local player at `seat` against AI players, in the terminal, without timers."""
    if not 0 <= seat < players:
        raise ValueError(f"Seat {seat} does not exist in a {players}-player game.")
    return await _play_stored(
        [*[None] * seat, Member(LOCAL_USER_ID, name)],
        TerminalFrontend(out, seat=seat, read_line=read_line),
        players=players,
        seed=seed,
        agent=agent,
        variant=variant,
        out=out,
        db_path=db_path,
        intro=f" You are seat {seat}.",
    )


async def _play_stored(
    humans: list[Member | None],
    frontend: TerminalFrontend,
    *,
    players: int,
    seed: int | None,
    agent: str,
    variant: Variant,
    out: TextIO,
    db_path: str | os.PathLike[str],
    intro: str = "",
    extra_options: dict[str, object] | None = None,
) -> GameSession:
    """A stored terminal game (AI in the empty seats, no timers), played to its end."""
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    store = await Storage.open(db_path)
    try:
        async with _agents_for(agent) as agents:
            manager = SessionManager(store, frontend, agents)
            return await _play(
                manager, humans, frontend, players, seed, agent, variant, out, intro, extra_options
            )
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def _agents_for(agent: str) -> AsyncIterator[AgentPort | None]:
    """The bot's AI service (worker processes) for a searching agent; None (the
    manager's in-process agents) for the instant rule agents."""
    if AgentSpec.parse(agent).name in FAST_AGENTS:
        yield None
        return
    # Searching agents think in worker processes, through the bot's own scheduler:
    # threads here would share one core's worth of Python between every AI seat.
    from agents.service import AgentService

    async with AgentService() as service:
        yield service


async def _play(
    manager: SessionManager,
    humans: list[Member | None],
    frontend: TerminalFrontend,
    players: int,
    seed: int,
    agent: str,
    variant: Variant,
    out: TextIO,
    intro: str,
    extra_options: dict[str, object] | None,
) -> GameSession:
    """Create the stored game, narrate it to its end."""
    session = await manager.create(
        humans,
        players=players,
        fill_with_ai=True,
        ai_spec=agent,
        variant=variant,
        seed=seed,
        options=SessionOptions(timers=Timers.off(), substitute=agent),
        extra_options=extra_options,
        start=False,
    )
    names = ", ".join(s.label for s in session.seats)
    print(f"Game #{session.game_id}. Players: {names}.{intro}", file=out, flush=True)
    await session.run()
    await frontend.close()
    if session.game.is_over:  # the seed decides every role and the deck: told only now
        print(ai_summary(session), file=out)
        print(f"Seed {seed} (replay it with --seed {seed}).", file=out, flush=True)
    return session


def ai_summary(session: GameSession) -> str:
    """One line on how the AI seats decided: searches' iterations, and any fallback (an
    answer that was not the seat's own agent's in time: an alarm, not a habit)."""
    iterations = sorted(session.ai_iterations)
    searched = (
        f"searches of {iterations[len(iterations) // 2]} iterations (median)"
        if iterations
        else "no searches"
    )
    fell_back = "no fallback" if not session.fallbacks else f"{session.fallbacks} fallback(s)"
    return f"AI players: {searched}, {fell_back}."
