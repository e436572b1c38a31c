"""Every open decision stays offered, and its member told, until it is made.

Driven through discord.py's real dispatch on simcord (nothing contacts Discord): a vote
stays open until its result when its last human stops voting (a timeout, /afk); a
deleted game message comes back with its components; a decision edited into an
earlier message pings its member; an edit refused its board image goes in text.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot import notices
from bot.agent_port import InProcessAgents
from bot.config import Timers
from bot.discord import frontend as frontend_module
from bot.discord import texts
from bot.discord.frontend import DiscordFrontend
from bot.discord.games import DiscordGames

from .driver import Driver, components, game_paused, game_progress
from .harness import Harness, harness, text
from .test_delivery_faults import allow_again, deny
from .test_game_flow import FAST, open_table, start_game

Member = simcord.MemberActor

# Long turns (nothing times out by itself), or a short vote (its clock runs out).
LONG = replace(FAST, timers=Timers(turn_seconds=600, vote_seconds=600, afk_after=5))
SHORT_VOTE = replace(FAST, timers=Timers(turn_seconds=600, vote_seconds=2, afk_after=5))


def vote_messages(table: Harness) -> list[discord.Message]:
    """Channel messages offering Ja / Nein."""
    return [
        m for m in table.channel_messages() if any(c.get("label") == "Ja" for c in components(m))
    ]


async def until_vote(table: Harness, driver: Driver) -> discord.Message:
    """Play the members' decisions until a vote message is up; returns it."""
    for _ in range(40):
        await table.until(
            lambda: bool(vote_messages(table)) or bool(driver.pending()), what="a vote"
        )
        if vote_messages(table):
            return vote_messages(table)[0]
        await driver.act(*driver.pending()[0])
    raise AssertionError("no vote came")


def closed_with_result(table: Harness, vote_id: int) -> Callable[[], bool]:
    """Whether the vote message shows the result (every ballot)."""
    return lambda: "**Vote closed.**" in (t := text(table.message(vote_id))) and "Ja:" in t


def public_text(table: Harness) -> str:
    return "\n".join(text(m) for m in table.channel_messages())


# --- 3. a vote stays open until its result --------------------------------------------


async def test_a_vote_stays_open_when_the_last_human_times_out(tmp_path: Path) -> None:
    async with open_table(tmp_path, SHORT_VOTE) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        vote = await until_vote(table, Driver(table, [alice], seed=1))
        # alice never votes: her clock runs out, an AI casts her ballot, the result
        # closes the vote message, which tells it (no second message for it).
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        closed = text(table.message(vote.id))
        assert "ran out of time" in closed  # told before the result, on the vote
        # The channel never reads a line written to alice ("you").
        assert notices.TIME_UP not in public_text(table), closed


# A table where people play, paced: each AI move is held at least this long (the AI
# budget small too: the hold is the longer of the two), longer than the outbox lingers
# at the end of a burst, so the last AI ballot comes in a burst of its own.
PACED_SHORT_VOTE = replace(SHORT_VOTE, ai_pace=0.5, ai_seconds=0.5)


async def test_on_a_paced_table_a_timeout_is_told_on_the_vote_before_its_result(
    tmp_path: Path,
) -> None:
    async with open_table(tmp_path, PACED_SHORT_VOTE) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        vote = await until_vote(table, Driver(table, [alice], seed=1))
        # alice's clock runs out; the AI ballot cast for her comes a pace later, after
        # the burst that told the timeout is over: the vote shows it while it is open.
        await table.until(
            lambda: "ran out of time" in text(table.message(vote.id)), what="the timeout"
        )
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        closed = text(table.message(vote.id))
        assert closed.index("ran out of time") < closed.index("**Vote closed.**"), closed
        # Told once, on the vote message: no message of its own below the vote.
        telling = [m.id for m in table.channel_messages() if "ran out of time" in text(m)]
        assert telling == [vote.id], telling


async def test_a_vote_stays_open_when_the_last_human_steps_away(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        vote = await until_vote(table, Driver(table, [alice], seed=1))
        await alice.slash(table.channel, "afk")
        await table.until(closed_with_result(table, vote.id), what="the result on the vote")
        assert notices.AI_PLAYS_NOW not in public_text(table)
        assert "stepped away" in public_text(table)


# --- 4. an edit refused its board image goes in text --------------------------------


def refuse_next_edit(table: Harness, message_id: int) -> None:
    """Discord refuses the next edit of a message for a missing permission (403 / 50013),
    as it does an edit bringing the board image into a channel without Attach Files."""
    table.env.inject_error(
        "PATCH",
        f"/channels/{table.channel.id}/messages/{message_id}",
        status=403,
        code=50013,
        message="Missing Permissions",
        times=1,
    )


def edits_of(table: Harness, message_id: int) -> list[simcord.HttpLogEntry]:
    path = f"/channels/{table.channel.id}/messages/{message_id}"
    return [e for e in table.env.http_requests if e.method == "PATCH" and e.path == path]


async def test_a_restored_call_refused_its_board_is_shown_in_text(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice, bob = table.members[:2]
        await start_game(table, [alice, bob], players=5)
        driver = Driver(table, [alice, bob], seed=1)
        # A decision of a member's on a round message (a select: not the vote).
        for _ in range(40):
            await driver.next_prompt(lambda: False)
            message, member = driver.pending()[0]
            if any(p.get("type") == 3 for p in driver.mine(message, member)):
                break
            await driver.act(message, member)
        else:
            raise AssertionError("no select came")
        # After a restart the cache cannot tell yet that Attach Files is missing (the
        # games resume before the gateway is ready): the restored round's first edit
        # brings the board and Discord refuses it.
        refuse_next_edit(table, message.id)
        edits = len(edits_of(table, message.id))
        await table.restart()
        await table.until(lambda: len(edits_of(table, message.id)) >= edits + 2, what="2 edits")
        # Shown in text at once: the game neither paused nor warned of a lost permission.
        assert not game_paused(table)
        assert not table.message(message.id).attachments
        await table.until(lambda: bool(driver.mine(table.message(message.id), member)))
        reply = await driver.act(table.message(message.id), member)
        assert reply.startswith("Done"), reply


async def test_a_restored_vote_refused_its_board_is_shown_in_text(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice, bob = table.members[:2]
        await start_game(table, [alice, bob], players=5)
        vote = await until_vote(table, Driver(table, [alice, bob], seed=1))
        refuse_next_edit(table, vote.id)
        edits = len(edits_of(table, vote.id))
        await table.restart()
        await table.until(lambda: len(edits_of(table, vote.id)) >= edits + 2, what="2 edits")
        assert not game_paused(table)
        assert not table.message(vote.id).attachments
        for member in (alice, bob):
            await member.click(table.message(vote.id), label="Ja")
        await table.until(closed_with_result(table, vote.id), what="the result on it")


# --- 1. a deleted game message comes back -------------------------------------------


async def until_select(table: Harness, driver: Driver) -> tuple[discord.Message, Member]:
    """Play the members' decisions until one is a select on a round message (a
    nomination, a power, a claim); returns its message and member."""
    for _ in range(60):
        await driver.next_prompt(lambda: False)
        message, member = driver.pending()[0]
        if any(p.get("type") == 3 for p in driver.mine(message, member)):
            return message, member
        await driver.act(message, member)
    raise AssertionError("no select came")


def offered_again(table: Harness, driver: Driver, member: Member, old: int) -> Callable[[], bool]:
    """Whether a message other than `old` offers `member` a decision."""
    return lambda: any(m.id != old and who is member for m, who in driver.pending())


async def test_a_deleted_call_is_posted_again_and_answers(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        driver = Driver(table, [alice], seed=4)
        message, member = await until_select(table, driver)
        progress = game_progress(table)
        table.env.backend.delete_message(table.channel.id, message.id)  # a moderator
        await table.until(offered_again(table, driver, member, message.id), what="a new call")
        again = next(m for m, who in driver.pending() if m.id != message.id)
        assert table.pinged(again) == {alice.id}  # she lost her components: told again
        asked = prompts_of(table, 0)
        reply = await driver.act(again, member)
        assert reply.startswith(("Done", "You said nothing")), reply
        # A move, or (her claim window over: "say nothing" is no move) her next decision.
        await table.until(
            lambda: game_progress(table) > progress or bool(prompts_of(table, 0) - asked),
            what="the game going on",
        )
        assert not game_paused(table)


def prompts_of(table: Harness, seat: int) -> set[str]:
    """The ids of the prompts the channel's game has open for `seat`."""
    session = table.bot.games.manager.for_channel(table.channel.id)
    return set() if session is None else {p.id for p in session.open_prompts(seat)}


async def test_a_purged_call_is_posted_again(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        driver = Driver(table, [alice], seed=4)
        message, member = await until_select(table, driver)
        older = [m.id for m in table.channel_messages() if m.id < message.id]
        table.env.backend.bulk_delete_messages(table.channel.id, [*older[-2:], message.id])
        await table.until(offered_again(table, driver, member, message.id), what="a new call")
        again = next(m for m, who in driver.pending() if m.id != message.id)
        reply = await driver.act(again, member)
        assert reply.startswith(("Done", "You said nothing")), reply


async def test_a_deleted_vote_is_posted_again_and_counts(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        alice, bob = table.members[:2]
        await start_game(table, [alice, bob], players=5)
        vote = await until_vote(table, Driver(table, [alice, bob], seed=1))
        await alice.click(vote, label="Ja")
        await table.until(lambda: "Waiting for: bob " in text(table.message(vote.id)))
        before = text(table.message(vote.id))
        table.env.backend.delete_message(table.channel.id, vote.id)
        await table.until(lambda: bool(vote_messages(table)), what="the vote again")
        (again,) = vote_messages(table)
        assert again.id != vote.id
        assert text(again) == before  # as it stood: the nomination, who has voted
        assert table.pinged(again) == {bob.id}  # the member still to vote
        await bob.click(again, label="Nein")
        await table.until(closed_with_result(table, again.id), what="the result on it")
        assert again.id not in [m.id for m in vote_messages(table)]


# --- 5. only the outbox posts --------------------------------------------------------


async def test_a_vote_refresh_that_finds_its_message_gone_leaves_the_post_to_the_outbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Which task posts each message of the game: the outbox's alone, or a message may
    # go out while the outbox changes the same state (a result, held narration).
    posters: list[str] = []
    original = DiscordFrontend._post

    async def post(self: DiscordFrontend, *args: Any, **kwargs: Any) -> discord.Message:
        task = asyncio.current_task()
        posters.append(task.get_name() if task is not None else "")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(DiscordFrontend, "_post", post)
    async with open_table(tmp_path, LONG) as table:
        alice, bob = table.members[:2]
        game_id = await start_game(table, [alice, bob], players=5)
        vote = await until_vote(table, Driver(table, [alice, bob], seed=1))
        await table.until(lambda: "Waiting for: alice, bob " in text(table.message(vote.id)))
        before = text(table.message(vote.id))
        await alice.click(vote, label="Ja")  # its edit waits a moment (coalesced)
        # Deleted meanwhile, and the bot missed the gateway's word of it (a reconnect):
        # the coalesced edit alone finds it gone.
        del table.env.backend.messages[table.channel.id][vote.id]
        await table.until(lambda: bool(vote_messages(table)), what="the vote again")
        (again,) = vote_messages(table)
        # As it stood (the nomination leads it), alice's vote counted.
        assert text(again).split("\n")[:2] == before.split("\n")[:2]
        assert "Waiting for: bob " in text(again)
        await bob.click(again, label="Nein")
        await table.until(closed_with_result(table, again.id), what="the result on it")
        assert set(posters) == {f"game-{game_id}-out"}


# --- 2. a decision edited into an earlier message pings its member -------------------


def link_to(table: Harness, message: discord.Message) -> str:
    return f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{message.id}"


def created_with(table: Harness, message: discord.Message, words: str) -> bool:
    """Whether `message` said `words` when it was posted (not only since an edit)."""
    return any(
        name == "MESSAGE_CREATE" and payload.get("id") == str(message.id) and words in str(payload)
        for _, name, payload in table.env.backend.transcript
    )


def told_of(table: Harness, member: Member, message: discord.Message, words: str = "") -> bool:
    """Whether `member` was pinged for `message`'s call (whose line has `words`): by the
    message, posted with it, or by a line linking to it."""
    if member.id in table.pinged(message) and created_with(table, message, words):
        return True
    link = link_to(table, message)
    return any(
        link in text(m) and member.id in table.pinged(m)
        for m in table.channel_messages()
        if m.id != message.id
    )


def pinged_for(
    table: Harness, member: Member, message: discord.Message, words: str
) -> Callable[[], bool]:
    return lambda: told_of(table, member, message, words)


def close_dms(table: Harness, *members: Member) -> None:
    """Their DMs are closed: Discord answers 403 / 50007 to every DM the bot tries."""
    for member in members:
        table.env.inject_error(
            "POST",
            f"/channels/{member.user.dm_channel.id}/messages",
            status=403,
            code=50007,
            message="Cannot send messages to this user",
            times=None,
        )


def session_line(table: Harness) -> tuple[discord.Message, int, int] | None:
    """The message showing a legislative session's call with its components, and the
    President's and Chancellor's member ids it names."""
    for message in table.channel_messages():
        if not any(c.get("label") == texts.BUTTON_HAND for c in components(message)):
            continue
        for line in text(message).splitlines():
            if line.startswith("Legislative session: "):
                president, chancellor = (int(i) for i in re.findall(r"<@(\d+)>", line))
                return message, president, chancellor
    return None


async def test_a_later_nomination_pings_the_president(tmp_path: Path) -> None:
    async with open_table(tmp_path, LONG) as table:
        humans = table.members[:5]
        await start_game(table, humans)
        driver = Driver(table, humans, seed=3)
        edited_in = 0
        for _ in range(80):
            await driver.next_prompt(lambda: False)
            message, member = driver.pending()[0]
            select = [p for p in driver.mine(message, member) if p.get("type") == 3]
            if select and select[0].get("placeholder", "").endswith(texts.PICK_NOMINEE):
                # Shown on an earlier message (an edit notifies nobody) or on a new one.
                words = "nominate a chancellor"
                await table.until(pinged_for(table, member, message, words), what="a ping")
                edited_in += not created_with(table, message, words)
                if edited_in >= 2:
                    break
            await driver.act(message, member)
        assert edited_in >= 2

        # One ping line at a time: the previous one is deleted.
        def lines() -> list[str]:
            return [text(m) for m in table.channel_messages() if "/channels/" in text(m)]

        await table.until(lambda: len(lines()) == 1, what=f"one ping line: {lines()}")


async def until_session(
    table: Harness, driver: Driver, humans: list[Member]
) -> tuple[discord.Message, Member, Member]:
    """Play until a legislative session's line is up; its message, President and
    Chancellor."""
    for _ in range(80):
        await driver.next_prompt(lambda: False)
        shown = session_line(table)
        if shown is not None:
            message, president, chancellor = shown
            return (
                message,
                next(m for m in humans if m.id == president),
                next(m for m in humans if m.id == chancellor),
            )
        await driver.act(*driver.pending()[0])
    raise AssertionError("no session came")


async def discard(table: Harness, president: Member, message: discord.Message) -> None:
    """The President opens their hand and discards."""
    progress = game_progress(table)
    opened = await president.click(message, label=texts.BUTTON_HAND)
    assert opened.response is not None
    await president.click(opened.response, label=components(opened.response)[0]["label"])
    await table.until(lambda: game_progress(table) > progress, what="the discard")


def ping_lines(table: Harness, member: Member) -> list[discord.Message]:
    return [
        m
        for m in table.channel_messages()
        if "/channels/" in text(m) and member.id in table.pinged(m)
    ]


async def test_a_chancellor_whose_dms_are_closed_is_pinged_in_the_channel(
    tmp_path: Path,
) -> None:
    async with open_table(tmp_path, LONG) as table:
        humans = table.members[:5]
        close_dms(table, *humans)
        await start_game(table, humans)
        driver = Driver(table, humans, seed=3)
        message, president, chancellor = await until_session(table, driver, humans)
        words = "Legislative session"
        await table.until(pinged_for(table, president, message, words), what="a ping")
        await discard(table, president, message)
        await table.until(pinged_for(table, chancellor, message, words), what="a ping")
        (line,) = ping_lines(table, chancellor)
        assert text(line) == texts.PING_CALL.format(
            who=f"<@{chancellor.id}>", what=texts.PING_HAND, link=link_to(table, message)
        )
        their_hand = await chancellor.click(message, label=texts.BUTTON_HAND)
        assert their_hand.response is not None and components(their_hand.response)


async def test_the_chancellor_is_pinged_no_sooner_than_the_table_reads_the_discard(
    tmp_path: Path,
) -> None:
    # A clock that stands still: the Chancellor's hand has the President's deadline, so
    # the session's line reads the same for both hands; only the discard's narration
    # (public: that it happened, never what) tells the table the hand moved on.
    def games() -> DiscordGames:
        return DiscordGames(LONG, agents=InProcessAgents(), clock=lambda: 1_800_000_000.0)

    async with harness(tmp_path, games, config=LONG) as table:
        humans = table.members[:5]
        await start_game(table, humans)
        driver = Driver(table, humans, seed=3)
        message, president, chancellor = await until_session(table, driver, humans)
        await table.until(pinged_for(table, president, message, "Legislative"), what="a ping")
        await asyncio.sleep(1.0)  # the burst is over
        assert not ping_lines(table, chancellor)  # not their turn yet
        mark = len(table.env.backend.transcript)
        await discard(table, president, message)
        await table.until(lambda: bool(ping_lines(table, chancellor)), what="their ping")
        (line,) = ping_lines(table, chancellor)
        # The edit showing the discard came first, then the ping.
        events = [
            (name, payload)
            for _, name, payload in table.env.backend.transcript[mark:]
            if name in ("MESSAGE_UPDATE", "MESSAGE_CREATE")
        ]
        shown = next(
            i
            for i, (name, p) in enumerate(events)
            if name == "MESSAGE_UPDATE"
            and p.get("id") == str(message.id)
            and "discards a policy" in str(p)
        )
        pinged = next(
            i
            for i, (name, p) in enumerate(events)
            if name == "MESSAGE_CREATE" and p.get("id") == str(line.id)
        )
        assert shown < pinged
        assert "discards a policy and passes two to" in text(table.message(message.id))


# --- 6. a message deleted while its edit is in flight --------------------------------


async def test_a_call_deleted_while_its_edit_is_in_flight_is_posted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The delete event is handled while the bot's edit of the message is under way (the
    # edit lands, then the message goes): the round is shown clean after the event
    # marked it gone, and the redraw the event asked for must still post it again.
    deleted: list[int] = []
    original = DiscordFrontend._edit

    async def edit(
        self: DiscordFrontend, table_: Any, message_id: int, *args: Any, **kw: Any
    ) -> Any:
        result = await original(self, table_, message_id, *args, **kw)
        state = self.state(table_.game_id)
        with_calls = any(r.message_id == message_id and r.calls for r in state.rounds())
        if not deleted and with_calls and result:
            deleted.append(message_id)
            table.env.backend.delete_message(table.channel.id, message_id)  # a moderator
            await table.until(lambda: message_id in state.gone, what="the delete event")
        return result

    monkeypatch.setattr(DiscordFrontend, "_edit", edit)
    async with open_table(tmp_path, LONG) as table:
        alice = table.members[0]
        await start_game(table, [alice], players=5)
        driver = Driver(table, [alice], seed=4)
        for _ in range(60):
            await driver.next_prompt(lambda: bool(deleted))
            await asyncio.sleep(0.2)  # a call shown by the armed edit goes with its message
            if deleted:
                break
            if pending := driver.pending():
                await driver.act(*pending[0])
        assert deleted, "no round message with a call was edited"
        # Nothing times out (long turns): only the message posted again offers the call.
        await table.until(
            offered_again(table, driver, alice, deleted[0]), what="the call posted again"
        )
        assert deleted[0] not in [m.id for m in table.channel_messages()]


# --- 7. a ping line that fails is tried again; the call is shown regardless ----------

PING_MARK = " → https://discord.com/channels/"  # how a ping line's link begins


def on_the_first_ping_lines(
    monkeypatch: pytest.MonkeyPatch, times: int, fault: Callable[[], None]
) -> list[str]:
    """Calls `fault` (which makes Discord refuse the next post) just before each of the
    first `times` ping lines is posted; returns the lines it refused, as they read."""
    refused: list[str] = []
    original = DiscordFrontend._send

    async def send(self: DiscordFrontend, table_: Any, content: str, **kw: Any) -> Any:
        if PING_MARK in content and len(refused) < times:
            refused.append(content)
            fault()
        return await original(self, table_, content, **kw)

    monkeypatch.setattr(DiscordFrontend, "_send", send)
    return refused


def pinged_by_a_line(table: Harness, line: str) -> Callable[[], bool]:
    """Whether a channel message carries the ping line `line` (its first member's) and
    pinged that member."""
    first = line.splitlines()[0]
    (member,) = re.findall(r"<@(\d+)>", first.split(PING_MARK)[0])
    return lambda: any(
        first in text(m) and int(member) in table.pinged(m) for m in table.channel_messages()
    )


async def until_refused(table: Harness, driver: Driver, refused: list[str]) -> None:
    """Play the members' decisions until a ping line was refused."""
    for _ in range(80):
        await driver.next_prompt(lambda: bool(refused))
        await asyncio.sleep(0.2)  # the burst that pings is over
        if refused:
            return
        if pending := driver.pending():
            await driver.act(*pending[0])
    raise AssertionError("no ping line came")


async def test_a_ping_line_discord_refuses_is_tried_again_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frontend_module, "PING_RETRY_S", 0.3)  # a quiet game tries again

    def refuse() -> None:  # a final refusal of Discord's (not a permission)
        table.env.inject_error(
            "POST",
            f"/channels/{table.channel.id}/messages",
            status=400,
            code=50035,
            message="Invalid Form Body",
            times=1,
        )

    refused = on_the_first_ping_lines(monkeypatch, 2, refuse)
    async with open_table(tmp_path, LONG) as table:
        table.expect_warning("a ping line was not posted")
        humans = table.members[:5]
        await start_game(table, humans)
        driver = Driver(table, humans, seed=3)
        await until_refused(table, driver, refused)
        # Refused twice (at once, then once more at the retry), then posted: the member
        # is told, though the game waits on nobody else (no burst of its own to retry).
        await table.until(pinged_by_a_line(table, refused[0]), what="the ping line again")
        assert len(refused) == 2
        assert not game_paused(table)
        # The game goes on: every later call is shown (a front-end defect would have
        # skipped one, and warned).
        progress = game_progress(table)
        for _ in range(6):
            await driver.next_prompt(lambda: False)
            await driver.act(*driver.pending()[0])
        assert game_progress(table) > progress


async def test_a_ping_line_refused_for_want_of_send_messages_goes_once_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Send Messages is taken away as a call is edited into an earlier message (edits
    # still work): the game pauses as for any message it cannot post, and once the
    # permission is back the member is pinged for that call, not skipped.
    refused = on_the_first_ping_lines(monkeypatch, 1, lambda: deny(table, send_messages=True))
    async with open_table(tmp_path, LONG) as table:
        table.expect_warning("lacks Send Messages")
        humans = table.members[:5]
        await start_game(table, humans)
        driver = Driver(table, humans, seed=3)
        await until_refused(table, driver, refused)
        await table.until(lambda: game_paused(table), what="the game paused")
        allow_again(table)  # the channel update nudges the game
        await table.until(pinged_by_a_line(table, refused[0]), what="the ping line")
        await table.until(lambda: not game_paused(table), what="the game going on")
