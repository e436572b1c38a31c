"""Per-seat carelessness: ballots that defy the careful rules raise a seat's odds of
playing at random, ballots that follow them lower it, and the model uses the result."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.base import Budget
from agents.belief import Belief
from agents.belief_ismcts import BeliefISMCTSAgent
from agents.carelessness import MOST_CARELESS, Carelessness
from agents.playouts import ModelPlayers, TableModel
from agents.registry import AgentSpec
from agents.runner import play_game
from engine import STANDARD, Role
from engine import events as ev
from engine.fastsim import FastGame


def _result(votes: list[bool], president: int = 0, chancellor: int = 1) -> ev.ElectionResult:
    return ev.ElectionResult(president, chancellor, tuple(votes), sum(votes) * 2 > len(votes))


def test_shares_start_at_the_prior_and_the_observer_is_careful() -> None:
    careless = Carelessness(5, 0.4, seat=2)
    assert careless.shares() == (0.4, 0.4, 0.0, 0.4, 0.4)
    assert Carelessness(5, 0.0, seat=2).shares() == (0.0,) * 5
    assert Carelessness(5, 1.0, seat=2).shares() == (1.0, 1.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="probability"):
        Carelessness(5, 1.5)


def test_ballots_against_the_careful_rules_raise_the_odds() -> None:
    """A candidate who votes down their own government (a careful one backs it 97% of
    the time) looks careless; one who backs it looks careful; a table whose trust in
    the government is at even odds teaches nothing about the other voters."""
    belief = Belief(STANDARD.setup(5), None)
    model = TableModel.uniform(5, 1)
    careless = Carelessness(5, 0.4)
    for _ in range(3):
        result = _result([False, True, True, True, False])
        careless.read_ballots(result, model, belief.roles, belief.probabilities())
    shares = careless.shares()
    assert shares[0] > 0.9 and shares[1] < 0.4  # the president said Nein, the chancellor Ja
    assert careless.ballots == [3] * 5
    # Even odds for a Liberal bystander: the bystanders' shares stay near the prior.
    for seat in (2, 3, 4):
        assert abs(shares[seat] - 0.4) < 0.15
    for _ in range(30):
        result = _result([False, True, True, True, False])
        careless.read_ballots(result, model, belief.roles, belief.probabilities())
    assert careless.shares()[0] == MOST_CARELESS  # bounded: never certain


def test_a_fascist_reads_its_teammates_ballots_knowingly() -> None:
    """Seen by the Fascist at seat 0 (who knows seat 1 is Hitler, 5 players): seat 1
    voting Nein on a government holding seat 0 is careless play for a Hitler who knows
    his team."""
    belief = Belief(STANDARD.setup(5), 0)
    belief.update(ev.RoleDealt(0, Role.FASCIST, ((1, Role.HITLER),)))
    model = TableModel.uniform(5, 1)
    careless = Carelessness(5, 0.4, seat=0)
    for _ in range(3):
        result = _result([True, False, True, True, True], president=0, chancellor=2)
        careless.read_ballots(result, model, belief.roles, belief.probabilities())
    assert careless.shares()[1] > 0.8


def test_the_model_draws_careless_seats_from_the_per_seat_shares() -> None:
    model = TableModel.build([0.4] * 6, [1 / 6] * 6, 0.4, (1.0, 0.0, 1.0, 0.0, 0.0, 1.0))
    rng = random.Random(1)
    for seed in range(10):
        players = ModelPlayers(FastGame.new(6, seed), model, rng.random, 5)
        assert players.wild == [True, False, True, False, False, False]  # 5 is the searcher


def test_belief_ismcts_learns_carelessness_from_a_game() -> None:
    """Over whole games, the shares belief-ISMCTS ends with are higher for random seats
    than for belief-ISMCTS seats; by default (`learn_wild=False`) the share stays flat."""
    spec = "belief-ismcts:iterations=60"
    specs = ["random", spec, "random", spec, "random", spec, "random"]
    random_shares, careful_shares = [], []
    for seed in range(6):
        agents = {
            s: BeliefISMCTSAgent(s, seed * 10 + s, Budget(iterations=60), learn_wild=True)
            for s in (1, 3, 5)
        }
        play_game(specs, seed=seed, agents=agents)
        for seat, agent in agents.items():
            assert isinstance(agent, BeliefISMCTSAgent) and agent.carelessness is not None
            shares = agent.carelessness.shares()
            assert shares[seat] == 0.0
            random_shares += [shares[s] for s in (0, 2, 4, 6)]
            careful_shares += [shares[s] for s in (1, 3, 5) if s != seat]
    assert np.mean(random_shares) > np.mean(careful_shares)
    flat = AgentSpec.parse(spec).build(1, 0)  # off by default
    assert isinstance(flat, BeliefISMCTSAgent)
    play_game(specs, seed=0, agents={1: flat})
    assert flat.carelessness is None and flat.model is not None and not flat.model.wildness
