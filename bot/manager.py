"""The running games of one bot process: creation from a lobby, lookup, restart recovery.

`SessionManager` stores a new game before its first move, builds its `GameSession` and
starts it; on start-up `recover()` replays every unfinished stored game (running or
paused) of its scope and resumes it: the Discord bot's scope is the games with a channel
on its own shards (`Config.game_scope`), claimed against the bot's other processes
(`ShardClaim`); a game that no longer replays is marked damaged and skipped, the others
resume; one that replays but cannot be resumed is stored paused and kept stranded. A
game whose task died stays registered, paused, until a host resumes it (`resume_paused`)
or cancels it. Front-ends find a game's session here (`get`,
`for_channel`, `games_of`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from agents.registry import AgentSpec
from engine import STANDARD, Game, RecordError, Variant

from .agent_port import AgentPort, InProcessAgents, available, default_substitute
from .config import ShardConflict
from .errors import failure_cause
from .frontends import bind_frontend
from .notices import RESTART_NOTICE, RESUME_NOTICE
from .ports import Frontend, SeatInfo
from .seat_names import AI_MARK, member_seat_name
from .session import GameSession, SessionOptions
from .storage import (
    GameDamaged,
    GameScope,
    SeatRecord,
    SetAside,
    ShardLease,
    Storage,
    StorageError,
    StoredGame,
)

log = logging.getLogger(__name__)

BOT_NAMES = ("Ada", "Boris", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Juno")


@dataclass(frozen=True, slots=True)
class Member:
    """A human joining a game: their (Discord or local) user id and display name."""

    user_id: int
    name: str


@dataclass(slots=True)
class _Resuming:
    """The resumes of one game under way: one at a time (`SessionManager._resuming`)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # callers holding or awaiting the lock; the entry goes with the last


class SessionManager:
    """Every game this process drives, keyed by stored game id."""

    def __init__(
        self,
        store: Storage,
        frontend: Frontend,
        agents: AgentPort | None = None,
        *,
        clock: Callable[[], float] = time.time,
        steady: Callable[[], float] | None = None,
    ) -> None:
        self.store = store
        self.frontend = frontend
        self.agents: AgentPort = agents or InProcessAgents()
        self.clock = clock
        # What running timers count down on: the monotonic clock, which a step of the
        # wall clock does not move. A wall clock of one's own (a test's) is taken as both.
        self.steady = steady or (time.monotonic if clock is time.time else clock)
        self._sessions: dict[int, GameSession] = {}
        self._watchers: set[asyncio.Task[None]] = set()
        self._claim: ShardLease | None = None  # this process's shards of the database
        # Paused games that no session holds: their resume failed at this start.
        self._stranded: dict[int, StoredGame] = {}
        # Games recovery set aside as damaged, until their tables are told (the bot
        # takes them: `DiscordGames.start`).
        self.set_aside: list[SetAside] = []
        self._resumes: dict[int, _Resuming] = {}  # games being resumed now

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

    def stranded_in(self, channel_id: int) -> StoredGame | None:
        """A channel's paused game that no session holds (it could not be resumed at
        this start): `resume_paused` tries again, `cancel_stranded` ends it."""
        for stored in self._stranded.values():
            if stored.channel_id == channel_id:
                return stored
        return None

    def is_stranded(self, game_id: int) -> bool:
        """Whether the game is stranded here (see `stranded_in`)."""
        return game_id in self._stranded

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
        suffix = AI_MARK if joined else ""
        seats = [
            SeatInfo(s, BOT_NAMES[s] + suffix, None, (seat_specs or {}).get(s, spec))
            if m is None
            else SeatInfo(s, member_seat_name(m.name), m.user_id, None)
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
            steady=self.steady,
        )
        self._register(session)
        if start:
            session.start()
        return session

    # --- restart recovery -------------------------------------------------------------

    async def recover(
        self,
        frontend_for: Callable[[StoredGame], Frontend] | None = None,
        *,
        scope: GameScope | None = None,
    ) -> list[GameSession]:
        """Resume every unfinished stored game in `scope` (default: all of them); returns
        the sessions now running.

        The Discord bot passes its `Config.game_scope`: the games with a channel (never
        the terminal's), of the guilds on its shards. With a scope, this process first
        claims its shards of the database (`ShardClaim`), or raises `ShardConflict`
        naming the fix if another running process of the bot has them.

        Paused games are resumed too: the restart may have fixed what paused them. A game
        that does not read back or replay is marked damaged (with its reason, never a
        secret) and never resumed again; any other game that fails to resume is stored
        paused with its cause and kept stranded (`stranded_in`): a host can /resume or
        /cancel it, the next start tries again. Either way the other games resume. The
        games set aside as damaged are kept in `set_aside`, for their tables to be told.
        """
        if scope is not None and self._claim is None:
            # A database server claims on the store's own session (PostgreSQL advisory
            # locks, which fence its writes); a file, with file locks beside it.
            lease = await self.store.claim_shards(scope)
            self._claim = lease or ShardClaim.take(self.store.path, scope)
        resumed = []
        for stored in await self.store.unfinished_games(scope, set_aside=self.set_aside):
            if stored.id in self._sessions:
                continue
            try:
                frontend = frontend_for(stored) if frontend_for else None
                session = self.resume(stored, frontend)
            except RecordError as exc:
                await self._damaged(stored, _replay_fault(exc))
                continue
            except GameDamaged as exc:  # its options do not read: no start would mend them
                await self._damaged(stored, exc.reason)
                continue
            except Exception as exc:
                # Not damaged: the fault may be this code's, and the next start tries
                # again. Paused meanwhile, so that a host can /resume or /cancel it.
                await self._strand(stored, failure_cause(exc))
                continue
            if stored.status == "paused":
                try:
                    await self.store.resume_game(stored.id)
                except StorageError as exc:  # it stays paused; the next restart tries again
                    log.error("game %d stays paused (%s)", stored.id, type(exc).__name__)
                    self._sessions.pop(stored.id, None)
                    self._stranded[stored.id] = stored
                    continue
                log.info("game %d was paused (%s): resumed", stored.id, stored.pause_reason)
            session.start()
            resumed.append(session)
        return resumed

    async def _strand(self, stored: StoredGame, cause: str) -> None:
        """A game no session can hold now: store it paused with `cause` (a type and a
        place, never a message: it may quote a private action) and keep it stranded."""
        reason = f"not resumed: {cause}"
        log.error("game %d cannot be resumed (%s); paused", stored.id, cause)
        try:
            await self.store.pause_game(stored.id, reason)
        except StorageError as exc:  # still stranded here; the next start tries again
            log.error("game %d not stored as paused (%s)", stored.id, type(exc).__name__)
        self._stranded[stored.id] = replace(stored, status="paused", pause_reason=reason)

    async def cancel_stranded(self, game_id: int) -> bool:
        """End a stranded game (`stranded_in`) without a winner, as a host's /cancel; one
        its record shows won (its end was never stored) is stored finished, with its
        result, instead: a game with a winner is never cancelled. True for that one.

        Raises ValueError if the game is not stranded here (a /resume of it got there
        first: it waits for one in flight), StorageError if it cannot be stored (it then
        stays stranded)."""
        async with self._resuming(game_id):
            stored = self._stranded.get(game_id)
            if stored is None:
                raise ValueError(f"Game #{game_id} is not stranded here.")
            game = _replayed(stored)
            won = game is not None and game.is_over
            if game is not None and won:
                await self.store.finish_game(
                    game_id,
                    status="finished",
                    winner=game.winner,
                    reason=game.win_reason,
                    roles=game.roles,
                )
            else:
                await self.store.finish_game(
                    game_id, status="cancelled", winner=None, reason=None, roles=None
                )
            del self._stranded[game_id]
        log.info("game %d (stranded) ended by its host", game_id)
        return won

    async def _damaged(self, stored: StoredGame, reason: str) -> None:
        try:
            await self.store.mark_damaged(stored.id, reason)  # logs it
        except StorageError as exc:
            log.error("game %d is damaged (%s), not marked (%s)", stored.id, reason, exc)
            return
        self.set_aside.append(SetAside(stored.id, stored.guild_id, stored.channel_id, reason))

    async def resume_paused(self, game_id: int) -> GameSession:
        """Carry on a paused game: rebuild its session from storage (as a restart does,
        by replaying the stored record), mark it running and start it.

        Raises ValueError if the game is not paused here, and `engine.RecordError` if its
        record no longer replays (the game then stays paused). One resume of a game at a
        time: a second call (a double /resume, or /resume as the permission comes back)
        waits for the first, then finds the game running (ValueError).
        """
        async with self._resuming(game_id):
            return await self._resume_now(game_id)

    async def cancel(self, session: GameSession, reason: str) -> GameSession:
        """End the game of `session` without a winner (a host's decision, or the players'
        majority; a paused game that was won has its end stored instead), once a resume
        of it in flight is done: the session holding the game then is the one ended (a
        resume may have replaced `session`), and the channel is freed even if that
        session was stopped already (a resume that failed after stopping it). Returns
        the session ended."""
        game_id = session.game_id
        async with self._resuming(game_id):
            current = self._sessions.get(game_id) or session
            await current.cancel(reason)
            # Cancelled, or a won game paused before its end was stored and stored now:
            # done (its watcher may be gone with its stop). A game won as the /cancel came
            # is still showing its end: its own watcher frees the channel once it is stored.
            if current.is_over and current.closed and self._sessions.get(game_id) is current:
                del self._sessions[game_id]
        return current

    @contextlib.asynccontextmanager
    async def _resuming(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's resume guard: resuming stops the old session (which may take
        seconds) before building the new one, and two overlapping resumes would start
        two sessions for one game."""
        entry = self._resumes.setdefault(game_id, _Resuming())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if not entry.users:
                del self._resumes[game_id]

    async def _resume_now(self, game_id: int) -> GameSession:
        """`resume_paused`, its guard held."""
        old = self._sessions.get(game_id)
        stored = await self.store.load_game(game_id)
        stranded = game_id in self._stranded  # paused here, even if that was not stored
        if (old is None or not old.paused) and stored.status != "paused" and not stranded:
            raise ValueError(f"Game #{game_id} is not paused.")
        if stored.status not in ("running", "paused"):
            raise ValueError(f"Game #{game_id} is {stored.status}.")
        frontend = old.frontend if old is not None else None
        if old is not None:
            # Its game task is gone already; this shows what its outbox still holds and
            # stores the delivery cursor, so the new session re-sends nothing twice.
            await old.stop()
            try:
                stored = await self.store.load_game(game_id)
            except Exception:
                self._strand_stopped(old, stored)
                raise
            if stored.status not in ("running", "paused"):  # its stop stored the end
                raise ValueError(f"Game #{game_id} is {stored.status}.")
        try:
            session = self._build(stored, frontend, notice=RESUME_NOTICE)  # replays, or raises
            await self.store.resume_game(game_id)
        except Exception:
            if old is not None:
                self._strand_stopped(old, stored)
            raise
        self._stranded.pop(game_id, None)
        log.info("game %d resumed (it was paused: %s)", game_id, stored.pause_reason)
        self._register(session)
        session.start()
        return session

    def _strand_stopped(self, old: GameSession, stored: StoredGame) -> None:
        """A resume failed after stopping the paused session `old`: no session holds the
        game now, so it is stranded, as a game a restart could not resume. Left
        registered, the stopped session would take a /cancel through an outbox that is
        gone (the table never told, its buttons left); stranded, a /cancel closes what
        the game showed and a /resume tries again."""
        if self._sessions.get(old.game_id) is old:
            del self._sessions[old.game_id]
        self._stranded[old.game_id] = replace(stored, status="paused")

    def resume(self, stored: StoredGame, frontend: Frontend | None = None) -> GameSession:
        """Build (not start) the session of a stored unfinished game by replaying it."""
        session = self._build(stored, frontend, notice=RESTART_NOTICE)
        self._register(session)
        return session

    def _build(self, stored: StoredGame, frontend: Frontend | None, *, notice: str) -> GameSession:
        """The session of a stored game, rebuilt by replaying its record (not registered)."""
        options = self._mended(stored.id, options_of(stored))
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
            steady=self.steady,
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
        """The seat's stored agent spec, mended if it no longer reads; the substitute for
        a seat stored with neither a player nor an agent (a damaged row), which nobody
        would ever play: an untimed game would wait for it forever."""
        if seat.agent is None and seat.user_id is None:
            spec = options.substitute_spec
            log.warning(
                "game %d seat %d: stored with no player and no agent; playing %s",
                game_id,
                seat.seat,
                spec,
            )
            return spec
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
        if self._claim is not None:
            self._claim.release()
            self._claim = None

    def _register(self, session: GameSession) -> None:
        self._sessions[session.game_id] = session
        session.on_restored = self._restored
        bind_frontend(session.frontend, session)
        watcher = asyncio.create_task(self._forget_when_done(session))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _restored(self, session: GameSession) -> None:
        """Messages reach the table again after a missing permission paused the game:
        carry it on (in a task of its own: the old session's outbox calls this, and
        resuming stops that session)."""
        task = asyncio.create_task(self._resume_restored(session))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def _resume_restored(self, session: GameSession) -> None:
        game_id = session.game_id
        try:
            async with self._resuming(game_id):
                if self._sessions.get(game_id) is not session or not session.paused:
                    return  # a host's /resume (or /cancel) got there first
                await self._resume_now(game_id)
        except (ValueError, RecordError, StorageError) as exc:
            log.error("game %d stays paused (%s)", game_id, type(exc).__name__)
        except Exception as exc:  # nobody awaits this task: a fault must not pass unseen
            # The type and the place only: a message may quote a hand or a role.
            log.error("game %d stays paused (%s)", game_id, failure_cause(exc))

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


def options_of(stored: StoredGame) -> SessionOptions:
    """A stored game's session options, or `GameDamaged` naming the column and the
    exception's type (never the value) if they do not read."""
    try:
        options = SessionOptions.from_dict(stored.options)
        if not isinstance(options.substitute, str | None):
            raise TypeError("a substitute agent that is not text")
    except (ValueError, TypeError) as exc:
        raise GameDamaged(stored.id, f"options do not read ({type(exc).__name__})") from exc
    return options


def _replay_fault(exc: RecordError) -> str:
    """Why a record does not replay, for the log and hosts: the action's index only (the
    exception's message quotes the action, which may be a discard or a vote)."""
    found = re.match(r"Action (\d+) ", str(exc))
    where = f" at action {found.group(1)}" if found else ""
    return f"the action log does not replay{where} (RecordError)"


class ShardClaim:
    """This process's claim on the games of its shards in one database file.

    Every process of one bot shares one database; each drives the games of the guilds on
    its shards. Two running processes must never claim the same guild, or one game would
    be driven twice. The claim is a set of OS file locks (`flock`) on small files in a
    folder beside the database, `<database>.shards/`; the kernel releases them when the
    process ends, however it ends, so a crashed process never blocks the next start:

    - `every`: held exclusively by a process that runs every shard (no SHARD_IDS), shared
      by each sharded process: the two kinds never run together.
    - `count-N`: shared by each process running with SHARD_COUNT=N. A process finds a
      live process of another count by trying that count's file.
    - `shard-S`: held exclusively by the process running shard S.
    - `guard`: held while a process claims, so that claims (and their looks at other
      counts' files) happen one at a time: two processes starting at once cannot both
      miss each other, nor mistake each other's look for a live process.

    Within one process claims never clash (tests run several bots in one process); locks
    only tell processes apart, which is what matters. The folder must be on a local file
    system shared by every process: the same host, as SQLite itself requires. Without
    `fcntl` (Windows) there is no claim.
    """

    GUARD_WAIT_S = 10.0  # another process claiming: wait this long for it
    _held: ClassVar[dict[str, tuple[int, int]]] = {}  # lock file -> (fd, claims using it)
    _mutex = threading.RLock()  # take() releases a failed claim while holding it

    def __init__(self) -> None:
        self._files: list[str] = []

    @classmethod
    def take(cls, database: str, scope: GameScope) -> ShardClaim:
        """Claim `scope`'s shards of `database`, or raise `ShardConflict` naming the fix."""
        claim = cls()
        if database == ":memory:" or database.startswith("file:"):
            return claim  # a private database: no other process can drive its games
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return claim
        folder = os.path.abspath(database) + ".shards"
        os.makedirs(folder, exist_ok=True)
        with cls._mutex, _guard(folder, cls.GUARD_WAIT_S, database):
            try:
                claim._claim(folder, database, scope, fcntl.LOCK_SH, fcntl.LOCK_EX)
            except BaseException:
                claim.release()
                raise
        return claim

    def _claim(self, folder: str, database: str, scope: GameScope, shared: int, mine: int) -> None:
        if scope.shard_ids is None:
            if not self._lock(folder, "every", mine):
                raise ShardConflict(
                    f"Another process of this bot already drives the games in {database}."
                    " A process without SHARD_IDS runs every shard, so it must be the only"
                    " one: stop the other, or give every process the same SHARD_COUNT and"
                    " its own SHARD_IDS."
                )
            return
        count = scope.shard_count
        if not self._lock(folder, "every", shared):
            raise ShardConflict(
                f"A process running every shard (no SHARD_IDS) already drives the games in"
                f" {database}: stop it, or start it with SHARD_COUNT={count} and its own"
                " SHARD_IDS too."
            )
        other = _live_other_count(folder, count, self._held)
        if other is not None or not self._lock(folder, f"count-{count}", shared):
            raise ShardConflict(
                f"Another process of this bot runs with SHARD_COUNT={other or '?'} on"
                f" {database}, and this one with SHARD_COUNT={count}: every process of one bot"
                f" must use the same SHARD_COUNT. Stop them all, then start each with"
                f" SHARD_COUNT={count} and its own SHARD_IDS."
            )
        for shard in sorted(scope.shard_ids):
            if not self._lock(folder, f"shard-{shard}", mine):
                raise ShardConflict(
                    f"Shard {shard} already runs in another process on {database}. Give each"
                    f" process its own SHARD_IDS: together they list 0..{(count or 1) - 1}"
                    " once each."
                )

    def _lock(self, folder: str, name: str, mode: int) -> bool:
        """Take one lock file (or count one more use, if this process holds it already)."""
        import fcntl

        path = os.path.join(folder, name)
        held = self._held.get(path)
        if held is None:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            held = (fd, 0)
        self._held[path] = (held[0], held[1] + 1)
        self._files.append(path)
        return True

    def release(self) -> None:
        """Give the claim up (idempotent); the files stay, unlocked."""
        with self._mutex:
            for path in self._files:
                fd, users = self._held.get(path, (-1, 0))
                if users > 1:
                    self._held[path] = (fd, users - 1)
                elif fd >= 0:
                    del self._held[path]
                    os.close(fd)  # closing drops the lock
            self._files = []


@contextlib.contextmanager
def _guard(folder: str, wait_s: float, database: str) -> Iterator[None]:
    """Hold `<folder>/guard` exclusively: one claim at a time across processes."""
    import fcntl

    fd = os.open(os.path.join(folder, "guard"), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise ShardConflict(
                        f"Another process has been claiming its shards of {database} for"
                        f" {wait_s:g} s: it hangs. Stop it, then start this one again."
                    ) from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def _live_other_count(folder: str, count: int | None, held: Mapping[str, object]) -> str | None:
    """The SHARD_COUNT another live process runs with on this database, if any. Called
    under the guard: a count file that can be locked exclusively is nobody's."""
    import fcntl

    for entry in sorted(os.listdir(folder)):
        other = entry.removeprefix("count-")
        path = os.path.join(folder, entry)
        if other == entry or other == str(count) or path in held:
            continue
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return other
        finally:
            os.close(fd)  # closing drops the look's lock
    return None


def _replayed(stored: StoredGame) -> Game | None:
    """A stored game replayed, or None if its record does not replay."""
    try:
        return stored.record.replay()
    except RecordError:
        return None
