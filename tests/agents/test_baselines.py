"""Random and Selfish agents: always legal, deterministic under a seed, Selfish is selfish."""

from __future__ import annotations

import random

import pytest

from agents.random_agent import RandomAgent
from agents.selfish import SelfishAgent
from engine import Discard, Enact, Game, Policy, Role


def _play(players: int, seed: int, make: type[RandomAgent] | type[SelfishAgent]) -> Game:
    game = Game(players, seed=seed)
    seats = [make(s, seed * 10 + s) for s in range(players)]
    while not game.is_over:
        for seat in game.awaiting():
            view = game.view(seat)
            action = seats[seat].act(view)
            assert action in view.legal_actions
            game.apply(action)
    return game


@pytest.mark.parametrize("make", [RandomAgent, SelfishAgent])
def test_agents_play_legal_games_at_every_size(make: type[RandomAgent]) -> None:
    for seed in range(60):
        assert _play(5 + seed % 6, seed, make).is_over


@pytest.mark.parametrize("make", [RandomAgent, SelfishAgent])
def test_agents_are_deterministic_under_a_seed(make: type[RandomAgent]) -> None:
    assert _play(8, 7, make).actions == _play(8, 7, make).actions


def test_selfish_enacts_and_keeps_its_own_party() -> None:
    rng = random.Random(0)
    checked = 0
    for seed in range(40):
        game = Game(7, seed=seed)
        while not game.is_over:
            for seat in game.awaiting():
                view = game.view(seat)
                action = SelfishAgent(seat, rng.randrange(99)).act(view)
                own = Policy.LIBERAL if view.role is Role.LIBERAL else Policy.FASCIST
                if isinstance(action, Enact) and own in view.hand:
                    assert action.policy is own
                    checked += 1
                if isinstance(action, Discard) and any(p is not own for p in view.hand):
                    assert action.policy is not own
                    checked += 1
                game.apply(action)
    assert checked > 100
