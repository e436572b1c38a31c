"""play_game: complete games at every size, views only, simultaneous votes, claims on time."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pytest

from agents.random_agent import RandomAgent
from agents.registry import AGENTS
from agents.runner import agent_seed, play_game
from engine import (
    REBALANCED,
    Action,
    ChancellorClaim,
    Claim,
    Enact,
    Game,
    Investigate,
    InvestigationClaim,
    PeekClaim,
    PlayerView,
    PresidentClaim,
    VetoReply,
    Vote,
)
from engine import events as ev


class ChattyAgent(RandomAgent):
    """Test agent: random actions, and it claims (a random legal claim) whenever offered."""

    name = "chatty"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if view.legal_actions and isinstance(view.legal_actions[0], Vote):
            assert view.voted == (), "a voter saw who voted before it"
        return super().decide(view, rng)

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        return rng.choice(view.legal_claims)


class ShyAgent(RandomAgent):
    """Test agent: stays silent at a window's first offer, claims at the next one."""

    name = "shy"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.declined: set[tuple[tuple[Claim, ...], int]] = set()

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        # A new window opens with a session, a veto or an investigation: count those.
        moments = sum(isinstance(e, _OPENINGS) for e in view.events)
        key = (view.legal_claims, moments)
        if key in self.declined:
            return view.legal_claims[0]
        self.declined.add(key)
        return None


class ForgerAgent(RandomAgent):
    """Test agent: answers with an action for the next seat (bypassing AgentBase's check)."""

    name = "forger"

    def act(self, view: PlayerView) -> Action:
        action = view.legal_actions[0]
        return replace(action, seat=(self.seat + 1) % view.players)


_OPENINGS = (ev.PolicyEnacted, ev.VetoReplied, ev.PlayerInvestigated)


@pytest.fixture
def talkers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the test agents (the runner builds agents from the registry)."""
    monkeypatch.setitem(AGENTS, "chatty", f"{__name__}:ChattyAgent")
    monkeypatch.setitem(AGENTS, "shy", f"{__name__}:ShyAgent")
    monkeypatch.setitem(AGENTS, "forger", f"{__name__}:ForgerAgent")


@pytest.mark.parametrize("players", range(5, 11))
def test_complete_games_at_every_player_count(players: int) -> None:
    for seed in range(8):
        specs = [("random", "selfish")[(seed + s) % 2] for s in range(players)]
        result = play_game(specs, seed=seed)
        replay = result.record.replay()  # the record holds the whole game
        assert replay.is_over
        assert (replay.winner, replay.win_reason) == (result.winner, result.win_reason)
        assert replay.roles == result.roles
        assert result.specs == tuple(specs)
        assert result.agents == tuple(specs)
        assert len(result.timings) == players
        assert sum(t.decisions for t in result.timings) == len(result.record.actions)
        # Random and Selfish never speak, so they are never asked to.
        assert all(t.claim_offers == 0 for t in result.timings) and result.claims == 0
        assert [result.won(s) for s in range(players)] == [
            role.party is result.winner for role in result.roles
        ]


def test_same_seed_same_game_and_rebalanced_variant() -> None:
    specs = ["selfish", "random", "random", "selfish", "random", "selfish", "random"]
    first = play_game(specs, seed=11, variant=REBALANCED)
    assert first.record.variant is REBALANCED
    assert play_game(specs, seed=11, variant=REBALANCED).record.actions == first.record.actions
    assert play_game(specs, seed=12).record.actions != first.record.actions
    assert agent_seed(11, 0) not in (11, agent_seed(11, 1), agent_seed(12, 0))


@pytest.mark.usefixtures("talkers")
def test_claims_come_right_after_sessions_peeks_and_investigations() -> None:
    kinds: set[type[Claim]] = set()
    for seed in range(30):
        result = play_game(["chatty"] * (5 + seed % 6), seed=seed)
        actions = result.record.actions
        claims = [a for a in actions if isinstance(a, Claim)]
        assert result.claims == len(claims) > 0
        kinds.update(type(c) for c in claims)
        # An agent that always claims leaves no window open when the game moves on.
        game = Game(result.players, seed=result.record.seed)
        for action in actions:
            if not isinstance(action, Claim):
                assert not any(game.legal_claims(s) for s in range(game.players)), action
            game.apply(action)
        offers = sum(t.claim_offers for t in result.timings)
        assert offers == len(claims)  # each offer was taken at once
    assert kinds == {PresidentClaim, ChancellorClaim, PeekClaim, InvestigationClaim}


@pytest.mark.usefixtures("talkers")
def test_a_silent_seat_is_asked_again_after_the_next_action() -> None:
    claims = offers = 0
    for seed in range(10):
        result = play_game(["shy"] * (5 + seed % 6), seed=seed)
        actions = result.record.actions
        for before, action in pairwise(actions):
            if isinstance(action, Claim):  # never at the first offer, right after the opening
                assert not isinstance(before, Enact | Investigate | VetoReply), (before, action)
        claims += result.claims
        offers += sum(t.claim_offers for t in result.timings)
    assert claims > 0
    assert offers >= 2 * claims


@pytest.mark.usefixtures("talkers")
def test_an_action_for_another_seat_is_refused() -> None:
    with pytest.raises(ValueError, match="forger at seat"):
        play_game(["forger"] * 5, seed=2)


def test_unknown_agent_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="Unknown agent 'nobody'"):
        play_game(["random"] * 4 + ["nobody"], seed=1)
