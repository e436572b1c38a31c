"""A /cancel request and each agreement to it are stored before the member is told they
count, through discord.py's real dispatch.

They were stored just after the answer (the answer first, within Discord's 3 seconds
of a database that may be slow): a crash in between lost a request its asker had seen
posted, or an agreement its member had been told counted, and a write that failed was
only logged, the member still told it was recorded. Now the interaction is acknowledged
first (privately), the note stored, and only then is the member told, or, if the store
failed, told precisely that nothing was recorded, with the session's note back to what
is stored.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import aiohttp
import discord
import pytest
import simcord

from bot.discord import texts
from bot.discord.components import ComponentId
from bot.discord.frontend import CANCEL
from bot.discord.games import CANCEL_NOTE, DiscordGames
from bot.session import GameSession
from bot.storage import StorageError

from .driver import Driver, components
from .harness import Harness, labels, public_followup, text, told
from .test_game_faults_more import private_texts, public_texts
from .test_game_flow import FAST, open_table, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


class Held:
    """One write of the bookkeeping, held in flight until the test lets it end."""

    def __init__(self) -> None:
        self.arrived = asyncio.Event()  # the write started (and holds the session's turn)
        self.go = asyncio.Event()
        self.fails = False
        self.state = ""  # what it was to store, as JSON
        self.dropping = False  # holds the write that drops the notes, not one of a note

    def end(self, *, fails: bool) -> None:
        """Let the write go on: it fails (the database refuses), or it is stored."""
        self.fails = fails
        self.go.set()


class StateWrites:
    """Wraps the storage's `set_session_state`: records, for each write that succeeded,
    what it stored and how many requests the bot had made of Discord by then; refuses
    every write while `failing`; holds the next writes of a /cancel note while `held`
    lists some (`hold`)."""

    def __init__(self, table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
        self.table = table
        self.done: list[tuple[str, int]] = []  # (the state stored as JSON, requests made)
        self.failing = False
        self.held: list[Held] = []  # the next writes of a /cancel note wait for these
        original: Callable[..., Awaitable[None]] = table.storage.set_session_state

        async def write(game_id: int, state: Any) -> None:
            noting = CANCEL_NOTE in state.get("notes", {})
            if self.held and noting != self.held[0].dropping:
                held = self.held.pop(0)
                held.state = json.dumps(state)
                held.arrived.set()
                await held.go.wait()
                if held.fails:
                    raise StorageError("database is locked")
            if self.failing:
                raise StorageError("database is locked")
            await original(game_id, state)
            self.done.append((json.dumps(state), len(table.env.http_requests)))

        monkeypatch.setattr(table.storage, "set_session_state", write)

    def hold(self, *, dropping: bool = False) -> Held:
        """Hold the next write of a /cancel note in flight (after those held already);
        `dropping`: the next write without one instead (the end dropping the notes)."""
        held = Held()
        held.dropping = dropping
        self.held.append(held)
        return held

    def stored_before(self, marker: str, said: str) -> bool:
        """Whether a state holding `marker` was stored before the bot first sent Discord
        a request whose body holds `said` (the member told)."""
        sent = [i for i, r in enumerate(self.table.env.http_requests) if said in json.dumps(r.json)]
        assert sent, f"nothing sent says {said!r}"
        stored = [made for state, made in self.done if marker in state]
        return bool(stored) and stored[0] <= sent[0]


def request_of(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The public /cancel request, the message whose button players press: a public
    followup of the asker's private acknowledgement."""
    request = public_followup(result)
    assert texts.BUTTON_END_GAME in labels(request)
    return request


def shown_request(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The public /cancel request wherever the interaction posted it."""
    shown = [result.response, *result.followups]
    public = [m for m in shown if m is not None and not m.ephemeral]
    assert len(public) == 1, result
    return public[0]


async def stored_note(table: Harness, game_id: int) -> Any:
    """The /cancel note as the database holds it (None: no request open)."""
    stored = await table.storage.load_game(game_id)
    return (stored.session_state or {}).get("notes", {}).get(CANCEL_NOTE)


async def test_a_request_and_an_agreement_are_stored_before_the_member_is_told(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol, dave = table.members[:4]
    game_id = await start_game(table, [alice, bob, carol, dave], players=5)
    writes = StateWrites(table, monkeypatch)

    asked = await alice.slash(table.channel, "cancel")  # the host: 1 of the 3 needed
    request = shown_request(asked)
    ask = texts.CANCEL_ASK.format(who=alice.mention, count=1, needed=3)
    assert text(request) == ask
    request_id = str((await stored_note(table, game_id))["request"])
    assert writes.stored_before(request_id, ask)  # posted once stored
    assert request_of(asked).id == request.id and told(asked) == texts.CANCEL_ASKED
    assert writes.stored_before(request_id, texts.CANCEL_ASKED)

    agreed = await bob.click(request, label=texts.BUTTON_END_GAME)
    said = texts.CANCEL_AGREED.format(count=2, needed=3)
    assert told(agreed) == said
    assert sorted((await stored_note(table, game_id))["votes"]) == sorted([alice.id, bob.id])
    assert writes.stored_before(str(bob.id), said)
    assert (await table.storage.load_game(game_id)).status == "running"


async def test_a_request_the_database_refuses_is_told_and_nobody_is_asked(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = table.members[:3]
    table.expect_warning("bookkeeping not stored")  # the session logs the failed write
    game_id = await start_game(table, [alice, bob, carol], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    writes = StateWrites(table, monkeypatch)
    writes.failing = True
    before = len(table.channel_messages())

    refused = await alice.slash(table.channel, "cancel")
    assert private_texts(refused) == [texts.CANCEL_NOT_RECORDED]
    assert public_texts(refused) == []  # no request posted: nobody is asked
    assert all(
        not components(m) or texts.BUTTON_END_GAME not in labels(m)
        for m in table.channel_messages()[before:]
    )
    assert session.note(CANCEL_NOTE) is None  # as stored: no request open
    assert await stored_note(table, game_id) is None

    # The database back, /cancel works as ever.
    writes.failing = False
    request = shown_request(await alice.slash(table.channel, "cancel"))
    assert (await stored_note(table, game_id)) is not None
    await bob.click(request, label=texts.BUTTON_END_GAME)
    assert (await table.storage.load_game(game_id)).status == "cancelled"


async def test_an_agreement_the_database_refuses_is_told_and_not_counted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol, dave = table.members[:4]
    table.expect_warning("bookkeeping not stored")
    game_id = await start_game(table, [alice, bob, carol, dave], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    writes = StateWrites(table, monkeypatch)
    request = shown_request(await alice.slash(table.channel, "cancel"))  # 1 of the 3 needed
    writes.failing = True

    refused = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert private_texts(refused) == [texts.CANCEL_AGREE_NOT_RECORDED]
    assert session.note(CANCEL_NOTE)["votes"] == [alice.id]  # as stored: bob's is not in
    assert (await stored_note(table, game_id))["votes"] == [alice.id]

    # Pressed again once the database is back, it counts (and is stored first).
    writes.failing = False
    again = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert told(again) == texts.CANCEL_AGREED.format(count=2, needed=3)
    assert sorted((await stored_note(table, game_id))["votes"]) == sorted([alice.id, bob.id])
    assert (await table.storage.load_game(game_id)).status == "running"


# --- interleavings ------------------------------------------------------------------------
#
# simcord settles one simulated action at a time, so two clicks whose stores overlap
# cannot be played through it: these tests call the bot's handlers directly, with a
# stand-in for each interaction, on the real game, session and database.


class StandIn:
    """A stand-in for the `discord.Interaction` of one member's /cancel or click: it
    records what the member is told (`said`) and what is posted (`posted`); its defer
    waits for `acknowledged` when given, or fails as an expired interaction does
    (`expired`); the public post raises `post_fails` when given, the edit of its reply
    (or of the clicked request) `edit_fails`."""

    _ids = itertools.count(0x7000_0000_0000_0000)

    def __init__(
        self,
        table: Harness,
        member: simcord.MemberActor,
        *,
        acknowledged: asyncio.Event | None = None,
        expired: bool = False,
        post_fails: BaseException | None = None,
        edit_fails: BaseException | None = None,
    ) -> None:
        self.id = next(self._ids)
        self.user = member
        self.channel_id = table.channel.id
        self.guild_id = table.guild.id
        self.permissions = discord.Permissions.none()
        self.said: list[str] = []
        self.posted: list[str] = []
        self.response = _Response(self, acknowledged, expired)
        self.followup = _Followup(self, post_fails)
        self.edit_fails = edit_fails

    async def edit_original_response(self, *, content: str | None = None, **_: Any) -> None:
        """Complete the deferred reply (private, or the clicked request's update)."""
        assert self.response.is_done()
        if self.edit_fails is not None:
            raise self.edit_fails
        self.said.append(content or "")


class _Response:
    def __init__(self, of: StandIn, acknowledged: asyncio.Event | None, expired: bool) -> None:
        self.of, self.acknowledged, self.expired = of, acknowledged, expired
        self.done = False

    def is_done(self) -> bool:
        return self.done

    async def defer(self, **_: Any) -> None:
        if self.acknowledged is not None:
            await self.acknowledged.wait()
        if self.expired:
            raise discord.NotFound(
                SimpleNamespace(status=404, reason="Not Found"),
                {"code": 10062, "message": "Unknown interaction"},
            )
        self.done = True

    async def send_message(self, text: str, **_: Any) -> None:
        self.done = True
        self.of.said.append(text)


class _Followup:
    def __init__(self, of: StandIn, post_fails: BaseException | None) -> None:
        self.of, self.post_fails = of, post_fails

    async def send(self, content: str | None = None, *, ephemeral: bool = False, **_: Any) -> None:
        if ephemeral:
            self.of.said.append(content or "")
        elif self.post_fails is not None:
            raise self.post_fails
        else:
            self.of.posted.append(content or "")


def run(work: Awaitable[None]) -> asyncio.Task[None]:
    """`work` as a task of its own, outside simcord's settling (as a handler runs)."""

    async def body() -> None:
        await work

    loop = asyncio.get_running_loop()
    task: asyncio.Task[None] = contextvars.Context().run(loop.create_task, body())
    return task


def games_of(table: Harness) -> DiscordGames:
    games = table.bot.games
    assert isinstance(games, DiscordGames)
    return games


async def click_end(table: Harness, game_id: int, request: str, who: StandIn) -> None:
    """`who` presses **End the game** on the request `request`."""
    await games_of(table).on_click(
        cast(discord.Interaction, who), ComponentId(str(game_id), CANCEL, request)
    )


async def all_humans(table: Harness) -> tuple[int, GameSession]:
    """A 5-player game of five members (3 agreements end it), waiting for a human."""
    members = table.members[:5]
    game_id = await start_game(table, members, players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    driver = Driver(table, members, seed=1)
    await table.until(lambda: bool(driver.pending()), what="a prompt shown")
    return game_id, session


def open_id(session: GameSession) -> str:
    note = session.note(CANCEL_NOTE)
    assert note is not None
    return str(note["request"])


async def test_a_failed_store_rolls_back_to_what_is_stored_not_to_an_unstored_agreement(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("bookkeeping not stored")
    game_id, session = await all_humans(table)
    writes = StateWrites(table, monkeypatch)
    await alice.slash(table.channel, "cancel")  # R0, stored: alice's 1 of 3
    first = open_id(session)

    # Bob agrees to R0; his store is in flight when the host asks again (R1).
    bobs, renewed = writes.hold(), writes.hold()
    bob_clicks = StandIn(table, bob)
    agreeing = run(click_end(table, game_id, first, bob_clicks))
    await bobs.arrived.wait()
    asking = run(games_of(table).cancel(cast(discord.Interaction, StandIn(table, alice))))
    await table.until(lambda: open_id(session) != first, what="R1 noted")
    await asyncio.sleep(0.01)  # its store waits behind bob's
    bobs.end(fails=True)
    await agreeing
    # Not "press again" on R0's button: R1 replaced it (unless R1's store fails too, and
    # then R0 is the latest request shown).
    assert bob_clicks.said == [texts.CANCEL_AGREE_NOT_RECORDED_REPLACED]
    await renewed.arrived.wait()
    assert open_id(session) != first
    renewed.end(fails=True)
    await asking

    # Back to R0 as the database holds it: bob's refused agreement is not in it, and
    # the next write of the bookkeeping does not store it either.
    assert session.note(CANCEL_NOTE) == await stored_note(table, game_id)
    assert session.note(CANCEL_NOTE)["votes"] == [alice.id]
    assert await session.store_notes()
    assert (await stored_note(table, game_id))["votes"] == [alice.id]


async def test_an_agreement_to_a_request_replaced_meanwhile_is_not_told_it_counted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    game_id, session = await all_humans(table)
    await alice.slash(table.channel, "cancel")  # R0
    first = open_id(session)

    # Bob's click is slow to be acknowledged; the host asks again (R1) meanwhile.
    acknowledged = asyncio.Event()
    bob_clicks = StandIn(table, bob, acknowledged=acknowledged)
    agreeing = run(click_end(table, game_id, first, bob_clicks))
    await table.until(lambda: bob.id in session.note(CANCEL_NOTE)["votes"])
    await alice.slash(table.channel, "cancel")
    assert open_id(session) != first
    acknowledged.set()
    await agreeing

    assert (await stored_note(table, game_id))["votes"] == [alice.id]  # R1's, without bob
    assert bob_clicks.said == [texts.CANCEL_STALE]


async def test_a_second_click_while_the_first_is_being_stored_is_not_told_it_counted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = table.members[:2]
    table.expect_warning("bookkeeping not stored")
    game_id, session = await all_humans(table)
    writes = StateWrites(table, monkeypatch)
    await alice.slash(table.channel, "cancel")
    first = open_id(session)

    held = writes.hold()
    once = StandIn(table, bob)
    agreeing = run(click_end(table, game_id, first, once))
    await held.arrived.wait()
    twice = StandIn(table, bob)
    await click_end(table, game_id, first, twice)  # a double click
    assert twice.said == [texts.CANCEL_AGREE_PENDING]
    held.end(fails=True)
    await agreeing
    assert once.said == [texts.CANCEL_AGREE_NOT_RECORDED]
    assert (await stored_note(table, game_id))["votes"] == [alice.id]


async def test_a_refused_agreement_to_a_game_the_players_ended_meanwhile_hears_it_ended(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = table.members[:3]
    table.expect_warning("bookkeeping not stored")
    game_id, session = await all_humans(table)
    writes = StateWrites(table, monkeypatch)
    await alice.slash(table.channel, "cancel")
    first = open_id(session)

    held = writes.hold()
    bobs = StandIn(table, bob)
    agreeing = run(click_end(table, game_id, first, bobs))
    await held.arrived.wait()
    # Carol's agreement is the third: the game ends, its notes go (their write waits).
    carols = StandIn(table, carol)
    ending = run(click_end(table, game_id, first, carols))
    await table.until(lambda: session.note(CANCEL_NOTE) is None, what="the notes dropped")
    held.end(fails=True)
    await agreeing
    await ending
    assert session.is_over
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert carols.said == [texts.GAME_CANCELLED]
    assert bobs.said == [texts.CANCEL_GAME_OVER]  # not "press again"


async def test_a_cancel_whose_interaction_expired_leaves_the_open_request_as_it_was(
    table: Harness,
) -> None:
    alice, bob = table.members[:2]
    game_id, session = await all_humans(table)
    request = shown_request(await alice.slash(table.channel, "cancel"))  # R0
    first = open_id(session)

    late = StandIn(table, alice, expired=True)  # Discord answers 10062: too late
    with pytest.raises(discord.NotFound):
        await games_of(table).cancel(cast(discord.Interaction, late))
    assert open_id(session) == first  # no newer request that nobody was shown
    agreed = await bob.click(request, label=texts.BUTTON_END_GAME)  # R0's button counts
    assert told(agreed) == texts.CANCEL_AGREED.format(count=2, needed=3)
    assert (await stored_note(table, game_id))["request"] == first


async def test_an_agreement_whose_interaction_expired_is_not_counted(table: Harness) -> None:
    alice, bob = table.members[:2]
    game_id, session = await all_humans(table)
    await alice.slash(table.channel, "cancel")
    first = open_id(session)

    with pytest.raises(discord.NotFound):
        await click_end(table, game_id, first, StandIn(table, bob, expired=True))
    assert session.note(CANCEL_NOTE)["votes"] == [alice.id]  # never told, never counted
    again = StandIn(table, bob)
    await click_end(table, game_id, first, again)
    assert again.said == [texts.CANCEL_AGREED.format(count=2, needed=3)]


@pytest.mark.parametrize(
    ("fault", "reply"),
    [
        (aiohttp.ClientConnectionError("connection reset"), texts.CANCEL_MAYBE_NOT_SHOWN),
        (TimeoutError(), texts.CANCEL_MAYBE_NOT_SHOWN),
        (
            discord.Forbidden(
                SimpleNamespace(status=403, reason="Forbidden"),
                {"code": 50013, "message": "Missing Permissions"},
            ),
            texts.CANCEL_NOT_SHOWN,
        ),
    ],
)
async def test_a_request_stored_but_not_posted_is_told_precisely(
    table: Harness, fault: BaseException, reply: str
) -> None:
    """Refused by Discord, the request is not there; after a transport fault (the post
    may have gone up) the asker is not told that it is not."""
    alice = table.members[0]
    table.expect_warning("the /cancel request was not posted")
    game_id, session = await all_humans(table)

    asks = StandIn(table, alice, post_fails=fault)
    await games_of(table).cancel(cast(discord.Interaction, asks))
    assert asks.posted == []
    assert asks.said == [texts.CANCEL_ASKED, reply]
    assert (await stored_note(table, game_id))["request"] == open_id(session)


@pytest.mark.parametrize(
    "fault", [aiohttp.ClientConnectionError("connection reset"), TimeoutError()]
)
async def test_an_agreement_that_ends_the_game_is_told_so_when_the_request_edit_faults(
    table: Harness, fault: BaseException
) -> None:
    """The agreement that makes the majority cancels the game, then edits the request to
    say so; a network fault there (not an HTTP error) is told as an ended game, not left
    to the generic handler ("the game is unchanged"), which it reached before."""
    alice, bob, carol = table.members[:3]
    table.expect_warning("could not mark the cancel request ended")
    game_id, session = await all_humans(table)
    request = shown_request(await alice.slash(table.channel, "cancel"))
    await bob.click(request, label=texts.BUTTON_END_GAME)
    carols = StandIn(table, carol, edit_fails=fault)
    await click_end(table, game_id, open_id(session), carols)  # raises nothing
    assert session.is_over
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert carols.said == [texts.GAME_CANCELLED]


async def host_alone(table: Harness) -> tuple[int, GameSession]:
    """A 5-player game of one member and four AIs: its host's /cancel alone ends it."""
    game_id = await start_game(table, [table.members[0]], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    return game_id, session


@pytest.mark.parametrize(
    "fault", [aiohttp.ClientConnectionError("connection reset"), TimeoutError()]
)
async def test_a_host_alone_cancel_is_told_so_when_its_reply_edit_faults(
    table: Harness, fault: BaseException
) -> None:
    """The host's /cancel ends the game, then completes its reply; a network fault there
    was caught by no one but the generic handler ("the game is unchanged")."""
    table.expect_warning("could not complete an interaction's reply")
    game_id, session = await host_alone(table)
    asks = StandIn(table, table.members[0], edit_fails=fault)
    await games_of(table).cancel(cast(discord.Interaction, asks))  # raises nothing
    assert session.is_over
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert asks.said == [texts.GAME_CANCELLED]


async def test_a_host_alone_cancel_that_ends_the_game_with_a_fault_is_told_it_ended(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    table.expect_warning("cancelled with a fault")
    game_id, session = await host_alone(table)
    original = session.cancel

    async def cancel(reason: str) -> None:
        await original(reason)
        raise RuntimeError("a fault after the end")

    monkeypatch.setattr(session, "cancel", cancel)
    asks = StandIn(table, table.members[0])
    await games_of(table).cancel(cast(discord.Interaction, asks))  # raises nothing
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert asks.said == [texts.GAME_CANCELLED]


@pytest.mark.parametrize(
    "fault", [aiohttp.ClientConnectionError("connection reset"), TimeoutError()]
)
async def test_a_cancelled_notice_whose_followup_faults_is_posted_to_the_channel(
    table: Harness, fault: BaseException
) -> None:
    from bot.discord.games import _tell_channel

    table.expect_warning("was not told how it ended by a followup")
    sent: list[str] = []

    async def send(notice: str) -> None:
        sent.append(notice)

    tells = StandIn(table, table.members[0], post_fails=fault)
    tells.client = SimpleNamespace(  # type: ignore[attr-defined]
        get_partial_messageable=lambda *_, **__: SimpleNamespace(send=send)
    )
    await _tell_channel(cast(discord.Interaction, tells), 7, "ended")  # raises nothing
    assert sent == ["ended"]


async def a_majority_ending(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, GameSession, str, Held, asyncio.Task[None], StandIn]:
    """Three agreements of five end the game; the third's end is held in flight, its
    notes dropped but their write not done (the game not yet marked over in memory)."""
    alice, bob, carol = table.members[:3]
    game_id, session = await all_humans(table)
    writes = StateWrites(table, monkeypatch)
    request = shown_request(await alice.slash(table.channel, "cancel"))
    await bob.click(request, label=texts.BUTTON_END_GAME)
    first = open_id(session)
    dropped = writes.hold(dropping=True)
    carols = StandIn(table, carol)
    ending = run(click_end(table, game_id, first, carols))
    await dropped.arrived.wait()
    assert session.note(CANCEL_NOTE) is None and not session.is_over
    return game_id, session, first, dropped, ending, carols


async def test_a_press_while_a_majority_ends_the_game_hears_it_is_over(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _, first, dropped, ending, carols = await a_majority_ending(table, monkeypatch)
    daves = StandIn(table, table.members[3])
    late = run(click_end(table, game_id, first, daves))
    await asyncio.sleep(0.01)
    dropped.end(fails=False)
    await ending
    await late
    assert carols.said == [texts.GAME_CANCELLED]
    assert daves.said == [texts.CANCEL_GAME_OVER]  # not "nobody has asked"


async def test_a_cancel_while_a_majority_ends_the_game_asks_nobody(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, session, _, dropped, ending, _ = await a_majority_ending(table, monkeypatch)
    asks = StandIn(table, table.members[0])
    late = run(games_of(table).cancel(cast(discord.Interaction, asks)))
    await asyncio.sleep(0.01)
    dropped.end(fails=False)
    await ending
    await late
    assert asks.posted == []  # no new request for a game being cancelled
    assert asks.said == [texts.GAME_CANCELLED]
    assert (await table.storage.load_game(game_id)).status == "cancelled"
    assert await stored_note(table, game_id) is None
    # And once it is over (its session not yet gone), the same.
    again = StandIn(table, table.members[0])
    if table.bot.games.manager.get(game_id) is session:
        await games_of(table).cancel(cast(discord.Interaction, again))
        assert again.said == [texts.GAME_CANCELLED] and again.posted == []


async def test_an_agreement_taken_back_is_taken_back_from_the_database_too(
    table: Harness,
) -> None:
    """An agreement is noted before its click is acknowledged; if that fails (expired),
    it is taken back, but another write (here the game's own) may have stored it."""
    alice, bob = table.members[:2]
    game_id, session = await all_humans(table)
    await alice.slash(table.channel, "cancel")
    first = open_id(session)

    acknowledged = asyncio.Event()
    late = StandIn(table, bob, acknowledged=acknowledged, expired=True)
    agreeing = run(click_end(table, game_id, first, late))
    await table.until(lambda: bob.id in session.note(CANCEL_NOTE)["votes"])
    assert await session.store_notes()  # another write stores it meanwhile
    acknowledged.set()
    with pytest.raises(discord.NotFound):
        await agreeing
    assert (await stored_note(table, game_id))["votes"] == [alice.id]
