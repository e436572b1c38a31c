"""Suspicion tracks of games whose play the behaviour model deems impossible: the
observer's belief is left with no assignment to weigh, and its track stops there
instead of carrying NaN into the reveal (which once paused a finished game)."""

from __future__ import annotations

import math
import random

import pytest

from agents.belief import Belief
from bot.render import reveal_text
from bot.suspicion import suspicion_tracks
from engine import Game


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


def test_a_belief_left_without_answers_ends_its_track_and_the_reveal_still_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The behaviour model now gives every legal move some probability, so no real game
    # empties a belief; the guard stays for a model that does: seat 2's is made to.
    game = _random_game_with_claims(7)
    names = [f"P{s}" for s in range(game.players)]
    real = Belief.marginals
    asked: dict[int, int] = {}

    def emptied(self: Belief) -> tuple[tuple[float, float, float], ...]:
        asked[id(self)] = asked.get(id(self), 0) + 1
        if self.seat == 2 and asked[id(self)] > 2:
            return tuple((math.nan,) * 3 for _ in range(game.players))
        return real(self)

    monkeypatch.setattr(Belief, "marginals", emptied)
    tracks = suspicion_tracks(game, names, range(game.players))
    for track in tracks:
        for snapshot in track.snapshots:
            assert all(math.isfinite(p) for row in snapshot.marginals for p in row)
    stopped = next(t for t in tracks if t.seat == 2)
    assert len(stopped.snapshots) == 2  # its story stops where the belief ran out
    assert max(len(t.snapshots) for t in tracks) > 2
    labels = [f"{n} (seat {s})" for s, n in enumerate(names)]
    text = reveal_text(game.events, game.roles, labels, tuple(tracks))
    assert "nan" not in text.lower()


def test_lies_no_longer_empty_a_belief() -> None:
    game = _random_game_with_claims(7)  # the old model's belief of seat 2 ran out here
    names = [f"P{s}" for s in range(game.players)]
    tracks = suspicion_tracks(game, names, range(game.players))
    lengths = {len(t.snapshots) for t in tracks}
    assert len(lengths) == 1  # every observer's story runs to the end
    for track in tracks:
        for snapshot in track.snapshots:
            assert all(math.isfinite(p) for row in snapshot.marginals for p in row)
