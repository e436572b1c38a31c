"""Who may read a finished game: those who could see it played.

A game played where not everyone can see (a staff-only channel, a private thread) stays
with those who could. `/replay` shows a game's hidden roles and every round: only to
its players and to members who can see its channel now. `/history` and the "Latest"
games of `/stats` are posted for a channel to read: they list a game only where its
whole audience could see it, in its own channel or in one @everyone sees.

A channel the bot no longer knows (deleted, or a thread out of its cache) counts as
unseen: its games are shown to their players alone. A private thread counts as unseen
by anyone but its players and the members who moderate threads there: who else is in
it is not in the cache.
"""

from __future__ import annotations

import discord


def may_replay(interaction: discord.Interaction, channel_id: int | None, players: set[int]) -> bool:
    """Whether the member may read a game of `channel_id` round by round (its roles
    included): they played it, or they can see its channel."""
    if interaction.user.id in players:
        return True
    member = interaction.user
    channel = _channel(interaction, channel_id)
    if channel is None or not isinstance(member, discord.Member):
        return False
    seen = channel.permissions_for(member)
    if _private_thread(channel):
        return seen.view_channel and seen.manage_threads
    return seen.view_channel


def listed_here(interaction: discord.Interaction, channel_id: int | None) -> bool:
    """Whether a game of `channel_id` may be named in a list posted in this channel:
    it was played here, or where @everyone can see."""
    if channel_id is not None and channel_id == interaction.channel_id:
        return True
    channel = _channel(interaction, channel_id)
    if channel is None or _private_thread(channel) or interaction.guild is None:
        return False
    return channel.permissions_for(interaction.guild.default_role).view_channel


def _channel(
    interaction: discord.Interaction, channel_id: int | None
) -> discord.abc.GuildChannel | discord.Thread | None:
    guild = interaction.guild
    if guild is None or channel_id is None:
        return None
    return guild.get_channel_or_thread(channel_id)


def _private_thread(channel: discord.abc.GuildChannel | discord.Thread) -> bool:
    return (
        isinstance(channel, discord.Thread) and channel.type is discord.ChannelType.private_thread
    )
