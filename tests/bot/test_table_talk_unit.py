"""The AI seats' words, alone (bot.table_talk.TableVoices): no session, a real game; a real
event loop, so a busy thread's timeout is real too."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

import bot.table_talk as talk_module
from agents.talk import TableTalk
from bot.table_talk import TableVoices, TalkUnavailable
from engine import Game
from engine import events as ev

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]


def play(game: Game, sessions: int) -> Game:
    """First legal moves until `sessions` more policies are enacted."""
    enacted = 0
    while enacted < sessions and not game.is_over:
        seat = game.awaiting()[0]
        events = game.apply(game.view(seat).legal_actions[0])
        enacted += sum(isinstance(e, ev.PolicyEnacted) for e in events)
    return game


@pytest.fixture
def thread() -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="talk-test")
    yield executor
    executor.shutdown(wait=True)


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every `TableTalk.hear` call: the thread it ran in and how many events it got."""
    calls: list[tuple[str, int]] = []
    real = TableTalk.hear

    def hear(self: TableTalk, events: Iterable[ev.Event]) -> None:
        events = list(events)
        calls.append((threading.current_thread().name, len(events)))
        real(self, events)

    monkeypatch.setattr(TableTalk, "hear", hear)
    return calls


async def test_without_ai_seats_nobody_speaks(heard: list[tuple[str, int]]) -> None:
    voices = TableVoices(1, play(Game(5, seed=3), 1))
    assert await voices.remarks([], NAMES) == []
    assert await voices.ask(2, [], NAMES) is None
    assert heard == []  # no belief was even built


async def test_the_ai_seats_hear_every_event_once_off_the_event_loop(
    thread: ThreadPoolExecutor, heard: list[tuple[str, int]]
) -> None:
    game = play(Game(5, seed=3), 1)
    voices = TableVoices(1, game, executor=thread)
    words = await voices.ask(2, [2, 3], NAMES)
    assert words is None or (isinstance(words, str) and "%" not in words)  # words, no numbers
    first = len(game.events)
    play(game, 1)
    said = await voices.remarks([2, 3], NAMES)
    assert all(seat in (2, 3) and isinstance(text, str) for seat, text in said)
    assert heard == [("talk-test_0", first), ("talk-test_0", len(game.events) - first)]
    assert await voices.ask(4, [2, 3], NAMES) is None  # not an AI seat: no words


async def test_a_seat_newly_played_by_an_ai_has_them_hear_the_game_from_its_start(
    thread: ThreadPoolExecutor, heard: list[tuple[str, int]]
) -> None:
    game = play(Game(5, seed=3), 2)
    voices = TableVoices(1, game, executor=thread)
    await voices.ask(2, [2], NAMES)
    await voices.ask(2, [2], NAMES)  # nothing new to hear
    await voices.ask(3, [2, 3], NAMES)  # seat 3 handed to an AI since (a timeout, /afk)
    assert [n for _, n in heard] == [len(game.events), 0, len(game.events)]


async def test_a_busy_thread_means_silence_and_the_words_start_over(
    thread: ThreadPoolExecutor,
    heard: list[tuple[str, int]],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The thread is busy with another game's reveal: the game does not wait for words.
    game = play(Game(5, seed=3), 1)
    real = TableTalk.remarks
    stuck = [True]

    def remarks(self: TableTalk, names: Sequence[str]) -> list[tuple[int, str]]:
        if stuck[0]:
            time.sleep(0.3)
            return [(2, "too late")]
        return real(self, names)

    monkeypatch.setattr(talk_module, "TALK_WAIT_S", 0.05)
    monkeypatch.setattr(TableTalk, "remarks", remarks)
    voices = TableVoices(1, game, executor=thread)
    started = time.monotonic()
    with caplog.at_level(logging.INFO, logger="bot.table_talk"):
        assert await voices.remarks([2, 3], NAMES) == []
    assert time.monotonic() - started < 0.25
    assert [r.getMessage() for r in caplog.records] == [
        "game 1: the AI seats did not speak (TimeoutError)"
    ]
    stuck[0] = False
    monkeypatch.setattr(talk_module, "TALK_WAIT_S", 10.0)  # waits for the thread this time
    await voices.remarks([2, 3], NAMES)  # heard anew: the first call's hearing is not trusted
    assert [n for _, n in heard] == [len(game.events), len(game.events)]


async def test_a_fault_means_silence_and_only_its_type_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: TableTalk, names: Sequence[str]) -> list[tuple[int, str]]:
        raise ValueError("Cid is Hitler")  # a message may quote a secret

    monkeypatch.setattr(TableTalk, "remarks", broken)
    voices = TableVoices(1, play(Game(5, seed=3), 1))
    with caplog.at_level(logging.DEBUG, logger="bot.table_talk"):
        assert await voices.remarks([2, 3], NAMES) == []
    assert "Hitler" not in caplog.text and "ValueError" in caplog.text


async def test_remarks_never_hold_the_event_loop(thread: ThreadPoolExecutor) -> None:
    # The loop keeps ticking while the belief work runs in the thread.
    game = play(Game(7, seed=5), 3)
    voices = TableVoices(1, game, executor=thread)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await voices.remarks(list(range(1, 7)), [*NAMES, "Fay", "Gus"])
    ticker.cancel()
    assert ticks > 1


# --- /ask: a fault or a busy thread is told, and the beliefs start over -------------


async def test_a_failed_ask_makes_the_seats_hear_the_game_anew(
    thread: ThreadPoolExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard: list[int] = []
    real_hear = TableTalk.hear

    def hear(self: TableTalk, events: Iterable[ev.Event]) -> None:
        events = list(events)
        heard.append(len(events))
        if len(heard) == 1:
            raise ValueError("part-way")  # the first hearing fails before it is done
        real_hear(self, events)

    monkeypatch.setattr(TableTalk, "hear", hear)
    game = play(Game(5, seed=3), 1)
    voices = TableVoices(1, game, executor=thread)
    with pytest.raises(TalkUnavailable):
        await voices.ask(2, [2, 3], NAMES)
    await voices.ask(2, [2, 3], NAMES)  # heard from the start: the failed hearing is not trusted
    assert heard == [len(game.events), len(game.events)]


async def test_an_ask_never_waits_past_its_time(
    thread: ThreadPoolExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def stuck(self: TableTalk, seat: int, names: Sequence[str]) -> str:
        release.wait(5.0)
        return "too late"

    monkeypatch.setattr(talk_module, "TALK_WAIT_S", 0.05)
    monkeypatch.setattr(TableTalk, "ask", stuck)
    voices = TableVoices(1, play(Game(5, seed=3), 1), executor=thread)
    started = time.monotonic()
    try:
        with pytest.raises(TalkUnavailable):
            await voices.ask(2, [2, 3], NAMES)
        assert time.monotonic() - started < 1.0
    finally:
        release.set()
