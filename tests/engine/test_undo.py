"""`Game.undo`: the exact inverse of the last action, chance included.

Random legal play (claims and changed votes too): apply k actions, undo k, and the game
equals its snapshot from before, events, move stack and chance source included; applying
the same actions again gives the same events and the same state. An undone seeded game
also equals the game replayed from its seed without the undone actions.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    REBALANCED,
    STANDARD,
    Action,
    Game,
    NothingToUndo,
    Phase,
    Variant,
    Vote,
)
from engine import events as ev
from engine.errors import WrongPhase
from tests.engine.helpers import (
    AFTER_FIVE_FASCIST,
    FIVE_FASCIST_DECK,
    auto_govern,
    fixed_game,
    govern,
    of_type,
    snapshot,
)

VARIANTS = (STANDARD, REBALANCED)


def random_action(game: Game, rng: random.Random) -> Action:
    """A random legal action: mostly a decision the game awaits, sometimes a claim or a
    changed ballot."""
    if rng.random() < 0.15:
        talkers = [s for s in game.living() if game.legal_claims(s)]
        if talkers:
            return rng.choice(game.legal_claims(rng.choice(talkers)))
    seat = rng.choice(game.awaiting())
    if game.phase is Phase.VOTE and game.votes and rng.random() < 0.1:
        seat = rng.choice(sorted(game.votes))
    return rng.choice(game.legal_actions(seat))


def advance(game: Game, rng: random.Random, count: int) -> list[tuple[Action, list[ev.Event]]]:
    """Apply up to `count` random actions (fewer if the game ends); each with its events."""
    played = []
    for _ in range(count):
        if game.is_over:
            break
        action = random_action(game, rng)
        played.append((action, game.apply(action)))
    return played


@settings(max_examples=150, deadline=None)
@given(
    players=st.integers(5, 10),
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32),
    prefix=st.integers(0, 150),
    k=st.integers(1, 60),
    choices=st.integers(0, 2**32),
)
def test_undo_takes_back_k_actions_exactly(
    players: int, variant: Variant, seed: int, prefix: int, k: int, choices: int
) -> None:
    rng = random.Random(choices)
    game = Game(players, variant=variant, seed=seed)
    advance(game, rng, prefix)
    before = snapshot(game)
    played = advance(game, rng, k)
    after = snapshot(game)

    for action, _ in reversed(played):
        assert game.undo() == action
    assert snapshot(game) == before

    for action, events in played:  # redo: the same events, chance outcomes included
        assert game.apply(action) == events
    assert snapshot(game) == after


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(5, 10),
    seed=st.integers(0, 2**32),
    length=st.integers(1, 250),
    k=st.integers(1, 40),
    choices=st.integers(0, 2**32),
)
def test_undone_game_equals_the_replay_without_those_actions(
    players: int, seed: int, length: int, k: int, choices: int
) -> None:
    game = Game(players, seed=seed)
    advance(game, random.Random(choices), length)
    k = min(k, len(game.actions))
    for _ in range(k):
        game.undo()
    replayed = Game(players, seed=seed)
    for action in game.actions:
        replayed.apply(action)
    expected, got = snapshot(replayed), snapshot(game)
    # The replay's undo entries are its own; everything else must be identical.
    assert expected.pop("_undo") == got.pop("_undo")
    assert got == expected


def test_undo_rewinds_a_reshuffle() -> None:
    """An action that reshuffled the deck, undone and played again, reshuffles alike."""
    for seed in range(200):
        game = Game(7, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            chance_state = game.chance.getstate()  # type: ignore[attr-defined]
            action = random_action(game, rng)
            events = game.apply(action)
            if of_type(events, ev.DeckReshuffled):
                assert game.chance.getstate() != chance_state  # type: ignore[attr-defined]
                pile = game.draw_pile[:]
                game.undo()
                assert game.chance.getstate() == chance_state  # type: ignore[attr-defined]
                assert game.apply(action) == events
                assert game.draw_pile == pile
                return
    pytest.fail("no reshuffle in 200 random games")  # pragma: no cover


def test_undo_gives_a_fixed_chance_its_order_back() -> None:
    """The fifth Fascist session reshuffles (see `five_fascist_game`): undone, the fixed
    order is unused again, and played again it is used alike."""
    game = fixed_game("LFHLLFL", FIVE_FASCIST_DECK, reshuffles=(AFTER_FIVE_FASCIST,))
    for _ in range(4):
        auto_govern(game, "F")
    assert game.chance.used == 1  # type: ignore[attr-defined]
    before, start = snapshot(game), len(game.actions)
    events = auto_govern(game, "F")
    assert of_type(events, ev.DeckReshuffled) and game.chance.used == 2  # type: ignore[attr-defined]
    after, played = snapshot(game), game.actions[start:]

    while len(game.actions) > start:
        game.undo()
    assert snapshot(game) == before
    assert game.chance.used == 1  # type: ignore[attr-defined]
    assert [e for action in played for e in game.apply(action)] == events
    assert snapshot(game) == after


def test_nothing_to_undo() -> None:
    game = Game(5, seed=1)
    with pytest.raises(NothingToUndo, match="no action to take back"):
        game.undo()
    nominate = game.legal_actions(game.president)[0]
    game.apply(nominate)
    assert game.undo() == nominate
    with pytest.raises(NothingToUndo):
        game.undo()


def test_a_rejected_action_leaves_nothing_to_undo() -> None:
    game = Game(5, seed=1)
    before = snapshot(game)
    with pytest.raises(WrongPhase):
        game.apply(Vote(game.president, True))  # the game waits for a nomination
    assert snapshot(game) == before
    with pytest.raises(NothingToUndo):
        game.undo()


def test_undo_of_a_claim() -> None:
    game = fixed_game("LFHLL")
    govern(game, 1, "L", "L")
    before = snapshot(game)
    claim = game.legal_claims(game.actions[0].seat)[0]
    events = game.apply(claim)
    assert game.undo() == claim
    assert snapshot(game) == before
    assert game.apply(claim) == events


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(5, 10),
    seed=st.integers(0, 2**32),
    length=st.integers(0, 120),
    choices=st.integers(0, 2**32),
)
def test_events_since_an_action_are_what_the_actions_from_it_on_returned(
    players: int, seed: int, length: int, choices: int
) -> None:
    game = Game(players, seed=seed)
    played = advance(game, random.Random(choices), length)
    for first in range(len(played) + 1):
        expected = [event for _, events in played[first:] for event in events]
        assert game.events_since(first) == expected
    with pytest.raises(IndexError):
        game.events_since(len(played) + 1)
