"""Pictures of a game written to a directory (`shbot demo|play|replay --images DIR`).

While a game runs only public pictures are written: the board after each policy (the
same image a Discord channel gets). Once it is over: the final board with every role,
and the suspicion chart. File names start with the game's number, so several games can
share a directory: `game-3-policy-04.png`, `game-3-final.png`, `game-3-suspicion.png`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from engine import Game, GameRecord, PlayerView, Role
from engine import events as ev

from ..suspicion import SuspicionTrack
from .board import render_board
from .chart import render_suspicion_chart


def _write(path: Path, data: bytes) -> Path:
    """Write `data` whole: to a temporary name first, so a reader never sees half a PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    os.replace(partial, path)
    return path


def policy_board(directory: Path, game_id: int, view: PlayerView, names: Sequence[str]) -> Path:
    """The public board right after a policy, named by how many policies are down."""
    policies = view.liberal_policies + view.fascist_policies
    path = directory / f"game-{game_id}-policy-{policies:02d}.png"
    return _write(path, render_board(view, names))


def final_pictures(
    directory: Path,
    game_id: int,
    view: PlayerView,
    names: Sequence[str],
    roles: Sequence[Role],
    tracks: Sequence[SuspicionTrack],
) -> list[Path]:
    """The end of a game: the final board with every role, and the suspicion chart (only
    when suspicion was recorded). Refuses a game still running (`render_board` does)."""
    written = [_write(directory / f"game-{game_id}-final.png", render_board(view, names, roles))]
    if tracks:
        chart = render_suspicion_chart(tracks, names, roles)
        written.append(_write(directory / f"game-{game_id}-suspicion.png", chart))
    return written


def policy_views(record: GameRecord) -> Iterator[PlayerView]:
    """A stored game replayed: the spectator's view right after each policy enacted."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    for action in record.actions:
        if any(isinstance(e, ev.PolicyEnacted) for e in game.apply(action)):
            yield game.spectator_view()
