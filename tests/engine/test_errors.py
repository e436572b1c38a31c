"""Every illegal action raises the right typed error and leaves the game untouched."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from engine import (
    Action,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Game,
    IllegalAction,
    Investigate,
    Nominate,
    Phase,
    Policy,
    ProposeVeto,
    VetoReply,
    Vote,
)
from engine import events as ev
from engine.errors import (
    DuplicateVote,
    IllegalTarget,
    NotYourTurn,
    TileNotInHand,
    VetoUnavailable,
    WrongPhase,
)
from tests.engine.helpers import (
    AFTER_FIVE_FASCIST,
    FIVE_FASCIST_DECK,
    deck,
    five_fascist_game,
    fixed_game,
    govern,
    pick_chancellor,
    play,
    snapshot,
)

L, F = Policy.LIBERAL, Policy.FASCIST


def assert_rejected(
    game: Game, action: Action, error: type[IllegalAction], match: str = ""
) -> IllegalAction:
    """`action` raises exactly `error` with a readable message; the state is unchanged."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    exc = info.value
    assert type(exc) is error, f"{action}: {type(exc).__name__}: {exc}"
    message = str(exc)
    assert re.fullmatch(r"[A-Z][^<>{}]*\.", message), f"not a readable message: {message!r}"
    assert "Policy." not in message and "Phase." not in message and "None" not in message
    assert re.search(match, message), message
    assert snapshot(game) == before, f"{action} changed the state"
    return exc


# --- positions ----------------------------------------------------------------------
# 7 players (seat 2 is Hitler): P0 + C3 enacted a Liberal policy from L F F, so seats 0
# and 3 are term-limited and seat 1 is the candidate; the next three tiles are F F F.
ROLES7 = "LFHLFLL"


def at_nominate() -> Game:
    game = fixed_game(ROLES7, deck("LFF" + "FFF"))
    govern(game, 3, "L")
    assert game.phase is Phase.NOMINATE and game.president == 1
    return game


def at_vote() -> Game:
    game = at_nominate()
    play(game, "nominate 2")
    return game


def at_discard() -> Game:
    game = at_vote()
    play(game, "ja")
    assert game.phase is Phase.PRESIDENT_DISCARD and game.hand == [F, F, F]
    return game


def at_enact() -> Game:
    game = at_discard()
    play(game, "discard F")
    assert game.phase is Phase.CHANCELLOR_ENACT and game.hand == [F, F]
    return game


def at_veto_reply() -> Game:
    game = five_fascist_game("LFHLFLLL")
    play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F", "veto")
    assert game.phase is Phase.VETO_REPLY
    return game


def at_investigate() -> Game:
    game = fixed_game("LFHLFLFLL", FIVE_FASCIST_DECK)
    govern(game, 1, "F")
    assert game.phase is Phase.INVESTIGATE and game.president == 0
    return game


def at_special_election() -> Game:
    game = fixed_game(ROLES7, FIVE_FASCIST_DECK)
    govern(game, 3, "F")
    govern(game, 4, "F")
    play(game, "investigate 5")
    govern(game, 5, "F")
    assert game.phase is Phase.SPECIAL_ELECTION and game.president == 2
    return game


def at_execute() -> Game:
    """5 players (seat 2 is Hitler), all alive; president 3 must execute."""
    game = fixed_game("LFHLL", FIVE_FASCIST_DECK, reshuffles=(AFTER_FIVE_FASCIST,))
    for chancellor in (1, 3, 4, 0):
        govern(game, chancellor, "F")
    assert game.phase is Phase.EXECUTE and game.president == 3
    return game


def at_game_over() -> Game:
    game = fixed_game("LFHLL", FIVE_FASCIST_DECK)
    for chancellor in (1, 3, 4):
        govern(game, chancellor, "F")
    play(game, "nominate 2", "ja")  # Hitler elected
    assert game.is_over
    return game


POSITIONS: dict[Phase, Callable[[], Game]] = {
    Phase.NOMINATE: at_nominate,
    Phase.VOTE: at_vote,
    Phase.PRESIDENT_DISCARD: at_discard,
    Phase.CHANCELLOR_ENACT: at_enact,
    Phase.VETO_REPLY: at_veto_reply,
    Phase.INVESTIGATE: at_investigate,
    Phase.SPECIAL_ELECTION: at_special_election,
    Phase.EXECUTE: at_execute,
}


def every_kind(seat: int, target: int) -> list[Action]:
    """One action of every kind, taken by `seat`."""
    return [
        Nominate(seat, target),
        Vote(seat, True),
        Discard(seat, F),
        Enact(seat, F),
        ProposeVeto(seat),
        VetoReply(seat, True),
        Investigate(seat, target),
        CallSpecialElection(seat, target),
        Execute(seat, target),
    ]


ACTION_PHASE = {
    Nominate: Phase.NOMINATE,
    Vote: Phase.VOTE,
    Discard: Phase.PRESIDENT_DISCARD,
    Enact: Phase.CHANCELLOR_ENACT,
    ProposeVeto: Phase.CHANCELLOR_ENACT,
    VetoReply: Phase.VETO_REPLY,
    Investigate: Phase.INVESTIGATE,
    CallSpecialElection: Phase.SPECIAL_ELECTION,
    Execute: Phase.EXECUTE,
}


# --- wrong phase --------------------------------------------------------------------


@pytest.mark.parametrize("phase", list(POSITIONS), ids=[p.value for p in POSITIONS])
def test_every_action_of_another_phase_is_rejected(phase: Phase) -> None:
    game = POSITIONS[phase]()
    assert game.phase is phase
    seat = game.awaiting()[0]
    target = next(s for s in game.living() if s != seat)
    wrong = [a for a in every_kind(seat, target) if ACTION_PHASE[type(a)] is not phase]
    assert len(wrong) >= 7
    for action in wrong:
        assert_rejected(game, action, WrongPhase, "not possible now: the game is waiting for")


def test_every_action_after_the_game_is_over_is_rejected() -> None:
    game = at_game_over()
    assert game.awaiting() == []
    for seat in range(game.players):
        assert game.legal_actions(seat) == []
        for action in every_kind(seat, (seat + 1) % game.players):
            assert_rejected(game, action, WrongPhase, "game is over")


# --- wrong seat ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "make", "error_match"),
    [
        (at_nominate, lambda s: Nominate(s, 5), r"Only the president \(seat 1\)"),
        (at_discard, lambda s: Discard(s, F), r"Only the president \(seat 1\)"),
        (at_enact, lambda s: Enact(s, F), r"Only the chancellor \(seat 2\)"),
        (at_enact, lambda s: ProposeVeto(s), r"Only the chancellor \(seat 2\)"),
        (at_veto_reply, lambda s: VetoReply(s, True), r"Only the president"),
        (at_investigate, lambda s: Investigate(s, 5), r"Only the president \(seat 0\)"),
        (at_special_election, lambda s: CallSpecialElection(s, 5), r"Only the president"),
        (at_execute, lambda s: Execute(s, 4), r"Only the president \(seat 3\)"),
    ],
    ids=["nominate", "discard", "enact", "veto", "veto-reply", "investigate", "special", "exec"],
)
def test_only_the_seat_that_must_act_may_act(
    position: Callable[[], Game], make: Callable[[int], Action], error_match: str
) -> None:
    game = position()
    (actor,) = game.awaiting()
    for seat in game.living():
        if seat != actor:
            assert game.legal_actions(seat) == []
            assert_rejected(game, make(seat), NotYourTurn, error_match)


@pytest.mark.parametrize("phase", list(POSITIONS), ids=[p.value for p in POSITIONS])
def test_nonexistent_seats_are_rejected(phase: Phase) -> None:
    game = POSITIONS[phase]()
    for seat in (-1, game.players, 99):
        for action in every_kind(seat, 0):
            # The engine raises the base class here (no subclass names this case).
            assert_rejected(game, action, IllegalAction, rf"There is no seat {seat}\.")
    with pytest.raises(IllegalAction, match="no seat"):
        game.view(game.players)


@pytest.mark.parametrize("seat", [-1, 7])
def test_legal_actions_of_a_nonexistent_seat_are_empty_during_a_vote(seat: int) -> None:
    game = at_vote()
    assert game.legal_actions(seat) == []


def test_dead_players_cannot_vote() -> None:
    game = at_execute()
    play(game, "execute 4", "nominate 1")
    assert game.phase is Phase.VOTE and 4 not in game.awaiting()
    for ja in (True, False):
        assert_rejected(game, Vote(4, ja), NotYourTurn, "Dead players take no part")


# --- targets ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "match"),
    [
        (1, "cannot nominate yourself"),
        (0, "Seat 0 is term-limited"),
        (3, "Seat 3 is term-limited"),
        (7, "There is no seat 7"),
        (-1, "There is no seat -1"),
    ],
)
def test_ineligible_nominees_are_rejected(target: int, match: str) -> None:
    game = at_nominate()
    assert_rejected(game, Nominate(1, target), IllegalTarget, match)
    assert Nominate(1, target) not in game.legal_actions(1)


def test_dead_nominee_is_rejected() -> None:
    game = at_execute()
    play(game, "execute 0")
    assert game.president == 4
    assert_rejected(game, Nominate(4, 0), IllegalTarget, "Seat 0 is dead")


@pytest.mark.parametrize(
    ("position", "make"),
    [
        (at_investigate, Investigate),
        (at_special_election, CallSpecialElection),
        (at_execute, Execute),
    ],
    ids=["investigate", "special_election", "execute"],
)
def test_power_targets_self_and_nonexistent_are_rejected(
    position: Callable[[], Game], make: type[Action]
) -> None:
    game = position()
    president = game.president
    assert_rejected(game, make(president, president), IllegalTarget, "cannot choose yourself")
    assert_rejected(game, make(president, 42), IllegalTarget, "There is no seat 42")
    assert_rejected(game, make(president, -3), IllegalTarget, "There is no seat -3")
    assert president not in game.power_targets()


def test_dead_players_cannot_be_targeted() -> None:
    game = at_execute()
    play(game, "execute 4", "nominate 1", "votes JJJJ-", "discard F", "enact F")
    assert game.phase is Phase.EXECUTE and game.president == 0
    assert_rejected(game, Execute(0, 4), IllegalTarget, "Seat 4 is dead")


def test_investigating_twice_is_rejected() -> None:
    game = at_investigate()
    play(game, "investigate 5")
    govern(game, 3, "F")
    assert game.phase is Phase.INVESTIGATE and game.president == 1
    assert_rejected(game, Investigate(1, 5), IllegalTarget, "Seat 5 has already been investigated")
    assert Investigate(1, 5) not in game.legal_actions(1)


# --- tiles --------------------------------------------------------------------------


def test_discarding_a_tile_not_held_is_rejected() -> None:
    game = at_discard()
    assert_rejected(game, Discard(1, L), TileNotInHand, "You hold no Liberal policy")
    assert game.legal_actions(1) == [Discard(1, F)]


def test_enacting_a_tile_not_held_is_rejected() -> None:
    game = at_enact()
    assert_rejected(game, Enact(2, L), TileNotInHand, "You hold no Liberal policy")
    game = fixed_game(ROLES7, deck("LLF"))
    play(game, "nominate 3", "ja", "discard F")
    assert game.hand == [L, L]
    assert_rejected(game, Enact(3, F), TileNotInHand, "You hold no Fascist policy")


# --- veto ---------------------------------------------------------------------------


def test_veto_before_five_fascist_policies_is_rejected() -> None:
    game = at_enact()
    assert_rejected(game, ProposeVeto(2), VetoUnavailable, "only once 5 Fascist")
    assert ProposeVeto(2) not in game.legal_actions(2)


def test_second_veto_after_a_refusal_is_rejected() -> None:
    game = at_veto_reply()
    chancellor = game.chancellor
    assert chancellor is not None
    play(game, "refuse")
    assert_rejected(game, ProposeVeto(chancellor), VetoUnavailable, "already refused")
    assert ProposeVeto(chancellor) not in game.legal_actions(chancellor)


def test_a_veto_reply_without_a_proposal_is_rejected() -> None:
    game = five_fascist_game("LFHLFLLL")
    play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F")
    assert_rejected(game, VetoReply(game.president, True), WrongPhase, "waiting for the chancellor")


# --- votes --------------------------------------------------------------------------


def test_repeating_the_same_ballot_is_rejected() -> None:
    game = at_vote()
    game.apply(Vote(4, True))
    assert_rejected(game, Vote(4, True), DuplicateVote, "You already voted Ja")
    game.apply(Vote(5, False))
    assert_rejected(game, Vote(5, False), DuplicateVote, "You already voted Nein")


def test_changing_a_ballot_before_the_last_one_replaces_it() -> None:
    game = at_vote()
    game.apply(Vote(4, True))
    assert game.legal_actions(4) == [Vote(4, False)]
    events = game.apply(Vote(4, False))
    assert events == [ev.VoteCast(4, True)]
    assert game.votes == {4: False} and game.view(4).my_vote is False
    assert game.awaiting() == [0, 1, 2, 3, 5, 6]  # seat 4 is not asked again
    events = game.apply(Vote(4, True))  # and back again
    assert events == [ev.VoteCast(4, True)] and game.votes == {4: True}
    for seat in (0, 1, 2):
        game.apply(Vote(seat, False))
    game.apply(Vote(3, True))
    game.apply(Vote(5, True))
    events = game.apply(Vote(6, True))  # the last ballot: counted at once
    result = [e for e in events if isinstance(e, ev.ElectionResult)]
    assert result[0].votes == (False, False, False, True, True, True, True)
    assert result[0].elected
    # Once the last ballot is in, nobody can change theirs.
    assert_rejected(game, Vote(0, True), WrongPhase, "waiting for the president to discard")


def test_rejections_leave_no_trace_in_records() -> None:
    game = at_vote()
    actions, events = list(game.actions), list(game.events)
    game.apply(Vote(1, True))
    for action in (Vote(1, True), Nominate(1, 2), Vote(9, True), Enact(2, F)):
        with pytest.raises(IllegalAction):
            game.apply(action)
    assert game.actions == [*actions, Vote(1, True)]
    assert game.events == [*events, ev.VoteCast(1, False)]
