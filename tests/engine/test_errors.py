"""Every illegal action raises the right typed error and leaves the game untouched."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    CallSpecialElection,
    ChancellorClaim,
    Claim,
    Discard,
    Enact,
    Execute,
    Game,
    GameRecord,
    IllegalAction,
    Investigate,
    InvestigationClaim,
    Nominate,
    Party,
    PeekClaim,
    Phase,
    Policy,
    PresidentClaim,
    ProposeVeto,
    RecordError,
    VetoReply,
    Vote,
)
from engine import events as ev
from engine.actions import ACTION_TYPES
from engine.errors import (
    DuplicateVote,
    IllegalTarget,
    MalformedAction,
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
            assert_rejected(game, action, MalformedAction, rf"There is no seat {seat}\.")
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


# --- ill-typed actions: rejected at the door, before any rule -----------------------


class ForeignVote(Vote):
    """A subclass the engine does not know: it is no action of the game."""


def after_a_session() -> Game:
    """President 1 and chancellor 2 may claim; nobody else."""
    game = at_enact()
    play(game, "enact F")
    assert game.phase is Phase.NOMINATE and game.legal_claims(1) and game.legal_claims(2)
    return game


@pytest.mark.parametrize(
    ("position", "action", "match"),
    [
        (at_vote, None, "not a game action"),
        (at_vote, "vote 4 ja", "not a game action"),
        (at_vote, {"type": "vote", "seat": 4, "ja": True}, "not a game action"),
        (at_vote, Action(4), "not a game action"),
        (at_vote, ForeignVote(4, True), "not a game action"),
        (at_vote, Vote(4, "nein"), r"A vote \(Ja or Nein\) must be true or false, not text"),
        (at_vote, Vote(4, "ja"), "must be true or false, not text"),
        (at_vote, Vote(4, b"\x00"), "must be true or false, not bytes"),
        (at_vote, Vote(4, 1), "must be true or false, not a number"),
        (at_vote, Vote(4, None), "must be true or false, not an empty value"),
        (at_vote, Vote(True, True), "The seat must be a seat number, not true/false"),
        (at_vote, Vote(4.0, True), "The seat must be a seat number, not a decimal number"),
        (at_vote, Vote(float("nan"), True), "not a decimal number"),
        (at_vote, Vote("4", True), "The seat must be a seat number, not text"),
        (at_vote, Vote(b"\x04", True), "The seat must be a seat number, not bytes"),
        (at_vote, Vote(None, True), "The seat must be a seat number, not an empty value"),
        (at_vote, Vote(10**100, True), "There is no seat"),
        # True == 1 is the president: without the type check this nomination would pass.
        (at_nominate, Nominate(True, 2), "The seat must be a seat number, not true/false"),
        (at_nominate, Nominate(1, True), "The nominee must be a seat number, not true/false"),
        (at_nominate, Nominate(1, 2.0), "The nominee must be a seat number"),
        (at_nominate, Nominate(1, "2"), "The nominee must be a seat number, not text"),
        (at_nominate, Nominate(1, [2]), "The nominee must be a seat number, not a list"),
        # "F" == Policy.FASCIST (a StrEnum): it would be taken, and a str put in the pile.
        (at_discard, Discard(1, "F"), "The policy must be a Liberal or Fascist policy, not text"),
        (at_discard, Discard(1, b"F"), "must be a Liberal or Fascist policy, not bytes"),
        (at_discard, Discard(1, None), "must be a Liberal or Fascist policy"),
        (at_enact, Enact(2, "F"), "The policy must be a Liberal or Fascist policy, not text"),
        (at_enact, Enact(2, Party.FASCIST), "not a party"),
        (at_veto_reply, VetoReply(0, "no"), "A veto reply must be true or false, not text"),
        (at_investigate, Investigate(0, 5.0), "The target must be a seat number"),
        (at_special_election, CallSpecialElection(2, "5"), "The target must be a seat number"),
        # True == 1, a living seat other than the president: it would be executed.
        (at_execute, Execute(3, True), "The target must be a seat number, not true/false"),
        (at_execute, Execute(3.0, 1), "The seat must be a seat number"),
        (after_a_session, PresidentClaim(1, ("F", "F", "F"), (F, F)), "The tiles drawn must be"),
        (after_a_session, PresidentClaim(1, (F, F, F), [F, F]), "The tiles passed must be"),
        (after_a_session, PresidentClaim(True, (F, F, F), (F, F)), "The seat must be"),
        (after_a_session, ChancellorClaim(2, b"FF"), "The tiles received must be"),
        (after_a_session, ChancellorClaim(2, "FF"), "The tiles received must be"),
        (after_a_session, PeekClaim(1, None), "The tiles seen must be"),
        (after_a_session, InvestigationClaim(1, 2, "fascist"), "The party must be"),
        (after_a_session, InvestigationClaim(1, True, Party.FASCIST), "The target must be"),
        (after_a_session, Claim(1), "not a game action"),
    ],
)
def test_ill_typed_actions_are_rejected_without_a_trace(
    position: Callable[[], Game], action: object, match: str
) -> None:
    game = position()
    before_actions, before_events, phase = list(game.actions), list(game.events), game.phase
    assert_rejected(game, action, MalformedAction, match)  # type: ignore[arg-type]
    assert game.actions == before_actions and game.events == before_events
    assert game.phase is phase


def test_the_typed_rejection_is_an_illegal_action() -> None:
    # Front-ends catch IllegalAction and show the message: a malformed action is one.
    assert issubclass(MalformedAction, IllegalAction)
    with pytest.raises(IllegalAction, match="not a game action"):
        at_vote().apply(None)  # type: ignore[arg-type]


def test_well_typed_actions_still_play_after_rejections() -> None:
    game = at_vote()
    for bad in (Vote(4, "nein"), Vote(True, False), Vote(4, 0)):
        with pytest.raises(MalformedAction):
            game.apply(bad)
    assert game.votes == {}
    game.apply(Vote(4, False))
    assert game.votes == {4: False}


def test_seat_queries_refuse_non_seat_numbers() -> None:
    game = at_vote()
    for seat in (True, 1.0, "1", None):
        assert game.legal_actions(seat) == []  # type: ignore[arg-type]
        assert game.legal_claims(seat) == []  # type: ignore[arg-type]
        with pytest.raises(MalformedAction, match="seat number"):
            game.view(seat)  # type: ignore[arg-type]
    with pytest.raises(MalformedAction, match="There is no seat 7"):
        game.view(7)


def test_a_record_with_an_ill_typed_ballot_does_not_replay() -> None:
    game = at_vote()
    # A stored ballot of "nein" would have been counted as Ja (a non-empty string).
    record = {"type": "vote", "seat": 4, "ja": "nein"}
    with pytest.raises(MalformedAction, match="must be true or false"):
        game.apply(Action.from_dict(record))
    seeded = Game(5, seed=3)
    seat = seeded.president
    nominee = seeded.eligible_chancellors()[0]
    data = GameRecord.of(seeded).to_dict()
    data["actions"] = [{"type": "nominate", "seat": seat, "chancellor": True}]
    with pytest.raises(RecordError, match="must be a seat number"):
        GameRecord.from_dict(data).replay()
    data["actions"] = [{"type": "nominate", "seat": seat, "chancellor": nominee}]
    assert GameRecord.from_dict(data).replay().phase is Phase.VOTE


_ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.integers(),
    st.floats(),
    st.text(max_size=4),
    st.binary(max_size=4),
    st.sampled_from(list(Policy) + list(Party)),
    st.lists(st.sampled_from(list(Policy)), max_size=4).map(tuple),
    st.lists(st.sampled_from(["L", "F", b"F", 0]), max_size=4).map(tuple),
)
_DECLARED = {"int": int, "bool": bool, "Policy": Policy, "Party": Party}


def _well_typed(action: Action) -> bool:
    for f in fields(action):
        value = getattr(action, f.name)
        if f.type == "tuple[Policy, ...]":
            if type(value) is not tuple or any(type(p) is not Policy for p in value):
                return False
        elif type(value) is not _DECLARED[str(f.type)]:
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(
    position=st.sampled_from([*POSITIONS.values(), after_a_session]),
    cls=st.sampled_from(sorted(ACTION_TYPES.values(), key=lambda c: c.kind)),
    data=st.data(),
)
def test_any_field_values_are_either_well_typed_or_rejected_untouched(
    position: Callable[[], Game], cls: type[Action], data: st.DataObject
) -> None:
    game = position()
    action = cls(**{f.name: data.draw(_ANYTHING, label=f.name) for f in fields(cls)})
    before = snapshot(game)
    try:
        game.apply(action)
    except IllegalAction as exc:
        assert snapshot(game) == before
        if not _well_typed(action):
            assert type(exc) is MalformedAction
        message = str(exc)
        assert re.fullmatch(r"[A-Z][^<>{}]*\.", message), message
    else:
        assert _well_typed(action), f"accepted an ill-typed {action!r}"
