"""The information commands after a real game: /history, /stats, /leaderboard, /profile,
/settings, /rules, through discord.py's real dispatch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
import simcord

from bot.discord import info, texts
from bot.ratings import RatedSeat, Rating, ai_key, human_key, rate
from bot.storage import RatingRow

from .driver import Driver
from .harness import Harness, embed_text, public_followup, told
from .test_game_flow import FAST, open_table, reveal_posted, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


async def test_history_stats_leaderboard_and_profile_after_a_game(table: Harness) -> None:
    alice, bob = table.members[:2]
    empty = await alice.slash(table.channel, "history")
    assert told(empty) == texts.SHOWN_BELOW  # the deferred reply: the member's alone
    assert texts.HISTORY_EMPTY in embed_text(public_followup(empty))  # the public followup
    none = await bob.slash(table.channel, "stats")
    assert "has not finished a game" in embed_text(public_followup(none))

    game_id = await start_game(table, [alice], players=5)
    await Driver(table, [alice], seed=7).play(until=lambda: reveal_posted(table))
    game = await table.storage.load_game(game_id)
    winner = (
        "Liberals" if game.winner is not None and game.winner.value == "liberal" else "Fascists"
    )

    history = await bob.slash(table.channel, "history")
    text = embed_text(public_followup(history))  # one public followup
    assert f"`#{game_id}` 5 players · {winner} won (" in text

    stats = await bob.slash(table.channel, "stats", user=alice)
    text = embed_text(public_followup(stats))
    assert "**1** games" in text
    won = game.roles is not None and (game.roles[0].value == "liberal") == (winner == "Liberals")
    assert f"**{int(won)}** wins" in text

    assert game.roles is not None and game.winner is not None
    # The game rated Alice and the AI strength of the other four seats on one ladder.
    seats = [
        RatedSeat(human_key(alice.id) if s == 0 else ai_key("random"), role.party)
        for s, role in enumerate(game.roles)
    ]
    rated = rate(seats, game.winner, {})
    alice_rating = rated[human_key(alice.id)].ordinal
    ai_rating = rated[ai_key("random")].ordinal
    ai_won = sum(role.party is game.winner for role in game.roles[1:])

    board = await bob.slash(table.channel, "leaderboard")
    text = embed_text(public_followup(board))
    alice_line = f"**{alice_rating:.1f}** <@{alice.id}> · {int(won)}/1 wins"
    # FAST plays every strength with "random": the ladder names it after the first.
    ai_line = f"**{ai_rating:.1f}** AI: easy (random) · {ai_won}/4 seats won"
    assert alice_line in text and ai_line in text
    first, second = (alice_line, ai_line) if alice_rating > ai_rating else (ai_line, alice_line)
    assert f"` 1` {first}" in text and f"` 2` {second}" in text
    assert public_followup(board).embeds[0].footer.text == texts.LEADERBOARD_FOOTER
    assert texts.AI_FALLBACKS.format(fallbacks=0, games=1) in text  # the AI never fell back

    profile = await bob.slash(table.channel, "profile", member=alice)
    text = embed_text(public_followup(profile))
    rank = 1 if alice_rating > ai_rating else 2
    mu, sigma = rated[human_key(alice.id)].mu, rated[human_key(alice.id)].sigma
    assert f"Rating **{alice_rating:.1f}** (skill {mu:.1f} ± {sigma:.1f})" in text
    assert f"#{rank} of 2 on the ladder" in text
    assert f"**1** games · **{int(won)}** wins" in text
    role = game.roles[0].value.capitalize()
    assert f"{role}: {int(won)}/1" in text
    unrated = await bob.slash(table.channel, "profile")  # Bob's own: he has not played
    text = embed_text(public_followup(unrated))
    assert texts.PROFILE_UNRATED.format(name=bob.name) in text
    assert "Rating **" not in text and "games ·" not in text


async def test_settings_change_the_defaults_of_new_tables(table: Harness) -> None:
    alice = table.members[0]
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(table.env.create_user("admin"), roles=[admins])

    # /settings is registered for Manage Server only: others do not even see it...
    with pytest.raises(simcord.SetupError, match="not visible"):
        await alice.slash(table.channel, "settings")
    # ...unless a server admin opens it to them: they may look, not change.
    commands = await table.bot.tree.fetch_commands()
    settings = next(c for c in commands if c.name == "settings")
    table.guild.set_command_permissions(settings, {alice: True})
    shown = await alice.slash(table.channel, "settings")
    assert shown.ephemeral and shown.response is not None
    assert "Rules: **standard**" in embed_text(shown.response)
    refused = await alice.slash(table.channel, "settings", variant="rebalanced")
    assert refused.response is not None
    assert refused.response.content == texts.SETTINGS_NEED_MANAGE

    saved = await admin.slash(
        table.channel, "settings", variant="rebalanced", players=8, vote_seconds=45
    )
    assert saved.ephemeral and saved.response is not None
    assert saved.response.content == texts.SETTINGS_SAVED
    assert await table.storage.get_settings(table.guild.id) == {
        "variant": "rebalanced",
        "players": 8,
        "vote_seconds": 45,
    }
    await alice.slash(table.channel, "newgame")
    lobby = embed_text(table.channel_messages()[-1])
    assert (
        "Rules: **rebalanced**" in lobby and "Table: **8**" in lobby and "**45s** per vote" in lobby
    )
    # An option given to /newgame wins over the server's default.
    await alice.slash(table.channel, "cancel")
    await alice.slash(table.channel, "newgame", variant="standard")
    assert "Rules: **standard**" in embed_text(table.channel_messages()[-1])


async def test_rules_are_shown_to_the_asker_only(table: Harness) -> None:
    result = await table.members[0].slash(table.channel, "rules")
    assert result.ephemeral and result.response is not None
    text = embed_text(result.response)
    assert texts.RULES_TITLE in text and "Hitler elected chancellor" in text


def test_the_ladder_shows_every_ai_strength_even_below_the_top() -> None:
    """Players always see where each AI strength stands: the top ten, then a gap, then
    the AI strengths ranked lower, named as the lobby names them."""
    strengths = {"easy": "selfish", "normal": "belief", "strong": "belief-ismcts:seconds=2"}
    rows = [RatingRow(human_key(u), u, f"p{u}", Rating(40.0 - u, 2.0), 5, 3) for u in range(1, 13)]
    rows.insert(2, RatingRow(ai_key("belief"), None, "belief", Rating(34.5, 1.0), 40, 20))
    rows.append(RatingRow(ai_key("selfish"), None, "selfish", Rating(20.0, 1.0), 30, 9))
    lines = info.ladder_lines(rows, strengths)
    assert lines[2] == "` 3` **31.5** AI: normal (belief) · 20/40 seats won"
    assert lines[0] == "` 1` **33.0** <@1> · 3/5 wins"
    assert lines[10:] == [
        texts.LEADERBOARD_GAP,
        "`14` **17.0** AI: easy (selfish) · 9/30 seats won",
    ]
    assert len(lines) == 12  # ranks 11-13 (people) are left out
