"""How suspicion of each seat evolved, as the reveal shows it.

Once a game is over, `suspicion_tracks` replays its events through the exact belief
(`agents.belief`) of the table's observer and of each AI player, and snapshots the
marginals after every legislative session; the renderers draw them. Nothing here may be
shown before the game is over.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from agents.belief import Marginals  # per seat: P(Liberal), P(Fascist), P(Hitler)
from engine import Game
from engine import events as ev

__all__ = [
    "SUSPICION_THREAD",
    "Marginals",
    "SuspicionSnapshot",
    "SuspicionTrack",
    "suspicion_tracks",
]

log = logging.getLogger(__name__)

# Suspicion tracks are computed in this thread, one game after another, so that many games ending
# together do not starve the event loop of the GIL.
SUSPICION_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="suspicion")


@dataclass(frozen=True, slots=True)
class SuspicionSnapshot:
    """One moment of a belief, e.g. label "Session 3"."""

    label: str
    marginals: Marginals


@dataclass(slots=True)
class SuspicionTrack:
    """Every snapshot of one observer: "The table" or an AI player's name and seat."""

    observer: str
    seat: int | None  # None for the table's observer (public information only)
    snapshots: list[SuspicionSnapshot] = field(default_factory=list)


def suspicion_tracks(
    game: Game, names: Sequence[str], ai_seats: Iterable[int]
) -> list[SuspicionTrack]:
    """How the exact Bayesian belief (`agents.belief`) of the table (public events only)
    and of each AI seat (its own information set) judged every seat, snapshot at the
    start and after each legislative session or chaos policy, up to the end.

    Computed once the game is over, from its events: nothing of it is shown before.
    """
    from agents.belief import Belief  # numpy and the behaviour model: only when needed

    tracks = []
    for seat in [None, *ai_seats]:
        belief = Belief(game.setup, seat)
        observer = "The table" if seat is None else names[seat]
        track = SuspicionTrack(observer, seat)
        sessions = 0
        for event in game.events:
            if isinstance(event, ev.GameEnded):
                break  # the end reveals every role: the belief's story stops here
            if not event.visible_to(seat):
                continue
            belief.update(event)
            label = None
            if isinstance(event, ev.PresidentialCandidate) and not track.snapshots:
                label = "Start"
            elif isinstance(event, ev.PolicyEnacted) or (
                isinstance(event, ev.VetoReplied) and event.agreed
            ):
                if isinstance(event, ev.PolicyEnacted) and event.chaos:
                    label = "Chaos"
                else:
                    sessions += 1
                    label = f"Session {sessions}"
            if label is not None:
                marginals = belief.marginals()
                if not all(math.isfinite(p) for seat_m in marginals for p in seat_m):
                    # Play the behaviour model deems impossible left it no assignment to
                    # weigh: its story stops here rather than drawing NaN.
                    log.debug("game: the %s belief has no answer after %s", observer, label)
                    break
                track.snapshots.append(SuspicionSnapshot(label, marginals))
        tracks.append(track)
    return tracks
