"""The post-game analysis of one game: how each AI read the table, and the reveal.

Once a game is over, `GameSession` asks this module for the suspicion tracks
(`bot.suspicion`: the exact belief of the table and of each AI seat, replayed over the
game's events) and for the `Reveal` it shows: every role, every hidden event, the text
reveal and the tracks. Nothing here may be used before the game is over: it reads the
private events of every seat.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor

from engine import Game

from .ports import Reveal
from .render import reveal_text  # imported up front: importing Pillow mid-game stalls the loop
from .suspicion import SUSPICION_THREAD, SuspicionTrack, suspicion_tracks

log = logging.getLogger(__name__)


async def suspicion_after(
    game_id: int,
    game: Game,
    names: Sequence[str],
    ai_seats: Iterable[int],
    *,
    executor: Executor = SUSPICION_THREAD,
) -> list[SuspicionTrack]:
    """The finished game's suspicion tracks (`bot.suspicion.suspicion_tracks`); empty
    when they cannot be computed (logged): the reveal goes on without the chart.

    The numpy work runs in `executor` (by default the suspicion thread, one game at a
    time): it holds the GIL a lot, and many games ending together must not starve the
    event loop.
    """
    if not game.is_over:
        raise ValueError("Suspicion tracks come only once the game is over.")
    seats = list(ai_seats)
    try:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, suspicion_tracks, game, names, seats)
    except Exception:
        log.warning("game %d: no suspicion tracks", game_id, exc_info=True)
        return []


def reveal_of(game: Game, labels: Sequence[str], tracks: Sequence[SuspicionTrack]) -> Reveal:
    """Everything about the finished `game`: roles, hidden events, the text reveal (seats
    named by `labels`) and the suspicion `tracks`."""
    if not game.is_over or game.winner is None or game.win_reason is None:
        raise ValueError("The reveal comes only once the game is over.")
    shown = tuple(tracks)
    return Reveal(
        winner=game.winner,
        reason=game.win_reason,
        roles=game.roles,
        hidden=tuple(e for e in game.events if e.audience is not None),
        text=reveal_text(game.events, game.roles, labels, shown),
        view=game.spectator_view(),
        suspicion=shown,
    )
