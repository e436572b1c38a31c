"""More faults around the game handlers (bot/discord/games.py) and the AI seats' words
(bot/table_talk.py), through discord.py's real dispatch: a cancel that the database
refuses, a reply that cannot be edited after a choice was stored, an /ask that fails."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import aiohttp
import pytest
import simcord

from agents.talk import TableTalk
from bot import notices
from bot.discord import texts
from bot.storage import StorageError

from .driver import Driver, components
from .harness import Harness, labels, public_followup, text
from .network_faults import NetworkFaults
from .test_game_flow import FAST, open_table, reveal_posted, start_game

# The reply to an interaction (PATCH .../messages/@original): deleted, or refused.
EDIT_ORIGINAL = "/webhooks/*/messages/@original"
EDIT_FAULTS = [(404, 10008, "Unknown Message"), (400, 50035, "Invalid Form Body")]


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


def private_texts(result: simcord.InteractionResult) -> list[str]:
    """Everything the member alone was shown: the ephemeral reply and followups."""
    shown = []
    if result.response is not None and result.response.ephemeral:
        shown.append(result.response.content)
    shown += [f.content for f in result.followups if f.ephemeral]
    return shown


def public_texts(result: simcord.InteractionResult) -> list[str]:
    """Everything the interaction showed the channel."""
    shown = []
    if result.response is not None and not result.response.ephemeral:
        shown.append(result.response.content)
    shown += [f.content for f in result.followups if not f.ephemeral]
    return shown


async def stored_actions_of(table: Harness, game_id: int, seat: int) -> int:
    """How many actions of `seat` the database holds."""
    stored = await table.storage.load_game(game_id)
    return sum(1 for action in stored.record.actions if action.seat == seat)


# --- 1. the last vote of a /cancel request, refused by the database -------------------


async def test_a_cancel_the_database_refuses_leaves_the_game_and_the_request(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = table.members[:3]
    table.expect_error("could not be cancelled")  # logged (its type only), and answered
    game_id = await start_game(table, [alice, bob, carol], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    asked = await alice.slash(table.channel, "cancel")  # the host: 1/2 so far
    request = public_followup(asked)
    assert texts.BUTTON_END_GAME in labels(request)
    real_finish = table.storage.finish_game

    async def refused(*args: object, **kwargs: object) -> None:
        raise StorageError("database is locked")

    monkeypatch.setattr(table.storage, "finish_game", refused)
    before = len(table.channel_messages())
    failed = await bob.click(request, label=texts.BUTTON_END_GAME)  # the needed second vote
    assert private_texts(failed)[-1] == texts.CANCEL_VOTE_FAILED
    assert texts.SOMETHING_WRONG not in private_texts(failed)
    # The channel never said it was cancelled: the request still asks, with its button.
    shown = table.message(request.message.id)
    assert text(shown) != texts.GAME_CANCELLED and texts.BUTTON_END_GAME in labels(shown)
    for message in table.channel_messages()[before:]:
        assert "cancelled" not in text(message).lower(), text(message)
    assert (await table.storage.load_game(game_id)).status == "running"
    assert table.bot.games.game_in(table.channel.id) == game_id and not session.is_over

    # The request stays usable: the same member presses again once the database is back.
    monkeypatch.setattr(table.storage, "finish_game", real_finish)
    again = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert texts.CANCEL_ALREADY.format(count=2, needed=2) not in private_texts(again)
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    ended = table.message(request.message.id)
    assert text(ended) == texts.GAME_CANCELLED and not components(ended)


# --- 2. a choice stored, then its reply cannot be edited ------------------------------


@pytest.mark.parametrize(("status", "code", "message"), EDIT_FAULTS)
async def test_a_choice_counts_though_its_reply_cannot_be_edited(
    table: Harness, status: int, code: int, message: str
) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("could not complete")  # the reply's edit failed: logged
    game_id = await start_game(table, [alice, bob], players=5)
    driver = Driver(table, [alice, bob], seed=4)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    prompt, member = driver.pending()[0]
    seat = table.bot.games.manager.get(game_id).table.seat_of(member.id)  # type: ignore[union-attr]
    assert seat is not None
    before = await stored_actions_of(table, game_id, seat)
    part = driver.mine(prompt, member)[0]
    table.env.inject_error("PATCH", EDIT_ORIGINAL, status=status, code=code, message=message)
    if part.get("type") == 3:  # a nomination (a select)
        value = part["options"][0]["value"]
        result = await member.select(prompt, [value], custom_id=part["custom_id"])
    else:  # a vote
        result = await member.click(prompt, custom_id=part["custom_id"])
    shown = private_texts(result)
    assert texts.SOMETHING_WRONG not in shown, shown
    assert any(s.startswith(("Your vote is in", "Done:")) for s in shown), shown
    assert await stored_actions_of(table, game_id, seat) == before + 1  # it counted


async def test_afk_is_told_though_its_reply_cannot_be_edited(table: Harness) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("could not complete")
    game_id = await start_game(table, [alice, bob], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    table.env.inject_error("PATCH", EDIT_ORIGINAL, status=404, code=10008, message="Unknown")
    result = await bob.slash(table.channel, "afk")
    shown = private_texts(result)
    assert texts.SOMETHING_WRONG not in shown and notices.AWAY in shown, shown
    assert session.table.seats[1].is_ai  # the seat was handed over, as told


@pytest.mark.parametrize("fault", ["refused", "network"])
async def test_a_demo_starts_though_its_announcement_fails(
    table: Harness, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    from bot.discord import games as games_module

    monkeypatch.setitem(games_module.DEMO_PACE, "fast", 0.0)  # no pauses in a test
    table.expect_warning("was not announced")
    alice = table.members[0]
    if fault == "refused":
        table.env.inject_error("PATCH", EDIT_ORIGINAL, status=404, code=10008, message="Unknown")
    else:  # a dropped connection, not Discord's answer: it skipped the start before
        network = NetworkFaults(monkeypatch)
        network.fail("POST", "/webhooks/*", aiohttp.ClientConnectionError("reset"))
    result = await alice.slash(table.channel, "demo", players=5, speed="fast")
    assert texts.SOMETHING_WRONG not in private_texts(result)
    # The game that was stored is played, not left with nobody to move.
    await table.until(lambda: reveal_posted(table), what="the demo's end")


# --- 3. /ask: deferred privately; a fault or a busy thread is told to the member ------


async def test_ask_answers_in_public_after_a_private_defer(table: Harness) -> None:
    alice, bob = table.members[:2]
    await start_game(table, [alice, bob], players=5)
    asked = await alice.slash(table.channel, "ask", seat=2)
    assert asked.response is not None and asked.response.ephemeral  # never a public defer
    said = public_texts(asked)
    assert len(said) == 1 and said[0].startswith("💬 "), said


@pytest.mark.parametrize("fault", ["refused", "network"])
async def test_an_ask_whose_answer_cannot_be_posted_gives_the_member_their_turn_back(
    table: Harness, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """The answer is posted as a public followup; if that fails, the member is told so
    (not "something went wrong"), and only the channel's cooldown stands in the way of
    asking again, not the member's own (they never got an answer)."""
    alice, bob = table.members[:2]
    table.expect_warning("an /ask answer was not posted")
    await start_game(table, [alice, bob], players=5)
    if fault == "refused":
        table.env.inject_error("POST", "/webhooks/*", status=500, code=0, times=1)
    else:
        network = NetworkFaults(monkeypatch)
        network.fail("POST", "/webhooks/*", aiohttp.ClientConnectionError("reset"))
    asked = await alice.slash(table.channel, "ask", seat=2)
    said = private_texts(asked)
    assert said[-1] == texts.ASK_NOT_POSTED and texts.SOMETHING_WRONG not in said
    again = await alice.slash(table.channel, "ask", seat=2)
    assert private_texts(again)[-1].startswith(texts.ASK_CHANNEL_COOLDOWN.split("{")[0])


async def test_an_ask_that_fails_is_told_to_the_member_alone(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("did not answer")  # logged: its type only

    def broken(self: TableTalk, seat: int, names: Sequence[str]) -> str:
        raise ValueError("Cid is Hitler")  # a message may quote a secret

    game_id = await start_game(table, [alice, bob], players=5)
    monkeypatch.setattr(TableTalk, "ask", broken)
    before = len(table.channel_messages())
    asked = await alice.slash(table.channel, "ask", seat=2)
    assert private_texts(asked)[-1] == texts.ASK_FAILED
    assert public_texts(asked) == []
    assert asked.response is None or asked.response.ephemeral
    # Nothing said in the channel (the game's own opening messages may still be coming:
    # counting them raced with it; no seat speaks before a member has moved).
    assert not [m for m in table.channel_messages()[before:] if "💬" in text(m)]
    assert (await table.storage.load_game(game_id)).status == "running"
