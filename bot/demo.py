"""Terminal games on top of the game session: a spectated bot-only demo, or one local
player against AI players. Both are stored like every game (replay and stats see them).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from agents.registry import AgentSpec
from engine import STANDARD, RecordError, Variant

from .agent_port import FAST_AGENTS, AgentPort, available
from .frontends.terminal import LineReader, TerminalFrontend, read_stdin
from .manager import BOT_NAMES, Member, SessionManager, options_of
from .session import GameSession, SessionOptions
from .storage import GameDamaged, Storage, StoredGame
from .timers import Timers

__all__ = [
    "BOT_NAMES",
    "LOCAL_USER_ID",
    "NotHere",
    "cancel_terminal",
    "check_agent",
    "play_demo",
    "play_terminal",
    "resume_terminal",
    "run_demo",
]

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
    stop: asyncio.Event | None = None,
    images: Path | None = None,
) -> GameSession:
    """Play one bot-only game through a session, narrated to `out` as a spectator sees it,
    then the reveal; the game is stored in `db_path`. See `_drive` for `stop`; `images`:
    a directory for the pictures (`bot.render.pictures`).

    The AI players move no faster than one narrated line (`delay`), so the stored game
    keeps about level with what the spectator has seen: a demo stopped half-way is
    stored half-played, and `resume_terminal` shows the rest."""
    return await _play_stored(
        [],
        TerminalFrontend(out, delay=delay, images=images),
        players=players,
        seed=seed,
        agent=agent,
        variant=variant,
        db_path=db_path,
        extra_options={"demo": True},
        ai_pace_s=delay,
        stop=stop,
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
    stop: asyncio.Event | None = None,
    images: Path | None = None,
    ai_pace_s: float = 0.0,
) -> GameSession:
    """One local player at `seat` against AI players, in the terminal, without timers
    (`images`: a directory for the pictures, as in `run_demo`).

    `ai_pace_s` > 0 paces the AI as at a Discord table where people play: each AI move
    shows no sooner than its thinking budget after it was asked, and a vote's AI ballots
    together, so how long an AI took does not tell its hand (`bot.ai_seats`). At 0 the
    moves show as they come, which is fine for tests and gives that hint away."""
    if not 0 <= seat < players:
        raise ValueError(f"Seat {seat} does not exist in a {players}-player game.")
    return await _play_stored(
        [*[None] * seat, Member(LOCAL_USER_ID, name)],
        TerminalFrontend(out, seat=seat, read_line=read_line, images=images),
        players=players,
        seed=seed,
        agent=agent,
        variant=variant,
        db_path=db_path,
        intro=f" You are seat {seat}.",
        ai_pace_s=ai_pace_s,
        stop=stop,
    )


class NotHere(Exception):
    """A stored game the terminal may not resume or cancel; `str()` is one line that
    says why and what to do instead."""


async def resume_terminal(
    game_id: int,
    *,
    player: bool,
    out: TextIO,
    read_line: LineReader = read_stdin,
    delay: float = 0.0,
    db_path: str | os.PathLike[str],
    stop: asyncio.Event | None = None,
    images: Path | None = None,
    ai_pace_s: float | None = None,
) -> GameSession:
    """Carry on a stored terminal game (`shbot play --resume`, or `shbot demo --resume`
    with `player=False`) where it stopped, with the same seats: the local player's seat
    is the terminal's again, even if an AI took it when input closed.

    This run's pace overrides the stored one, for this run only: a demo's AI keeps pace
    with `delay`; a played game's AI takes `ai_pace_s` if given (`--pace`), else the
    stored pace.

    Raises `NotHere` for a game that is over, a Discord channel's, or the other
    command's (a demo for `play`, a game with a local player for `demo`), and
    `StorageError` for a game that is not stored or does not read back (`GameDamaged`).
    """
    store = await Storage.open(db_path)
    try:
        stored = await store.load_game(game_id)
        _check_terminal_game(stored)
        local = _local_seat(stored)
        if player and local is None:
            raise NotHere(
                f"game #{game_id} is a demo, with nobody at the terminal: "
                f"`shbot demo --resume {game_id}` carries it on."
            )
        if not player and local is not None:
            raise NotHere(
                f"game #{game_id} has a player at the terminal: "
                f"`shbot play --resume {game_id}` carries it on."
            )
        frontend = TerminalFrontend(
            out, seat=local, read_line=read_line, delay=delay, images=images
        )
        if not player:  # the AI keeps pace with the narration, at this run's speed
            ai_pace_s = delay
        if ai_pace_s is not None:
            stored = replace(stored, options={**stored.options, "ai_pace_s": ai_pace_s})
        options = options_of(stored)  # GameDamaged (one line) if they do not read
        specs = [s.agent for s in stored.seats if s.agent] + [options.substitute_spec]
        async with _agents_for(*specs) as agents:
            manager = SessionManager(store, frontend, agents)
            try:
                # Built from `stored`, with this run's pace (`resume_paused` would load the
                # stored options again); a game that does not replay stays as it was.
                session = manager.resume(stored, frontend)
                if stored.status == "paused":  # stopped by a fault: running again
                    await store.resume_game(game_id)
                session.start()
            except (RecordError, ValueError) as exc:
                raise NotHere(
                    f"game #{game_id} cannot be resumed: its stored record no longer "
                    f"replays ({type(exc).__name__}). `shbot cancel {game_id}` ends it."
                ) from exc
            # Before the session's first step (nothing was awaited since it started).
            intro = f" You are seat {local}." if local is not None else ""
            frontend.say(f"Game #{game_id} resumes. Players: {_names(session)}.{intro}")
            if local is not None:  # what the player knew: their own secrets, theirs only
                teller = frontend.teller(session.table)
                events = session.game.events
                # What the table never saw is shown again by the session: not here too.
                for event in events[: len(events) - len(session.unshown)]:
                    if event.audience is not None and local in event.audience:
                        line = teller.line(event)
                        if line is not None:
                            frontend.say(f"  (private) {line}")
            if local is not None and session.seats[local].is_ai:
                await session.back(LOCAL_USER_ID)  # input had closed: the seat is theirs again
            return await _drive(manager, session, frontend, stop)
    finally:
        await store.close()


async def cancel_terminal(game_id: int, *, db_path: str | os.PathLike[str]) -> str | None:
    """End a stored terminal game as cancelled (`shbot cancel`): no winner, nothing
    revealed, never counted in stats and never resumed. Raises `NotHere` for a game
    that is over or a Discord channel's, `StorageError` for one that is not stored.

    A game whose record does not read back (`GameDamaged`: it can never be resumed) is
    cancelled too, from its row's status and place alone; returns what did not read
    (None for a game that reads)."""
    async with await Storage.open(db_path) as store:
        try:
            stored = await store.load_game(game_id)
        except GameDamaged as damage:
            status, in_channel = await store.game_status(game_id)
            what = f"damaged ({damage.reason})"
            if status == "damaged":
                raise NotHere(
                    f"game #{game_id} was set aside as {what}: it never resumes."
                ) from damage
            if status not in ("running", "paused"):  # it would not replay either
                raise NotHere(
                    f"game #{game_id} is {status}, and {what}: it never resumes."
                ) from damage
            if in_channel:  # the bot, at its next start, sets the row aside: not ours to end
                raise NotHere(
                    f"game #{game_id} is played in a Discord channel, and its row is {what}: "
                    "/cancel there ends it while the bot runs it; at its next start the bot "
                    "sets it aside as damaged."
                ) from damage
            await store.finish_game(
                game_id, status="cancelled", winner=None, reason=None, roles=None
            )
            return damage.reason
        _check_terminal_game(stored)
        await store.finish_game(game_id, status="cancelled", winner=None, reason=None, roles=None)
        return None


def _check_terminal_game(stored: StoredGame) -> None:
    """Refuse a game that is over, or that a Discord channel plays."""
    in_channel = stored.channel_id is not None or stored.guild_id is not None
    _check_place(stored.id, stored.status, in_channel=in_channel)


def _check_place(game_id: int, status: str, *, in_channel: bool) -> None:
    """`_check_terminal_game` from a game's status and place (`Storage.game_status`)."""
    if status not in ("running", "paused"):
        raise NotHere(f"game #{game_id} is {status}; `shbot replay {game_id}` shows it.")
    if in_channel:
        raise NotHere(
            f"game #{game_id} is played in a Discord channel: the bot carries it on, and "
            "/cancel in that channel ends it."
        )


def _local_seat(stored: StoredGame) -> int | None:
    """The terminal player's seat (None: a demo). Refuses (`NotHere`) seats that are no
    terminal game's: a player not at this terminal, or ours at two seats, would never
    answer, and a game without timers would wait for them for good."""
    humans = [s for s in stored.seats if s.user_id is not None]
    if len(humans) > 1 or any(s.user_id != LOCAL_USER_ID for s in humans):
        raise NotHere(
            f"game #{stored.id} cannot be resumed: its stored seats hold a player who is "
            f"not at this terminal, or more than one. `shbot cancel {stored.id}` ends it."
        )
    return humans[0].seat if humans else None


async def _play_stored(
    humans: list[Member | None],
    frontend: TerminalFrontend,
    *,
    players: int,
    seed: int | None,
    agent: str,
    variant: Variant,
    db_path: str | os.PathLike[str],
    intro: str = "",
    extra_options: dict[str, object] | None = None,
    ai_pace_s: float = 0.0,
    stop: asyncio.Event | None = None,
) -> GameSession:
    """A stored terminal game (AI in the empty seats, no timers), played to its end."""
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    store = await Storage.open(db_path)
    try:
        async with _agents_for(agent) as agents:
            manager = SessionManager(store, frontend, agents)
            session = await manager.create(
                humans,
                players=players,
                fill_with_ai=True,
                ai_spec=agent,
                variant=variant,
                seed=seed,
                options=SessionOptions(timers=Timers.off(), substitute=agent, ai_pace_s=ai_pace_s),
                extra_options=extra_options,
                start=False,
            )
            frontend.say(f"Game #{session.game_id}. Players: {_names(session)}.{intro}")
            session.start()
            return await _drive(manager, session, frontend, stop)
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def _agents_for(*specs: str) -> AsyncIterator[AgentPort | None]:
    """The bot's AI service (worker processes) if any of `specs` is a searching agent;
    None (the manager's in-process agents) if they are all instant rule agents."""
    if all(_instant(spec) for spec in specs):
        yield None
        return
    # Searching agents think in worker processes, through the bot's own scheduler:
    # threads here would share one core's worth of Python between every AI seat.
    from agents.service import AgentService

    async with AgentService() as service:
        yield service


async def _drive(
    manager: SessionManager,
    session: GameSession,
    frontend: TerminalFrontend,
    stop: asyncio.Event | None,
) -> GameSession:
    """Narrate a started session until its game ends or pauses (a fault), or until
    `stop` is set (Ctrl-C), the output goes away or nobody can play the local seat any
    more: then the session stops at once, its game stored as it stands, resumable
    (`resume_terminal`). The caller tells which of these happened from the session
    (`game.is_over`, `paused`), `stop` and the front-end's `broken` and `halt`."""
    watched = [
        asyncio.ensure_future(session.wait()),
        asyncio.ensure_future(frontend.output_closed.wait()),
        asyncio.ensure_future(frontend.halted.wait()),
    ]
    if stop is not None:
        watched.append(asyncio.ensure_future(stop.wait()))
    try:
        await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in watched:
            waiter.cancel()
        await asyncio.gather(*watched, return_exceptions=True)
        if not session.game.is_over or (stop is not None and stop.is_set()):
            frontend.silence()  # nothing more to show: stop at once
        await manager.shutdown()  # every acknowledged action is stored already
        await frontend.close()
    if session.game.is_over:  # the seed decides every role and the deck: told only now
        seed = session.game.seed
        frontend.say(ai_summary(session))
        frontend.say(f"Seed {seed} (replay it with --seed {seed}).")
    return session


def _instant(spec: str) -> bool:
    """Whether `spec` names an instant rule agent (a spec that no longer reads: no)."""
    try:
        return AgentSpec.parse(spec).name in FAST_AGENTS
    except ValueError:
        return False


def _names(session: GameSession) -> str:
    return ", ".join(s.label for s in session.seats)


def _median(values: list[int]) -> int:
    return sorted(values)[len(values) // 2]


def ai_summary(session: GameSession) -> str:
    """One line on how the AI seats decided: searches' iterations, and any fallback (an
    answer that was not the seat's own agent's in time: an alarm, not a habit)."""
    iterations, ballots = session.ai_iterations, session.ai_ballot_iterations
    searched = f"searches of {_median(iterations)} iterations (median)" if iterations else ""
    if ballots:
        searched += f"{'; ' if searched else ''}ballots {_median(ballots)}"
    searched = searched or "no searches"
    fell_back = "no fallback" if not session.fallbacks else f"{session.fallbacks} fallback(s)"
    return f"AI players: {searched}, {fell_back}."
