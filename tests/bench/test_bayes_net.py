"""The two-player Bayesian network baseline (bench/bayes_net.py, a benchmark baseline,
not shipped): shapes, sums, and one update by hand."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import Discard, Enact, FixedChance, Game, Nominate, Policy, Role, Vote

_PATH = Path(__file__).resolve().parents[2] / "bench" / "bayes_net.py"
_SPEC = importlib.util.spec_from_file_location("bench_bayes_net", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
_MODULE = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = _MODULE
_SPEC.loader.exec_module(_MODULE)
BayesNetBelief = _MODULE.BayesNetBelief

L, F = Policy.LIBERAL, Policy.FASCIST


def _sums_hold(net: BayesNetBelief, team: int) -> None:
    marginals = np.array(net.marginals())
    assert marginals.shape == (net.players, 3)
    assert np.allclose(marginals.sum(axis=1), 1.0)
    assert np.all(marginals >= 0.0)
    assert marginals[:, 2].sum() == pytest.approx(1.0)
    assert (marginals[:, 1] + marginals[:, 2]).sum() == pytest.approx(team)


def test_sums_and_own_role_hold_through_random_games() -> None:
    rng = random.Random(4)
    for seed in range(30):
        game = Game(5 + seed % 6, seed=seed)
        seat = game.roles.index(Role.LIBERAL)
        net = BayesNetBelief(game.setup, seat)
        fed = 0
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions(game.awaiting()[0])))
            for event in game.events[fed:]:
                net.update(event)
            fed = len(game.events)
            if not game.is_over:
                _sums_hold(net, game.setup.fascists + 1)
                assert net.marginals()[seat] == (1.0, 0.0, 0.0)


def test_one_fascist_session_by_hand() -> None:
    """5 players, Liberal seat 0: prior P(Fascist team) = 2/4 for each other seat.

    Seats 1 and 2 enact a Fascist policy. With P(d Liberal drawn) = (165, 330, 165, 20)/680
    the likelihoods are P(F | both Liberal) = 165/680, P(F | one Fascist) = 495/680 and
    P(F | both Fascist) = 660/680, so each of 1 and 2 gets
    (0.25 * 495 + 0.25 * 660) / (0.25 * (165 + 2 * 495 + 660)) = 1155/1815; then all four
    are rescaled to add up to the team's 2: by 2 / (2 * 1155/1815 + 2 * 0.5).
    """
    roles = [Role.LIBERAL, Role.FASCIST, Role.LIBERAL, Role.LIBERAL, Role.HITLER]
    deck = [F, F, L] + [L] * 5 + [F] * 9
    game = Game(5, chance=FixedChance(roles, 1, deck))
    for action in [
        Nominate(1, 2),
        *(Vote(s, True) for s in range(5)),
        Discard(1, L),
        Enact(2, F),
    ]:
        game.apply(action)
    net = BayesNetBelief(game.setup, 0)
    for event in game.events:
        net.update(event)
    scale = 2 / (2 * 1155 / 1815 + 2 * 0.5)
    government, others = 1155 / 1815 * scale, 0.5 * scale
    fascist = net.party_fascist()
    assert fascist[0] == 0.0
    assert fascist[1] == pytest.approx(government)
    assert fascist[2] == pytest.approx(government)
    assert fascist[3] == pytest.approx(others)
    assert fascist[4] == pytest.approx(others)
    assert net.hitler()[1] == pytest.approx(government / 2)


def test_a_liberal_policy_clears_the_government() -> None:
    roles = [Role.LIBERAL, Role.LIBERAL, Role.LIBERAL, Role.FASCIST, Role.HITLER]
    deck = [L, L, F] + [L] * 4 + [F] * 10
    game = Game(5, chance=FixedChance(roles, 1, deck))
    for action in [
        Nominate(1, 2),
        *(Vote(s, True) for s in range(5)),
        Discard(1, F),
        Enact(2, L),
    ]:
        game.apply(action)
    net = BayesNetBelief(game.setup, 0)
    for event in game.events:
        net.update(event)
    fascist = net.party_fascist()
    assert fascist[1] < 0.5 and fascist[2] < 0.5 < fascist[3]
    assert fascist[3] == pytest.approx(fascist[4])
