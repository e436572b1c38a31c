"""The Discord implementation of the session's front-end port (`bot.ports.Frontend`).

What goes where:

- `post` (public): one channel message per call, the narration of public events; the board
  image is attached whenever the board moved. The game's first message carries **Show my
  role**; a peek or an investigation carries **Show what you saw**. Both answer the
  clicking member only, ephemerally.
- `tell` (private): never in the channel. The member gets it through those buttons (the
  game's view is the source, so they work after a restart too) and, if `dm_secrets`, by
  direct message, best effort: a closed DM (403 / 50007) is logged once and remembered
  for the rest of the game, so that member gets no further DM attempts (each would
  spend the bot's invalid-request budget).
- `ask`: a vote becomes one message per election with Ja / Nein buttons, edited as votes
  come in (who has voted, never how) and closed with every ballot when the result is in.
  Nominations and power targets are a select menu of the legal choices; a hand (discard,
  enact, veto) is a public prompt with **Open your hand**, which shows the policies and
  their buttons ephemerally. Claims are a select menu of what may be said. Only the member
  who must act is mentioned (`allowed_mentions`).
- `withdraw`: the prompt message loses its components and says why it closed.
- `reveal`: the full reveal, the final board and, when a belief model ran, the chart.

The channel sees only what `Post`, `Waiting` and the options of public prompts contain,
all public by the port's contract; prompt questions (which may name a hand) are only
ever shown ephemerally to their seat.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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
    VetoReply,
    Vote,
)
from engine import events as ev

from ..narrate import narrate, tiles
from ..ports import Post, Private, Prompt, PromptKind, Reveal, Table, Waiting
from . import texts
from .components import ComponentId, button, select, view_of

log = logging.getLogger(__name__)

HAND_ACTIONS = (Discard, Enact, ProposeVeto)
TARGET_ACTIONS = (Nominate, Investigate, CallSpecialElection, Execute)
MAX_CONTENT = 2000  # Discord's limit for a message's content
MAX_EMBED = 4096  # and for an embed's description
ROLE, HAND, CANCEL = "role", "hand", "cancel"


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
        case Discard():
            text = texts.PROMPT_DISCARD.format(who=who)
        case Enact() | ProposeVeto():
            text = texts.PROMPT_ENACT.format(who=who)
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


def prompt_components(table: Table, prompt: Prompt) -> discord.ui.View:
    """The components of a public prompt: a select, veto buttons, or **Open your hand**."""
    game = table.game_id
    kind = prompt_kind(prompt)
    if kind == "hand":
        cid = ComponentId(str(game), HAND, str(prompt.seat))
        return view_of(button(cid, texts.BUTTON_HAND, style=discord.ButtonStyle.primary))
    if kind == "veto":
        return view_of(
            *(
                button(option_id(game, prompt, i), option.label)
                for i, option in enumerate(prompt.options)
            )
        )
    placeholder = texts.PICK_CLAIM if kind == "claim" else texts.PICK_TARGET
    if prompt.options and isinstance(prompt.options[0].action, Nominate):
        placeholder = texts.PICK_NOMINEE
    options = [
        discord.SelectOption(label=option.label[:100], value=str(i))
        for i, option in enumerate(prompt.options)
    ]
    cid = ComponentId(str(game), prompt.id, str(prompt.seat))
    return view_of(select(cid, options, placeholder=placeholder))


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
    ended: str | None = None  # why every vote prompt closed, if no result came (yet)


@dataclass(slots=True)
class _GameState:
    """What the front-end remembers of a game (lost on restart, and that is fine: every
    component works from its custom_id alone)."""

    vote: _Vote | None = None
    prompts: dict[tuple[str, int, PromptKind], tuple[int, str]] = field(default_factory=dict)
    waiting: Waiting | None = None
    pace: float = 0.0  # seconds between public messages (demo games)
    closed_dms: set[int] = field(default_factory=set)  # members whose DMs refused (403)


class DiscordFrontend:
    """`bot.ports.Frontend` over a discord.py client (see the module docstring)."""

    def __init__(self, client: discord.Client, *, dm_secrets: bool = True) -> None:
        self.client = client
        self.dm_secrets = dm_secrets
        self._games: dict[int, _GameState] = {}

    # --- helpers ------------------------------------------------------------------------

    def state(self, game_id: int) -> _GameState:
        """The front-end's memory of a game."""
        return self._games.setdefault(game_id, _GameState())

    def set_pace(self, game_id: int, seconds: float) -> None:
        """Wait this long after each public message of a game (demo games)."""
        self.state(game_id).pace = seconds

    def last_waiting(self, game_id: int) -> Waiting | None:
        """What the game waited for when last told (for /status)."""
        return self.state(game_id).waiting

    def forget(self, game_id: int) -> None:
        """Drop a finished game's memory."""
        self._games.pop(game_id, None)

    def _channel(self, table: Table) -> discord.PartialMessageable:
        if table.channel_id is None:
            raise ValueError(f"Game {table.game_id} has no channel.")
        return self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)

    async def _send(
        self,
        table: Table,
        content: str,
        *,
        view: discord.ui.View | None = None,
        files: Sequence[discord.File] = (),
        pings: Sequence[int] = (),
        embed: discord.Embed | None = None,
    ) -> discord.Message:
        mentions = discord.AllowedMentions(
            users=[discord.Object(uid) for uid in pings], roles=False, everyone=False
        )
        channel = self._channel(table)
        embeds = [embed] if embed is not None else []
        if view is None:
            return await channel.send(
                content or None, embeds=embeds, files=list(files), allowed_mentions=mentions
            )
        return await channel.send(
            content or None, embeds=embeds, files=list(files), allowed_mentions=mentions, view=view
        )

    async def _edit(
        self, table: Table, message_id: int, content: str, view: discord.ui.View | None
    ) -> bool:
        """Edit a message of the game; False (logged) if Discord refused."""
        try:
            await (
                self._channel(table)
                .get_partial_message(message_id)
                .edit(content=content, view=view, allowed_mentions=discord.AllowedMentions.none())
            )
        except discord.HTTPException as exc:
            log.warning("game %d: cannot edit message %d: %s", table.game_id, message_id, exc)
            return False
        return True

    async def _board_file(self, table: Table, view: PlayerView) -> discord.File:
        from ..render import render_board  # Pillow: imported when first needed

        names = [s.name for s in table.seats]
        png = await asyncio.to_thread(render_board, view, names)
        return discord.File(io.BytesIO(png), filename="board.png")

    # --- the port ---------------------------------------------------------------------

    async def post(self, table: Table, post: Post) -> None:
        """Narrate public events in one message (with the board if it moved)."""
        state = self.state(table.game_id)
        text = post.text
        result = next((e for e in post.events if isinstance(e, ev.ElectionResult)), None)
        if result is not None and state.vote is not None:
            line = narrate(result, table.labels) or ""
            if await self._close_vote(table, state.vote, line):
                # The vote message now shows every ballot: do not say it twice.
                text = "\n".join(x for x in text.splitlines() if x != line)
            state.vote = None
        elif state.vote is not None and state.vote.ended is not None:
            # Every vote prompt closed without a result (the game was cancelled...).
            await self._close_vote(table, state.vote, state.vote.ended)
            state.vote = None
        files = []
        if post.board is not None and (post.board_changed or not post.events):
            files.append(await self._board_file(table, post.board))
        if not text and not files:
            return
        view = None
        game = str(table.game_id)
        if any(isinstance(e, ev.GameStarted) for e in post.events):
            text += "\n" + texts.ROLES_DEALT
            view = view_of(
                button(
                    ComponentId(game, ROLE), texts.BUTTON_ROLE, style=discord.ButtonStyle.primary
                )
            )
        elif any(
            isinstance(e, ev.PlayerInvestigated)
            or (isinstance(e, ev.PowerGranted) and e.power is Power.POLICY_PEEK)
            for e in post.events
        ):
            view = view_of(button(ComponentId(game, ROLE), texts.BUTTON_SEEN))
        parts = chunks(text, MAX_CONTENT)
        for part in parts[:-1]:
            await self._send(table, part)
        await self._send(table, parts[-1], view=view, files=files)
        if state.pace:
            await asyncio.sleep(state.pace)

    async def tell(self, table: Table, private: Private) -> None:
        """Private information: never in the channel; by DM when enabled (best effort)."""
        user_id = table.seats[private.seat].user_id
        if not self.dm_secrets or user_id is None or not private.text:
            return
        state = self.state(table.game_id)
        if user_id in state.closed_dms:
            return  # refused once: every retry would be another 403 counted against us
        try:
            # By id: no user fetch (a GET per secret); discord.py caches the DM channel.
            channel = await self.client.create_dm(discord.Object(user_id))
            await channel.send(f"Game #{table.game_id}: {private.text}")
        except discord.Forbidden:  # 403 / 50007: DMs closed; the buttons still work
            state.closed_dms.add(user_id)
            log.info("game %d: DMs are closed for seat %d", table.game_id, private.seat)
        except discord.HTTPException as exc:
            log.warning("game %d: DM to seat %d failed: %s", table.game_id, private.seat, exc)

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
            vote.voters.add(prompt.seat)
            vote.open.add(prompt.seat)
            vote.ended = None
            if vote.message_id is not None and vote.waiting is not None:
                await self._show_vote(table, vote)  # a seat asked later (/back): refresh
            return
        text = public_prompt_text(table, prompt)
        user_id = table.seats[prompt.seat].user_id
        message = await self._send(
            table,
            text,
            view=prompt_components(table, prompt),
            pings=[user_id] if user_id is not None else [],
        )
        state.prompts[(prompt.id, prompt.seat, prompt.kind)] = (message.id, text)

    async def withdraw(self, table: Table, prompt: Prompt, reason: str) -> None:
        """Take the components off a closed prompt and say why it closed."""
        state = self.state(table.game_id)
        vote = state.vote
        if vote is not None and prompt.id == vote.prompt_id and prompt_kind(prompt) == "vote":
            # The vote message closes with the result; if none comes (a cancelled game),
            # with the reason, at the next public message.
            vote.open.discard(prompt.seat)
            if not vote.open:
                vote.ended = reason
            return
        found = state.prompts.pop((prompt.id, prompt.seat, prompt.kind), None)
        if found is None:
            return  # sent before a restart: its buttons answer that they are stale
        message_id, text = found
        await self._edit(
            table, message_id, texts.PROMPT_CLOSED.format(text=text, reason=reason), None
        )

    async def waiting(self, table: Table, waiting: Waiting) -> None:
        """Remember it for /status; during a vote, show who has voted."""
        state = self.state(table.game_id)
        state.waiting = waiting
        vote = state.vote
        if waiting.phase is Phase.VOTE and vote is not None:
            vote.waiting = waiting
            await self._show_vote(table, vote)

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        """Everything, now that the game is over: text, final board, suspicion chart."""
        vote = self.state(table.game_id).vote
        if vote is not None:
            await self._close_vote(table, vote, texts.GAME_OVER)
        files = [await self._board_file(table, reveal.view)]
        if reveal.suspicion:
            from ..render import render_suspicion_chart

            names = [s.name for s in table.seats]
            png = await asyncio.to_thread(
                render_suspicion_chart, reveal.suspicion, names, reveal.roles
            )
            files.append(discord.File(io.BytesIO(png), filename="suspicion.png"))
        parts = chunks(reveal.text, MAX_EMBED)
        for index, part in enumerate(parts):
            embed = discord.Embed(
                title="The reveal" if index == 0 else None,
                description=part,
                colour=discord.Colour.dark_gold(),
            )
            last = index == len(parts) - 1
            await self._send(table, "", embed=embed, files=files if last else ())
        self.forget(table.game_id)

    async def resume(self, table: Table) -> None:
        """The game carries on after a restart (its open prompts are asked again next)."""

    # --- votes ------------------------------------------------------------------------

    def _vote_text(self, table: Table, vote: _Vote) -> str:
        names = [s.name for s in table.seats]
        humans = sorted(vote.voters)
        header = texts.VOTE_HEADER.format(
            president=names[vote.president],
            chancellor=names[vote.chancellor],
            mentions=" ".join(mention(table, s) for s in humans),
        )
        lines = [header.rstrip()]
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

    def _vote_view(self, table: Table, vote: _Vote) -> discord.ui.View:
        game = str(table.game_id)
        # The session's vote prompts all offer (Ja, Nein) in that order.
        return view_of(
            button(ComponentId(game, vote.prompt_id, "0"), "Ja", style=discord.ButtonStyle.success),
            button(
                ComponentId(game, vote.prompt_id, "1"), "Nein", style=discord.ButtonStyle.danger
            ),
        )

    async def _show_vote(self, table: Table, vote: _Vote) -> None:
        text = self._vote_text(table, vote)
        if vote.message_id is None:
            pings = [u for s in vote.voters if (u := table.seats[s].user_id) is not None]
            message = await self._send(table, text, view=self._vote_view(table, vote), pings=pings)
            vote.message_id = message.id
        else:
            await self._edit(table, vote.message_id, text, self._vote_view(table, vote))

    async def _close_vote(self, table: Table, vote: _Vote, result: str) -> bool:
        """Show the result on the vote message; False if there was none to edit."""
        if vote.message_id is None:
            return False
        return await self._edit(
            table, vote.message_id, texts.VOTE_CLOSED.format(result=result), None
        )
