"""The running games of one bot process: creation from a lobby, lookup, restart recovery.

`SessionManager` stores a new game before its first move, builds its `GameSession` and
starts it; on start-up `recover()` replays every unfinished stored game (running or
paused) and resumes it. A game whose task died stays registered, paused, until a host
resumes it (`resume_paused`) or cancels it. Front-ends find a game's session here (`get`,
`for_channel`, `games_of`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agents.registry import AgentSpec
from engine import STANDARD, Game, RecordError, Variant

from .agent_port import AgentPort, InProcessAgents, available, default_substitute
from .frontends import bind_frontend
from .ports import Frontend, SeatInfo
from .session import RESTART_NOTICE, RESUME_NOTICE, GameSession, SessionOptions
from .storage import SeatRecord, Storage, StorageError, StoredGame

log = logging.getLogger(__name__)

BOT_NAMES = ("Ada", "Boris", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Juno")


@dataclass(frozen=True, slots=True)
class Member:
    """A human joining a game: their (Discord or local) user id and display name."""

    user_id: int
    name: str


class SessionManager:
    """Every game this process drives, keyed by stored game id."""

    def __init__(
        self,
        store: Storage,
        frontend: Frontend,
        agents: AgentPort | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.frontend = frontend
        self.agents: AgentPort = agents or InProcessAgents()
        self.clock = clock
        self._sessions: dict[int, GameSession] = {}
        self._watchers: set[asyncio.Task[None]] = set()

    # --- lookup -------------------------------------------------------------------------

    def get(self, game_id: int) -> GameSession | None:
        """The running (or paused) session of a game, if this process drives it."""
        return self._sessions.get(game_id)

    def for_channel(self, channel_id: int) -> GameSession | None:
        """The running (or paused) game in a channel (one per channel), if any."""
        for session in self._sessions.values():
            if session.channel_id == channel_id:
                return session
        return None

    def games_of(self, user_id: int) -> list[GameSession]:
        """Running games in which `user_id` holds a seat."""
        return [s for s in self._sessions.values() if s.table.seat_of(user_id) is not None]

    @property
    def sessions(self) -> list[GameSession]:
        """Every running session."""
        return list(self._sessions.values())

    # --- creating -----------------------------------------------------------------------

    async def create(
        self,
        humans: Sequence[Member | None],
        *,
        players: int | None = None,
        fill_with_ai: bool = False,
        ai_spec: str | None = None,
        seat_specs: Mapping[int, str] | None = None,
        variant: Variant = STANDARD,
        seed: int | None = None,
        options: SessionOptions | None = None,
        extra_options: Mapping[str, Any] | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        frontend: Frontend | None = None,
        start: bool = True,
    ) -> GameSession:
        """Store a new game for `humans` (seated in that order) and start its session.

        A None in `humans` is an AI seat. Seats beyond the list are AI players too if
        `fill_with_ai`; otherwise the list must fill the table. AI players play `ai_spec`
        (default: the session's substitute, the strongest available agent), or their
        own spec in `seat_specs` (by seat). Raises ValueError with a reason a host can read.
        """
        players = len(humans) if players is None else players
        joined = [m for m in humans if m is not None]
        if len({m.user_id for m in joined}) != len(joined):
            raise ValueError("Each member can take only one seat.")
        if len(humans) > players:
            raise ValueError(f"{len(humans)} players joined a {players}-player game.")
        if len(humans) < players and not fill_with_ai:
            raise ValueError(
                f"{players - len(humans)} seats are empty; fill them with AI players or wait."
            )
        variant.setup(players)  # SetupError (a ValueError's cousin) for a bad count
        options = options or SessionOptions()
        spec = ai_spec or options.substitute_spec
        seed = random.SystemRandom().randrange(2**62) if seed is None else seed
        suffix = " (AI)" if joined else ""
        seats = [
            SeatInfo(s, BOT_NAMES[s] + suffix, None, (seat_specs or {}).get(s, spec))
            if m is None
            else SeatInfo(s, m.name, m.user_id, None)
            for s, m in enumerate([*humans, *[None] * (players - len(humans))])
        ]
        game = Game(players, variant=variant, seed=seed)
        stored_options = {**(extra_options or {}), **options.to_dict()}
        game_id = await self.store.create_game(
            players=players,
            variant=variant,
            seed=seed,
            seats=[_record(s) for s in seats],
            options=stored_options,
            guild_id=guild_id,
            channel_id=channel_id,
        )
        session = GameSession(
            game_id,
            game,
            seats,
            frontend=frontend or self.frontend,
            agents=self.agents,
            store=self.store,
            options=options,
            guild_id=guild_id,
            channel_id=channel_id,
            clock=self.clock,
        )
        self._register(session)
        if start:
            session.start()
        return session

    # --- restart recovery -------------------------------------------------------------

    async def recover(
        self, frontend_for: Callable[[StoredGame], Frontend] | None = None
    ) -> list[GameSession]:
        """Resume every unfinished stored game; returns the sessions now running.

        Paused games are resumed too: the restart may have fixed what paused them. A
        game whose record no longer replays is left as it is in storage and logged.
        """
        resumed = []
        for stored in await self.store.unfinished_games():
            if stored.id in self._sessions:
                continue
            try:
                session = self.resume(stored, frontend_for(stored) if frontend_for else None)
            except (RecordError, ValueError) as exc:
                # Only the type: the message may quote a private action (a discard).
                log.error("game %d cannot be resumed (%s)", stored.id, type(exc).__name__)
                continue
            if stored.status == "paused":
                try:
                    await self.store.resume_game(stored.id)
                except StorageError as exc:  # it stays paused; the next restart tries again
                    log.error("game %d stays paused (%s)", stored.id, type(exc).__name__)
                    self._sessions.pop(stored.id, None)
                    continue
                log.info("game %d was paused (%s): resumed", stored.id, stored.pause_reason)
            session.start()
            resumed.append(session)
        return resumed

    async def resume_paused(self, game_id: int) -> GameSession:
        """Carry on a paused game: rebuild its session from storage (as a restart does,
        by replaying the stored record), mark it running and start it.

        Raises ValueError if the game is not paused here, and `engine.RecordError` if its
        record no longer replays (the game then stays paused).
        """
        old = self._sessions.get(game_id)
        stored = await self.store.load_game(game_id)
        if (old is None or not old.paused) and stored.status != "paused":
            raise ValueError(f"Game #{game_id} is not paused.")
        if stored.status not in ("running", "paused"):
            raise ValueError(f"Game #{game_id} is {stored.status}.")
        frontend = old.frontend if old is not None else None
        session = self._build(stored, frontend, notice=RESUME_NOTICE)  # replays, or raises
        if old is not None:
            await old.stop()  # ends its publisher; its game task is gone already
        await self.store.resume_game(game_id)
        log.info("game %d resumed (it was paused: %s)", game_id, stored.pause_reason)
        self._register(session)
        session.start()
        return session

    def resume(self, stored: StoredGame, frontend: Frontend | None = None) -> GameSession:
        """Build (not start) the session of a stored unfinished game by replaying it."""
        session = self._build(stored, frontend, notice=RESTART_NOTICE)
        self._register(session)
        return session

    def _build(self, stored: StoredGame, frontend: Frontend | None, *, notice: str) -> GameSession:
        """The session of a stored game, rebuilt by replaying its record (not registered)."""
        options = self._mended(stored.id, SessionOptions.from_dict(stored.options))
        seats = [
            SeatInfo(s.seat, s.name, s.user_id, self._playable(stored.id, s, options))
            for s in stored.seats
        ]
        session = GameSession.resume(
            stored.id,
            stored.record,
            seats,
            deadline=stored.deadline,
            frontend=frontend or self.frontend,
            agents=self.agents,
            store=self.store,
            options=options,
            guild_id=stored.guild_id,
            channel_id=stored.channel_id,
            clock=self.clock,
            state=stored.session_state,
            notice=notice,
        )
        return session

    @staticmethod
    def _mended(game_id: int, options: SessionOptions) -> SessionOptions:
        """The options with their substitute agent mended if it no longer reads."""
        if not options.substitute:
            return options
        fallback = default_substitute(options.ai_budget_s)
        mended = _mend(game_id, "substitute", options.substitute, fallback)
        return options if mended == options.substitute else replace(options, substitute=mended)

    @staticmethod
    def _playable(game_id: int, seat: SeatRecord, options: SessionOptions) -> str | None:
        """The seat's stored agent spec, mended if it no longer reads."""
        if seat.agent is None:
            return None
        return _mend(game_id, f"seat {seat.seat}", seat.agent, options.substitute_spec)

    async def shutdown(self) -> None:
        """Stop every session without ending its game (they resume on the next start)."""
        sessions = list(self._sessions.values())
        await asyncio.gather(*(s.stop() for s in sessions), return_exceptions=True)
        for watcher in self._watchers:
            watcher.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)
        self._sessions.clear()

    def _register(self, session: GameSession) -> None:
        self._sessions[session.game_id] = session
        bind_frontend(session.frontend, session)
        watcher = asyncio.create_task(self._forget_when_done(session))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _forget_when_done(self, session: GameSession) -> None:
        # A paused game stays registered until it is cancelled or resumed (replaced): its
        # channel still finds it for /resume and /cancel, and clicks get the reason.
        await session.wait_started()
        await session.wait_closed()
        if session.is_over and self._sessions.get(session.game_id) is session:
            del self._sessions[session.game_id]


def _record(seat: SeatInfo) -> SeatRecord:
    return SeatRecord(seat.seat, seat.name, seat.user_id, seat.agent)


def _mend(game_id: int, where: str, spec: str, fallback: str) -> str:
    """`spec` as stored if it still reads and imports, else what `AgentSpec.salvage`
    makes of it (logged: specs and reasons only, nothing private)."""
    mended, reason = AgentSpec.salvage(spec, fallback, available)
    if reason is None:
        return spec  # as stored, byte for byte
    log.warning(
        "game %d %s: stored agent %r no longer reads (%s); playing %s",
        game_id,
        where,
        spec,
        reason,
        mended,
    )
    return str(mended)
