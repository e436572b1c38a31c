"""The Belief agent: legal everywhere, deterministic, view-only, truthful as a Liberal."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from agents.belief import Belief
from agents.belief_agent import BeliefAgent
from agents.claiming import seen, truthful_claims
from agents.registry import make_agent
from agents.runner import play_game
from engine import REBALANCED, Claim, Game, GameRecord, Policy, PresidentClaim, Role, Variant


def test_legal_actions_and_claims_over_thousands_of_random_positions() -> None:
    """Random play reaches odd positions; the agent of every seat asked there answers
    with one of its legal actions (and legal claims), never anything else."""
    rng = random.Random(12)
    asked = Counter[str]()
    for seed in range(30):
        variant = REBALANCED if seed % 4 == 3 else Variant()
        game = Game(5 + seed % 6, seed=seed, variant=variant)
        agents = [BeliefAgent(s, seed * 100 + s) for s in range(game.players)]
        while not game.is_over:
            for seat in range(game.players):
                if game.legal_claims(seat) and rng.random() < 0.5:
                    view = game.view(seat)
                    claim = agents[seat].claim(view)
                    assert claim is None or claim in view.legal_claims
                    asked["claim"] += 1
            seat = rng.choice(game.awaiting())
            view = game.view(seat)
            action = agents[seat].act(view)
            assert action in view.legal_actions
            asked[view.phase.value] += 1
            # Play on at random (or the agent's choice) so positions stay varied.
            game.apply(action if rng.random() < 0.5 else rng.choice(view.legal_actions))
    assert sum(asked.values()) > 1500
    assert all(asked[p] > 10 for p in ("nominate", "vote", "president_discard", "execute")), asked
    assert asked["claim"] > 200


def test_full_games_with_mixed_tables_are_legal() -> None:
    """The runner applies every answer, so an illegal one would raise."""
    pool = ("belief", "belief", "random", "selfish")
    rng = random.Random(3)
    endings = Counter[str]()
    for seed in range(24):
        players = 5 + seed % 6
        result = play_game([rng.choice(pool) for _ in range(players)], seed=seed)
        endings[result.win_reason.value] += 1
    assert sum(endings.values()) == 24


def test_deterministic_under_a_seed_and_rebuildable_from_a_view() -> None:
    first = play_game(["belief"] * 7, seed=21)
    again = play_game(["belief"] * 7, seed=21)
    assert first.record.actions == again.record.actions
    # A fresh agent built mid-game (as a worker process would) decides the same.
    game = Game(8, seed=5)
    agents = [BeliefAgent(s, 40 + s) for s in range(8)]
    rng = random.Random(0)
    compared = 0
    while not game.is_over:
        seat = game.awaiting()[0]
        view = game.view(seat)
        action = agents[seat].act(view)
        if rng.random() < 0.2:
            assert BeliefAgent(seat, 40 + seat).act(view) == action
            compared += 1
        game.apply(action)
    assert compared > 5


def test_agent_sees_only_views_of_its_own_seat() -> None:
    game = Game(6, seed=2)
    agent = make_agent("belief", game.awaiting()[0], 9)
    assert isinstance(agent, BeliefAgent)
    agent.act(game.view(agent.seat))
    held = [*vars(agent).values(), *vars(agent.belief).values()]
    assert not any(isinstance(v, Game) for v in held)
    assert isinstance(agent.belief, Belief) and agent.belief.seat == agent.seat
    other = (agent.seat + 1) % 6
    with pytest.raises(ValueError):
        agent.claim(game.view(other)) if game.legal_claims(other) else agent.act(game.view(other))


def test_liberals_claim_the_truth_and_fascists_sometimes_lie() -> None:
    liberal_claims = lies = 0
    for seed in range(24):
        result = play_game(["belief"] * (5 + seed % 6), seed=1000 + seed)
        record: GameRecord = result.record
        game = Game(record.players, variant=record.variant, seed=record.seed)
        for action in record.actions:
            if isinstance(action, Claim):
                view = game.view(action.seat)
                truth = truthful_claims(view)
                if game.roles[action.seat] is Role.LIBERAL:
                    assert action in truth
                    liberal_claims += 1
                elif action not in truth:
                    lies += 1
            game.apply(action)
    assert liberal_claims > 60 and lies > 10, (liberal_claims, lies)


def test_a_fascist_president_covers_a_discarded_liberal() -> None:
    """Having passed F+F from L+F+F to force a Fascist policy, a Fascist president's most
    common claim is "I drew three Fascist policies"."""
    covers = Counter[bool]()
    for seed in range(30):
        result = play_game(["belief"] * 7, seed=2000 + seed)
        game = Game(7, seed=result.record.seed)
        for action in result.record.actions:
            if isinstance(action, PresidentClaim) and game.roles[action.seat] is not Role.LIBERAL:
                info = seen(game.view(action.seat))
                if info.drew == 1 and info.passed == 0:
                    covers[action.drew == (Policy.FASCIST,) * 3] += 1
            game.apply(action)
    assert covers[True] > covers[False] >= 0 and covers[True] >= 5, covers
