"""The post-game analysis, alone (bot.analysis): suspicion tracks and the reveal."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

import bot.analysis as analysis
from bot.analysis import reveal_of, suspicion_after
from bot.suspicion import SuspicionTrack, suspicion_tracks
from engine import Game, Phase

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]
LABELS = [f"{name} (seat {seat})" for seat, name in enumerate(NAMES)]


def first_moves(*, until_over: bool = True) -> Game:
    """A 5-player game played with first legal moves (to its end, or a few moves in)."""
    game = Game(5, seed=3)
    while not game.is_over and (until_over or len(game.actions) < 10):
        seat = game.awaiting()[0]
        game.apply(game.view(seat).legal_actions[0])
    return game


@pytest.fixture
def thread() -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis-test")
    yield executor
    executor.shutdown(wait=True)


async def test_the_tracks_of_a_finished_game_are_computed_in_the_given_thread(
    thread: ThreadPoolExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = first_moves()
    ran_in: list[str] = []

    def tracks(game: Game, names: Sequence[str], seats: Iterable[int]) -> list[SuspicionTrack]:
        ran_in.append(threading.current_thread().name)  # numpy work: never on the loop
        return suspicion_tracks(game, names, seats)

    monkeypatch.setattr(analysis, "suspicion_tracks", tracks)
    got = await suspicion_after(1, game, NAMES, iter([1, 3]), executor=thread)
    assert ran_in == ["analysis-test_0"]
    assert [(t.observer, t.seat) for t in got] == [("The table", None), ("Bob", 1), ("Dee", 3)]
    assert got == suspicion_tracks(game, NAMES, [1, 3])  # the same as computed directly


async def test_when_the_tracks_fail_the_game_ends_without_them(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(game: Game, names: Sequence[str], seats: Iterable[int]) -> list[SuspicionTrack]:
        raise FloatingPointError("the belief ran out")

    monkeypatch.setattr(analysis, "suspicion_tracks", broken)
    with caplog.at_level(logging.WARNING, logger="bot.analysis"):
        assert await suspicion_after(7, first_moves(), NAMES, [1]) == []
    assert [r.getMessage() for r in caplog.records] == ["game 7: no suspicion tracks"]


async def test_nothing_is_analysed_before_the_game_is_over() -> None:
    game = first_moves(until_over=False)
    assert not game.is_over
    with pytest.raises(ValueError):
        await suspicion_after(1, game, NAMES, [1])
    with pytest.raises(ValueError):
        reveal_of(game, LABELS, [])


def test_the_reveal_shows_every_role_every_hidden_event_and_the_tracks() -> None:
    game = first_moves()
    tracks = suspicion_tracks(game, NAMES, [1, 3])
    reveal = reveal_of(game, LABELS, tracks)
    assert (reveal.winner, reveal.reason) == (game.winner, game.win_reason)
    assert reveal.roles == game.roles
    hidden = [e for e in game.events if e.audience is not None]
    assert hidden and list(reveal.hidden) == hidden  # every private event, in order
    assert reveal.suspicion == tuple(tracks)
    assert reveal.view.phase is Phase.GAME_OVER
    assert all(label in reveal.text for label in LABELS)
    assert "How the AI read the table" in reveal.text
    without = reveal_of(game, LABELS, [])  # no belief model ran: no chart, the rest stays
    assert without.suspicion == () and "How the AI read the table" not in without.text
    assert without.hidden == reveal.hidden
