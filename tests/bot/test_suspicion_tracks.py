"""Suspicion tracks of games whose play the behaviour model deems impossible: the
observer's belief is left with no assignment to weigh, and its track stops there
instead of carrying NaN into the reveal (which once paused a finished game)."""

from __future__ import annotations

import math
import random

from agents.belief import Belief
from bot.render import reveal_text
from bot.suspicion import suspicion_tracks
from engine import Game
from engine import events as ev


def _random_game_with_claims(seed: int) -> Game:
    """Random decisions, and random claims (lies included) whenever a claim is open."""
    game = Game(5, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        for seat in range(game.players):
            claims = list(game.legal_claims(seat))
            if claims and rng.random() < 0.7:
                game.apply(rng.choice(claims))
        if game.is_over:
            break
        seat = game.awaiting()[0]
        game.apply(rng.choice(game.view(seat).legal_actions))
    return game


def test_a_contradicted_belief_ends_its_track_and_the_reveal_still_reads() -> None:
    game = _random_game_with_claims(7)  # seat 2's belief meets an "impossible" claim
    names = [f"P{s}" for s in range(game.players)]
    tracks = suspicion_tracks(game, names, range(game.players))
    for track in tracks:
        for snapshot in track.snapshots:
            assert all(math.isfinite(p) for row in snapshot.marginals for p in row)
    assert _contradicted(game, 2)  # the premise: seat 2's belief ran out of answers
    labels = [f"{n} (seat {s})" for s, n in enumerate(names)]
    text = reveal_text(game.events, game.roles, labels, tuple(tracks))
    assert "nan" not in text.lower()


def _contradicted(game: Game, seat: int) -> bool:
    belief = Belief(game.setup, seat)
    for event in game.events:
        if isinstance(event, ev.GameEnded):
            return False
        if event.visible_to(seat):
            belief.update(event)
            if not all(math.isfinite(p) for row in belief.marginals() for p in row):
                return True
    return False
