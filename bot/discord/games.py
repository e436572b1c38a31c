"""The running games on Discord: the session manager behind the commands and components.

`DiscordGames` owns the `SessionManager` (sessions, storage, restart recovery) and the
`DiscordFrontend`, starts games from lobbies and demos, and answers every game
component: it looks the game up from the custom_id, checks the clicking member (a
player? the seat this prompt is for? alive?) and hands the choice to the session, whose
refusals (`engine.IllegalAction`) are shown to that member as they are. Every click is
acknowledged before the session is awaited, so the 3-second rule holds whatever the
database does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import discord

from engine import Phase, Variant

from .. import notices
from ..agent_port import AgentPort, ai_service
from ..config import Config
from ..manager import Member, SessionManager
from ..ports import REFUSALS, DeliveryError, Frontend, Prompt, PromptKind, Table
from ..session import GameSession, HandOver, SessionOptions
from ..storage import GameDamaged, SetAside, StorageError, StoredGame
from ..table_talk import TALK_WAIT_S, TalkUnavailable
from ..timers import Timers
from . import texts
from .components import ComponentId, selected_values
from .delivery import missing_here, thread_refusal
from .desk import GameBot
from .frontend import (
    CANCEL,
    HAND,
    ROLE,
    DiscordFrontend,
    hand_components,
    prompt_kind,
    secrets_text,
)
from .lobby import Lobby, LobbySeat
from .replies import SEND_FAULTS, acknowledge, announce, answer, fault_words

log = logging.getLogger(__name__)

DEMO_PACE = {"fast": 0.5, "normal": 2.0, "slow": 4.0}  # seconds between demo messages
MAX_PACE_S = 60.0  # a stored pace beyond this is damage, not a choice
# How long a click on the hand button waits for its step to be asked (the click is
# answered without deferring: well inside Discord's 3-second window).
HAND_WAIT_S = 1.5
# What a click on a game no session holds is told, by the game's stored status.
_WHY_NOT_RUNNING = {
    "finished": texts.GAME_OVER,
    "cancelled": texts.GAME_CANCELLED,
    "paused": texts.GAME_PAUSED,
    "abandoned": texts.GAME_ABANDONED,
    "damaged": texts.GAME_DAMAGED,
}
# What /status says of a channel whose latest game ended without being played out.
_ENDED_HERE = {"damaged": texts.STATUS_SET_ASIDE, "abandoned": texts.STATUS_ABANDONED}
DEMO_COOLDOWN_S = 120.0  # a channel starts at most one demo this often
DEMO_LIMIT = 2  # demo games running at once in one server
# Games of every kind running at once in one server: a table of people can go bot-only
# (`/afk` hands the last seat to an AI), so the demo limit alone bounds nothing, and
# every game takes AI time from every table the bot runs.
GAMES_PER_SERVER = 10
# /ask posts in the channel and queues work on the suspicion thread every game shares
# (where a game's own table talk waits at most TALK_WAIT_S): a member asks at most this
# often, and a channel hears one /ask at a time, the last one given up on the thread
# (TALK_WAIT_S) before the next is let in.
ASK_MEMBER_COOLDOWN_S = 60.0
ASK_CHANNEL_COOLDOWN_S = TALK_WAIT_S + 5.0
CANCEL_NOTE = "cancel"  # the session note that holds the open /cancel request
_REQUEST_ID = re.compile(r"[0-9a-f]{1,16}")  # an interaction id in hex (a 64-bit snowflake)
# What a request to Discord through discord.py's webhooks (edits, followups) may raise:
# an HTTP error, or a transport fault that is not one (a dropped connection, a timeout).


@dataclass(slots=True)
class _Meta:
    """What the Discord layer keeps about a game beyond its session (stored with it)."""

    host_id: int | None = None
    pace: float = 0.0
    demo: bool = False  # a bot-only game started by /demo


@dataclass(frozen=True, slots=True)
class CancelRequest:
    """The open /cancel request of a game. It is a note of the game's session (stored
    with its bookkeeping), so that its buttons still count after a restart."""

    request: str  # its id, bound into its buttons: an older request's count nothing
    asked_by: int  # the member who typed /cancel
    opened_at: float  # when (epoch seconds)
    votes: frozenset[int]  # the players who agreed so far

    def note(self) -> dict[str, Any]:
        """The request as a JSON-ready session note."""
        return {
            "request": self.request,
            "asked_by": self.asked_by,
            "opened_at": self.opened_at,
            "votes": sorted(self.votes),
        }

    @classmethod
    def read(cls, note: Any) -> CancelRequest:
        """The request of a stored note; ValueError or TypeError if it does not read."""
        if not isinstance(note, dict):
            raise TypeError("not a JSON object")
        request, asked_by, opened_at, votes = (
            note["request"],
            note["asked_by"],
            note["opened_at"],
            note["votes"],
        )
        if not isinstance(request, str) or _REQUEST_ID.fullmatch(request) is None:
            raise ValueError("a request id that is not an interaction id")
        if isinstance(opened_at, bool) or not isinstance(opened_at, int | float):
            raise TypeError("a time that is not a number")
        if not math.isfinite(opened_at):
            raise ValueError("a time that is not a finite number")
        if not isinstance(votes, list):
            raise TypeError("votes that are not a list")
        return cls(
            request, _member_id(asked_by), float(opened_at), frozenset(map(_member_id, votes))
        )


class DiscordGames:
    """Implements `desk.GameDesk` over `bot.manager.SessionManager`."""

    def __init__(
        self,
        config: Config,
        *,
        agents: AgentPort | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self._agents = agents
        self._service: Any = None  # an agents.service.AgentService we started
        self.clock = clock
        self._manager: SessionManager | None = None
        self._frontend: DiscordFrontend | None = None
        self._meta: dict[int, _Meta] = {}
        self._demo_started: dict[int, float] = {}  # channel id -> when its last demo began
        self._asked_in: dict[int, float] = {}  # channel id -> when its last /ask was let in
        self._asked_by: dict[tuple[int, int], float] = {}  # (channel, member) -> the same
        self._telling: set[asyncio.Task[None]] = set()  # notices of games set aside
        # Games a /cancel is ending now (a majority of agreements, or the asker's word
        # alone; set once that try is over): a click or /cancel meanwhile waits for its
        # outcome before answering, as does an agreement whose store failed.
        self._ending: dict[int, asyncio.Event] = {}

    # --- lifecycle ----------------------------------------------------------------------

    @property
    def manager(self) -> SessionManager:
        """The session manager (once started)."""
        if self._manager is None:
            raise RuntimeError("The games are not started yet.")
        return self._manager

    @property
    def frontend(self) -> DiscordFrontend:
        """The Discord front-end of every game (once started)."""
        if self._frontend is None:
            raise RuntimeError("The games are not started yet.")
        return self._frontend

    async def start(self, bot: GameBot) -> None:
        """Build the manager over the bot's storage and resume the unfinished games."""
        storage = bot.storage
        self._frontend = DiscordFrontend(bot, dm_secrets=self.config.dm_secrets, book=storage)
        # Before any game resumes: a deleted message of a resumed game (or a ping line
        # to try again) asks its outbox for a flush from the start.
        self._frontend.redraw = self._redraw
        agents = self._agents
        if agents is None:
            # Worker processes off the event loop, or tasks on a Ray cluster (AI_BACKEND).
            self._service = ai_service(
                self.config.ai_backend,
                workers=self.config.ai_workers,
                ray_address=self.config.ray_address,
            )
            await self._service.start()
            agents = self._service
        assert agents is not None
        manager = self._manager = SessionManager(storage, self._frontend, agents, clock=self.clock)
        scope = self.config.game_scope  # its shards' games, never the terminal's
        resumed = await manager.recover(frontend_for=self._remember, scope=scope)
        log.info("resumed %d unfinished game(s)", len(resumed))
        for lost in manager.set_aside:  # told in the background: Discord may be slow
            task = asyncio.create_task(self._tell_set_aside(self._frontend, lost))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
        manager.set_aside.clear()

    async def _tell_set_aside(self, frontend: DiscordFrontend, lost: SetAside) -> None:
        """Tell a table that its game was set aside as damaged (best effort: logged)."""
        if lost.channel_id is None:
            return
        table = Table(lost.game_id, (), lost.guild_id, lost.channel_id)
        notice = texts.SET_ASIDE.format(game_id=lost.game_id, reason=lost.reason)
        try:
            await frontend.announce(table, notice)
        except DeliveryError as exc:  # the channel is gone, or the bot may not post there
            log.warning("game %d: its table was not told it was set aside (%s)", lost.game_id, exc)

    async def stop(self) -> None:
        """Stop every session (each resumes on the next start), then the AI workers."""
        for task in self._telling:
            task.cancel()
        if self._manager is not None:
            await self._manager.shutdown()
        if self._frontend is not None:
            await self._frontend.close()
        if self._service is not None:
            await self._service.close()

    def _remember(self, stored: StoredGame) -> Frontend:
        """Recovery callback: restore a stored game's Discord details."""
        meta = self._meta_of(stored.id)
        meta.host_id = _host_of(stored)
        meta.pace = _pace_of(stored)
        meta.demo = bool(stored.options.get("demo", False))
        if meta.pace:
            self.frontend.set_pace(stored.id, meta.pace)
        return self.frontend

    def _meta_of(self, game_id: int) -> _Meta:
        return self._meta.setdefault(game_id, _Meta())

    # --- GameLauncher -------------------------------------------------------------------

    def _running_in(self, guild_id: int | None) -> list[GameSession]:
        """The games of a server this process runs (paused ones too), not over."""
        return [s for s in self.manager.sessions if s.guild_id == guild_id and not s.is_over]

    def why_full(self, guild_id: int | None) -> str | None:
        """Why no new game may start in a server now (it runs GAMES_PER_SERVER), or None."""
        if self._manager is None or guild_id is None:
            return None
        if len(self._running_in(guild_id)) >= GAMES_PER_SERVER:
            return texts.SERVER_FULL.format(limit=GAMES_PER_SERVER)
        return None

    def why_busy(self, channel_id: int) -> str | None:
        """Why no new game may open in a channel now, or None: a game runs there, or
        one is over and still showing its end (its chart, its reveal: up to a minute), or
        was won but paused before its end was stored."""
        if self.game_in(channel_id) is None:
            return None
        session = self._manager.for_channel(channel_id) if self._manager else None
        if session is not None and session.paused and session.game.is_over:
            return texts.GAME_END_NOT_STORED  # it stays until a host stores its end
        if session is not None and session.is_over:
            return texts.GAME_JUST_ENDED
        return texts.GAME_ALREADY_HERE

    def game_in(self, channel_id: int) -> int | None:
        """The game running in a channel, if any (paused ones too, even one that could
        not be resumed at this start: no other game opens over it)."""
        if self._manager is None:
            return None
        session = self._manager.for_channel(channel_id)
        if session is not None:
            return session.game_id
        stranded = self._manager.stranded_in(channel_id)
        return None if stranded is None else stranded.id

    async def launch(self, lobby: Lobby, table: Sequence[LobbySeat]) -> int:
        """Store and start the game of a lobby; humans take the first seats in join order,
        then the AI players, each at its own strength."""
        humans = [Member(s.user_id, s.name) for s in table if s.user_id is not None]
        ais = [s for s in table if s.user_id is None]
        options = lobby.options
        spec = self.config.ai_spec(options.strength)
        seat_specs = {
            len(humans) + index: self.config.ai_spec(lobby.strength_of(seat))
            for index, seat in enumerate(ais)
        }
        session = await self.manager.create(
            humans,
            players=len(table),
            fill_with_ai=True,
            ai_spec=spec,
            seat_specs=seat_specs,
            variant=Variant(options.variant),
            options=self._session_options(
                spec, options.turn_seconds, options.vote_seconds, talk=options.talk
            ),
            extra_options={"host_id": lobby.host_id, "lobby": lobby.id},
            guild_id=lobby.guild_id,
            channel_id=lobby.channel_id,
        )
        self._meta_of(session.game_id).host_id = lobby.host_id
        log.info("game %d started in channel %s", session.game_id, lobby.channel_id)
        return session.game_id

    def _session_options(
        self, spec: str, turn: int | None, vote: int | None, *, talk: bool = True
    ) -> SessionOptions:
        timers = self.config.timers
        turn_s = float(turn or timers.turn_seconds)
        vote_s = float(vote or timers.vote_seconds)
        return SessionOptions(
            timers=Timers(
                nominate=turn_s,
                vote=vote_s,
                policy=turn_s,
                power=turn_s,
                max_expiries=timers.afk_after,
            ),
            substitute=spec,  # absent players are played at the table's AI strength
            ai_budget_s=self.config.ai_seconds,
            ai_pace_s=self.config.ai_pace,
            talk=talk,
        )

    async def demo(self, interaction: discord.Interaction, players: int, speed: str) -> None:
        """A bot-only game in this channel, paced for spectators."""
        assert interaction.channel_id is not None
        if missing := missing_here(interaction):
            await answer(interaction, texts.MISSING_HERE.format(names=", ".join(missing)))
            return
        # Acknowledged first: the thread check may ask Discord (3-second window).
        await acknowledge(interaction)
        if refusal := await thread_refusal(interaction):
            await answer(interaction, refusal)
            return
        refusal = self.why_full(interaction.guild_id) or self._demo_refusal(
            interaction.guild_id, interaction.channel_id
        )
        if refusal:
            await answer(interaction, refusal)
            return
        self._demo_started[interaction.channel_id] = self.clock()
        pace = DEMO_PACE[speed]
        spec = self.config.ai_spec(self.config.ai_default)
        # The AI moves at the pace of the narration: the game is where the channel reads.
        options = SessionOptions(
            timers=Timers.off(),
            substitute=spec,
            ai_budget_s=self.config.ai_seconds,
            ai_pace_s=pace,
        )
        session = await self.manager.create(
            [],
            players=players,
            fill_with_ai=True,
            ai_spec=spec,
            options=options,
            extra_options={"host_id": interaction.user.id, "pace": pace, "demo": True},
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            start=False,
        )
        meta = self._meta_of(session.game_id)
        meta.host_id, meta.pace, meta.demo = interaction.user.id, pace, True
        self.frontend.set_pace(session.game_id, pace)
        try:
            await announce(
                interaction,
                texts.DEMO_STARTING,
                content=texts.DEMO_STARTED.format(players=players),
            )
        except SEND_FAULTS as exc:
            # The game is stored: it must run whatever its greeting did (its own messages
            # tell the channel), or it would hold the channel with nobody to move.
            log.warning("demo game %d was not announced (%s)", session.game_id, fault_words(exc))
            await answer(interaction, texts.DEMO_STARTING, quiet=True)
        session.start()
        log.info("demo game %d started in channel %s", session.game_id, interaction.channel_id)

    # --- the server changes under the games ---------------------------------------------

    async def place_lost(
        self, reason: str, *, channel_id: int | None, guild_id: int | None
    ) -> None:
        """Abandon every game in a channel that is gone (or every game of a server)."""
        for session in list(self.manager.sessions):
            here = session.channel_id == channel_id if channel_id is not None else True
            if here and session.guild_id == guild_id and not session.is_over:
                await session.abandon(reason)
                self.frontend.forget(session.game_id)
                self._meta.pop(session.game_id, None)

    def permissions_changed(self, guild_id: int, channel_id: int | None = None) -> None:
        """Games of that server (channel) paused for a permission try again now."""
        if self._manager is None:
            return
        for session in self._manager.sessions:
            if session.guild_id == guild_id and channel_id in (None, session.channel_id):
                session.outbox.nudge()

    def message_deleted(self, channel_id: int, message_ids: set[int]) -> None:
        """Messages were deleted in a channel: the front-end marks what of the channel's
        running game they carried, and asks its outbox to post it again (`_redraw`)."""
        if self._manager is None or self._frontend is None:
            return  # not started: no game has shown anything yet
        for session in self._manager.sessions:
            if session.channel_id == channel_id and not session.is_over:
                self._frontend.deleted(session.game_id, message_ids)

    def _redraw(self, game_id: int) -> None:
        """Have a game's outbox, its only writer, show again what its front-end holds."""
        session = self._manager.get(game_id) if self._manager is not None else None
        if session is not None and not session.is_over:
            session.outbox.redraw(session.table)

    def _demo_refusal(self, guild_id: int | None, channel_id: int) -> str | None:
        """Why a /demo may not start now (a channel's cooldown, a server's limit), if so."""
        last = self._demo_started.get(channel_id)
        if last is not None and self.clock() - last < DEMO_COOLDOWN_S:
            when = f"<t:{int(last + DEMO_COOLDOWN_S)}:R>"
            return texts.DEMO_COOLDOWN.format(when=when)
        demos = [s for s in self._running_in(guild_id) if self._meta_of(s.game_id).demo]
        if len(demos) >= DEMO_LIMIT:
            return texts.DEMO_LIMIT.format(limit=DEMO_LIMIT)
        return None

    def _ask_refusal(self, channel_id: int, user_id: int) -> str | None:
        """Why an /ask may not be let in now (the member's or the channel's cooldown),
        if so, with when the next one can be."""
        now = self.clock()
        # Forget the turns that are over, so that the books stay as small as the
        # cooldowns (a busy server's members would otherwise pile up).
        for key, at in list(self._asked_by.items()):
            if now - at >= ASK_MEMBER_COOLDOWN_S:
                del self._asked_by[key]
        for channel, at in list(self._asked_in.items()):
            if now - at >= ASK_CHANNEL_COOLDOWN_S:
                del self._asked_in[channel]
        mine = self._asked_by.get((channel_id, user_id))
        if mine is not None:
            return texts.ASK_MEMBER_COOLDOWN.format(when=_when(mine + ASK_MEMBER_COOLDOWN_S))
        here = self._asked_in.get(channel_id)
        if here is not None:
            return texts.ASK_CHANNEL_COOLDOWN.format(when=_when(here + ASK_CHANNEL_COOLDOWN_S))
        return None

    # --- components ---------------------------------------------------------------------

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """A game button or select: check who clicked, then act or refuse precisely."""
        game_id = int(cid.game)
        session = self._manager.get(game_id) if self._manager is not None else None
        if session is None:
            # The reason is read from the database: acknowledge first (3-second window).
            await acknowledge(interaction)
            await answer(interaction, await self._why_not_running(game_id))
            return
        user_id = interaction.user.id
        seat = session.table.seat_of(user_id)
        if cid.action == CANCEL:
            await self._agree_to_cancel(interaction, session, cid.arg)
            return
        if seat is None:
            await answer(interaction, texts.NOT_A_PLAYER)
            return
        if session.paused and cid.action != ROLE:  # one's own role may still be read
            await answer(interaction, session.paused_text())  # why, and what brings it back
            return
        if cid.action == ROLE:
            text = secrets_text(session.private_view(seat), [s.name for s in session.table.seats])
            await answer(interaction, text)
        elif session.table.seats[seat].is_ai and not _open_claim(session, seat, cid.action):
            await answer(interaction, texts.AI_PLAYS_YOUR_SEAT)  # claims stay the member's
        elif cid.action == HAND:
            await self._open_hand(interaction, session, seat, cid)
        else:
            await self._choose(interaction, session, seat, cid)

    async def _why_not_running(self, game_id: int) -> str:
        if self.manager.is_stranded(game_id):
            return texts.GAME_PAUSED  # whatever its row says (the pause may not be stored)
        try:
            stored = await self.manager.store.load_game(game_id)
        except GameDamaged:
            return texts.GAME_DAMAGED
        except StorageError:
            return texts.GAME_NOT_RUNNING
        return _WHY_NOT_RUNNING.get(stored.status, texts.GAME_NOT_RUNNING)

    async def _open_hand(
        self, interaction: discord.Interaction, session: GameSession, seat: int, cid: ComponentId
    ) -> None:
        # `<president>.<chancellor>.<policies enacted>`: one button for both hands of a
        # session; `<seat>`: a hand's own button (shown before a restart into this version).
        try:  # (a trailing ".v": the hand again after a refused veto)
            seats = [int(x) for x in (cid.arg or "").removesuffix(".v").split(".")]
        except ValueError:
            await answer(interaction, texts.UNKNOWN_COMPONENT)
            return
        if len(seats) == 1 and seats[0] != seat:
            owner = seats[0]
            name = session.table.seats[owner].name if 0 <= owner < len(session.table.seats) else "?"
            await answer(interaction, texts.NOT_YOUR_HAND.format(label=name))
            return
        if len(seats) == 3 and seat not in seats[:2]:
            await answer(interaction, texts.HAND_NOT_IN_GOVERNMENT)
            return
        public = session.spectator_view()
        holds = (public.phase is Phase.PRESIDENT_DISCARD and public.president == seat) or (
            public.phase is Phase.CHANCELLOR_ENACT and public.chancellor == seat
        )
        # The one button of the session stands before the Chancellor's step is asked: a
        # click as the President discards waits for it (answered within Discord's 3 s).
        prompts = (
            await session.prompts_when_asked(seat, HAND_WAIT_S)
            if holds
            else session.open_prompts(seat)
        )
        prompt = next(
            (p for p in prompts if p.kind is PromptKind.ACTION and prompt_kind(p) == "hand"),
            None,
        )
        if prompt is None:
            if holds and session.ai_decides(seat):
                text = session.ai_decides_notice(seat)  # an AI is playing this hand for them
            elif holds:
                text = texts.HAND_COMING
            elif public.phase is Phase.PRESIDENT_DISCARD and public.chancellor == seat:
                text = texts.HAND_NOT_YET
            else:
                text = texts.HAND_EMPTY
            await answer(interaction, text)
            return
        # The question names the policies in hand: this reply is for the seat alone.
        await answer(interaction, prompt.question, view=hand_components(session.table, prompt))

    async def _choose(
        self, interaction: discord.Interaction, session: GameSession, seat: int, cid: ComponentId
    ) -> None:
        try:
            owner, index = _parse_choice(cid, selected_values(interaction))
        except ValueError:
            await answer(interaction, texts.UNKNOWN_COMPONENT)
            return
        table = session.table
        if owner is not None and owner != seat:
            name = table.seats[owner].name if 0 <= owner < len(table.seats) else "?"
            await answer(interaction, texts.NOT_YOUR_PROMPT.format(label=name))
            return
        if not session.spectator_view().alive[seat]:
            await answer(interaction, texts.DEAD)
            return
        in_hand = interaction.message is not None and interaction.message.flags.ephemeral
        # Acknowledge first (3-second rule): the session may wait for its lock and a write.
        if in_hand:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            prompt = await session.choose(interaction.user.id, cid.action, index)
        except REFUSALS as exc:
            reply = str(exc)
        else:
            reply = _confirmation(prompt, index)
        await _complete(interaction, reply)

    # --- commands -----------------------------------------------------------------------

    def _session_here(self, interaction: discord.Interaction) -> GameSession | None:
        if self._manager is None or interaction.channel_id is None:
            return None
        return self._manager.for_channel(interaction.channel_id)

    def _stranded_here(self, interaction: discord.Interaction) -> StoredGame | None:
        """The channel's paused game that no session holds (its resume failed at start)."""
        if self._manager is None or interaction.channel_id is None:
            return None
        return self._manager.stranded_in(interaction.channel_id)

    def _may_steer(self, interaction: discord.Interaction, host_id: int | None) -> bool:
        """Whether the member may /cancel or /resume a game: its host, or Manage Server."""
        return interaction.user.id == host_id or interaction.permissions.manage_guild

    async def status(self, interaction: discord.Interaction) -> None:
        """/status: the public board and whom the game waits for."""
        session = self._session_here(interaction)
        if session is None:
            if self._stranded_here(interaction) is not None:
                reply = texts.GAME_PAUSED
            else:
                reply = await self._ended_here(interaction)
            await answer(interaction, reply)
            return
        from ..render import board_text

        names = [s.name for s in session.table.seats]
        text = board_text(session.spectator_view(), names)
        waiting = self.frontend.last_waiting(session.game_id)
        labels = session.table.labels
        claims = [
            labels[seat]
            for seat in range(len(labels))
            if any(p.kind is PromptKind.CLAIM for p in session.open_prompts(seat))
        ]
        if session.paused:
            text += "\n\n" + texts.STATUS_PAUSED
        else:
            # The last line shown is stale once its decision is over (the claims that
            # follow a session are not a decision of the game's): say it only if current.
            game = session.game
            if (
                waiting is not None
                and waiting.phase is game.phase
                and set(waiting.seats) == set(game.awaiting())
            ):
                text += "\n\n" + waiting.text
            if claims:
                text += "\n\n" + texts.STATUS_CLAIMS.format(names=", ".join(claims))
        embed = discord.Embed(title=f"Game #{session.game_id}", description=text[:4096])
        await answer(interaction, embed=embed)  # deferred by /status (it reads the lobby)

    async def _ended_here(self, interaction: discord.Interaction) -> str:
        """/status where no game runs: what became of the channel's latest game, if it was
        set aside at a restart or abandoned (its table may have missed the notice, or the
        notice scrolled away), or else that there is no game. The database is read:
        /status is acknowledged first."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        if self._manager is None or guild_id is None or channel_id is None:
            return texts.NO_GAME_HERE
        try:
            last = await self._manager.store.last_game_in(guild_id, channel_id)
        except StorageError as exc:  # /status still answers, as it did before it looked
            log.warning("/status: the channel's last game was not read (%s)", type(exc).__name__)
            return texts.NO_GAME_HERE
        if last is None or last.status not in _ENDED_HERE:
            return texts.NO_GAME_HERE
        return _ENDED_HERE[last.status].format(game_id=last.id)

    async def ask(self, interaction: discord.Interaction, seat: int) -> None:
        """/ask: what an AI seat says of the table (public talk: its own view only)."""
        session = self._session_here(interaction)
        if session is None or session.is_over:
            await answer(interaction, texts.NO_GAME_HERE)
            return
        humans = _humans(session)
        if humans and interaction.user.id not in humans:
            # Spectators watch a game with players; a demo has none, so all may ask.
            await answer(interaction, texts.ASK_PLAYERS_ONLY)
            return
        seats = session.table.seats
        if not 0 <= seat < len(seats):
            await answer(interaction, texts.ASK_NO_SEAT.format(seat=seat, last=len(seats) - 1))
            return
        if not seats[seat].is_ai:
            await answer(interaction, texts.ASK_NOT_AI.format(label=seats[seat].label))
            return
        if not seats[seat].speaks:
            await answer(interaction, texts.ASK_STANDING_IN.format(label=seats[seat].label))
            return
        if not session.options.talk:
            await answer(interaction, texts.ASK_TALK_OFF)
            return
        channel_id, user_id = interaction.channel_id, interaction.user.id
        assert channel_id is not None  # a session was found by it
        if refusal := self._ask_refusal(channel_id, user_id):
            await answer(interaction, refusal)
            return
        # Let in now, before any await: two /ask at once cannot both pass.
        now = self.clock()
        self._asked_in[channel_id] = self._asked_by[(channel_id, user_id)] = now

        def give_back() -> None:
            # "Try again": the member's own turn is given back; the channel's is kept,
            # so that a busy thread is not asked again at once.
            if self._asked_by.get((channel_id, user_id)) == now:
                del self._asked_by[(channel_id, user_id)]

        # The belief is read in its own thread: acknowledge first (3-second rule), and
        # privately, so a failure is told to the asker alone; the answer is table talk,
        # posted for everyone.
        try:
            await acknowledge(interaction)
        except BaseException:  # expired, or the network failed: nothing was asked
            give_back()
            raise
        name = seats[seat].name
        try:
            words = await session.ask_ai(seat)
        except TalkUnavailable:  # logged where it happened
            give_back()
            await _complete(interaction, texts.ASK_FAILED)
            return
        said = texts.ASK_SAID.format(name=name, words=words or texts.ASK_NOTHING)
        try:
            await announce(interaction, texts.ASK_SENT.format(name=name), content=said)
        except SEND_FAULTS as exc:
            log.warning("an /ask answer was not posted (%s)", fault_words(exc))
            give_back()
            await answer(interaction, texts.ASK_NOT_POSTED, quiet=True)

    async def role(self, interaction: discord.Interaction) -> None:
        """/role: the member's role and private knowledge, for them alone."""
        session = self._session_here(interaction)
        seat = session.table.seat_of(interaction.user.id) if session is not None else None
        if session is None or seat is None:
            mine = self.manager.games_of(interaction.user.id) if self._manager else []
            if len(mine) != 1:
                await answer(interaction, texts.NO_GAME_FOR_YOU)
                return
            session = mine[0]
            seat = session.table.seat_of(interaction.user.id)
            assert seat is not None
        text = secrets_text(session.private_view(seat), [s.name for s in session.table.seats])
        await answer(interaction, text)

    async def afk(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        """/afk: an AI plays the member's seat until /back; with `member`, the host (or
        Manage Server) hands a missing player's seat to an AI at once, rather than the
        table waiting out their timers."""
        if member is None or member.id == interaction.user.id:
            await self._seat_command(interaction, "afk")
            return
        session = self._session_here(interaction)
        if session is None:
            await answer(interaction, texts.NO_GAME_HERE)
            return
        if not self._may_steer(interaction, self._meta_of(session.game_id).host_id):
            await answer(interaction, texts.HAND_OVER_RIGHTS)
            return
        name = member.display_name
        if session.table.seat_of(member.id) is None:
            await answer(interaction, texts.HAND_OVER_NO_SEAT.format(name=name))
            return
        meta = self._meta_of(session.game_id)
        by = "the host" if interaction.user.id == meta.host_id else "a moderator"
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            done = await session.hand_over(member.id, by)
            reply = _HAND_OVER_WORDS[done].format(name=name)
        except REFUSALS as exc:
            reply = str(exc)
        await _complete(interaction, reply)

    async def back(self, interaction: discord.Interaction) -> None:
        """/back: the member plays their own seat again."""
        await self._seat_command(interaction, "back")

    async def _seat_command(self, interaction: discord.Interaction, which: str) -> None:
        session = self._session_here(interaction)
        if session is None:
            await answer(interaction, texts.NO_GAME_HERE)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            if which == "afk":
                reply = await session.afk(interaction.user.id)
            else:
                reply = await session.back(interaction.user.id)
        except REFUSALS as exc:
            reply = str(exc)
        await _complete(interaction, reply)

    async def cancel(self, interaction: discord.Interaction) -> None:
        """/cancel mid-game: host or Manage Server asks; a majority of the members at the
        table confirm (`_majority`)."""
        session = self._session_here(interaction)
        if session is None:
            stranded = self._stranded_here(interaction)
            if stranded is None:
                await answer(interaction, texts.NO_GAME_HERE)
            else:
                await self._cancel_stranded(interaction, stranded)
            return
        if session.paused and session.game.is_over:
            await self._store_won_end(interaction, session)
            return
        if await self._ended_meanwhile(interaction, session):
            # Its notes are dropped already: a new request would be posted for a game
            # being cancelled, and stored in its row. (A game played out is not.)
            ended = texts.GAME_OVER if session.game.is_over else texts.GAME_CANCELLED
            await answer(interaction, ended)
            return
        meta = self._meta_of(session.game_id)
        user_id = interaction.user.id
        if not self._may_steer(interaction, meta.host_id):
            await answer(interaction, texts.CANCEL_RIGHTS)
            return
        humans = _humans(session)
        asked = CancelRequest(
            f"{interaction.id:x}", user_id, self.clock(), frozenset({user_id} & humans)
        )
        needed = _majority(session)
        # Nobody at the table (a bot-only game, or every member away): the asker's word.
        if not _at_table(session) or len(asked.votes) >= needed:
            # Ephemeral: an error must reach the host alone (the game says it ended).
            await acknowledge(interaction)
            session.set_note(CANCEL_NOTE, asked.note())
            async with self._ending_game(session.game_id):
                try:
                    session = await self.manager.cancel(session, texts.CANCEL_HOST_ALONE)
                except Exception as exc:
                    if not session.is_over:  # not ended: the generic handler says so
                        raise
                    # Over all the same: "unchanged" (the generic handler) would be false.
                    log.warning(
                        "game %d: cancelled with a fault (%s)", session.game_id, type(exc).__name__
                    )
            # A game won as the /cancel came is over, not cancelled: its reveal follows.
            await _complete(
                interaction, texts.GAME_OVER if session.game.is_over else texts.GAME_CANCELLED
            )
            return
        from .components import button, view_of

        view = view_of(
            button(
                ComponentId(str(session.game_id), CANCEL, asked.request),
                texts.BUTTON_END_GAME,
                style=discord.ButtonStyle.danger,
            )
        )
        # Stored before anyone sees it: a request shown and then lost to a crash would
        # leave buttons that count nothing. The store waits behind the games' writes, so
        # the interaction is acknowledged first (Discord's 3 seconds), privately, so that
        # a failure reaches the asker alone; the request is posted once it is stored.
        await acknowledge(interaction)
        # Noted once acknowledged: a /cancel that expired (10062) replaces nothing, and
        # the request shown keeps counting. A newer request replaces any older one.
        session.set_note(CANCEL_NOTE, asked.note())
        if not await session.store_notes():
            if _open_request_id(session) == asked.request:  # not replaced meanwhile
                # Back to what the database holds, not to the note before this one: it
                # may hold an agreement whose own store failed (its member was told so).
                session.set_note(CANCEL_NOTE, session.stored_note(CANCEL_NOTE))
            await _complete(interaction, texts.CANCEL_NOT_RECORDED)
            return
        try:
            await announce(
                interaction,
                texts.CANCEL_ASKED,
                content=texts.CANCEL_ASK.format(
                    who=interaction.user.mention, count=len(asked.votes), needed=needed
                ),
                view=view,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except SEND_FAULTS as exc:
            # Stored, but nobody can press its button: the asker hears so, not that
            # something went wrong and the game is unchanged (the generic handler).
            log.warning("the /cancel request was not posted (%s)", fault_words(exc))
            # Refused by Discord, it is not there; after a transport fault it may be.
            refused = isinstance(exc, discord.HTTPException)
            told = texts.CANCEL_NOT_SHOWN if refused else texts.CANCEL_MAYBE_NOT_SHOWN
            await answer(interaction, told, quiet=True)

    async def _store_won_end(self, interaction: discord.Interaction, session: GameSession) -> None:
        """/cancel of a won game that paused before its end was stored (the write failed):
        the table was told /cancel ends it, and it does, with its result (a game with a
        winner is never cancelled), so its host's word is enough: no vote, as nothing
        is undone. The channel is free again once the end is stored."""
        if not self._may_steer(interaction, self._meta_of(session.game_id).host_id):
            await answer(interaction, texts.CANCEL_RIGHTS)
            return
        await acknowledge(interaction)  # it writes to the database
        async with self._ending_game(session.game_id):
            try:
                await self.manager.cancel(session, texts.CANCEL_HOST_ALONE)
            except Exception as exc:  # still paused: /cancel or /resume tries again
                # Only the type: the message may quote a private action.
                log.error(
                    "game %d: its end could not be stored (%s)", session.game_id, type(exc).__name__
                )
                await _complete(interaction, texts.END_NOT_STORED)
                return
        await _complete(interaction, texts.END_STORED)
        await _tell_channel(interaction, session.game_id, texts.END_STORED_TABLE)

    async def resume(self, interaction: discord.Interaction) -> None:
        """/resume: the host or Manage Server carries on the paused game of the channel."""
        session = self._session_here(interaction)
        stranded = self._stranded_here(interaction) if session is None else None
        if stranded is not None:
            game_id, host_id = stranded.id, _host_of(stranded)
        elif session is not None and session.paused:
            game_id, host_id = session.game_id, self._meta_of(session.game_id).host_id
        else:
            await answer(interaction, texts.NOTHING_PAUSED)
            return
        if not self._may_steer(interaction, host_id):
            await answer(interaction, texts.RESUME_RIGHTS)
            return
        # Rebuilding the game reads the database: acknowledge first (3-second window).
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            if stranded is not None:
                self._remember(stranded)  # what its failed start did not restore
            await self.manager.resume_paused(game_id)
        except Exception as exc:  # whatever the fault, the game stays paused, and says so
            # Only the type: the message may quote a private action.
            log.error("game %d could not be resumed (%s)", game_id, type(exc).__name__)
            reply = await self._resume_refused(game_id)
        else:
            log.info("game %d resumed by a host in channel %s", game_id, interaction.channel_id)
            reply = texts.RESUMED
        await _complete(interaction, reply)

    async def _resume_refused(self, game_id: int) -> str:
        """What a failed /resume tells the host: the game stays paused, unless it ended
        meanwhile (a /cancel, or the players' vote, between the look and the rebuild) or
        goes on already (another resume got there first: the permission came back, or a
        second /resume)."""
        ended = await self._ended_words(game_id)
        if ended is not None:
            return ended
        session = self.manager.get(game_id)
        if session is not None and not session.paused:
            return texts.RESUMED
        return texts.RESUME_FAILED

    async def _ended_words(self, game_id: int) -> str | None:
        """How a game ended (played out, cancelled, abandoned), in the words clicks get;
        None if it has not, or its status does not read (the database in trouble)."""
        try:
            status, _ = await self.manager.store.game_status(game_id)
        except Exception:
            return None
        return (
            _WHY_NOT_RUNNING[status] if status in ("finished", "cancelled", "abandoned") else None
        )

    async def _cancel_stranded(
        self, interaction: discord.Interaction, stranded: StoredGame
    ) -> None:
        """/cancel of a game no session holds: no vote of the players can run, so its
        host's (or a Manage Server member's) word ends it; what it showed before the
        restart is closed, as a live game's cancel closes it."""
        if not self._may_steer(interaction, _host_of(stranded)):
            await answer(interaction, texts.CANCEL_RIGHTS)
            return
        await acknowledge(interaction)  # it writes to the database
        # What it showed before the restart, read first: the end drops the game's rows.
        shown = await self.frontend.shown_before(stranded.id)
        try:
            won = await self.manager.cancel_stranded(stranded.id)
        except ValueError:  # another /cancel or a /resume got there first (it waited)
            await _complete(interaction, await self._stranded_no_more(stranded.id))
            return
        except StorageError as exc:
            log.error("game %d could not be cancelled (%s)", stranded.id, type(exc).__name__)
            await interaction.edit_original_response(content=texts.CANCEL_FAILED)
            return
        await _complete(interaction, texts.END_STORED if won else texts.GAME_CANCELLED)
        # Stored cancelled first, its buttons closed after. Closed first, a store that
        # then failed (the host told CANCEL_FAILED) or a crash would show the table a
        # game as cancelled, its decisions closed, that is still paused and resumable.
        # This way round, a crash in between leaves buttons that only look live: a click
        # reads the stored status and answers that the game was cancelled.
        table = Table(stranded.id, (), stranded.guild_id, stranded.channel_id)
        await self.frontend.close_stranded(table, shown)
        told = texts.END_STORED_TABLE if won else notices.cancelled(texts.CANCEL_HOST_ALONE)
        await _tell_channel(interaction, stranded.id, told)

    async def _stranded_no_more(self, game_id: int) -> str:
        """What a /cancel of a stranded game tells its host when the game was no longer
        stranded by its turn: cancelled by the other /cancel, or resumed by a /resume."""
        if self.manager.get(game_id) is not None:
            return texts.CANCEL_RESUMED_MEANWHILE
        return await self._ended_words(game_id) or texts.CANCEL_FAILED

    async def _agree_to_cancel(
        self, interaction: discord.Interaction, session: GameSession, request: str | None
    ) -> None:
        """A vote for the open /cancel request, only from that request's own buttons: an
        old, replaced or forged button must never end a game."""
        if await self._ended_meanwhile(interaction, session):
            # Its notes are dropped already: "nobody has asked" would be false.
            await answer(interaction, texts.CANCEL_GAME_OVER)
            return
        asked = _open_request(session)
        if asked is None:
            await answer(interaction, texts.CANCEL_NOT_ASKED)
            return
        if request != asked.request:
            await answer(interaction, texts.CANCEL_STALE)
            return
        humans = _humans(session)
        user_id = interaction.user.id
        if user_id not in humans:
            await answer(interaction, texts.CANCEL_ONLY_PLAYERS)
            return
        needed = _majority(session)
        if user_id in asked.votes:
            stored = _stored_request(session)
            if stored is None or stored.request != asked.request or user_id not in stored.votes:
                # A double click: the first one's store is in flight and may fail yet.
                await answer(interaction, texts.CANCEL_AGREE_PENDING)
                return
            count = len(stored.votes & humans)
            await answer(interaction, texts.CANCEL_ALREADY.format(count=count, needed=needed))
            return
        # Counted here and now, before any await: two clicks at once both count.
        agreed = replace(asked, votes=asked.votes | {user_id})
        session.set_note(CANCEL_NOTE, agreed.note())
        count = len(agreed.votes & humans)
        if count < needed:
            # Stored before the member hears it counts (a crash after the answer would
            # lose it); acknowledged first, as the store may wait (3-second rule).
            await _acknowledge_agreement(interaction, session, asked.request)
            refused = not await session.store_notes()
            reply = None if refused else _stored_agreement(session, asked.request, user_id)
            if reply is None:
                reply = await self._not_counted(session, asked.request, user_id, refused)
            await _complete(interaction, reply)
            return
        async with self._ending_game(session.game_id):
            await self._end_by_agreement(interaction, session, asked.request, user_id)

    @contextlib.asynccontextmanager
    async def _ending_game(self, game_id: int) -> AsyncIterator[None]:
        """While the body runs, the game is known to be ending (`_ending`). Its last
        messages go out unpaced: a demo's pace would hold the end (and the host)."""
        ending = self._ending[game_id] = asyncio.Event()
        self.frontend.set_pace(game_id, 0.0)
        try:
            yield
        finally:
            if self._ending.get(game_id) is ending:
                del self._ending[game_id]
            ending.set()
            session, meta = self.manager.get(game_id), self._meta.get(game_id)
            if session is not None and not session.is_over and meta is not None:
                self.frontend.set_pace(game_id, meta.pace)  # not ended: paced as before

    async def _ended_meanwhile(
        self, interaction: discord.Interaction, session: GameSession
    ) -> bool:
        """Whether the game is over, once the /cancel ending it now (if any) is done. The
        end writes to the database: a wait for it is acknowledged first (3 seconds)."""
        ending = self._ending.get(session.game_id)
        if ending is not None and not ending.is_set():
            await acknowledge(interaction)
            await ending.wait()
        return session.is_over

    async def _not_counted(
        self, session: GameSession, request: str, user_id: int, refused: bool
    ) -> str:
        """What a member hears whose agreement to `request` is not stored (`refused`: the
        store failed): it is taken back at once (before the next write can store it); if a
        majority is ending the game meanwhile, that decides the answer, not "press again"
        for a game that is over."""
        if _withdraw(session, request, user_id):
            # Another write (another member's, the game's) may have stored it meanwhile.
            await session.store_notes()
        ending = self._ending.get(session.game_id)
        if ending is not None:
            await ending.wait()
        if session.is_over:
            return texts.CANCEL_GAME_OVER
        if _open_request_id(session) not in (None, request):
            # Replaced: its button is stale. A replacement whose own store fails is rolled
            # back and never shown, so "the latest request" is right either way.
            return texts.CANCEL_AGREE_NOT_RECORDED_REPLACED if refused else texts.CANCEL_STALE
        return texts.CANCEL_AGREE_NOT_RECORDED

    async def _end_by_agreement(
        self, interaction: discord.Interaction, session: GameSession, request: str, user_id: int
    ) -> None:
        """The agreement of `user_id` makes the majority: end the game."""
        # The request says "cancelled" only once the game is: acknowledge as an update
        # of the request (3-second rule; cancelling writes to the database), cancel, then
        # edit it.
        await _acknowledge_agreement(interaction, session, request, update=True)
        try:
            session = await self.manager.cancel(session, texts.CANCEL_REASON)
        except Exception as exc:
            if not session.is_over:  # not ended: the request stays open, button and all
                # Only the type: the message may quote a private action.
                log.error(
                    "game %d could not be cancelled (%s)", session.game_id, type(exc).__name__
                )
                _withdraw(session, request, user_id)  # so that pressing again retries
                # Stored first: a game write meanwhile may have stored the agreement.
                await session.store_notes()
                await answer(interaction, texts.CANCEL_VOTE_FAILED, quiet=True)
                return
            log.warning("game %d: cancelled with a fault (%s)", session.game_id, type(exc).__name__)
        try:
            await interaction.edit_original_response(
                content=texts.GAME_CANCELLED,
                view=None,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except SEND_FAULTS as exc:
            # The request was deleted, or the network failed: the game ended anyway, and
            # the generic handler would tell the member it is unchanged.
            log.warning("could not mark the cancel request ended (%s)", fault_words(exc))
            await answer(interaction, texts.GAME_CANCELLED, quiet=True)


async def _acknowledge_agreement(
    interaction: discord.Interaction, session: GameSession, request: str, *, update: bool = False
) -> None:
    """Acknowledge a click whose agreement to `request` is noted already (so that two
    clicks at once both count); if that fails (the interaction expired), take it back:
    its member is never told, and the database must not hold it."""
    try:
        await acknowledge(interaction, update=update)
    except BaseException as exc:
        taken_back = _withdraw(session, request, interaction.user.id)
        if taken_back and isinstance(exc, Exception):  # a cancelled task awaits no more
            # Another write (another member's, the game's) may have stored it meanwhile.
            await session.store_notes()
        raise


async def _complete(interaction: discord.Interaction, reply: str) -> None:
    """Complete a deferred reply with `reply` (and no buttons) once the member's action
    is stored. The edit is cosmetic: if it fails (the message was deleted, Discord
    refused it, the network failed), the member still hears `reply` in a new private
    message if it can be sent at all (else it is logged), never that the game is
    unchanged."""
    try:
        await interaction.edit_original_response(content=reply, view=None)
    except SEND_FAULTS as exc:
        # The fault only: the reply may name a private choice.
        log.warning("could not complete an interaction's reply (%s)", fault_words(exc))
        await answer(interaction, reply, quiet=True)


async def _tell_channel(interaction: discord.Interaction, game_id: int, notice: str) -> None:
    """Tell the channel how its game ended (cancelled, or its end stored at last), after
    the fact: the game is over whatever becomes of this notice, so it is best effort (the
    member was told already). A public followup first; if it fails (the interaction
    expired, Discord failed), one post to the channel as the bot."""
    try:
        await interaction.followup.send(notice)
        return
    except SEND_FAULTS as exc:
        log.warning(
            "game %d: the channel was not told how it ended by a followup (%s)",
            game_id,
            fault_words(exc),
        )
    if interaction.channel_id is None:
        return
    channel = interaction.client.get_partial_messageable(
        interaction.channel_id, guild_id=interaction.guild_id
    )
    try:
        await channel.send(notice)
    except SEND_FAULTS as exc:
        log.warning(
            "game %d: the channel was not told how it ended (%s)", game_id, fault_words(exc)
        )


def _when(at: float) -> str:
    """A moment as Discord shows it in the reader's own terms ("in 12 seconds"); rounded
    up, so that it is never before the moment."""
    return f"<t:{math.ceil(at)}:R>"


def _open_claim(session: GameSession, seat: int, prompt_id: str) -> bool:
    """Whether `prompt_id` is a claim prompt open to `seat` (a member speaks for themself
    even while an AI plays their seat)."""
    return any(p.id == prompt_id and p.kind is PromptKind.CLAIM for p in session.open_prompts(seat))


def _host_of(stored: StoredGame) -> int | None:
    """The member who started a stored game (its lobby's host, or the /demo caller), or
    None: no host, or one that does not read (damaged; logged), so that the game still
    resumes and Manage Server can steer it, instead of every start and command failing."""
    host = stored.options.get("host_id")
    if host is None:
        return None
    if isinstance(host, bool) or not isinstance(host, int):
        log.warning("game %d: option host_id does not read; no host", stored.id)
        return None
    return host


def _pace_of(stored: StoredGame) -> float:
    """A stored demo game's pace (seconds after each public message), or 0 (none): no
    pace, or one that does not read (damaged; logged), so that the game still resumes
    and no endless pause holds it."""
    pace = stored.options.get("pace", 0.0)
    if pace is None:
        return 0.0
    readable = isinstance(pace, int | float) and not isinstance(pace, bool)
    if not readable or not 0.0 <= pace <= MAX_PACE_S:
        log.warning("game %d: option pace does not read; no pace", stored.id)
        return 0.0
    return float(pace)


def _open_request(session: GameSession) -> CancelRequest | None:
    """The game's open /cancel request, if any. A stored one that does not read is none:
    it is dropped, with a warning that names the game, never the stored value."""
    note = session.note(CANCEL_NOTE)
    if note is None:
        return None
    try:
        return CancelRequest.read(note)
    except (KeyError, TypeError, ValueError) as exc:
        log.warning(
            "game %d: the stored /cancel request does not read (%s); no request open",
            session.game_id,
            type(exc).__name__,
        )
        session.set_note(CANCEL_NOTE, None)  # stored with the next write of the bookkeeping
        return None


def _open_request_id(session: GameSession) -> str | None:
    """The id of the game's open /cancel request, if any."""
    asked = _open_request(session)
    return None if asked is None else asked.request


def _stored_request(session: GameSession) -> CancelRequest | None:
    """The /cancel request as the database holds it, if any (one that does not read is
    none: it holds no agreement)."""
    stored = session.stored_note(CANCEL_NOTE)
    if stored is None:
        return None
    try:
        return CancelRequest.read(stored)
    except (KeyError, TypeError, ValueError):
        return None  # `_open_request` logs and drops it


def _stored_agreement(session: GameSession, request: str, user_id: int) -> str | None:
    """What a member is told once the bookkeeping was stored after their agreement to
    `request`, if it counted: only if the stored request is that one and holds it (None
    else). A newer /cancel may have replaced it while the click waited (the store then
    wrote the newer request), or a failed newer one rolled back to the stored request
    without it, or the game ended."""
    asked = _stored_request(session)
    if asked is None or asked.request != request or user_id not in asked.votes:
        return None
    humans = _humans(session)
    count, needed = len(asked.votes & humans), len(humans) // 2 + 1
    return texts.CANCEL_AGREED.format(count=count, needed=needed)


def _withdraw(session: GameSession, request: str, user_id: int) -> bool:
    """Take a member's agreement back from the request `request`, if it is still open
    and holds it; whether it did (in memory only: the caller stores it)."""
    asked = _open_request(session)
    if asked is None or asked.request != request or user_id not in asked.votes:
        return False
    session.set_note(CANCEL_NOTE, replace(asked, votes=asked.votes - {user_id}).note())
    return True


def _member_id(value: Any) -> int:
    """A stored member id; TypeError or ValueError if it is not one."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("a member id that is not a whole number")
    if not 0 < value < 2**63:
        raise ValueError("a member id out of range")
    return value


_HAND_OVER_WORDS = {
    HandOver.HANDED: texts.HANDED_OVER,
    HandOver.ALREADY: texts.HAND_OVER_ALREADY,
    HandOver.PRESENT: texts.HAND_OVER_PRESENT,
}


def _humans(session: GameSession) -> set[int]:
    """The members holding a seat (whether or not an AI plays it for them now)."""
    return {s.user_id for s in session.table.seats if s.user_id is not None}


def _at_table(session: GameSession) -> int:
    """How many members play their own seats now: not those an AI plays for (/afk, or
    too many turns timed out)."""
    return sum(1 for s in session.table.seats if s.user_id is not None and s.agent is None)


def _majority(session: GameSession) -> int:
    """Agreements that end a game by /cancel: a majority of the members at the table
    (`_at_table`). Counting the away too, two away of three left the third unable to end
    the game; an away member's agreement still counts."""
    return _at_table(session) // 2 + 1


def _parse_choice(cid: ComponentId, values: Sequence[str]) -> tuple[int | None, int]:
    """(seat the prompt is for, or None if shared; option index) from a custom_id.

    Buttons carry `<seat>.<index>` (or `<index>` for a vote); selects carry `<seat>`
    and the chosen index as their value. Raises ValueError for anything else.
    """
    arg = cid.arg or ""
    if values:
        return int(arg), int(values[0])
    if "." in arg:
        seat, _, index = arg.partition(".")
        return int(seat), int(index)
    return None, int(arg)


def _confirmation(prompt: Prompt, index: int) -> str:
    """What the member hears once their choice is accepted."""
    option = prompt.options[index]
    if option.action is None:
        return texts.CLAIM_SILENT
    if prompt_kind(prompt) == "vote":
        return texts.VOTED.format(ballot=option.label)
    return texts.CHOSEN.format(label=option.label)
