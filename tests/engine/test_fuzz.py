"""Seeded random play over thousands of games: invariants at every step, records replay.

Set ENGINE_FUZZ_SCALE (default 1) to multiply the number of games for a deeper run.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    REBALANCED,
    STANDARD,
    Action,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Game,
    GameRecord,
    IllegalAction,
    Investigate,
    Nominate,
    Phase,
    Policy,
    ProposeVeto,
    Role,
    Variant,
    VetoReply,
    Vote,
    WinReason,
)
from engine import events as ev
from tests.engine.helpers import (
    clone,
    fingerprint,
    max_actions,
    max_elections,
    random_choices,
    role_counts_ok,
    state_of,
)
from tests.engine.test_views import team_knowledge

SCALE = float(os.environ.get("ENGINE_FUZZ_SCALE", "1"))
GAMES_PER_CONFIG = max(1, int(180 * SCALE))  # x 12 configurations = 2,160 games
PROBE_EVERY = 8  # in one game of PROBE_EVERY, try every legal action on a clone
CONFIGS = [(n, v) for n in range(5, 11) for v in (STANDARD, REBALANCED)]
HOLDER_HAND = {Phase.PRESIDENT_DISCARD: 3, Phase.CHANCELLOR_ENACT: 2, Phase.VETO_REPLY: 2}


def check_invariants(game: Game, roles: tuple[Role, ...]) -> None:
    """What must hold after every step of every game (`roles`: as dealt, table-checked)."""
    setup = game.setup
    # Tiles are conserved, party by party.
    assert game.tiles_in_play() == setup.total_tiles
    loose = game.draw_pile + game.discard_pile + game.hand
    assert loose.count(Policy.LIBERAL) + game.liberal_policies == setup.liberal_tiles
    assert game.roles == roles  # as dealt, so still the counts of the table
    assert game.alive_count >= game.players - 2  # two executions at most
    assert len(game.hand) == HOLDER_HAND.get(game.phase, 0)
    if game.is_over:
        assert game.awaiting() == []
        assert all(game.legal_actions(s) == [] for s in range(game.players))
        return
    assert game.liberal_policies < 5 and game.fascist_policies < 6
    assert 0 <= game.election_tracker < 3
    assert game.alive[game.president] and game.alive[game.hitler]
    awaiting = game.awaiting()
    assert awaiting, "nobody to act in a running game"
    votes = game.votes
    for seat in range(game.players):
        legal = game.legal_actions(seat)
        if seat in awaiting:
            assert legal, f"seat {seat} must act but has no legal action"
            assert game.alive[seat]
        elif seat in votes:
            assert legal == [Vote(seat, not votes[seat])]  # may change the ballot
        else:
            assert legal == []
        for action in legal:
            assert action.seat == seat
        assert len(set(legal)) == len(legal)
    if game.phase is Phase.NOMINATE:
        assert len(game.draw_pile) >= 3  # the reshuffle rule keeps three to draw
        assert game.chancellor is None and not votes
        eligible = game.eligible_chancellors()
        limited = game.term_limited()
        assert eligible and game.president not in eligible
        for seat in eligible:
            assert game.alive[seat] and seat not in limited
    else:
        assert game.chancellor is not None and game.chancellor != game.president
        assert game.alive[game.chancellor] or game.phase in (
            Phase.INVESTIGATE,
            Phase.SPECIAL_ELECTION,
            Phase.EXECUTE,
        )
    if game.phase is Phase.VOTE:
        assert set(game.votes) | set(awaiting) == set(game.living())
        assert len(game.votes) < game.alive_count


def check_ending(game: Game) -> None:
    """The ending is one of the four, and the board agrees with it."""
    reason = game.win_reason
    assert isinstance(game.events[-1], ev.GameEnded)
    assert game.events[-1].reason is reason and game.events[-1].roles == game.roles
    assert sum(isinstance(e, ev.GameEnded) for e in game.events) == 1
    if reason is WinReason.FIVE_LIBERAL:
        assert game.liberal_policies == 5
    elif reason is WinReason.SIX_FASCIST:
        assert game.fascist_policies == 6
    elif reason is WinReason.HITLER_ELECTED:
        result = [e for e in game.events if isinstance(e, ev.ElectionResult)][-1]
        assert result.elected and game.roles[result.chancellor] is Role.HITLER
        assert game.fascist_policies >= 3
    else:
        assert reason is WinReason.HITLER_EXECUTED and not game.alive[game.hitler]
    assert game.winner is reason.winner


def arbitrary_action(game: Game, rng: random.Random) -> Action:
    """Any action at all, legal or not (seats and targets include nonexistent ones)."""
    n = game.players
    seat, target = rng.randrange(-1, n + 1), rng.randrange(-1, n + 1)
    kind = rng.randrange(10)
    if kind < 2:
        return Vote(seat, kind == 0)
    if kind < 4:
        return (Discard, Enact)[kind - 2](seat, rng.choice((Policy.LIBERAL, Policy.FASCIST)))
    if kind < 6:
        return ProposeVeto(seat) if kind == 4 else VetoReply(seat, rng.random() < 0.5)
    return (Nominate, Investigate, CallSpecialElection, Execute)[kind - 6](seat, target)


def check_rejected_unless_legal(game: Game, action: Action) -> None:
    """`apply` refuses, without a trace, exactly the actions `legal_actions` omits."""
    if 0 <= action.seat < game.players and action in game.legal_actions(action.seat):
        return
    before = fingerprint(game)
    try:
        game.apply(action)
    except IllegalAction:
        pass
    else:
        raise AssertionError(f"{action} was accepted but is not a legal action")
    assert fingerprint(game) == before


def check_replay(game: Game) -> None:
    """The record survives JSON and replays to the identical events and state."""
    record = GameRecord.of(game)
    text = record.to_json()
    again = GameRecord.from_json(text)
    assert again.to_json() == text
    replayed = again.replay()
    assert replayed.events == game.events
    assert state_of(replayed) == state_of(game)


def check_no_leak(game: Game, seat: int) -> None:
    """While the game runs, `seat`'s view and the spectator's hold nothing hidden from them."""
    if game.is_over:
        return
    holder = {
        Phase.PRESIDENT_DISCARD: game.president,
        Phase.CHANCELLOR_ENACT: game.chancellor,
        Phase.VETO_REPLY: game.chancellor,
    }.get(game.phase)
    view = game.view(seat)
    assert view.known_roles == team_knowledge(game.roles, seat)
    assert all(e.visible_to(seat) for e in view.events)
    assert view.hand == (tuple(game.hand) if seat == holder else ())
    spectator = game.spectator_view()
    assert spectator.known_roles == (None,) * game.players and spectator.hand == ()
    assert all(e.audience is None for e in spectator.events)


def make_random_claim(game: Game, rng: random.Random) -> None:
    """Sometimes a living seat with an open claim window says something (claims are talk)."""
    speakers = [s for s in game.living() if game.legal_claims(s)]
    if speakers and rng.random() < 0.5:
        seat = rng.choice(speakers)
        events = game.apply(rng.choice(game.legal_claims(seat)))
        assert len(events) == 1 and events[0].audience is None


def play_checked(players: int, variant: Variant, seed: int, probe: bool) -> Game:
    game = Game(players, variant=variant, seed=seed)
    rng = random.Random(seed * 7919 + 1)
    assert role_counts_ok(game)
    roles = game.roles
    check_invariants(game, roles)
    changes = 0
    replay_at = rng.randrange(60) if probe else -1
    for steps, action in enumerate(random_choices(game, rng), start=1):
        legal = game.legal_actions(action.seat)
        assert action in legal
        if probe:  # every legal action of the acting seat is accepted
            before = fingerprint(game)
            for other in legal:
                trial = clone(game)
                trial.apply(other)
                assert trial.tiles_in_play() == game.setup.total_tiles
            assert fingerprint(game) == before
        check_rejected_unless_legal(game, arbitrary_action(game, rng))
        changed = isinstance(action, Vote) and action.seat in game.votes
        alive = game.alive_count
        events = game.apply(action)
        assert events and game.events[-len(events) :] == events
        for event in events:
            if isinstance(event, ev.ElectionResult):  # a strict majority of the living
                ja = sum(1 for b in event.votes if b)
                assert sum(b is not None for b in event.votes) == alive
                assert all((b is None) == (not game.alive[s]) for s, b in enumerate(event.votes))
                assert event.elected is (2 * ja > alive)
        assert game.actions[-1] == action
        changes += changed
        check_invariants(game, roles)
        check_no_leak(game, rng.randrange(players))
        make_random_claim(game, rng)
        if steps == replay_at:
            check_replay(game)  # mid-game too
        assert steps - changes <= max_actions(players), "the game does not end"
    assert game.is_over
    elections = sum(isinstance(e, ev.ElectionResult) for e in game.events)
    assert elections <= max_elections()
    check_ending(game)
    check_replay(game)
    return game


@pytest.mark.parametrize(("players", "variant"), CONFIGS, ids=[f"{n}-{v.name}" for n, v in CONFIGS])
def test_random_games_keep_every_invariant(players: int, variant: Variant) -> None:
    reasons: Counter[WinReason] = Counter()
    seen: Counter[str] = Counter()
    base = players * 1_000_003 + (variant is REBALANCED) * 7_777
    for index in range(GAMES_PER_CONFIG):
        game = play_checked(players, variant, base + index, probe=index % PROBE_EVERY == 0)
        assert game.win_reason is not None
        reasons[game.win_reason] += 1
        seen.update(e.kind for e in game.events)
        seen.update("chaos" for e in game.events if isinstance(e, ev.PolicyEnacted) and e.chaos)
        seen.update(f"veto {e.agreed}" for e in game.events if isinstance(e, ev.VetoReplied))
    if GAMES_PER_CONFIG >= 150:  # the fuzzer reaches every ending and every rule path
        assert set(reasons) == set(WinReason), reasons
        powers = {"policy_peeked"} if players <= 6 else {"investigation_result"}
        if players >= 7:
            powers.add("special_election_called")
        expected = {"chaos", "veto True", "veto False", "deck_reshuffled", "player_executed"}
        expected |= {"chancellor_not_hitler", "term_limits_cleared"} | powers
        assert expected <= set(seen), expected - set(seen)


@settings(max_examples=150, deadline=None)
@given(
    players=st.integers(5, 10),
    rebalanced=st.booleans(),
    seed=st.integers(0, 2**63 - 1),
    choices=st.lists(st.integers(0, 2**16), min_size=20, max_size=400),
)
def test_any_sequence_of_choices_yields_a_consistent_game(
    players: int, rebalanced: bool, seed: int, choices: list[int]
) -> None:
    game = Game(players, variant=REBALANCED if rebalanced else STANDARD, seed=seed)
    assert role_counts_ok(game)
    roles = game.roles
    for choice in choices:
        if game.is_over:
            break
        awaiting = game.awaiting()
        seat = awaiting[choice % len(awaiting)]
        if game.phase is Phase.VOTE and game.votes and choice % 5 == 0:
            seat = sorted(game.votes)[choice % len(game.votes)]
        legal = game.legal_actions(seat)
        game.apply(legal[(choice // 11) % len(legal)])
        check_invariants(game, roles)
    if game.is_over:
        check_ending(game)
    check_replay(game)
