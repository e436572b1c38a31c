"""Humanlike: legal through whole games, and each habit fires at about its configured rate.

Rates are measured from the game records (replayed with the roles and hands known),
not from the agent's own bookkeeping: what a table would see it do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from agents.claiming import truthful_claims
from agents.humanlike import HABITS, HumanlikeAgent
from agents.registry import OPTIONS, AgentSpec
from agents.runner import play_game
from engine import (
    ChancellorClaim,
    Discard,
    Enact,
    Game,
    GameRecord,
    Investigate,
    InvestigationClaim,
    Party,
    PeekClaim,
    Policy,
    PresidentClaim,
    Role,
)
from engine import events as ev

L, F = Policy.LIBERAL, Policy.FASCIST


def test_humanlike_plays_legal_games_at_every_size_alone_and_mixed() -> None:
    for seed in range(60):
        players = 5 + seed % 6
        seats = ["humanlike"] * players if seed % 2 else ["humanlike", "random"] * 5
        result = play_game(seats[:players], seed=seed)  # an illegal move raises
        assert result.record.replay().is_over


def test_humanlike_is_deterministic_under_a_seed_and_its_habits_are_options() -> None:
    spec = "humanlike:test=1,lie=0.5"
    first = play_game([spec] * 7, seed=3).record.actions
    assert play_game([spec] * 7, seed=3).record.actions == first
    assert set(OPTIONS["humanlike"]) == set(HABITS)
    agent = AgentSpec.parse(spec).build(0, 1)
    assert isinstance(agent, HumanlikeAgent) and agent.habits["test"] == 1.0
    with pytest.raises(ValueError):
        AgentSpec.parse("humanlike:test=2")


def _habits(record: GameRecord) -> Counter[str]:
    """Opportunities ("<habit>") and firings ("<habit>+") of each habit in one game."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    roles = game.roles
    out: Counter[str] = Counter()
    investigated: dict[int, int] = {}  # president -> target of the open window
    for action in record.actions:
        match action:
            case Discard(seat=seat, policy=policy) if roles[seat] is Role.LIBERAL:
                if sorted(game.hand) == [L, L, F] or sorted(game.hand) == [F, L, L]:
                    out["test"] += 1
                    out["test+"] += policy is L
            case Enact(seat=seat, policy=policy) if roles[seat] is Role.FASCIST:
                if set(game.hand) == {L, F} and game.fascist_policies < 3:
                    out["trust"] += 1
                    out["trust+"] += policy is L
            case Investigate(seat=seat, target=target) if roles[seat] is Role.FASCIST:
                if roles[target] is not Role.LIBERAL:
                    investigated[seat] = target
            case InvestigationClaim(seat=seat, target=target, party=party):
                if investigated.pop(seat, None) == target:
                    out["honest"] += 1
                    out["honest+"] += party is Party.FASCIST
        claims = PresidentClaim | ChancellorClaim | PeekClaim | InvestigationClaim
        if isinstance(action, claims) and roles[action.seat] is Role.LIBERAL:
            out["lie"] += 1  # every Liberal claim is a chance to lie
            out["lie+"] += action not in truthful_claims(game.view(action.seat))
            since = _since_window(game.events)
            out["late+"] += any(isinstance(e, ev.ChancellorNominated) for e in since)
        game.apply(action)
    return out


def _since_window(events: list[ev.Event]) -> list[ev.Event]:
    """Events after the last government policy (or agreed veto): the open window's age."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, ev.PolicyEnacted) and not event.chaos:
            return events[index:]
        if isinstance(event, ev.VetoReplied) and event.agreed:
            return events[index:]
    return []


def _rates(spec: str, games: int = 120, sizes: Sequence[int] = range(5, 11)) -> Counter[str]:
    """The habits of `games` games (fixed seeds: deterministic), of each size in turn."""
    total: Counter[str] = Counter()
    for seed in range(games):
        players = sizes[seed % len(sizes)]
        total += _habits(play_game([spec] * players, seed=1000 + seed).record)
    return total


@pytest.mark.parametrize("habit", ["test", "trust", "honest"])
def test_each_play_habit_fires_at_about_its_rate(habit: str) -> None:
    for rate, low, high in ((0.0, 0.0, 0.0), (0.5, 0.3, 0.7), (1.0, 1.0, 1.0)):
        quiet = "silent=0,late=0"
        spec = f"humanlike:{habit}={rate},{quiet}"
        # A Fascist investigating a teammate is rare, and needs the investigate power:
        # more games, of 9 or 10 players (two investigations; 5 or 6 players have none).
        # About 70 chances: at rate 0.5 the standard error is 0.06, the band 3.3 of them.
        counts = _rates(spec, 240, (9, 10)) if habit == "honest" else _rates(spec)
        assert counts[habit] >= 20, (habit, counts)
        share = counts[habit + "+"] / counts[habit]
        assert low <= share <= high, (habit, rate, share, counts)


def test_liberal_lies_and_late_or_missing_claims_follow_their_rates() -> None:
    # 60 games: about 550 Liberal claims. The lie rate's standard error is 0.02 (the band
    # is 9 of them); the silence ratio's, game lengths varying too, about 0.05 (3.6).
    games = 60
    truthful = _rates("humanlike:lie=0,silent=0,late=0", games)
    assert truthful["lie"] > 100 and truthful["lie+"] == 0 and truthful["late+"] == 0
    lying = _rates("humanlike:lie=0.5,silent=0,late=0", games)
    assert 0.3 <= lying["lie+"] / lying["lie"] <= 0.7, lying
    late = _rates("humanlike:lie=0,silent=0,late=1", games)
    assert late["late+"] > 0.8 * late["lie"], late  # nearly every Liberal claim comes late
    # Silence: with silent=1 no Liberal ever claims; at 0.5 about half the windows stay shut.
    assert _rates("humanlike:silent=1", games)["lie"] == 0
    half = _rates("humanlike:silent=0.5,late=0", games)["lie"]
    assert 0.3 * truthful["lie"] <= half <= 0.7 * truthful["lie"], (half, truthful["lie"])
