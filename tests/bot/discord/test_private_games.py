"""A game played where not everyone can see (a staff-only channel, a private thread)
stays with those who could: /replay shows its hidden roles and every round to its
players and to members who can see its channel, and to nobody else; /history and the
"Latest" of /stats list it only where it was played (they are posted for the channel
to read). Any member of the server could read such a game round by round, every role
in it, with /replay and the id /history printed (found by a review).

Driven through discord.py's real dispatch on simcord (nothing contacts Discord).
"""

from __future__ import annotations

from pathlib import Path

import discord
from simcord.backend.models.channel import Overwrite
from simcord.enums import OverwriteType

from bot.discord import texts

from .driver import Driver
from .harness import Harness, embed_text, public_followup, told
from .test_game_flow import FAST, open_table, reveal_posted, start_game

SEE = discord.Permissions(view_channel=True, send_messages=True).value


def staff_only(table: Harness, *allowed: int) -> None:
    """The game's channel hidden from @everyone, shown to `allowed` (members, the bot)."""
    backend = table.env.backend
    channel = table.channel.id
    backend.set_overwrite(channel, Overwrite(table.guild.id, OverwriteType.ROLE, allow=0, deny=SEE))
    for member in (*allowed, backend.bot_user.id):
        backend.set_overwrite(channel, Overwrite(member, OverwriteType.MEMBER, allow=SEE, deny=0))


async def played_in_private(table: Harness) -> int:
    """A finished game of alice (and four AI players) in a channel only she and the
    bot can see."""
    alice = table.members[0]
    staff_only(table, alice.id)
    game_id = await start_game(table, [alice], players=5)
    await Driver(table, [alice], seed=7).play(until=lambda: reveal_posted(table))
    return game_id


async def test_a_private_game_is_replayed_only_to_those_who_could_see_it(tmp_path: Path) -> None:
    async with open_table(tmp_path, FAST) as table:
        alice, mallory = table.members[0], table.members[-1]
        game_id = await played_in_private(table)
        elsewhere = table.guild.create_text_channel("general")

        refused = await mallory.slash(elsewhere, "replay", game=game_id)
        assert told(refused) == texts.REPLAY_UNKNOWN.format(game=game_id)  # not said to exist

        shown = await alice.slash(elsewhere, "replay", game=game_id)  # she played it
        assert shown.response is not None and shown.response.ephemeral
        assert "Hitler" in embed_text(shown.response)


async def test_history_lists_a_private_game_only_where_it_was_played(tmp_path: Path) -> None:
    async with open_table(tmp_path, FAST) as table:
        alice, mallory = table.members[0], table.members[-1]
        game_id = await played_in_private(table)
        elsewhere = table.guild.create_text_channel("general")

        public = embed_text(public_followup(await mallory.slash(elsewhere, "history")))
        assert f"#{game_id}`" not in public
        public = embed_text(public_followup(await alice.slash(elsewhere, "stats")))
        assert f"#{game_id}:" not in public  # her own record, but read by the channel

        here = embed_text(public_followup(await alice.slash(table.channel, "history")))
        assert f"#{game_id}`" in here


async def test_stats_and_profile_count_a_private_game_only_where_it_was_played(
    tmp_path: Path,
) -> None:
    """Its "Latest" line was hidden, but /stats in #general counted the private game in
    alice's wins by role, so anyone read the role she held in it (and /profile too)."""
    async with open_table(tmp_path, FAST) as table:
        alice, mallory = table.members[0], table.members[-1]
        game_id = await played_in_private(table)
        elsewhere = table.guild.create_text_channel("general")
        for command, option in (("stats", "user"), ("profile", "member")):
            public = embed_text(
                public_followup(await mallory.slash(elsewhere, command, **{option: alice}))
            )
            assert "1/1" not in public and "0/1" not in public, public  # no role's count
            assert "1 games" not in public and "**1** games" not in public, public
            here = embed_text(
                public_followup(await alice.slash(table.channel, command, **{option: alice}))
            )
            assert "**1** games" in here, here  # where it was played, it counts
        assert (await table.storage.load_game(game_id)).status == "finished"
