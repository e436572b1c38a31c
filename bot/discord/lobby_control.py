"""The lobby's behaviour on Discord: slash commands and buttons share these handlers.

Every change runs under the channel's lock: load the lobby, change a copy, save it, then
show it (a button edits the lobby message in its own response; a command answers the
member ephemerally and edits the lobby message). Refusals are ephemeral and say why.

Every handler acknowledges the interaction before it touches the database: a storage call
waits on the storage's lock behind every running game's writes, and Discord drops an
interaction that is not acknowledged within 3 seconds. A button click is deferred as an
update of the lobby message (edited once the change is saved); a command is deferred as
an ephemeral "thinking" reply, completed by the first followup.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import discord

from ..errors import BotError
from . import texts
from .components import ComponentId
from .delivery import missing_here, thread_refusal
from .lobby import Lobby, LobbyBook, LobbyError, LobbyOptions, LobbySeat
from .lobby_message import ADD_AI, JOIN, LEAVE, START, closed_embed, lobby_embed, lobby_view
from .replies import SEND_FAULTS, acknowledge, announce, answer, fault_words

log = logging.getLogger(__name__)


class GameLauncher(Protocol):
    """Starts games from lobbies and knows where games run (the session manager's side)."""

    def game_in(self, channel_id: int) -> int | None:
        """The id of the game running in a channel, if any."""
        ...

    def why_busy(self, channel_id: int) -> str | None:
        """Why no new game may open in a channel now (a game runs there, or one is still
        showing its end), for the member who asked; None if it is free."""
        ...

    def why_full(self, guild_id: int | None) -> str | None:
        """Why no new game may start in a server now (it runs as many as it may), for
        the member who asked; None if it may."""
        ...

    async def launch(self, lobby: Lobby, table: Sequence[LobbySeat]) -> int:
        """Create and start the game of a lobby; returns the game id."""
        ...


Change = Callable[[Lobby], str]  # changes a lobby copy, returns the note for the member


# A lobby nobody touched for this long (no join, leave, AI added or kick since) is over:
# its host has gone (left the server, or forgot it), and only its host (or Manage Server)
# may start or cancel it. The next /newgame or /demo in its channel closes it instead of
# being refused by it. Counted from its last activity, never from its opening: a table
# still filling up after an hour is no abandoned one.
LOBBY_STALE_S = 3600.0


class LobbyControl:
    """Handlers for /newgame, /join, /leave, /addbot, /kick, /start, /cancel and the buttons."""

    def __init__(
        self, book: LobbyBook, launcher: GameLauncher, clock: Callable[[], float] = time.time
    ) -> None:
        self.book = book
        self.launcher = launcher
        self.clock = clock
        # A lobby stored by an older release does not say when it was last touched (maybe
        # just before this release started): it counts as touched at this start.
        self.started_at = clock()

    async def current(self, interaction: discord.Interaction, channel_id: int) -> Lobby | None:
        """The channel's open lobby, unless it is stale (`LOBBY_STALE_S` since its last
        activity): that one is closed, its message saying why, and None returned. The
        caller holds the lock."""
        lobby = await self.book.get(channel_id)
        if lobby is None:
            return None
        if lobby.active_at is not None:
            active_at = lobby.active_at
        elif lobby.opened_at is not None:  # an older release's: see `started_at`
            active_at = max(lobby.opened_at, self.started_at)
        else:
            return lobby  # (one stored by a much older release has no age: never stale)
        if self.clock() - active_at < LOBBY_STALE_S:
            return lobby
        await self.book.close(lobby)
        log.info("lobby %s expired: nobody touched it for an hour", lobby.id)
        closed = closed_embed(lobby, texts.LOBBY_EXPIRED)
        await self._edit_lobby_message(interaction, lobby, closed, None)
        return None

    # --- commands ---------------------------------------------------------------------

    async def new_game(self, interaction: discord.Interaction, options: LobbyOptions) -> None:
        """Open a lobby in this channel, the member who asked seated as host."""
        channel_id = interaction.channel_id
        if interaction.guild_id is None or channel_id is None:
            await answer(interaction, texts.GUILD_ONLY)
            return
        if missing := missing_here(interaction):
            await answer(interaction, texts.MISSING_HERE.format(names=", ".join(missing)))
            return
        try:
            options.check()
        except LobbyError as exc:
            await answer(interaction, str(exc))
            return
        await acknowledge(interaction)  # a no-op if the command acknowledged already
        if refusal := await thread_refusal(interaction):  # may ask Discord: acknowledged
            await answer(interaction, refusal)
            return
        async with self.book.lock(channel_id):
            if (busy := self.launcher.why_busy(channel_id)) is not None:
                await answer(interaction, busy)
                return
            existing = await self.current(interaction, channel_id)
            if existing is not None:
                if existing.message_id is None:  # stored by an older release without one
                    existing = await self._edit_lobby_message(
                        interaction, existing, lobby_embed(existing), lobby_view(existing)
                    )
                await answer(interaction, texts.LOBBY_ALREADY_HERE.format(link=_link(existing)))
                return
            lobby = Lobby(
                id=f"L{interaction.id:x}",
                guild_id=interaction.guild_id,
                channel_id=channel_id,
                host_id=interaction.user.id,
                options=options,
                opened_at=(now := self.clock()),
                active_at=now,
            )
            lobby.join(interaction.user.id, interaction.user.display_name)
            # Posted first, stored after: a lobby is never kept without its message (a
            # click on the new buttons waits on the lock until the lobby is stored).
            # The deferred reply is ephemeral (a refusal had to be): a note to the host,
            # and the lobby itself as a public followup.
            try:
                message = await announce(
                    interaction,
                    texts.LOBBY_OPENED,
                    embed=lobby_embed(lobby),
                    view=lobby_view(lobby),
                )
            except SEND_FAULTS as exc:
                log.warning("lobby %s: cannot post its message (%s)", lobby.id, fault_words(exc))
                await self._not_posted(interaction, exc)
                return
            lobby.message_id = message.id
            try:
                await self.book.open(lobby)
            except BotError as exc:  # a storage fault: the posted lobby must not look open
                log.warning("lobby %s: cannot store it: %s", lobby.id, exc)
                await self._not_stored(interaction, lobby, message)
                return
        log.info("lobby %s opened in channel %s", lobby.id, channel_id)

    async def join(self, interaction: discord.Interaction, cid: ComponentId | None = None) -> None:
        """Take a seat."""
        user = interaction.user

        def change(lobby: Lobby) -> str:
            lobby.join(user.id, user.display_name)
            return texts.JOINED.format(seat=len(lobby.seats))

        await self._change(interaction, cid, change)

    async def leave(self, interaction: discord.Interaction, cid: ComponentId | None = None) -> None:
        """Give up a seat; the last human leaving closes the lobby."""

        def change(lobby: Lobby) -> str:
            lobby.leave(interaction.user.id)
            return texts.LEFT

        await self._change(interaction, cid, change)

    async def add_ai(
        self,
        interaction: discord.Interaction,
        cid: ComponentId | None = None,
        strength: str | None = None,
    ) -> None:
        """The host adds an AI player (at `strength`, default the table's)."""

        def change(lobby: Lobby) -> str:
            seat = lobby.add_ai(interaction.user.id, strength)
            return texts.AI_ADDED.format(strength=lobby.strength_of(seat), seat=len(lobby.seats))

        await self._change(interaction, cid, change)

    async def kick(
        self,
        interaction: discord.Interaction,
        player: discord.abc.User | None,
        seat: int | None,
    ) -> None:
        """The host removes a member (`player`) or any seat by its number (`seat`, 1-based)."""

        def change(lobby: Lobby) -> str:
            if player is not None:
                index = lobby.seat_of(player.id)
                if index is None:
                    raise LobbyError(texts.NOT_IN_LOBBY.replace("You are", f"{player.mention} is"))
            elif seat is not None:
                index = seat - 1
            else:
                raise LobbyError(texts.KICK_WHO)
            removed = lobby.kick(interaction.user.id, index)
            name = removed.name if removed.is_ai else f"<@{removed.user_id}>"
            return texts.KICKED.format(seat=index + 1, name=name)

        await self._change(interaction, None, change)

    async def start(self, interaction: discord.Interaction, cid: ComponentId | None = None) -> None:
        """The host starts the game: the lobby closes and the session takes over."""
        channel_id = interaction.channel_id
        if interaction.guild_id is None or channel_id is None:
            await answer(interaction, texts.GUILD_ONLY)
            return
        if missing := missing_here(interaction):  # lost since the lobby opened
            await answer(interaction, texts.MISSING_HERE.format(names=", ".join(missing)))
            return
        await acknowledge(interaction, update=cid is not None)
        if refusal := await thread_refusal(interaction):  # locked, or left, since it opened
            await answer(interaction, refusal)
            return
        async with self.book.lock(channel_id):
            lobby = await self._current(interaction, cid)
            if lobby is None:
                return
            try:
                table = lobby.check_start(interaction.user.id)
            except LobbyError as exc:
                await answer(interaction, str(exc))
                return
            if self.launcher.game_in(channel_id) is not None:
                # Started already (the bot stopped between storing the game and closing
                # the lobby): never a second game in the channel.
                await self._close_started(lobby)
                await answer(interaction, texts.GAME_ALREADY_HERE)
                return
            if (full := self.launcher.why_full(interaction.guild_id)) is not None:
                await answer(interaction, full)  # the lobby stays open for later
                return
            game_id = await self.launcher.launch(lobby, table)
            await self._close_started(lobby)
            log.info("lobby %s started game %s", lobby.id, game_id)
            await self._show_closed(interaction, lobby, texts.LOBBY_STARTED, from_button=cid)

    async def cancel(self, interaction: discord.Interaction) -> bool:
        """Close the channel's lobby (host or Manage Server). False if there is none, the
        interaction then deferred as an ephemeral reply."""
        channel_id = interaction.channel_id
        if interaction.guild_id is None or channel_id is None:
            await answer(interaction, texts.GUILD_ONLY)
            return True  # answered
        await acknowledge(interaction)  # the lobby may have to be read from the database
        async with self.book.lock(channel_id):
            lobby = await self.book.get(channel_id)
            if lobby is None:
                return False
            perms = interaction.permissions
            if interaction.user.id != lobby.host_id and not perms.manage_guild:
                await answer(
                    interaction,
                    texts.HOST_ONLY.format(host=f"<@{lobby.host_id}>", act=texts.ACT_CANCEL),
                )
                return True
            await self.book.close(lobby)
            reason = texts.LOBBY_CANCELLED.format(by=interaction.user.mention)
            try:
                await announce(interaction, texts.LOBBY_CANCEL_DONE, content=reason)
            except SEND_FAULTS as exc:
                # Closed already: the lobby message says so (below), and the member hears
                # that it is done, never that nothing changed.
                log.warning(
                    "lobby %s: its cancel was not announced (%s)",
                    lobby.id,
                    fault_words(exc),
                )
                await answer(interaction, texts.LOBBY_CANCEL_DONE, quiet=True)
            await self._edit_lobby_message(interaction, lobby, closed_embed(lobby, reason), None)
        log.info("lobby %s cancelled", lobby.id)
        return True

    # --- buttons ----------------------------------------------------------------------

    async def on_click(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """A lobby button: Join, Leave, Add AI or Start."""
        if cid.action == JOIN:
            await self.join(interaction, cid)
        elif cid.action == LEAVE:
            await self.leave(interaction, cid)
        elif cid.action == ADD_AI:
            await self.add_ai(interaction, cid)
        elif cid.action == START:
            await self.start(interaction, cid)
        else:
            await answer(interaction, texts.UNKNOWN_COMPONENT)

    # --- plumbing ---------------------------------------------------------------------

    async def _current(
        self, interaction: discord.Interaction, cid: ComponentId | None
    ) -> Lobby | None:
        """The channel's lobby, or None after answering why there is none."""
        assert interaction.channel_id is not None
        lobby = await self.book.get(interaction.channel_id)
        if cid is not None and (
            lobby is None or lobby.id != cid.game or not _on_lobby_message(interaction, lobby)
        ):
            # A button of a closed lobby, or a forged one on another message (whose
            # deferred update would otherwise rewrite that message into the lobby).
            await answer(interaction, texts.STALE_LOBBY)
            return None
        if lobby is None:
            await answer(interaction, texts.NO_LOBBY_HERE)
            return None
        return lobby

    async def _change(
        self, interaction: discord.Interaction, cid: ComponentId | None, change: Change
    ) -> None:
        channel_id = interaction.channel_id
        if interaction.guild_id is None or channel_id is None:
            await answer(interaction, texts.GUILD_ONLY)
            return
        await acknowledge(interaction, update=cid is not None)
        async with self.book.lock(channel_id):
            lobby = await self._current(interaction, cid)
            if lobby is None:
                return
            draft = lobby.copy()
            try:
                note = change(draft)
            except LobbyError as exc:
                await answer(interaction, str(exc))
                return
            if not draft.humans:  # the last member left: nobody could start it
                await self.book.close(draft)
                await self._show_closed(interaction, draft, texts.LOBBY_EMPTY_CLOSED, cid)
                return
            draft.active_at = self.clock()  # a change: the lobby is not stale (`current`)
            if cid is not None and draft.message_id is None:
                # A lobby stored without its message (an older release): the clicked
                # message carries its buttons, so it is the lobby message from now on.
                assert interaction.message is not None  # a click always has one
                draft.message_id = interaction.message.id
            await self.book.save(draft)
            if cid is not None:  # the deferred update edits the clicked lobby message
                await self._show_click(
                    interaction, draft, note, lobby_embed(draft), lobby_view(draft)
                )
            else:  # stored: the lobby message shows it first, then the member hears it
                await self._edit_lobby_message(
                    interaction, draft, lobby_embed(draft), lobby_view(draft)
                )
                await answer(interaction, note, quiet=True)

    async def _close_started(self, lobby: Lobby) -> None:
        """Close a lobby whose game is stored (and runs). A storage fault here changes
        nothing of the game, so the member must hear that it started: the lobby is
        forgotten all the same, and its row, if the delete failed, is dropped when it is
        read back (its game is found by the lobby's id) or replaced by the next lobby."""
        try:
            await self.book.close(lobby)
        except BotError as exc:
            log.warning("lobby %s: its game started, but cannot close it: %s", lobby.id, exc)
            self.book.forget(lobby)

    async def _show_closed(
        self,
        interaction: discord.Interaction,
        lobby: Lobby,
        reason: str,
        from_button: ComponentId | None,
    ) -> None:
        embed = closed_embed(lobby, reason)
        if from_button is not None:  # acknowledged as a deferred update of the lobby message
            await self._show_click(interaction, lobby, reason, embed, None)
        else:
            # Closed already (and a game maybe started): the message says so first, and
            # a failed answer never reaches the generic "unchanged".
            await self._edit_lobby_message(interaction, lobby, embed, None)
            await answer(interaction, reason, quiet=True)  # the member's ephemeral answer

    async def _show_click(
        self,
        interaction: discord.Interaction,
        lobby: Lobby,
        note: str,
        embed: discord.Embed,
        view: discord.ui.View | None,
    ) -> None:
        """Show a click's change, already saved, in the clicked lobby message (the
        deferred update). If that edit fails (the message was deleted meanwhile, Discord
        failed), the change stands all the same: the lobby message is edited (or posted
        again) through the channel, best effort, and the member hears `note`, what was
        done, never that nothing changed (a retry would be refused as done already)."""
        try:
            await interaction.edit_original_response(embed=embed, view=view)
            return
        except SEND_FAULTS as exc:
            # The fault only: nothing of the lobby, and no member's name.
            log.warning(
                "lobby %s: could not show the lobby in the clicked message (%s)",
                lobby.id,
                fault_words(exc),
            )
        await self._edit_lobby_message(interaction, lobby, embed, view)
        await answer(interaction, note, quiet=True)

    async def _not_posted(self, interaction: discord.Interaction, exc: BaseException) -> None:
        """Tell the member that /newgame opened nothing, and why (in place of the note
        that said it opened)."""
        if isinstance(exc, discord.Forbidden):
            why = texts.LOBBY_NOT_POSTED_FORBIDDEN
        elif isinstance(exc, discord.HTTPException):
            why = texts.LOBBY_NOT_POSTED
        else:  # the network failed: the message may have gone up (its buttons are dead)
            why = texts.LOBBY_NOT_POSTED_NETWORK
        try:
            await interaction.edit_original_response(content=why)
        except SEND_FAULTS:
            await answer(interaction, why, quiet=True)

    async def _not_stored(
        self, interaction: discord.Interaction, lobby: Lobby, message: discord.WebhookMessage
    ) -> None:
        """Close the lobby message just posted for a lobby the database refused, and tell
        the member (best effort: the buttons of an unstored lobby answer "closed")."""
        embed = closed_embed(lobby, texts.LOBBY_NOT_STORED_CLOSED)
        try:
            await message.edit(embed=embed, view=None)
        except SEND_FAULTS as exc:
            log.warning("lobby %s: cannot close its message (%s)", lobby.id, fault_words(exc))
        try:
            await interaction.edit_original_response(content=texts.LOBBY_NOT_STORED)
        except SEND_FAULTS:
            await answer(interaction, texts.LOBBY_NOT_STORED, quiet=True)

    async def _edit_lobby_message(
        self,
        interaction: discord.Interaction,
        lobby: Lobby,
        embed: discord.Embed,
        view: discord.ui.View | None,
    ) -> Lobby:
        """Edit the lobby message; if it was deleted (or never stored), post a fresh one
        (open lobbies only). Returns the lobby as saved (with its new message's id)."""
        channel = interaction.client.get_partial_messageable(
            lobby.channel_id, guild_id=lobby.guild_id
        )
        if lobby.message_id is not None:
            # Best effort: the lobby is saved already, and a button left stale by a failed
            # edit gets a precise answer when clicked.
            try:
                await channel.get_partial_message(lobby.message_id).edit(embed=embed, view=view)
                return lobby
            except discord.NotFound:
                pass  # deleted: an open lobby gets a fresh message below
            except SEND_FAULTS as exc:
                log.warning("lobby %s: cannot edit its message (%s)", lobby.id, fault_words(exc))
                return lobby
        if view is None:
            return lobby  # a closed lobby needs no new message
        try:
            message = await channel.send(embed=embed, view=view)
        except SEND_FAULTS as exc:
            log.warning("lobby %s: cannot post its message again (%s)", lobby.id, fault_words(exc))
            return lobby
        fresh = lobby.copy()
        fresh.message_id = message.id
        try:
            await self.book.save(fresh)
        except BotError as exc:
            # The change that led here is saved; only the new message's id is not, and a
            # later edit of the old id posts the lobby again.
            log.warning("lobby %s: cannot store its new message (%s)", lobby.id, type(exc).__name__)
            return lobby
        return fresh


def _on_lobby_message(interaction: discord.Interaction, lobby: Lobby) -> bool:
    """Whether a click came from the lobby's own message. A lobby stored without one (an
    older release) accepts its buttons wherever they are: there is nothing to compare."""
    if lobby.message_id is None:
        return True
    return interaction.message is not None and interaction.message.id == lobby.message_id


def _link(lobby: Lobby) -> str:
    if lobby.message_id is None:
        return "(above)"
    return f"https://discord.com/channels/{lobby.guild_id}/{lobby.channel_id}/{lobby.message_id}"
