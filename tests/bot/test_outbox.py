"""The game's outbox: order, the delivery cursor, and what the session does when its
front-end reports that the game cannot be shown (abandoned) or lacks a permission
(paused until the same message goes through)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.outbox import Outbox
from bot.ports import PermissionLost, PlaceLost, Post, Table
from bot.storage import Storage

from .conftest import UNTIMED, members, until


def _table() -> Table:
    return Table(1, ())


async def test_messages_are_delivered_in_order_and_a_defect_skips_one_message_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    shown: list[str] = []

    def fault(method: str, table: Table, payload: Any) -> None:
        if isinstance(payload, Post) and payload.text == "bad":
            raise ValueError("a rendering bug")
        shown.append(payload.text)

    fake = FakeFrontend(fault=fault)
    cursor: list[int] = []

    async def on_shown(shown_count: int) -> None:
        cursor.append(shown_count)

    outbox = Outbox(1, fake, on_shown=on_shown)
    outbox.start()
    for mark, text in enumerate(["one", "bad", "two", "three"]):
        outbox.put(Post(text), _table(), mark)
    await outbox.finish(5.0)
    assert outbox.delivered == outbox.queued == 4  # a defect skips a message, not holds it
    assert shown == ["one", "two", "three"]
    assert outbox.shown == 3 and cursor == [3]  # stored once, when the burst is shown
    assert "failed to show a Post: ValueError at " in caplog.text
    # The error's words may quote a private message: never at INFO or above.
    for record in caplog.records:
        if record.levelno >= logging.INFO:
            assert "a rendering bug" not in record.getMessage() and record.exc_info is None


async def test_a_stray_cancellation_from_the_front_end_skips_one_message_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A library that leaks a CancelledError out of a send (a connection pool closing,
    # say) has not stopped the outbox: only `finish` or a cancel of its task does. Were
    # it to end the outbox, every later message and prompt of the game would be lost.
    shown: list[str] = []

    def fault(method: str, table: Table, payload: Any) -> None:
        if isinstance(payload, Post) and payload.text == "bad":
            raise asyncio.CancelledError()
        shown.append(payload.text)

    outbox = Outbox(1, FakeFrontend(fault=fault))
    outbox.start()
    for mark, text in enumerate(["one", "bad", "two"]):
        outbox.put(Post(text), _table(), mark)
    await until(lambda: shown == ["one", "two"])
    assert outbox.running
    outbox.put(Post("three"), _table(), 3)
    await outbox.finish(5.0)
    assert shown == ["one", "two", "three"]
    assert "failed to show a Post" in caplog.text


async def test_the_outbox_still_stops_when_its_task_is_cancelled() -> None:
    gate = asyncio.Event()

    class Stuck(FakeFrontend):
        async def post(self, table: Table, post: Post) -> None:
            await gate.wait()  # a send that never returns

    outbox = Outbox(1, Stuck())
    outbox.start()
    outbox.put(Post("never shown"), _table(), 0)
    await asyncio.sleep(0.01)
    outbox.put(Post("nor this"), _table(), 1)
    await outbox.finish(0.05)  # gives up on the send: cancels the task
    # And the counts say so: a stop leaves a game whose reveal this was running, for
    # the restart to show it.
    assert not outbox.running and (outbox.delivered, outbox.queued) == (0, 2)


async def test_seen_resolves_once_everything_queued_before_it_is_delivered() -> None:
    gate = asyncio.Event()

    class Slow(FakeFrontend):
        async def post(self, table: Table, post: Post) -> None:
            await gate.wait()
            await super().post(table, post)

    outbox = Outbox(1, Slow())
    outbox.start()
    outbox.put(Post("first"), _table(), 0)
    seen = outbox.seen()
    await asyncio.sleep(0.01)
    assert not seen.done()
    gate.set()
    await asyncio.wait_for(seen, 5)
    await outbox.finish(5.0)


async def test_a_game_whose_channel_is_gone_is_abandoned_and_its_ai_stops(
    session_store: Storage,
) -> None:
    gone = asyncio.Event()

    def fault(method: str, table: Table, payload: Any) -> None:
        if gone.is_set():
            raise PlaceLost("The channel of this game was deleted.")

    fake = FakeFrontend(answer=scripted, fault=fault)
    manager = SessionManager(session_store, fake)
    # Two humans answering at once and eight AI players: the game moves on its own.
    session = await manager.create(members(2), players=10, fill_with_ai=True, options=UNTIMED)
    await until(lambda: len(session.game.actions) >= 3)
    gone.set()
    await asyncio.wait_for(session.wait_closed(), 10)
    assert session.abandoned == "The channel of this game was deleted."
    stored = await session_store.load_game(session.game_id)
    assert stored.status == "abandoned"
    assert stored.pause_reason == "The channel of this game was deleted."
    moves = len(stored.record.actions)
    await asyncio.sleep(0.3)  # no AI goes on playing a game nobody can see
    assert len((await session_store.load_game(session.game_id)).record.actions) == moves
    assert not session.game.is_over
    # Never resumed, never counted.
    assert await SessionManager(session_store, FakeFrontend()).recover() == []
    assert (await session_store.player_stats(100)).games == 0


async def test_a_lost_permission_pauses_the_game_until_the_same_message_goes_through(
    session_store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    denied = asyncio.Event()
    refused: list[str] = []

    def fault(method: str, table: Table, payload: Any) -> None:
        if denied.is_set():
            refused.append(method)
            raise PermissionLost(
                "The bot may not Send Messages in this channel.", ["Send Messages"]
            )

    fake = FakeFrontend(answer=scripted, fault=fault)
    manager = SessionManager(session_store, fake)
    session = await manager.create(members(2), players=10, fill_with_ai=True, options=UNTIMED)
    session.outbox.probe_s = 0.05  # try again quickly in a test
    await until(lambda: len(session.game.actions) >= 3)
    denied.set()
    await until(lambda: session.paused, timeout=10)
    stored = await session_store.load_game(session.game_id)
    assert stored.status == "paused"
    assert stored.pause_reason == "The bot may not Send Messages in this channel."
    moves = len(stored.record.actions)
    await asyncio.sleep(0.3)
    assert len(session.game.actions) == moves  # nothing happens while nobody can see it
    assert len(refused) > 1  # it keeps trying the same message

    denied.clear()  # the permission is back
    resumed = await _until_resumed(manager, session)
    await asyncio.wait_for(resumed.wait(), 60)
    assert resumed.game.is_over
    assert (await session_store.load_game(session.game_id)).status == "finished"
    assert "messages go through again" in caplog.text


async def _until_resumed(manager: SessionManager, old: Any) -> Any:
    """The session that carries the game on once the manager resumed it."""
    await until(lambda: manager.get(old.game_id) not in (None, old), timeout=10)
    return manager.get(old.game_id)


# --- a redraw while a burst ends -------------------------------------------------------


class _Redrawing(FakeFrontend):
    """Lingers at the end of a burst; counts its flushes, and may ask for a redraw from
    inside one (a delete event handled while the end-of-burst flush runs)."""

    def __init__(self, linger_s: float) -> None:
        super().__init__(linger_s=linger_s)
        self.outbox: Outbox | None = None
        self.redraw_in_flush = False
        self.flushes = 0

    async def flush(self, table: Table) -> None:
        self.flushes += 1
        if self.redraw_in_flush and self.flushes == 1 and self.outbox is not None:
            self.outbox.redraw(table)


@pytest.mark.parametrize("when", ["lingering", "flushing"])
async def test_a_redraw_as_a_burst_ends_does_not_hold_the_cursor_back(when: str) -> None:
    # A message of the game is deleted (its delete event asks for a redraw) while the
    # outbox waits for more at the end of a burst, or runs its end-of-burst flush: the
    # burst is delivered, and the cursor says so once the redraw is done (a cursor left
    # behind would have a restart announce the burst's narration again).
    frontend = _Redrawing(linger_s=0.5 if when == "lingering" else 0.0)
    stored: list[int] = []

    async def on_shown(shown: int) -> None:
        stored.append(shown)

    outbox = Outbox(1, frontend, shown=3, on_shown=on_shown)
    frontend.outbox = outbox
    frontend.redraw_in_flush = when == "flushing"
    outbox.start()
    outbox.put(Post("narration"), _table(), 5)
    if when == "lingering":
        await until(lambda: bool(frontend.of(1, "post")))
        await asyncio.sleep(0.1)  # delivered: the outbox lingers now
        outbox.redraw(_table())
    await until(lambda: frontend.flushes >= 2)
    await outbox.join()
    assert outbox.shown == 5 and stored[-1:] == [5]
    await outbox.finish(5.0)
