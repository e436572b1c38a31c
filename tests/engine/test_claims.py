"""Claims: public, rule-neutral talk about what a seat saw, recorded with the game."""

from __future__ import annotations

import random

import pytest

from engine import (
    ChancellorClaim,
    Game,
    GameRecord,
    IllegalClaim,
    InvestigationClaim,
    Party,
    PeekClaim,
    Phase,
    Policy,
    PresidentClaim,
)
from engine import events as ev
from engine.errors import NotYourTurn, WrongPhase

from .helpers import FIVE_FASCIST_DECK, deck, fixed_game, govern, of_type, play, snapshot
from .test_errors import assert_rejected, at_execute, at_game_over, at_investigate, at_nominate

L, F = Policy.LIBERAL, Policy.FASCIST


def test_after_a_session_both_members_may_claim_and_the_claims_are_public() -> None:
    game = at_nominate()  # P0 + C3 enacted L from L F F
    assert {type(c) for c in game.legal_claims(0)} == {PresidentClaim}
    assert {type(c) for c in game.legal_claims(3)} == {ChancellorClaim}
    assert game.legal_claims(1) == [] and game.legal_claims(5) == []
    events = game.apply(PresidentClaim(0, (L, F, F), (L, F)))
    events += game.apply(ChancellorClaim(3, (L, F)))
    assert events == [ev.PresidentClaimed(0, (L, F, F), (L, F)), ev.ChancellorClaimed(3, (L, F))]
    assert all(e.audience is None for e in events)
    for seat in range(game.players):
        assert events[0] in game.view(seat).events
    assert events[1] in game.spectator_view().events
    assert game.phase is Phase.NOMINATE and game.president == 1  # nothing else moved


def test_claims_may_be_lies_but_not_refuted_by_the_board() -> None:
    game = at_nominate()  # a Liberal policy was enacted
    game.apply(PresidentClaim(0, (L, L, L), (L, L)))  # a lie the board cannot refute
    assert_rejected(game, ChancellorClaim(3, (F, F)), IllegalClaim, "enacted a Liberal policy")
    game2 = at_nominate()
    assert_rejected(game2, PresidentClaim(0, (F, F, F), (F, F)), IllegalClaim, "must have passed")
    assert_rejected(game2, PresidentClaim(0, (L, F, F), (L, L)), IllegalClaim, "only pass")
    assert_rejected(game2, PresidentClaim(0, (L, F), (L, F)), IllegalClaim, "three policies")


def test_offered_claims_are_exactly_the_acceptable_ones() -> None:
    game = at_nominate()
    offered = game.legal_claims(0)
    # every (drew, passed) with passed inside drew and holding the enacted Liberal tile
    assert sorted((c.drew, c.passed) for c in offered) == sorted(  # type: ignore[attr-defined]
        [
            ((L, L, L), (L, L)),
            ((L, L, F), (L, L)),
            ((L, L, F), (L, F)),
            ((L, F, F), (L, F)),
        ]
    )
    assert game.legal_claims(3) == [ChancellorClaim(3, (L, L)), ChancellorClaim(3, (L, F))]
    for claim in offered:
        trial = fixed_game("LFHLFLL", deck("LFF" + "FFF"))
        govern(trial, 3, "L")
        trial.apply(claim)


def test_one_claim_per_window_and_windows_close_at_the_next_draw() -> None:
    game = at_nominate()
    game.apply(PresidentClaim(0, (L, F, F), (L, F)))
    assert game.legal_claims(0) == []
    assert_rejected(game, PresidentClaim(0, (L, F, F), (L, F)), IllegalClaim, "Only the president")
    play(game, "nominate 2", "ja")  # the next government draws: the chancellor's window closes
    assert game.phase is Phase.PRESIDENT_DISCARD
    assert game.legal_claims(3) == []
    assert_rejected(game, ChancellorClaim(3, (L, F)), IllegalClaim, "Only the chancellor")


def test_a_vetoed_session_may_be_claimed_with_any_tiles() -> None:
    from .helpers import five_fascist_game, pick_chancellor

    game = five_fascist_game("LFHLFLLL")
    president = game.president
    chancellor = pick_chancellor(game)
    play(game, f"nominate {chancellor}", "ja", "discard F", "veto", "agree")
    # nothing was enacted: every (drew, passed) pair with passed inside drew may be claimed
    assert len(game.legal_claims(president)) == 1 + 2 + 2 + 1
    game.apply(PresidentClaim(president, (F, F, F), (F, F)))
    game.apply(ChancellorClaim(chancellor, (L, L)))


def test_peek_claim() -> None:
    game = fixed_game("LFHLL", FIVE_FASCIST_DECK)
    for chancellor in (1, 3, 4):
        govern(game, chancellor, "F")
    peeker = of_type(game.events, ev.PolicyPeeked)[0].seat
    assert peeker == 2
    assert [c.tiles for c in game.legal_claims(peeker) if isinstance(c, PeekClaim)] == [
        (L, L, L),
        (L, L, F),
        (L, F, F),
        (F, F, F),
    ]
    game.apply(PeekClaim(peeker, (L, L, L)))  # a lie is fine
    assert game.events[-1] == ev.PeekClaimed(peeker, (L, L, L))
    assert_rejected(game, PeekClaim(peeker, (F, F, F)), IllegalClaim, "just peeked")


def test_investigation_claim_names_the_investigated_player() -> None:
    game = at_investigate()
    play(game, "investigate 3")
    president = 0
    assert set(game.legal_claims(president)) >= {
        InvestigationClaim(president, 3, Party.LIBERAL),
        InvestigationClaim(president, 3, Party.FASCIST),
    }
    assert_rejected(game, InvestigationClaim(president, 4, Party.FASCIST), IllegalClaim, "seat 3")
    assert_rejected(
        game, InvestigationClaim(5, 3, Party.FASCIST), IllegalClaim, "just investigated"
    )
    game.apply(InvestigationClaim(president, 3, Party.FASCIST))
    assert game.events[-1] == ev.InvestigationClaimed(president, 3, Party.FASCIST)


def test_dead_players_and_finished_games_take_no_claims() -> None:
    game = at_execute()  # president 3 executes; the chancellor of that session was seat 0
    chancellor = 0
    assert game.legal_claims(chancellor)
    play(game, f"execute {chancellor}")
    assert game.legal_claims(chancellor) == []
    assert_rejected(game, ChancellorClaim(chancellor, (F, F)), NotYourTurn, "Dead players")
    over = at_game_over()
    assert all(over.legal_claims(s) == [] for s in range(over.players))
    assert_rejected(over, PresidentClaim(0, (F, F, F), (F, F)), WrongPhase, "game is over")


def test_claims_replay_from_the_record_and_round_trip_through_json() -> None:
    rng = random.Random(7)
    for seed in range(40):
        game = Game(7, seed=seed)
        while not game.is_over:
            for seat in game.living():
                options = game.legal_claims(seat)
                if options and rng.random() < 0.7:
                    game.apply(rng.choice(options))
            if game.is_over:
                break
            seat = rng.choice(game.awaiting())
            game.apply(rng.choice(game.legal_actions(seat)))
        record = GameRecord.from_json(GameRecord.of(game).to_json())
        replay = record.replay()
        assert replay.events == game.events
        assert snapshot(replay)["actions"] == snapshot(game)["actions"]


@pytest.mark.parametrize(
    "claim", [PresidentClaim(0, (L, F, F), (L, F)), ChancellorClaim(3, (L, F))]
)
def test_claims_are_never_legal_actions(claim: PresidentClaim | ChancellorClaim) -> None:
    game = at_nominate()
    for seat in range(game.players):
        assert claim not in game.legal_actions(seat)
