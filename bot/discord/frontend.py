"""The Discord implementation of the session's front-end port (`bot.ports.Frontend`).

What goes where:

- One message per round (`bot.discord.rounds`): an election's vote message (Ja / Nein,
  edited as votes come in: who has voted, never how) closes with every ballot and then
  stays the round's message: the narration of the round, the open decisions (*calls*:
  a line naming the member and that member's components) and the board are edited into
  it, at most once per burst of the game (`flush`), and only when it would read
  differently. The next vote starts the next round's message. Narration with no round
  to join (the start) is posted, and that message becomes the round's.
- The current round's message is the game's live board (`bot.discord.board`, a
  Components V2 layout): status line, board image, story, controls and **Show my
  role**. A round that is over is edited down to its story (`_retire_round`), so one
  message at a time shows the game as it stands; none is left once the game is over.
- `post` (public): narration; the board image is attached whenever the board moved. The
  game's first message carries **Show my role**; a peek or an investigation carries
  **Show what you saw**. Both answer the clicking member only, ephemerally.
- `tell` (private): never in the channel. The member gets it through those buttons (the
  game's view is the source, so they work after a restart too) and, if `dm_secrets`, by
  direct message, best effort: a closed DM (403 / 50007) is logged once and remembered
  for the rest of the game, so that member gets no further DM attempts (each would
  spend the bot's invalid-request budget).
- `ask`: a vote joins the election's one vote message (narration said while it is
  open, such as a timeout, is told on it, before its result). Nominations and power
  targets are a select menu of the legal choices; claims a select menu of what may be
  said; the legislative session one line and one **Open your hand** button for both
  hands (the policies show ephemerally to whoever holds them). A new message (a vote, a
  prompt with no round to join) pings the members who must act (`allowed_mentions`); an
  edit pings nobody, so a decision edited into an earlier message is told by a short
  line that pings its member and links to it, posted once the edit that shows the call
  is made (best effort: a line Discord refuses is tried again, and never keeps the call
  from being shown; a line is deleted once a newer one is up and none of the calls it
  named is still open). The session's line stays the same for both hands, but the
  discard itself is public (it is narrated: "X discards a policy and passes two to Y",
  never which): the Chancellor is pinged once the message shows that line, so the ping
  tells no sooner than the table reads, and told by DM too.
- `withdraw`: the call leaves its message (the narration tells what was chosen; a
  reason the narration does not give, such as a timeout, is added as a line).
- `reveal`: the full reveal, the final board and, when a belief model ran, the chart.
- `resume` (after a restart): the messages of the open vote and calls are found again
  (their ids are stored, `MessageBook`): a prompt asked again is edited into its old
  message, without a second ping unless its clock was reset; anything not asked again is
  closed. Nothing is posted twice. The ping lines up are stored too, and go as before.
- `deleted` (a moderator or a purge deleted messages; the bot's delete events call it):
  the vote message, a round message with open calls or the live board of a running game
  is posted again as it stood, pinging the members it asks to act, at the game's next
  flush, which its outbox is asked for (`redraw`): the outbox stays the only writer.

Every request goes through `delivery.attempt`: transient failures are retried with
backoff, honouring Retry-After; a deleted channel or a lost server raises `PlaceLost`, a
missing permission `PermissionLost` (both for the game's outbox to act on; the members
are told of the latter by DM), and so does a locked thread; an archived one the bot
reopens, and tries again (`_reopen`). The bot's permissions in the channel are read from
the cache first: without Send Messages nothing is tried (a 403 spends the
invalid-request budget); without Attach Files or Embed Links the text goes alone (it
never depends on an attachment), and a message or an edit refused its image goes again
without it. Where the cache cannot tell yet (after a restart), such a refusal is
remembered for the channel: its later messages leave the image out until the cache tells
(or `FILES_REFUSED_S` has passed), one 403 paid, not one a message. Edits of the vote
message are coalesced: at most one per `vote_edit_every_s`, the latest state always
shown; they run beside the outbox, so they only edit (a message they find gone is posted
again through the outbox).

The channel sees only what `Post`, `Waiting` and the options of public prompts contain,
all public by the port's contract; prompt questions (which may name a hand) are only
ever shown ephemerally to their seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import io
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import aiohttp
import discord

from engine import (
    CallSpecialElection,
    ChancellorClaim,
    Discard,
    Enact,
    Execute,
    Investigate,
    InvestigationClaim,
    Nominate,
    PeekClaim,
    Phase,
    PlayerView,
    Power,
    PresidentClaim,
    ProposeVeto,
    Role,
    VetoReply,
    Vote,
)
from engine import events as ev

from .. import notices
from ..narrate import narrate, tiles
from ..ports import PermissionLost, Post, Private, Prompt, PromptKind, Reveal, Table, Waiting
from ..storage import ShownMessage
from . import texts
from .board import Look, layout, status_text
from .components import ComponentId, Route, button, select, view_of
from .delivery import (
    MessageGone,
    ThreadArchived,
    attempt,
    missing_cached,
    missing_in,
    permission_lost,
    translate_for,
)
from .rounds import QUIET_REASONS, Call, RoundMessage

log = logging.getLogger(__name__)

HAND_ACTIONS = (Discard, Enact, ProposeVeto)
TARGET_ACTIONS = (Nominate, Investigate, CallSpecialElection, Execute)
MAX_CONTENT = 2000  # Discord's limit for a message's content
MAX_EMBED = 4096  # and for an embed's description
ROLE, HAND, CANCEL = "role", "hand", "cancel"
VOTE_EDIT_EVERY_S = 1.0  # at most one edit of a vote message per second (the last wins)
DEADLINE_RESET_S = 1.0  # a restored prompt whose clock moved more than this pings again
# A ping line Discord refused is tried again at the game's next flush, and, for a game
# that waits quietly on the member it pings, after this long (at most PING_RETRIES times
# in a row: a refusal that lasts waits for the game's own flushes).
PING_RETRY_S = 5.0
PING_RETRIES = 3
# A channel that refused the board image (403) where the permission cache cannot tell
# (after a restart, until the gateway fills it): the image is not tried there again for
# this long, unless the cache tells first (a 403 each would spend the invalid-request
# budget). The while bounds what a permission given meanwhile, unseen, costs.
FILES_REFUSED_S = 600.0
# A stranded game's closing edit (`close_stranded`) waits this long at most, retries of a
# 5xx or a network fault included: its cancel is stored already, and the channel's
# notice of it waits for the edits.
CLOSE_STRANDED_S = 10.0
BLUE = discord.ButtonStyle.primary
BLOCKING = ("View Channel", "Send Messages", "Send Messages in Threads")
# Why a vote's prompts close with no result to come: the game ends.
GAME_ENDS = frozenset({notices.CANCELLED, notices.GAME_OVER})
T = TypeVar("T")


class MessageBook(Protocol):
    """Where the front-end keeps the ids of a running game's open vote and prompts, so
    that a restart edits them instead of posting anew, and of its ping lines, so that a
    restart still deletes them (`bot.storage.Storage`)."""

    async def shown_messages(self, game_id: int) -> dict[str, ShownMessage]:
        """The messages remembered for a game, by key."""
        ...

    async def remember_message(self, game_id: int, key: str, message: ShownMessage) -> None:
        """Remember (or replace) the message shown for `key`."""
        ...

    async def forget_message(self, game_id: int, key: str | None = None) -> None:
        """Forget one message (None: every message of the game)."""
        ...


def prompt_key(prompt: Prompt) -> str:
    """How a prompt's message is filed in the `MessageBook`."""
    return f"prompt:{prompt.id}:{prompt.seat}:{prompt.kind.value}"


# The book's key of the live board: after a restart, the board it was is edited down to
# its story (it may hold no call nor vote, which have keys of their own).
BOARD_KEY = "board"


def vote_key(prompt_id: str) -> str:
    """How an election's vote message is filed in the `MessageBook` (its content: the
    narration that leads it and the lines told on it, as JSON: `_vote_row`)."""
    return f"vote:{prompt_id}"


def _vote_row(preamble: str, told: Sequence[str]) -> str:
    """A vote's row in the book: its narration as told, apart from its text, which
    members' names (not escaped) could make read like any of the bot's lines."""
    return json.dumps({"preamble": preamble, "told": list(told)})


def _vote_lines(content: str) -> tuple[str, list[str], bool]:
    """The narration that led a filed vote and the lines told on it, and whether its row
    is of the current form (not: read best effort from a row that holds its text, as
    filed before the lines were filed apart; nothing if that does not read either)."""
    try:
        row = json.loads(content)
    except (ValueError, RecursionError):
        row = None  # (a vote's text never reads as JSON: its header is not a value)
    if isinstance(row, dict):
        preamble, told = row.get("preamble"), row.get("told")
        if not isinstance(told, list) or not all(isinstance(x, str) for x in told):
            told = None
        if isinstance(preamble, str) and told is not None:
            return preamble, told, True
        return "", [], False
    try:
        return _preamble(content), _told_on_vote(content), False
    except Exception:  # best effort: the vote shows the game's state without them
        return "", [], False


PING_KEY = "ping:"


def ping_key(line_id: int) -> str:
    """How a ping line is filed in the `MessageBook` (its content: the calls it named)."""
    return f"{PING_KEY}{line_id}"


def _ping_calls(content: str) -> dict[str, int]:
    """The calls a filed ping line named (none if its row does not read: the line then
    goes with the next one, as a line whose calls are all closed)."""
    try:
        calls = json.loads(content)
        return {str(key): int(at) for key, at in calls.items()}
    except (ValueError, TypeError, AttributeError):
        return {}


def prompt_kind(prompt: Prompt) -> str:
    """How a prompt is shown: "vote", "hand", "target", "veto" or "claim"."""
    if prompt.kind is PromptKind.CLAIM:
        return "claim"
    first = prompt.options[0].action
    if isinstance(first, Vote):
        return "vote"
    if isinstance(first, HAND_ACTIONS):
        return "hand"
    if isinstance(first, VetoReply):
        return "veto"
    return "target"


def option_id(game_id: int, prompt: Prompt, index: int, *, shared: bool = False) -> ComponentId:
    """The custom_id of one option: `<prompt>:<seat>.<index>` (`<index>` when shared)."""
    arg = str(index) if shared else f"{prompt.seat}.{index}"
    return ComponentId(str(game_id), prompt.id, arg)


def mention(table: Table, seat: int) -> str:
    """A member's mention, or the seat's name for an AI seat."""
    user_id = table.seats[seat].user_id
    return f"<@{user_id}>" if user_id is not None else table.seats[seat].name


def public_prompt_text(table: Table, prompt: Prompt) -> str:
    """What the channel reads about a prompt: who must act and what, nothing private."""
    who = mention(table, prompt.seat)
    view = prompt.view  # only its public fields are used here
    first = prompt.options[0].action
    match first:
        case Nominate():
            text = texts.PROMPT_NOMINATE.format(who=who)
        case Investigate():
            text = texts.PROMPT_INVESTIGATE.format(who=who)
        case CallSpecialElection():
            text = texts.PROMPT_SPECIAL.format(who=who)
        case Execute():
            text = texts.PROMPT_EXECUTE.format(who=who)
        case Discard() | Enact() | ProposeVeto():
            # One line for the whole session: the President's discard changes nothing the
            # table sees, so the message is not edited between the two hands.
            chancellor = view.chancellor
            text = texts.PROMPT_SESSION.format(
                president=mention(table, view.president),
                chancellor=mention(table, chancellor) if chancellor is not None else "?",
            )
        case VetoReply():
            chancellor = view.chancellor
            name = table.seats[chancellor].name if chancellor is not None else "?"
            text = texts.PROMPT_VETO_REPLY.format(who=who, chancellor=name)
        case PeekClaim():
            text = texts.PROMPT_CLAIM_PEEK.format(who=who)
        case InvestigationClaim(target=target):
            text = texts.PROMPT_CLAIM_PROBE.format(who=who, target=table.seats[target].name)
        case PresidentClaim() | ChancellorClaim():
            text = texts.PROMPT_CLAIM_SESSION.format(who=who)
        case _:
            text = f"{who}: your move."
    if prompt.deadline is not None:
        text += texts.PROMPT_DEADLINE.format(when=f"<t:{int(prompt.deadline)}:R>")
    return text


def prompt_items(table: Table, prompt: Prompt, named: bool = False) -> list[Route]:
    """A prompt's components; `named`: each says whose it is (a message shared by
    several members' calls)."""
    game = table.game_id
    kind = prompt_kind(prompt)
    owner = f"{table.seats[prompt.seat].name}: " if named else ""
    if kind == "hand":
        return [button(hand_id(game, prompt.view), texts.BUTTON_HAND, style=BLUE)]
    if kind == "veto":
        return [
            button(option_id(game, prompt, i), f"{owner}{option.label}"[:80])
            for i, option in enumerate(prompt.options)
        ]
    placeholder = texts.PICK_CLAIM if kind == "claim" else texts.PICK_TARGET
    if prompt.options and isinstance(prompt.options[0].action, Nominate):
        placeholder = texts.PICK_NOMINEE
    options = [
        discord.SelectOption(label=option.label[:100], value=str(i))
        for i, option in enumerate(prompt.options)
    ]
    cid = ComponentId(str(game), prompt.id, str(prompt.seat))
    return [select(cid, options, placeholder=f"{owner}{placeholder}"[:150])]


def hand_id(game_id: int, view: PlayerView) -> ComponentId:
    """The **Open your hand** button of a legislative session: one for both hands, the
    President's then the Chancellor's (`<president>.<chancellor>.<policies enacted>`
    tells one session from the next; a trailing `.v` marks the Chancellor's hand again
    after the President refused a veto: a new decision, a new button)."""
    enacted = view.liberal_policies + view.fascist_policies
    refused = ".v" if view.veto_refused else ""
    arg = f"{view.president}.{view.chancellor}.{enacted}{refused}"
    return ComponentId(str(game_id), HAND, arg)


def hand_components(table: Table, prompt: Prompt) -> discord.ui.View:
    """The buttons of an opened hand (ephemeral): one per option."""
    styles: dict[type[Any], discord.ButtonStyle] = {
        Discard: discord.ButtonStyle.danger,
        Enact: discord.ButtonStyle.success,
    }
    return view_of(
        *(
            button(
                option_id(table.game_id, prompt, i),
                option.label,
                style=styles.get(type(option.action), discord.ButtonStyle.secondary),
            )
            for i, option in enumerate(prompt.options)
        )
    )


def secrets_text(view: PlayerView, names: Sequence[str]) -> str:
    """A seat's private knowledge from its own view: role, team, peeks, investigations."""
    assert view.seat is not None and view.role is not None
    lines = [texts.ROLE_LINE.format(role=view.role.value.capitalize())]
    others = [(s, r) for s, r in enumerate(view.known_roles) if r is not None and s != view.seat]
    if view.role.value == "liberal":
        lines.append(texts.ROLE_LIBERAL)
    elif view.role.value == "hitler":
        if others:
            lines.append(
                texts.ROLE_HITLER_KNOWS.format(names=", ".join(names[s] for s, _ in others))
            )
        else:
            lines.append(texts.ROLE_HITLER_BLIND)
    else:
        hitler = [names[s] for s, r in others if r.value == "hitler"]
        fascists = [names[s] for s, r in others if r.value == "fascist"]
        lines.append(
            texts.ROLE_FASCIST_KNOWS.format(
                hitler=", ".join(hitler) or "?", fascists=", ".join(fascists) or "none besides you"
            )
        )
    seen = []
    for event in view.events:
        if isinstance(event, ev.PolicyPeeked) and event.seat == view.seat:
            seen.append(texts.SEEN_PEEK.format(tiles=tiles(event.tiles)))
        elif isinstance(event, ev.InvestigationResult) and event.seat == view.seat:
            seen.append(
                texts.SEEN_PROBE.format(
                    target=names[event.target], party=event.party.value.capitalize()
                )
            )
    if seen:
        lines += [texts.SEEN_HEADER, *seen]
    return "\n".join(lines)


def chunks(text: str, size: int) -> list[str]:
    """`text` cut at line ends into pieces of at most `size` characters."""
    out: list[str] = []
    current = ""
    for line in text.splitlines():
        while len(line) > size:  # a single overlong line: hard cut
            out.append(line[:size])
            line = line[size:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > size:
            out.append(current)
            current = line
        else:
            current = candidate
    if current:
        out.append(current)
    return out or [""]


@dataclass(slots=True)
class _Vote:
    """The vote message of one election."""

    prompt_id: str
    president: int
    chancellor: int
    voters: set[int] = field(default_factory=set)  # human seats asked to vote
    open: set[int] = field(default_factory=set)  # their vote prompts still open
    message_id: int | None = None
    waiting: Waiting | None = None
    ended: str | None = None  # why the game ended with no result to come (cancelled)
    shown: str | None = None  # the text the message shows now
    refresh: asyncio.Task[None] | None = None  # a coalesced edit waiting to go
    restored_deadline: float | None = None  # the deadline it showed before a restart
    preamble: str = ""  # the narration that leads the message (the nomination...)
    told: list[str] = field(default_factory=list)  # narration said while it is open
    # How many of the lines told the book holds (a restart shows them); None while it
    # holds no row of this message in the current form (a filing failed: tried again).
    filed: int | None = None
    image: bool = False  # the message holds a board image


Extra = tuple[ComponentId, str, discord.ButtonStyle]  # a narration's button


class Edited(enum.IntEnum):
    """How an edit went (false only when it did not: `if await self._edit(...)`)."""

    GONE = 0  # the message is gone, or Discord refused the edit
    DONE = 1
    TEXT = 2  # done, without the files (a missing permission): the look has no image


@dataclass(slots=True)
class _Held:
    """Narration held back to go out with the next message (see `post`)."""

    lines: list[str] = field(default_factory=list)
    board: tuple[str, bytes] | None = None
    extra: Extra | None = None  # its button (Show my role...)

    @property
    def empty(self) -> bool:
        return not self.lines and self.board is None

    def text(self) -> str:
        return "\n".join(line for line in self.lines if line)

    def clear(self) -> None:
        self.lines, self.board, self.extra = [], None, None


@dataclass(slots=True)
class _GameState:
    """What the front-end remembers of a game. Every component works from its custom_id
    alone; the ids of open prompts and votes are also kept in the `MessageBook`."""

    vote: _Vote | None = None
    waiting: Waiting | None = None
    pace: float = 0.0  # seconds between public messages (demo games)
    # Set when the pace changes: a wait of the old pace ends (a demo being cancelled).
    paced: asyncio.Event = field(default_factory=asyncio.Event)
    closed_dms: set[int] = field(default_factory=set)  # members whose DMs refused (403)
    restored: dict[str, ShownMessage] = field(default_factory=dict)  # shown before a restart
    noted: set[str] = field(default_factory=set)  # missing permissions the table was told of
    blocked: bool = False  # the members were told the game cannot be shown
    held: _Held = field(default_factory=_Held)  # narration waiting for the next message
    round: RoundMessage | None = None  # the round's message, edited as the round goes
    view: PlayerView | None = None  # the latest spectator view (the live board's status)
    board: tuple[str, bytes] | None = None  # the latest board image, for each live board
    older: list[RoundMessage] = field(default_factory=list)  # earlier ones, calls open
    gone: set[int] = field(default_factory=set)  # its messages deleted, to post again
    announced: set[str] = field(default_factory=set)  # calls whose members were told
    # Calls edited into view whose members the next ping line tells (in order): kept
    # until a line goes through, so that a line that fails is tried again (`_ping`).
    unpinged: dict[str, None] = field(default_factory=dict)
    # The lines that pinged members for edited-in calls: each line's id, and the calls it
    # named (key: the message it linked to). Deleted once none of them is open there.
    pings: dict[int, dict[str, int]] = field(default_factory=dict)
    ping_failures: int = 0  # ping lines refused in a row
    ping_retry: asyncio.TimerHandle | None = None  # a flush asked for to try again

    def rounds(self) -> list[RoundMessage]:
        """Every round message still edited: the earlier ones, then the current one."""
        return [*self.older, *([self.round] if self.round is not None else [])]


class DiscordFrontend:
    """`bot.ports.Frontend` over a discord.py client (see the module docstring)."""

    # A game's next step is usually queued within milliseconds of the last (a database
    # write apart): waiting this long lets narration join the prompt it leads to.
    linger_s = 0.3

    def __init__(
        self,
        client: discord.Client,
        *,
        dm_secrets: bool = True,
        book: MessageBook | None = None,
        vote_edit_every_s: float = VOTE_EDIT_EVERY_S,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self.dm_secrets = dm_secrets
        self.book = book
        self.vote_edit_every_s = vote_edit_every_s
        self._sleep = sleep  # between retries of a failed request
        self._games: dict[int, _GameState] = {}
        # Channels that refused the board image, and until when it is not tried there
        # again (`_files_refused`): per channel, since the permission is the channel's.
        self._no_files: dict[int, float] = {}
        # Asks a game's outbox for a flush (set by `DiscordGames.start`): a message of the game
        # was deleted, and the outbox, the game's only writer, posts it again.
        self.redraw: Callable[[int], None] | None = None

    # --- helpers ------------------------------------------------------------------------

    def state(self, game_id: int) -> _GameState:
        """The front-end's memory of a game."""
        return self._games.setdefault(game_id, _GameState())

    def set_pace(self, game_id: int, seconds: float) -> None:
        """Wait this long after each public message of a game (demo games); a wait of
        the pace before ends now."""
        if not seconds and game_id not in self._games:
            return  # unpacing a game forgotten (ended) meanwhile: nothing to remember
        state = self.state(game_id)
        state.pace = seconds
        state.paced.set()

    def last_waiting(self, game_id: int) -> Waiting | None:
        """What the game waited for when last told (for /status)."""
        return self.state(game_id).waiting

    def deleted(self, game_id: int, message_ids: Collection[int]) -> bool:
        """Messages were deleted (a moderator, a purge): those of a running game that
        carry its open decisions, its vote or its live board are posted again by the
        next flush, which the game's outbox is asked for. False if none was the game's."""
        state = self._games.get(game_id)
        if state is None:
            return False
        found = False
        for rnd in state.rounds():
            if rnd.message_id in message_ids:
                rnd.dirty = True
                state.gone.add(rnd.message_id)
                found = True
        vote = state.vote
        if vote is not None and vote.message_id is not None and vote.message_id in message_ids:
            state.gone.add(vote.message_id)
            found = True
        if found:
            log.info("game %d: a message of the game was deleted", game_id)
            if self.redraw is not None:
                self.redraw(game_id)
        return found

    def forget(self, game_id: int) -> None:
        """Drop a finished game's memory."""
        state = self._games.pop(game_id, None)
        if state is not None and state.vote is not None and state.vote.refresh is not None:
            state.vote.refresh.cancel()
        if state is not None and state.ping_retry is not None:
            state.ping_retry.cancel()

    async def close(self) -> None:
        """The bot stops: no coalesced edit may land after it (a restarted bot owns the
        messages then, and would see a closed vote reopened)."""
        refreshes = [
            s.vote.refresh
            for s in self._games.values()
            if s.vote is not None and s.vote.refresh is not None
        ]
        for task in refreshes:
            task.cancel()
        for state in self._games.values():
            if state.ping_retry is not None:
                state.ping_retry.cancel()
        await asyncio.gather(*refreshes, return_exceptions=True)
        self._games.clear()

    def _channel(self, table: Table) -> discord.PartialMessageable:
        if table.channel_id is None:
            raise ValueError(f"Game {table.game_id} has no channel.")
        return self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)

    async def _request(self, table: Table, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """One request of a game, retried until it goes through or fails for good; in an
        archived thread, tried once more after the bot has reopened it (`_reopen`)."""
        translate = translate_for(self.client, table.game_id, table.guild_id, table.channel_id)
        what = f"game {table.game_id}: {what}"
        try:
            return await attempt(call, what=what, translate=translate, sleep=self._sleep)
        except ThreadArchived:
            await self._reopen(table, translate)
        # Archived again at once: the game pauses, and its outbox's probe reopens it.
        return await attempt(call, what=what, translate=translate, sleep=self._sleep)

    async def _reopen(
        self, table: Table, translate: Callable[[discord.HTTPException], Exception]
    ) -> None:
        """Unarchive the game's thread. Discord archives a thread idle for a while (a
        long turn, a pause) and then refuses edits in it; any post in it reopens it,
        and Send Messages in Threads is all unarchiving takes, so the bot does it rather
        than pause the game. A locked thread only a moderator may reopen, and the bot
        does not override a moderator: `PermissionLost`, and the game waits."""
        channel = self._channel(table)
        reason = f"Secret Hitler game #{table.game_id} goes on in this thread"
        log.info("game %d: its thread was archived: the bot reopens it", table.game_id)
        try:
            await attempt(
                lambda: self.client.http.edit_channel(channel.id, archived=False, reason=reason),
                what=f"game {table.game_id}: reopening its thread",
                translate=translate,
                sleep=self._sleep,
            )
        except (PermissionLost, discord.HTTPException) as exc:
            where = f"<#{channel.id}>"
            raise PermissionLost(texts.THREAD_CLOSED.format(where=where)) from exc

    async def _send(
        self,
        table: Table,
        content: str,
        *,
        view: discord.ui.View | None = None,
        files: Sequence[tuple[str, bytes]] = (),
        pings: Sequence[int] = (),
        embed: discord.Embed | None = None,
        look: Look | None = None,
    ) -> discord.Message:
        """Post a message in the game's channel (see the module docstring); a `look` is a
        live board (`bot.discord.board`), posted instead of `content` and `view`."""
        # From the cache (empty when it cannot tell: then Discord's answer tells).
        missing = missing_in(self.client, table.channel_id)
        blocking = [m for m in missing if m in BLOCKING]
        if blocking:  # not even tried: a 403 would spend the invalid-request budget
            raise await self._blocked(table, blocking)
        if files and "Attach Files" in missing:
            files = ()
            await self._note_missing(table, "Attach Files")
        elif files and self._files_refused(table):
            files = ()
        if embed is not None and "Embed Links" in missing:
            await self._note_missing(table, "Embed Links")
            content, embed = await self._unembed(table, content, embed), None
        if look is not None and not files:
            look = replace(look, image=False)  # nothing to show
        try:
            try:
                message = await self._post(table, content, view, files, pings, embed, look)
            except PermissionLost:
                if not files and embed is None:
                    raise
                # The text never depends on an attachment or an embed going through.
                text = await self._unembed(table, content, embed)
                plain = None if look is None else replace(look, image=False)
                message = await self._post(table, text, view, (), pings, None, plain)
                if embed is None:  # only the files were left out: they were refused
                    self._refuse_files(table)
        except PermissionLost as exc:  # not even the text: the members are told
            raise await self._blocked(table, exc.missing, exc) from exc
        self.state(table.game_id).blocked = False
        return message

    async def _unembed(self, table: Table, content: str, embed: discord.Embed | None) -> str:
        """`content` with the embed's text, where embeds cannot go: the leading parts
        posted at once when it is too long for one message; returns the last part."""
        parts = chunks("\n".join(x for x in (content, _embed_text(embed)) if x), MAX_CONTENT)
        for part in parts[:-1]:
            await self._post(table, part, None, (), (), None)
        return parts[-1]

    async def _post(
        self,
        table: Table,
        content: str,
        view: discord.ui.View | None,
        files: Sequence[tuple[str, bytes]],
        pings: Sequence[int],
        embed: discord.Embed | None,
        look: Look | None = None,
    ) -> discord.Message:
        mentions = discord.AllowedMentions(
            users=[discord.Object(uid) for uid in pings], roles=False, everyone=False
        )
        channel = self._channel(table)
        embeds = [embed] if embed is not None else []
        # One nonce for every try: Discord drops a retry of a message it already has.
        nonce = random.getrandbits(62)

        async def send() -> discord.Message:
            # Fresh files for every try: a failed request has read them.
            attached = [discord.File(io.BytesIO(data), filename=name) for name, data in files]
            if look is not None:  # Components V2: no content, the text is in the layout
                return await channel.send(
                    view=layout(look), files=attached, allowed_mentions=mentions, nonce=nonce
                )
            if view is None:
                return await channel.send(
                    content or None,
                    embeds=embeds,
                    files=attached,
                    allowed_mentions=mentions,
                    nonce=nonce,
                )
            return await channel.send(
                content or None,
                embeds=embeds,
                files=attached,
                allowed_mentions=mentions,
                view=view,
                nonce=nonce,
            )

        return await self._request(table, "a message", send)

    async def _edit(
        self,
        table: Table,
        message_id: int,
        look: Look,
        *,
        files: Sequence[tuple[str, bytes]] = (),
        tell: bool = True,
    ) -> Edited:
        """Show `look` on a message of the game (`files` replace its attachments; a look
        without its image drops them): `Edited.TEXT` if the files could not go (the text
        went alone), `Edited.GONE` (false) if it is gone or Discord refused (logged).
        `PermissionLost` if it may not be edited, told to the members if `tell`."""
        message = self._channel(table).get_partial_message(message_id)
        result = Edited.DONE
        if files and "Attach Files" in missing_in(self.client, table.channel_id):
            files, result = (), Edited.TEXT
            look = replace(look, image=False)
            await self._note_missing(table, "Attach Files")
        elif files and self._files_refused(table):
            files, result = (), Edited.TEXT
            look = replace(look, image=False)

        async def edit(look: Look, files: Sequence[tuple[str, bytes]]) -> None:
            mentions = discord.AllowedMentions.none()
            shown = layout(look)
            if files:
                # Fresh files for every try: a failed request has read them.
                attached = [discord.File(io.BytesIO(data), filename=name) for name, data in files]
                await message.edit(
                    content=None, view=shown, attachments=attached, allowed_mentions=mentions
                )
            elif look.image:  # the image the message holds stays
                await message.edit(content=None, view=shown, allowed_mentions=mentions)
            else:
                await message.edit(
                    content=None, view=shown, attachments=[], allowed_mentions=mentions
                )

        try:
            try:
                await self._request(table, "an edit", lambda: edit(look, files))
            except PermissionLost:
                if not files:
                    raise
                # As for a new message, the text never depends on its attachment (the
                # permission cache is empty until the gateway is ready: nothing said
                # Attach Files was missing).
                result = Edited.TEXT
                await self._request(table, "an edit", lambda: edit(replace(look, image=False), ()))
                self._refuse_files(table)
        except MessageGone:
            return Edited.GONE
        except PermissionLost as exc:
            if not tell:
                raise
            # As for a message: the game pauses on it, and its members hear why (most
            # of a game is edits: a thread locked mid-game is usually met by one).
            raise await self._blocked(table, exc.missing, exc) from exc
        except discord.HTTPException as exc:
            log.warning("game %d: cannot edit message %d: %s", table.game_id, message_id, exc)
            return Edited.GONE
        self.state(table.game_id).blocked = False
        return result

    def _look(
        self, table: Table, story: str, routes: Sequence[Route], *, live: bool, image: bool
    ) -> Look:
        """How a game message looks: the live board (status line, image, story, controls
        and **Show my role**), or a past round's story and its calls still open."""
        if not live:
            return Look(story, tuple(routes))
        state = self.state(table.game_id)
        routes = list(routes)
        # Whose turn it is: said by the calls when the board has any (with their timers),
        # else by the status line (an AI thinking, a hand in play).
        calls = any(route.cid.action != ROLE for route in routes)
        status = status_text(state.view, None if calls else state.waiting)
        if not any(route.cid.action == ROLE for route in routes):
            game = str(table.game_id)
            routes.append(button(ComponentId(game, ROLE), texts.BUTTON_ROLE))
        return Look(story, tuple(routes), status, image)

    async def _blocked(
        self, table: Table, missing: Sequence[str], refused: PermissionLost | None = None
    ) -> Exception:
        """The error for a channel the bot may not post in (`refused`: Discord's refusal,
        which says why, such as a locked or archived thread); its members are told once,
        by DM, since the channel cannot carry the news."""
        where = f"<#{table.channel_id}>"
        error = refused or permission_lost(missing, where)
        state = self.state(table.game_id)
        if not state.blocked:
            state.blocked = True
            text = texts.GAME_BLOCKED.format(game=table.game_id, why=error)
            for seat in table.seats:
                if seat.user_id is not None and not seat.is_ai:
                    await self._dm(table, seat.user_id, text)
        return error

    async def _note_missing(self, table: Table, permission: str) -> None:
        """Tell the table once what it misses for want of a permission."""
        state = self.state(table.game_id)
        if permission in state.noted:
            return
        state.noted.add(permission)
        log.info("game %d: no %s in its channel: text only", table.game_id, permission)
        # Through `_send`: without Send Messages too, the game pauses on that alone.
        await self._send(table, texts.NO_PERMISSION_NOTE.format(permission=permission))

    def _files_refused(self, table: Table) -> bool:
        """Whether the game's channel refused the board image lately and the permission
        cache cannot tell yet: the image is left out, not refused again."""
        channel_id = table.channel_id
        until = self._no_files.get(channel_id) if channel_id is not None else None
        if until is None or channel_id is None:
            return False
        if time.monotonic() >= until or missing_cached(self.client, channel_id) is not None:
            del self._no_files[channel_id]  # the cache tells now (or try once more)
            return False
        return True

    def _refuse_files(self, table: Table) -> None:
        """Discord refused the board image in the game's channel (and took the text):
        remembered, unless the cache knows (then it tells the next message itself)."""
        channel_id = table.channel_id
        if channel_id is not None and missing_cached(self.client, channel_id) is None:
            self._no_files[channel_id] = time.monotonic() + FILES_REFUSED_S

    async def _remember(self, table: Table, key: str, message: ShownMessage) -> bool:
        """File a message in the book; False if that failed (logged)."""
        if self.book is None:
            return True  # nothing to file in
        try:
            await self.book.remember_message(table.game_id, key, message)
        except Exception as exc:  # best effort: without it a restart posts anew
            log.warning("game %d: message id not stored (%s)", table.game_id, type(exc).__name__)
            return False
        return True

    async def _forget(self, table: Table, key: str | None = None) -> None:
        if self.book is None:
            return
        try:
            await self.book.forget_message(table.game_id, key)
        except Exception as exc:
            log.warning("game %d: message id not dropped (%s)", table.game_id, type(exc).__name__)

    async def _board_file(
        self, table: Table, view: PlayerView, roles: Sequence[Role] | None = None
    ) -> tuple[str, bytes]:
        """The board image (`roles`: every seat's, on the final board only)."""
        from ..render import render_board  # Pillow: imported when first needed

        names = [s.name for s in table.seats]
        return "board.png", await asyncio.to_thread(render_board, view, names, roles)

    # --- the port ---------------------------------------------------------------------

    async def post(self, table: Table, post: Post) -> None:
        """Narrate public events in one message (with the board if it moved)."""
        state = self.state(table.game_id)
        text = post.text
        if post.last:  # the game ends here (cancelled): no live board stays behind
            await self._drop_ping(table)
            if state.vote is not None:
                await self._close_vote(table, state.vote, state.vote.ended or text)
                state.vote = None
            # What a restart restored and the game never asked again (it paused first):
            # its prompts were not withdrawn, and its rows went with the end, so this is
            # the last chance to take its buttons off. The reason its prompts would have
            # been withdrawn with (the session's only last post is a cancel's).
            await self._close_restored(table, notices.CANCELLED)
            await self._flush(table, live=False)
            await self._retire_round(table)
            await self._show_rounds(table)
            await self._post_text(table, text)
            return
        result = next((e for e in post.events if isinstance(e, ev.ElectionResult)), None)
        if result is not None and state.vote is not None:
            line = narrate(result, table.labels) or ""
            if await self._vote_to_round(table, state.vote, line):
                # The vote message now shows every ballot: do not say it twice.
                text = "\n".join(x for x in text.splitlines() if x != line)
            state.vote = None
        elif state.vote is not None and state.vote.ended is not None:
            # Every vote prompt closed without a result (the game was cancelled...).
            await self._close_vote(table, state.vote, state.vote.ended)
            state.vote = None
        files = []
        if post.board is not None:
            state.view = post.board
            moved = post.board_changed or not post.events
            if moved or state.board is None:  # (each live board shows the latest)
                state.board = await self._board_file(table, post.board)
            if moved:
                files.append(state.board)
        if not text and not files:
            return
        extra: tuple[ComponentId, str, discord.ButtonStyle] | None = None
        game = str(table.game_id)
        if any(isinstance(e, ev.GameStarted) for e in post.events):
            text += "\n" + texts.ROLES_DEALT
            extra = (ComponentId(game, ROLE), texts.BUTTON_ROLE, discord.ButtonStyle.primary)
        elif any(
            isinstance(e, ev.PlayerInvestigated)
            or (isinstance(e, ev.PowerGranted) and e.power is Power.POLICY_PEEK)
            for e in post.events
        ):
            extra = (ComponentId(game, ROLE), texts.BUTTON_SEEN, discord.ButtonStyle.secondary)
        await self._narrate(table, text, files, extra)
        if any(isinstance(e, ev.ChancellorNominated) for e in post.events):
            # The election that follows opens the next round's message (the vote
            # message, or its narration when no member votes).
            await self._retire_round(table)
        if state.pace:  # a demo: the live board shows each line at the spectators' pace
            await self.flush(table)
            state.paced.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(state.pace):
                    await state.paced.wait()

    async def _narrate(
        self, table: Table, text: str, files: list[tuple[str, bytes]], extra: Extra | None
    ) -> None:
        """Narration joins the round's message, or is held for the next message."""
        state = self.state(table.game_id)
        rnd = state.round
        if rnd is not None and state.vote is None:
            if rnd.fits(text) and (extra is None or not rnd.extra):
                # Told on the round's message, at its next edit (`flush`).
                rnd.add_line(text)
                if files:
                    rnd.board = files[0]
                if extra is not None:
                    rnd.extra.append(extra)
                return
            await self._retire_round(table)  # full: the next message starts anew
        # Held back, to go out with the next prompt or vote of the same burst, or alone
        # once the burst is over (`flush`): one message where there were several.
        held = state.held
        if (extra is not None and held.extra is not None) or (
            len(held.text()) + len(text) > MAX_CONTENT // 2
        ):
            await self._flush(table)
        held.lines.append(text)
        if files:
            held.board = files[0]  # the latest board is the one to show
        if extra is not None:
            held.extra = extra

    async def flush(self, table: Table) -> None:
        """The burst is over: show the round messages as they stand now (posted again if
        deleted, the vote too), and post the narration held back, if any."""
        state = self.state(table.game_id)
        vote = state.vote
        if vote is not None and vote.message_id is not None:
            # Narration said while the vote is open (a timeout, a member stepping away)
            # is told on the vote message, which its result carries on: posted as a
            # message of its own, it would read below the vote, after the round the vote
            # becomes. (A paced table's last AI ballot comes after the burst is over.)
            told = self._onto_vote(table, vote)
            if told or vote.message_id in state.gone:
                await self._show_vote(table, vote)
        await self._show_rounds(table)
        await self._flush(table)

    def _onto_vote(self, table: Table, vote: _Vote) -> bool:
        """Move the held narration onto the open vote message (shown at its next edit);
        False if it goes out as before: the vote ended, or the narration carries a board
        or a button, or it does not fit."""
        held = self.state(table.game_id).held
        text = held.text()
        if not text or vote.ended is not None or held.extra is not None or held.board:
            return False
        if len("\n".join([*vote.told, text])) > MAX_CONTENT // 2:
            return False
        vote.told.append(text)
        held.clear()
        return True

    async def _flush(self, table: Table, *, live: bool = True) -> None:
        """Post the held narration (with its board and button) as one message, which
        becomes the round's message (the next calls and narration are edited in); not
        `live`: as a story only, since the message the caller posts next is the live
        board."""
        state = self.state(table.game_id)
        held = state.held
        if held.empty:
            return
        extra = held.extra
        routes = [button(extra[0], extra[1], style=extra[2])] if extra and live else []
        parts = chunks(held.text(), MAX_CONTENT)
        for part in parts[:-1]:
            await self._send(table, part)
        board = (held.board or state.board) if live else None
        files = [board] if board else []
        look = self._look(table, parts[-1], routes, live=live, image=True)
        # The old round first: a failed edit leaves no second live board behind.
        await self._retire_round(table)
        message = await self._send(table, "", look=look, files=files)
        held.clear()
        if live:
            state.round = RoundMessage(
                message.id,
                [parts[-1]],
                extra=[extra] if extra else [],
                image=bool(message.attachments),
            )
            await self._file_board(table, state.round)

    def _lead(self, table: Table, room: int) -> tuple[str, list[tuple[str, bytes]]]:
        """The held narration and board, to lead a prompt's message (`room`: the characters
        the prompt leaves), or nothing if it does not fit or carries its own button (then
        the caller flushes it first). The caller clears it once its message is sent: a
        send that fails keeps it for the next try."""
        held = self.state(table.game_id).held
        if not held.text() or held.extra is not None or len(held.text()) > room:
            return "", []
        return held.text(), [held.board] if held.board else []

    # --- round messages ---------------------------------------------------------------

    async def _vote_to_round(self, table: Table, vote: _Vote, result: str) -> bool:
        """The result closes the vote's message, which becomes the round's message
        (shown at the end of the burst); False if there was no message."""
        await _cancel_refresh(vote)
        if vote.message_id is None:
            return False
        await self._forget(table, vote_key(vote.prompt_id))
        await self._retire_round(table)
        state = self.state(table.game_id)
        held, board = state.held, None
        lines = [vote.preamble] if vote.preamble else []
        lines += vote.told  # told on the vote message while it was open
        if held.text() and held.extra is None and len(held.text()) <= MAX_CONTENT // 2:
            # Told while the vote was open (a timeout, a member stepping away): it goes
            # before the result, not after the round it led to.
            lines.append(held.text())
            board = held.board
            held.clear()
        lines.append(texts.VOTE_CLOSED.format(result=result))
        rnd = RoundMessage(vote.message_id, lines, board=board, dirty=True, image=vote.image)
        state.round = rnd
        return True

    async def _retire_round(self, table: Table) -> None:
        """The current round message grows no more: shown as it stands, and kept while
        calls on it are open."""
        state = self.state(table.game_id)
        rnd = state.round
        if rnd is None:
            return
        # Shown before it is let go, edited down to its story (no status, image or
        # buttons: the next message is the live board). If Discord refuses (a lost
        # permission), the round stays current and goes out when the outbox delivers
        # this message again.
        rnd.live, rnd.dirty = False, True
        try:
            await self._show_round(table, rnd)
        except BaseException:
            rnd.live = True
            raise
        if rnd.filed.pop(BOARD_KEY, None) is not None:
            # It shows its whole story now: a restart must not edit it back to the story
            # the book last held for it (which may lack its last lines).
            await self._forget(table, BOARD_KEY)
        state.round = None
        if rnd.calls:
            state.older.append(rnd)
        await self._ping(table)

    async def _show_rounds(self, table: Table) -> None:
        """Edit every round message that changed (one edit per message per burst)."""
        state = self.state(table.game_id)
        for rnd in state.rounds():
            await self._show_round(table, rnd)
        state.older = [rnd for rnd in state.older if rnd.calls]
        await self._ping(table)  # also those a failed line left to tell

    async def _show_round(self, table: Table, rnd: RoundMessage) -> None:
        state = self.state(table.game_id)
        # A message deleted while its last edit was in flight was shown (clean) after the
        # delete event marked it: it is gone all the same, and posted again here.
        if not rnd.dirty and rnd.message_id not in state.gone:
            return
        routes = rnd.routes(lambda prompt, named: prompt_items(table, prompt, named))
        files = [rnd.board] if rnd.board and rnd.live else []
        if files and "Attach Files" in missing_in(self.client, table.channel_id):
            files = []  # the text goes alone (the table is told once)
            await self._note_missing(table, "Attach Files")
        image = rnd.live and (rnd.image or bool(files))
        look = self._look(table, rnd.text(), routes, live=rnd.live, image=image)
        # An edit only when the message would read differently.
        changed = bool(files) or look.signature() != rnd.shown
        if rnd.message_id in state.gone:  # deleted (a moderator, a purge)
            edited: Edited | None = Edited.GONE
        elif changed:
            edited = await self._edit(table, rnd.message_id, look, files=files)
        else:
            edited = None
        if edited is Edited.GONE:
            # The round goes on in a new message; the members it names were told of the
            # old one (or its components went with it): told again.
            gone = rnd.message_id
            board = (rnd.board or state.board) if rnd.live else None
            files = [board] if board is not None else []
            pings = [u for call in rnd.calls.values() for u, _ in _told(table, call.prompt)]
            message = await self._send(table, "", look=look, files=files, pings=pings)
            rnd.message_id, image = message.id, bool(message.attachments)
            state.gone.discard(gone)
        elif edited is Edited.TEXT:
            image = False  # the board did not go, and the image it held is dropped
        look = replace(look, image=image)
        rnd.dirty, rnd.board, rnd.image, rnd.shown = False, None, image, look.signature()
        body = rnd.body()
        for key, call in rnd.calls.items():  # where a restart finds the call again
            if rnd.filed.get(key) == f"{rnd.message_id}:{body}":
                continue  # the book has it as it is: no write
            shown = ShownMessage(rnd.message_id, body, call.prompt.deadline)
            await self._remember(table, key, shown)
            rnd.filed[key] = f"{rnd.message_id}:{body}"
        if rnd.live:
            await self._file_board(table, rnd)
        # The calls this edit brought into view: their members are pinged (an edit
        # notifies nobody), now that the table reads what led to them (the discard's
        # narration comes with the Chancellor's hand), by the caller (`_ping`). A message
        # posted anew pinged them all.
        for key in rnd.calls:
            if edited is Edited.GONE:
                state.unpinged.pop(key, None)
                state.announced.add(key)
            elif key in state.announced or key in state.unpinged:
                continue
            elif edited:
                state.unpinged[key] = None
            else:
                state.announced.add(key)  # it read the same: shown before

    async def _ping(self, table: Table) -> None:
        """One line pinging the members whose decision was edited into an earlier
        message, with a link to it; then the older lines that name no call still open
        there go. Best effort: the call is on its message whatever becomes of the line.
        A line Discord refuses is logged and tried again at the next flush; without the
        permission to post (`PermissionLost`), the game pauses as for any message and
        the line goes once it is back: either way the member is told."""
        state = self.state(table.game_id)
        named: dict[str, int] = {}
        told: list[tuple[int, str, int]] = []
        for key in list(state.unpinged):
            rnd = self._round_of(table, key)
            if rnd is None:  # closed meanwhile: nothing to tell
                del state.unpinged[key]
                continue
            if rnd.message_id in state.gone:
                continue  # deleted: posted again, pinging its members (`_show_round`)
            named[key] = rnd.message_id
            told += [(u, what, rnd.message_id) for u, what in _told(table, rnd.calls[key].prompt)]
        if not named:
            return
        if told:
            lines = [
                texts.PING_CALL.format(who=f"<@{u}>", what=what, link=_link(table, message_id))
                for u, what, message_id in told
            ]
            try:
                sent = await self._send(table, "\n".join(lines), pings=[u for u, _, _ in told])
            except discord.HTTPException as exc:
                # Its type and status only: the error's words may quote the line.
                log.warning(
                    "game %d: a ping line was not posted (%s %s): tried again later",
                    table.game_id,
                    type(exc).__name__,
                    exc.status,
                )
                state.ping_failures += 1
                self._retry_ping_later(table.game_id, state)
                return
            state.pings[sent.id] = named
            state.ping_failures = 0
            # Filed, so that a restarted bot still deletes it (the game's last line
            # would otherwise stay in the channel for good).
            filed = ShownMessage(sent.id, json.dumps(named), None)
            await self._remember(table, ping_key(sent.id), filed)
        for key in named:
            del state.unpinged[key]
            state.announced.add(key)
        # A line goes once none of the calls it named is open on the message it linked
        # to: deleting it sooner would take back the ping of a member still to act (the
        # President's claim line also named the Chancellor's).
        newest = next(reversed(state.pings), None)
        for line, calls in list(state.pings.items()):
            if line != newest and not any(self._open_on(table, k, at) for k, at in calls.items()):
                del state.pings[line]
                await self._delete_ping(table, line)

    def _retry_ping_later(self, game_id: int, state: _GameState) -> None:
        """Ask the game's outbox for a flush in a while (it tries the ping line again):
        a game waiting on the member it pings may have no flush of its own until then."""
        if self.redraw is None or state.ping_retry is not None:
            return
        if state.ping_failures > PING_RETRIES:
            return  # a refusal that lasts: the game's own flushes try again
        redraw: Callable[[int], None] = self.redraw

        def retry() -> None:
            state.ping_retry = None
            if self._games.get(game_id) is state and state.unpinged:
                redraw(game_id)

        state.ping_retry = asyncio.get_running_loop().call_later(PING_RETRY_S, retry)

    def _open_on(self, table: Table, key: str, message_id: int) -> bool:
        """Whether the call filed under `key` is open on message `message_id`."""
        rnd = self._round_of(table, key)
        return rnd is not None and rnd.message_id == message_id

    async def _drop_ping(self, table: Table) -> None:
        """The game ends: its ping lines go (nobody has a decision left), and no more
        are posted."""
        state = self.state(table.game_id)
        state.unpinged.clear()
        lines, state.pings = list(state.pings), {}
        for line in lines:
            await self._delete_ping(table, line)

    async def _delete_ping(self, table: Table, line: int) -> None:
        """Delete a ping line, best effort (a line left is harmless), and its row."""
        await self._unpost(table, line)
        await self._forget(table, ping_key(line))

    async def _unpost(self, table: Table, line: int) -> None:
        """Delete a ping line from the channel, best effort (a line left is harmless)."""
        try:
            await self._channel(table).get_partial_message(line).delete()
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("game %d: a ping line was not deleted (%s)", table.game_id, type(exc).__name__)

    async def _file_board(self, table: Table, rnd: RoundMessage) -> None:
        """Keep the live board's id and story in the book (written when they change)."""
        body = rnd.body()
        if rnd.filed.get(BOARD_KEY) != f"{rnd.message_id}:{body}":
            await self._remember(table, BOARD_KEY, ShownMessage(rnd.message_id, body, None))
            rnd.filed[BOARD_KEY] = f"{rnd.message_id}:{body}"

    def _round_of(self, table: Table, key: str) -> RoundMessage | None:
        """The round message showing the call filed under `key`, if any."""
        return next((r for r in self.state(table.game_id).rounds() if key in r.calls), None)

    async def announce(self, table: Table, text: str) -> None:
        """A message of the bot's own in a game's channel, outside the game's flow (a
        game set aside at a restart); raises `DeliveryError` if it cannot be shown."""
        await self._post_text(table, text)

    async def _post_text(self, table: Table, text: str) -> None:
        """`text` in as many messages as it needs."""
        for part in chunks(text, MAX_CONTENT):
            await self._send(table, part)

    async def tell(self, table: Table, private: Private) -> None:
        """Private information: never in the channel; by DM when enabled (best effort)."""
        user_id = table.seats[private.seat].user_id
        if not self.dm_secrets or user_id is None or not private.text:
            return
        await self._dm(table, user_id, f"Game #{table.game_id}: {private.text}")

    async def _dm(self, table: Table, user_id: int, text: str) -> None:
        """A direct message, best effort (the game's buttons show the same): transient
        failures are retried; a closed DM is remembered for the rest of the game."""
        state = self.state(table.game_id)
        if user_id in state.closed_dms:
            return  # refused once: every retry would be another 403 counted against us

        nonce = random.getrandbits(62)  # a retry after a lost answer is not a second DM

        async def send() -> None:
            # By id: no user fetch (a GET per secret); discord.py caches the DM channel.
            channel = await self.client.create_dm(discord.Object(user_id))
            await channel.send(text, nonce=nonce)

        try:
            await attempt(
                send, what=f"game {table.game_id}: a DM", translate=_as_is, sleep=self._sleep
            )
        except discord.Forbidden:  # 403 / 50007: DMs closed; the buttons still work
            state.closed_dms.add(user_id)
            log.info("game %d: DMs are closed for a member", table.game_id)
        except discord.HTTPException as exc:
            log.warning("game %d: a DM failed: %s", table.game_id, exc)

    async def ask(self, table: Table, prompt: Prompt) -> None:
        """Offer a prompt in the channel (votes: gathered into one message per election)."""
        state = self.state(table.game_id)
        if prompt_kind(prompt) == "vote":
            vote = state.vote
            if vote is None or vote.prompt_id != prompt.id:
                president = prompt.view.president
                chancellor = prompt.view.chancellor
                assert chancellor is not None
                vote = state.vote = _Vote(prompt.id, president, chancellor)
                shown = state.restored.pop(vote_key(prompt.id), None)
                if shown is not None:  # the vote message posted before a restart
                    vote.message_id = shown.message_id
                    vote.restored_deadline = shown.deadline
                    vote.preamble, vote.told, current = _vote_lines(shown.content)
                    # A row of the old form (the text) is filed anew at the next edit.
                    vote.filed = len(vote.told) if current else None
            vote.voters.add(prompt.seat)
            vote.open.add(prompt.seat)
            vote.ended = None
            if vote.message_id is not None and vote.waiting is not None:
                await self._show_vote(table, vote)  # a seat asked later (/back): refresh
            return
        text = public_prompt_text(table, prompt)
        user_id = table.seats[prompt.seat].user_id
        pings = [user_id] if user_id is not None else []
        key = prompt_key(prompt)
        call = Call(prompt, text)
        shown = state.restored.pop(key, None)
        rnd = state.round
        if shown is not None:
            # Asked again after a restart: its message, as it read, takes the call again.
            found = next((r for r in state.rounds() if r.message_id == shown.message_id), None)
            if found is None:
                await self._retire_round(table)
                # The board image comes back with its next edit (if the game has one).
                found = RoundMessage(shown.message_id, [shown.content], board=state.board)
                state.round = found
            found.calls[key] = call
            found.dirty = True
            state.announced.add(key)  # told before the restart (again if its clock moved)
            if _clock_reset(shown.deadline, prompt.deadline) and pings:
                reset = texts.CLOCK_RESET.format(who=mention(table, prompt.seat))
                await self._send(table, reset, pings=pings)
        elif rnd is not None and state.vote is None and rnd.fits(text):
            rnd.calls[key] = call  # edited into the round's message (`flush`), told then
            rnd.dirty = True
            if isinstance(prompt.options[0].action, Enact | ProposeVeto) and pings:
                # The Chancellor hears it privately too (pinged as the edit shows it).
                await self._nudge(table, pings[0])
        else:  # a new message, which the round goes on in: the narration held leads it
            lead, files = self._lead(table, MAX_CONTENT - len(text) - 2)
            if not lead:
                await self._flush(table, live=False)
            await self._retire_round(table)
            if not files and state.board is not None:
                files = [state.board]
            story = f"{lead}\n\n{text}" if lead else text
            look = self._look(table, story, prompt_items(table, prompt), live=True, image=True)
            pings = [u for u, _ in _told(table, prompt)]
            state.announced.add(key)  # told by the message itself
            sent = await self._send(table, "", pings=pings, files=files, look=look)
            if lead:
                state.held.clear()  # it went out with the prompt
            state.round = RoundMessage(sent.id, [lead], {key: call}, image=bool(sent.attachments))
            state.round.shown = look.signature()
            await self._file_board(table, state.round)
            await self._remember(table, key, ShownMessage(sent.id, lead, prompt.deadline))

    async def _nudge(self, table: Table, user_id: int) -> None:
        """Tell the Chancellor privately too that their hand is ready (a member may read
        their DMs rather than the channel)."""
        if self.dm_secrets and table.channel_id is not None:
            text = texts.HAND_READY.format(game=table.game_id, channel=table.channel_id)
            await self._dm(table, user_id, text)

    async def withdraw(self, table: Table, prompt: Prompt, reason: str) -> None:
        """Take a closed prompt's call off its message, saying why it closed when the
        narration does not (at the message's next edit)."""
        state = self.state(table.game_id)
        vote = state.vote
        if vote is not None and prompt.id == vote.prompt_id and prompt_kind(prompt) == "vote":
            # The vote message closes with the result. A ballot the member no longer
            # casts (a timeout, /afk) is cast by an AI: the vote stays open for it, and
            # the reason (written to the member) is not the table's. Only a game that
            # ends with no result (cancelled) closes it with its reason, at the next
            # public message.
            vote.open.discard(prompt.seat)
            if not vote.open and reason in GAME_ENDS:
                vote.ended = reason
            return
        key = prompt_key(prompt)
        rnd = self._round_of(table, key)
        if rnd is None:
            return  # shown before a restart: its buttons answer that they are stale
        del rnd.calls[key]
        state.announced.discard(key)
        state.unpinged.pop(key, None)
        rnd.dirty = True
        if reason not in QUIET_REASONS:
            rnd.add_line(f"> {table.seats[prompt.seat].name}: {reason}")
        await self._forget(table, key)

    async def waiting(self, table: Table, waiting: Waiting) -> None:
        """Remember it for /status; during a vote, show who has voted."""
        state = self.state(table.game_id)
        state.waiting = waiting
        if state.round is not None:
            state.round.dirty = True  # its status line says whose turn it is (`flush`)
        vote = state.vote
        if waiting.phase is Phase.VOTE and vote is not None:
            vote.waiting = waiting
            if (
                vote.message_id is None
                or vote.message_id in state.gone
                or vote.restored_deadline is not None
            ):
                # At once: the first, with its pings; one deleted, posted again; one
                # restored after a restart, whose clock may need a ping.
                await self._show_vote(table, vote)
            elif vote.refresh is None or vote.refresh.done():
                vote.refresh = asyncio.create_task(self._refresh_vote(table, vote))
        await self._close_restored(table)

    async def _close_restored(self, table: Table, reason: str = texts.CLOSED_BY_RESTART) -> None:
        """Close what was shown before a restart and not asked again (the game has
        asked for everything it waits for when it says whom it waits for), saying
        `reason`: the restart, or the game's end when it ends first."""
        state = self.state(table.game_id)
        # Messages a restored call or vote closes itself (with its reason).
        closing = {s.message_id for k, s in state.restored.items() if k != BOARD_KEY}
        for key, shown in list(state.restored.items()):
            del state.restored[key]
            if any(r.message_id == shown.message_id for r in state.rounds()):
                # A round message that took calls again: it shows the round as it is now.
                if key != BOARD_KEY:  # (the board's key now names the board it is)
                    await self._forget(table, key)
                continue
            look = _closed_look(key, shown, reason, closing)
            if look is not None:
                await self._edit(table, shown.message_id, look)
            if key != BOARD_KEY:  # (by now the board's key may name the new live board)
                await self._forget(table, key)

    async def shown_before(self, game_id: int) -> dict[str, ShownMessage]:
        """The messages the book holds for a game, by key; none if it does not read
        (logged: best effort, as a restart's `resume`)."""
        if self.book is None:
            return {}
        try:
            return await self.book.shown_messages(game_id)
        except Exception as exc:
            log.warning("game %d: message ids not read (%s)", game_id, type(exc).__name__)
            return {}

    async def close_stranded(self, table: Table, shown: dict[str, ShownMessage]) -> None:
        """A stranded game (no session took it up after a restart) was cancelled: close
        what it showed before the restart (`shown`: its rows of the book, read before the
        end dropped them) as a restored game's final post does, and delete its ping lines.
        Best effort: a message that cannot be closed is logged and left."""
        lines = sorted(s.message_id for k, s in shown.items() if k.startswith(PING_KEY))
        for line in lines:
            await self._unpost(table, line)
        rows = {k: s for k, s in shown.items() if not k.startswith(PING_KEY)}
        closing = {s.message_id for k, s in rows.items() if k != BOARD_KEY}
        for key, message in rows.items():
            look = _closed_look(key, message, notices.CANCELLED, closing)
            if look is not None:
                await self._close_shown(table, message.message_id, look)

    async def _close_shown(self, table: Table, message_id: int, look: Look) -> None:
        """Edit a message of a game no session holds to `look` (no controls, no image),
        giving up after `CLOSE_STRANDED_S`. Not through `_edit`: the game is over, so a
        refusal pauses nothing and tells no member; it is only logged, with its fault
        alone (the text may hold what a log must not)."""

        async def edit() -> None:
            message = self._channel(table).get_partial_message(message_id)
            mentions = discord.AllowedMentions.none()
            await message.edit(
                content=None, view=layout(look), attachments=[], allowed_mentions=mentions
            )

        try:
            async with asyncio.timeout(CLOSE_STRANDED_S):
                await self._request(table, "a closing edit", edit)
        except MessageGone:  # deleted: nothing is left to close
            log.info("game %d: message %d was gone", table.game_id, message_id)
        except Exception as exc:  # a lost permission, retries that outlast the wait...
            log.warning(
                "game %d: message %d was not closed (%s)",
                table.game_id,
                message_id,
                type(exc).__name__,
            )

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        """Everything, now that the game is over: text, final board, suspicion chart."""
        await self._drop_ping(table)  # nobody has a decision left
        vote = self.state(table.game_id).vote
        if vote is not None:
            await self._close_vote(table, vote, texts.GAME_OVER)
        await self._close_restored(table, texts.GAME_OVER)  # as the vote: the game is over
        await self._retire_round(table)  # the game is over: no live board any more
        await self._flush(table, live=False)
        await self._show_rounds(table)
        files = [await self._board_file(table, reveal.view, reveal.roles)]
        if reveal.suspicion:
            from ..render import render_suspicion_chart

            names = [s.name for s in table.seats]
            png = await asyncio.to_thread(
                render_suspicion_chart, reveal.suspicion, names, reveal.roles
            )
            files.append(("suspicion.png", png))
        parts = chunks(reveal.text, MAX_EMBED)
        for index, part in enumerate(parts):
            embed = discord.Embed(
                title="The reveal" if index == 0 else None,
                description=part,
                colour=discord.Colour.dark_gold(),
            )
            last = index == len(parts) - 1
            await self._send(table, "", embed=embed, files=files if last else ())
        await self._forget(table)
        self.forget(table.game_id)

    async def resume(self, table: Table) -> None:
        """The game carries on after a restart: find the messages of its open vote and
        prompts again (the prompts still open are asked again next)."""
        old = self.state(table.game_id)
        if old.vote is not None and old.vote.refresh is not None:
            old.vote.refresh.cancel()
        if old.ping_retry is not None:
            old.ping_retry.cancel()
        # What this process remembers of the game's messages is superseded by the book
        # (a host's /resume rebuilt the session in this process): start afresh from it.
        state = self._games[table.game_id] = _GameState(pace=old.pace, closed_dms=old.closed_dms)
        # Best effort: unread, the old buttons answer that they are stale.
        state.restored = await self.shown_before(table.game_id)
        # The ping lines up before the restart, oldest first (their ids grow with time):
        # they go as before, once their calls are closed or at the game's end.
        lines = [key for key in state.restored if key.startswith(PING_KEY)]
        for key in sorted(lines, key=lambda k: state.restored[k].message_id):
            shown = state.restored.pop(key)
            state.pings[shown.message_id] = _ping_calls(shown.content)

    # --- votes ------------------------------------------------------------------------

    def _vote_text(self, table: Table, vote: _Vote) -> str:
        names = [s.name for s in table.seats]
        humans = sorted(vote.voters)
        header = texts.VOTE_HEADER.format(
            president=names[vote.president],
            chancellor=names[vote.chancellor],
            mentions=" ".join(mention(table, s) for s in humans),
        )
        lines = [vote.preamble, header.rstrip()] if vote.preamble else [header.rstrip()]
        lines += vote.told  # what happened since it opened (a timeout...), in order
        waiting = vote.waiting
        if waiting is not None:
            living = len(waiting.voted) + len(waiting.seats)
            voted = ", ".join(names[s] for s in waiting.voted) or "nobody yet"
            lines.append(
                texts.VOTE_PROGRESS.format(count=len(waiting.voted), living=living, voted=voted)
            )
            if waiting.seats:
                lines.append(
                    texts.VOTE_WAITING.format(names=", ".join(names[s] for s in waiting.seats))
                )
            if waiting.deadline is not None:
                lines[-1] += texts.PROMPT_DEADLINE.format(when=f"<t:{int(waiting.deadline)}:R>")
        return "\n".join(lines)

    def _vote_look(self, table: Table, vote: _Vote, text: str) -> Look:
        game = str(table.game_id)
        # The session's vote prompts all offer (Ja, Nein) in that order.
        routes = [
            button(ComponentId(game, vote.prompt_id, "0"), "Ja", style=discord.ButtonStyle.success),
            button(
                ComponentId(game, vote.prompt_id, "1"), "Nein", style=discord.ButtonStyle.danger
            ),
        ]
        return self._look(table, text, routes, live=True, image=vote.image)

    async def _show_vote(self, table: Table, vote: _Vote) -> None:
        """Post the vote message, or edit it to show the latest state; one that is gone
        is posted again. Only the outbox calls this (it may post): the coalesced
        refresh edits alone (`_edit_vote`)."""
        if vote.message_id is None:
            await self._post_vote(table, vote)
            return
        restored = vote.restored_deadline
        vote.restored_deadline = None
        if vote.message_id in self.state(table.game_id).gone or not await self._edit_vote(
            table, vote
        ):
            await self._repost_vote(table, vote)
            return
        waiting = vote.waiting
        deadline = waiting.deadline if waiting is not None else None
        if restored is not None and _clock_reset(restored, deadline) and waiting:
            seats = [s for s in waiting.seats if s in vote.voters]
            pings = [u for s in seats if (u := table.seats[s].user_id) is not None]
            if pings:
                who = " ".join(mention(table, s) for s in seats)
                await self._send(table, texts.CLOCK_RESET.format(who=who), pings=pings)

    async def _edit_vote(self, table: Table, vote: _Vote, *, tell: bool = True) -> bool:
        """Edit the vote message to show the latest state; False if it is gone (`tell`:
        as for `_edit`)."""
        assert vote.message_id is not None
        text = self._vote_text(table, vote)
        if text == vote.shown:
            return True
        board = self.state(table.game_id).board
        files = []
        if (
            not vote.image
            and board is not None
            and "Attach Files" not in missing_in(self.client, table.channel_id)
        ):
            files, vote.image = [board], True  # a vote restored after a restart
        look = self._vote_look(table, vote, text)
        edited = await self._edit(table, vote.message_id, look, files=files, tell=tell)
        if edited:
            vote.shown = text
        if edited is Edited.TEXT:
            vote.image = False
        if edited and vote.filed != len(vote.told):
            # A line told on it (a timeout, a member stepping away) is public narration
            # the restarted bot must show again: the book keeps it with the message.
            # (Only then: the ballots' progress is redrawn from the game itself.)
            await self._file_vote(table, vote)
        return bool(edited)

    async def _file_vote(self, table: Table, vote: _Vote) -> None:
        """File the vote message with its narration; a filing that fails is tried again
        at the vote's next edit."""
        assert vote.message_id is not None
        deadline = vote.waiting.deadline if vote.waiting is not None else None
        row = _vote_row(vote.preamble, vote.told)
        if await self._remember(
            table, vote_key(vote.prompt_id), ShownMessage(vote.message_id, row, deadline)
        ):
            vote.filed = len(vote.told)

    async def _post_vote(self, table: Table, vote: _Vote) -> None:
        """Post the vote message, which starts the next round's message."""
        pings = [u for s in vote.voters if (u := table.seats[s].user_id) is not None]
        await self._retire_round(table)
        # The narration held back (the nomination...) leads the vote message.
        vote.preamble, files = self._lead(table, MAX_CONTENT // 2)
        if not vote.preamble:
            await self._flush(table, live=False)
        board = self.state(table.game_id).board
        if not files and board is not None:
            files = [board]  # the live board shows the board as the vote opens
        await self._send_vote(table, vote, pings, files)
        if vote.preamble:
            self.state(table.game_id).held.clear()  # it went out with the vote

    async def _repost_vote(self, table: Table, vote: _Vote) -> None:
        """The vote message is gone (deleted): post it again as it stood, pinging the
        members still to vote (their buttons went with it)."""
        state = self.state(table.game_id)
        gone = vote.message_id
        waiting = vote.waiting
        seats = [s for s in (waiting.seats if waiting else vote.voters) if s in vote.voters]
        pings = [u for s in seats if (u := table.seats[s].user_id) is not None]
        await self._send_vote(table, vote, pings, [state.board] if state.board else [])
        if gone is not None:
            state.gone.discard(gone)
        log.info("game %d: its vote message was gone: posted again", table.game_id)

    async def _send_vote(
        self, table: Table, vote: _Vote, pings: list[int], files: list[tuple[str, bytes]]
    ) -> None:
        text = self._vote_text(table, vote)
        vote.image = bool(files)
        message = await self._send(
            table, "", pings=pings, files=files, look=self._vote_look(table, vote, text)
        )
        vote.message_id, vote.shown = message.id, text
        vote.image = bool(message.attachments)
        vote.filed = None  # a new message: its row is not filed yet
        await self._file_vote(table, vote)

    async def _refresh_vote(self, table: Table, vote: _Vote) -> None:
        """A coalesced edit: wait a moment, then show the latest state (errors are for
        the next message of the outbox to meet; this one only logs them). It runs
        beside the outbox, so it only edits: a message gone is posted again by the
        outbox (`deleted`), which may be changing the same state meanwhile."""
        try:
            await asyncio.sleep(self.vote_edit_every_s)
            state = self.state(table.game_id)
            if state.vote is not vote or vote.message_id is None or vote.message_id in state.gone:
                return
            gone = vote.message_id
            # Not told if refused: the game has not paused (the outbox's next message
            # meets the refusal, pauses the game and tells its members).
            if not await self._edit_vote(table, vote, tell=False) and vote.message_id == gone:
                self.deleted(table.game_id, {gone})
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("game %d: vote message not refreshed (%s)", table.game_id, type(exc).__name__)

    async def _close_vote(self, table: Table, vote: _Vote, result: str) -> bool:
        """Show the result on the vote message; False if there was none to edit."""
        await _cancel_refresh(vote)
        if vote.message_id is None:
            return False
        # What the vote message told while it was open stays, before the reason.
        closing = _vote_closed("\n".join(x for x in (vote.preamble, *vote.told) if x), result)
        closed = await self._edit(table, vote.message_id, Look(closing))
        await self._forget(table, vote_key(vote.prompt_id))
        return bool(closed)


async def _cancel_refresh(vote: _Vote) -> None:
    """The vote's result supersedes any coalesced edit still waiting."""
    if vote.refresh is not None:
        vote.refresh.cancel()
        await asyncio.gather(vote.refresh, return_exceptions=True)


def _told(table: Table, prompt: Prompt) -> list[tuple[int, str]]:
    """The member to ping as a call comes into view, and what they are told (only what
    the table reads: whose turn, and at what); nobody for an AI seat."""
    user_id = table.seats[prompt.seat].user_id
    if user_id is None:
        return []
    match prompt.options[0].action:
        case Nominate():
            what = texts.PING_NOMINATE
        case Investigate() | CallSpecialElection() | Execute():
            what = texts.PING_POWER
        case Discard() | Enact() | ProposeVeto():
            what = texts.PING_HAND
        case VetoReply():
            what = texts.PING_VETO
        case _:
            what = texts.PING_CLAIM
    return [(user_id, what)]


def _link(table: Table, message_id: int) -> str:
    """A link to a message of the game (in a server, a thread or a DM), as discord.py
    makes it. From the ids the game knows: `PartialMessage.jump_url` reads the server
    from the cache, empty after a restart until the gateway fills it (it would link to
    '@me' then)."""
    assert table.channel_id is not None  # the line was posted in that channel
    reference = discord.MessageReference(
        message_id=message_id, channel_id=table.channel_id, guild_id=table.guild_id
    )
    return reference.jump_url


def _clock_reset(shown: float | None, now: float | None) -> bool:
    """Whether a restored prompt's clock moved (a reset: its member is pinged again)."""
    if shown is None or now is None:
        return shown is not now
    return abs(now - shown) > DEADLINE_RESET_S


def _closed_look(
    key: str, shown: ShownMessage, reason: str, closing: Collection[int]
) -> Look | None:
    """How a message filed under `key` before a restart reads once closed, saying
    `reason`: a vote keeps the lines it told (as `_close_vote`), a call its text, the live
    board its story; None for a board that a call or vote on it (`closing`: their
    messages) closes itself, with its reason."""
    if key == BOARD_KEY:
        return None if shown.message_id in closing else Look(shown.content)
    if key.startswith("vote:"):
        preamble, told, _ = _vote_lines(shown.content)
        story = [preamble, *told]
        return Look(_vote_closed("\n".join(x for x in story if x), reason))
    return Look(texts.PROMPT_CLOSED.format(text=shown.content, reason=reason))


def _vote_closed(preamble: str, result: str) -> str:
    """A closed vote message: the narration that led it, then the result."""
    closing = texts.VOTE_CLOSED.format(result=result)
    return f"{preamble}\n{closing}" if preamble else closing


def _preamble(vote_text: str) -> str:
    """The narration that led a vote message, read back from its text (a row of the old
    form only: names can make any line read like the header)."""
    header = texts.VOTE_HEADER.split("{")[0]
    at = vote_text.find("\n" + header)
    return vote_text[:at] if at > 0 else ""


def _told_on_vote(vote_text: str) -> list[str]:
    """The lines told on an open vote message (`_Vote.told`), read back from its text
    (a row of the old form only): those between its header and the ballots' progress,
    which always comes last."""
    header = "\n" + texts.VOTE_HEADER.split("{")[0]
    at = ("\n" + vote_text).find(header)
    if at < 0:
        return []
    lines = vote_text[at:].split("\n")[1:]  # after the header's line (Discord's breaks)
    progress = (texts.VOTE_PROGRESS.split("{")[0], texts.VOTE_WAITING.split("{")[0])
    while lines and lines[-1].startswith(progress):
        lines.pop()
    return ["\n".join(lines)] if lines else []


def _embed_text(embed: discord.Embed | None) -> str:
    """An embed's text, to post as plain content where embeds cannot go."""
    if embed is None:
        return ""
    return "\n".join(x for x in (embed.title and f"**{embed.title}**", embed.description) if x)


def _as_is(exc: discord.HTTPException) -> Exception:
    """A DM's final errors mean nothing for the game: raised as they are."""
    return exc
