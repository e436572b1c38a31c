"""One or more tests per rule of RULES.md, on exact positions set up with FixedChance."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    REBALANCED,
    STANDARD,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Game,
    GameRecord,
    Investigate,
    Nominate,
    Party,
    Phase,
    Policy,
    Power,
    ProposeVeto,
    Role,
    SetupError,
    Variant,
    VetoReply,
    Vote,
    WinReason,
)
from engine import events as ev
from engine.errors import IllegalTarget, NotYourTurn, VetoUnavailable
from tests.engine.helpers import (
    AFTER_FIVE_FASCIST,
    FIVE_FASCIST_DECK,
    ROLE_TABLE,
    auto_govern,
    deck,
    five_fascist_game,
    fixed_game,
    govern,
    of_type,
    pick_chancellor,
    play,
    role_counts_ok,
    snapshot,
    tiles,
    use_power,
)

L, F = Policy.LIBERAL, Policy.FASCIST
# One fixed role layout per player count: seat 1 is a Fascist, seat 2 is Hitler.
ROLES = {
    5: "LFHLL",
    6: "LFHLLL",
    7: "LFHLFLL",
    8: "LFHLFLLL",
    9: "LFHLFLFLL",
    10: "LFHLFLFLLL",
}

# --- setup --------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(5, 11))
def test_role_counts_and_deck_per_player_count(players: int) -> None:
    liberals, fascists = ROLE_TABLE[players]
    for seed in range(40):
        game = Game(players, seed=seed)
        assert role_counts_ok(game)
        assert Counter(game.roles)[Role.LIBERAL] == liberals
        assert Counter(game.roles)[Role.FASCIST] == fascists
        assert game.roles.count(Role.HITLER) == 1
        assert Counter(game.draw_pile) == {L: 6, F: 11}
        assert game.discard_pile == [] and game.hand == []
        assert game.liberal_policies == game.fascist_policies == game.election_tracker == 0
        assert game.phase is Phase.NOMINATE and game.alive == [True] * players
        assert game.awaiting() == [game.president]
    assert (game.setup.liberals, game.setup.fascists) == (liberals, fascists)


@pytest.mark.parametrize("players", [0, 4, 11])
def test_player_counts_outside_5_to_10_are_refused(players: int) -> None:
    with pytest.raises(SetupError, match="5 to 10"):
        Game(players, seed=1)


def test_roles_and_first_president_are_uniform() -> None:
    games = 2100
    hitler, first = Counter(), Counter()
    for seed in range(games):
        game = Game(7, seed=seed)
        hitler[game.hitler] += 1
        first[game.president] += 1
    # 300 per seat expected; +-35% is far outside chance (about 6 standard deviations).
    for counts in (hitler, first):
        assert set(counts) == set(range(7))
        assert all(195 <= c <= 405 for c in counts.values()), counts


def test_same_seed_same_game_different_seed_different_deal() -> None:
    a, b = Game(8, seed=99), Game(8, seed=99)
    assert snapshot(a) == snapshot(b)
    deals = {(Game(8, seed=s).roles, Game(8, seed=s).president) for s in range(30)}
    assert len(deals) > 20


# --- team knowledge -----------------------------------------------------------------


def expected_knowledge(roles: tuple[Role, ...], seat: int) -> dict[int, Role]:
    me, players = roles[seat], len(roles)
    if me is Role.LIBERAL or (me is Role.HITLER and players >= 7):
        return {}
    return {s: r for s, r in enumerate(roles) if s != seat and r is not Role.LIBERAL}


@pytest.mark.parametrize("players", range(5, 11))
def test_team_knowledge(players: int) -> None:
    for seed in range(10):
        game = Game(players, seed=seed)
        dealt = {e.seat: e for e in of_type(game.events, ev.RoleDealt)}
        assert sorted(dealt) == list(range(players))
        for seat, role in enumerate(game.roles):
            known = dict(game.known_roles(seat))
            assert known == expected_knowledge(game.roles, seat)
            assert dealt[seat].role is role and dict(dealt[seat].known) == known
            view = game.view(seat).known_roles
            assert view[seat] is role
            assert {s: r for s, r in enumerate(view) if r is not None and s != seat} == known
            if role is Role.FASCIST:  # every Fascist and Hitler
                expected = Counter({Role.FASCIST: ROLE_TABLE[players][1] - 1, Role.HITLER: 1})
                assert Counter(known.values()) == +expected  # (+ drops a zero count)
            elif role is Role.HITLER:
                assert len(known) == (1 if players <= 6 else 0)
            else:
                assert known == {}


# --- term limits --------------------------------------------------------------------


def test_last_elected_president_and_chancellor_are_term_limited() -> None:
    game = fixed_game(ROLES[7])
    govern(game, 3, "L")
    assert game.president == 1
    assert game.term_limited() == [0, 3]
    assert game.eligible_chancellors() == [2, 4, 5, 6]
    for seat in (0, 3):
        with pytest.raises(IllegalTarget, match="term-limited"):
            game.apply(Nominate(1, seat))


def test_with_five_alive_only_the_last_chancellor_is_term_limited() -> None:
    game = fixed_game(ROLES[5])
    govern(game, 2, "L")
    assert game.president == 1
    assert game.term_limited() == [2]
    assert game.eligible_chancellors() == [0, 3, 4]
    play(game, "nominate 0", "ja")  # the last president may be chancellor again
    assert game.phase is Phase.PRESIDENT_DISCARD and game.chancellor == 0


def test_execution_down_to_five_alive_lifts_the_president_term_limit() -> None:
    game = fixed_game(ROLES[6], deck("FFL" * 4))
    govern(game, 1, "F")  # P0
    govern(game, 3, "F")  # P1
    govern(game, 4, "F")  # P2 (policy peek: no step)
    govern(game, 1, "F")  # P3: execution
    assert game.phase is Phase.EXECUTE
    assert (game.last_president, game.last_chancellor) == (3, 1)
    assert game.term_limited() == [1, 3]  # six alive: both
    play(game, "execute 0")
    assert game.alive_count == 5 and game.president == 4
    assert game.term_limited() == [1]  # five alive: only the chancellor
    assert game.eligible_chancellors() == [2, 3, 5]


def test_failed_election_does_not_change_term_limits() -> None:
    game = fixed_game(ROLES[7])
    govern(game, 3, "L")  # P0 + C3 elected
    play(game, "nominate 4", "nein")  # P1 + C4 fail
    assert game.president == 2
    assert game.term_limited() == [0, 3]
    assert game.eligible_chancellors() == [1, 4, 5, 6]


def test_vetoed_government_changes_term_limits() -> None:
    game = five_fascist_game(ROLES[8])
    play(game, f"nominate {pick_chancellor(game)}", "nein")
    president, chancellor = game.president, pick_chancellor(game)
    assert game.term_limited() == [3, 4]
    assert chancellor not in (3, 4) and president not in (3, 4)
    play(game, f"nominate {chancellor}", "ja", "discard F", "veto", "agree")
    assert game.liberal_policies == 0 and game.fascist_policies == 5
    assert (game.last_president, game.last_chancellor) == (president, chancellor)
    assert game.term_limited() == sorted([president, chancellor])


def test_presidential_candidate_is_never_term_limited() -> None:
    game = fixed_game(ROLES[7])
    govern(game, 1, "L")  # seat 1 was chancellor and is the next candidate
    assert game.president == 1 and 1 in game.term_limited()
    assert game.legal_actions(1)
    govern(game, 2, "L")
    assert game.liberal_policies == 2


# --- voting -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roles", "ballots", "elected"),
    [
        (ROLES[6], "JJJNNN", False),  # a tie fails
        (ROLES[6], "JJJJNN", True),
        (ROLES[5], "JJJNN", True),
        (ROLES[5], "NJJNN", False),
        (ROLES[10], "JJJJJNNNNN", False),
        (ROLES[10], "JJJJJJNNNN", True),
    ],
)
def test_strict_majority_of_the_living(roles: str, ballots: str, elected: bool) -> None:
    game = fixed_game(roles)
    events = play(game, "nominate 3", f"votes {ballots}")
    (result,) = of_type(events, ev.ElectionResult)
    assert result.elected is elected
    assert result.votes == tuple(c == "J" for c in ballots)
    if elected:
        assert game.phase is Phase.PRESIDENT_DISCARD and game.election_tracker == 0
    else:
        assert game.phase is Phase.NOMINATE and game.election_tracker == 1
        assert game.president == 1  # the candidacy passes left
        assert game.draw_pile == tiles(deck(""))  # nothing was drawn


def test_votes_are_revealed_only_when_the_last_living_player_has_voted() -> None:
    game = fixed_game(ROLES[5])
    play(game, "nominate 2")
    for seat in (4, 0, 3, 1):
        events = game.apply(Vote(seat, seat % 2 == 0))
        assert [type(e) for e in events] == [ev.VoteCast]
        assert game.phase is Phase.VOTE
    events = game.apply(Vote(2, True))
    assert isinstance(events[0], ev.VoteCast)
    (result,) = of_type(events, ev.ElectionResult)
    assert result.votes == (True, False, True, False, True) and result.elected


def test_a_vote_may_be_changed_until_the_last_ballot() -> None:
    game = fixed_game(ROLES[5])
    play(game, "nominate 2")
    game.apply(Vote(0, True))
    events = game.apply(Vote(0, False))
    assert events == [ev.VoteCast(0, True)]
    assert game.votes == {0: False} and game.view(0).my_vote is False
    for seat in (1, 2, 3):
        game.apply(Vote(seat, True))
    events = game.apply(Vote(4, False))
    (result,) = of_type(events, ev.ElectionResult)
    assert result.votes == (False, True, True, True, False) and result.elected


def test_dead_players_do_not_vote_and_majority_counts_the_living() -> None:
    game = fixed_game(ROLES[5], deck("FFL" * 4))
    govern(game, 1, "F")
    govern(game, 3, "F")
    govern(game, 4, "F")
    govern(game, 0, "F")
    play(game, "execute 1")  # four alive: 0, 2, 3, 4
    assert game.president == 4
    play(game, "nominate 3")
    assert game.awaiting() == [0, 2, 3, 4]
    assert game.legal_actions(1) == []
    with pytest.raises(NotYourTurn):
        game.apply(Vote(1, True))
    events = play(game, "votes J-JNN")  # 2 of 4: a tie fails
    (result,) = of_type(events, ev.ElectionResult)
    assert result.votes == (True, None, True, False, False) and not result.elected
    assert game.president == 0
    play(game, "nominate 3")
    events = play(game, "votes N-JJJ")  # 3 of 4
    assert of_type(events, ev.ElectionResult)[0].elected


def test_majority_after_two_executions_counts_only_the_living() -> None:
    game = five_fascist_game(ROLES[8])  # seats 0 and 1 are dead: 6 alive
    assert game.alive_count == 6
    chancellor = pick_chancellor(game)
    events = play(game, f"nominate {chancellor}", "votes --JJJNNN")  # 3 of 6: a tie
    assert not of_type(events, ev.ElectionResult)[0].elected
    events = play(game, f"nominate {pick_chancellor(game)}", "votes --JJJJNN")  # 4 of 6
    (result,) = of_type(events, ev.ElectionResult)
    assert result.elected and result.votes[:2] == (None, None)


# --- election tracker and chaos -----------------------------------------------------


def test_failed_elections_advance_the_tracker_and_pass_the_candidacy_left() -> None:
    game = fixed_game(ROLES[7])
    for expected, candidate in ((1, 1), (2, 2)):
        events = play(game, f"nominate {candidate + 2}", "nein")
        assert of_type(events, ev.ElectionTrackerAdvanced) == [ev.ElectionTrackerAdvanced(expected)]
        assert game.election_tracker == expected and game.president == candidate


def test_chaos_enacts_the_top_tile_ignores_its_power_and_clears_term_limits() -> None:
    # 7 players: the 2nd Fascist policy normally grants an investigation.
    game = fixed_game(ROLES[7], deck("FFL" + "F"))
    govern(game, 3, "F")
    assert game.term_limited() == [0, 3]
    draw_before = list(game.draw_pile)
    play(game, "nominate 2", "nein", "nominate 4", "nein")
    assert game.election_tracker == 2
    events = play(game, "nominate 5", "nein")
    assert of_type(events, ev.PolicyEnacted) == [ev.PolicyEnacted(F, True, 0, 2)]
    assert of_type(events, ev.TermLimitsCleared)
    assert not of_type(events, ev.PowerGranted)
    assert game.fascist_policies == 2 and game.election_tracker == 0
    assert game.draw_pile == draw_before[1:]  # the top tile, and only it
    assert game.phase is Phase.NOMINATE and game.president == 4
    assert game.term_limited() == []
    assert game.eligible_chancellors() == [0, 1, 2, 3, 5, 6]
    assert game.tiles_in_play() == 17


def test_chaos_liberal_policy_can_win() -> None:
    game = fixed_game(ROLES[5], deck("LFF" * 4 + "L"))
    for chancellor in (1, 2, 3, 4):
        govern(game, chancellor, "L")
    assert game.liberal_policies == 4 and game.draw_pile[0] is L
    play(game, "nominate 1", "nein", "nominate 2", "nein", "nominate 3", "nein")
    assert game.is_over
    assert (game.winner, game.win_reason) == (Party.LIBERAL, WinReason.FIVE_LIBERAL)
    assert of_type(game.events, ev.PolicyEnacted)[-1].chaos
    assert isinstance(game.events[-1], ev.GameEnded)


def test_chaos_fascist_policy_can_win() -> None:
    game = five_fascist_game(ROLES[8], reshuffles=("F" + "LLLLLL" + "FFFFF",))
    for _ in range(3):
        play(game, f"nominate {pick_chancellor(game)}", "nein")
    assert game.is_over
    assert (game.winner, game.win_reason) == (Party.FASCIST, WinReason.SIX_FASCIST)
    assert of_type(game.events, ev.PolicyEnacted)[-1] == ev.PolicyEnacted(F, True, 0, 6)


def test_tracker_resets_on_enactment_but_not_on_a_mere_election() -> None:
    game = fixed_game(ROLES[7])
    play(game, "nominate 3", "nein", "nominate 3", "nein")
    assert game.election_tracker == 2
    play(game, "nominate 3", "ja")
    assert game.phase is Phase.PRESIDENT_DISCARD and game.election_tracker == 2
    play(game, "discard L", "enact L")
    assert game.election_tracker == 0


def test_tracker_resets_after_a_chaos_enactment() -> None:
    game = fixed_game(ROLES[6])
    for candidate in (0, 1, 2):
        play(game, f"nominate {candidate + 1}", "nein")
    assert game.election_tracker == 0 and game.liberal_policies == 1
    play(game, "nominate 5", "nein")
    assert game.election_tracker == 1


# --- the deck and reshuffles --------------------------------------------------------


def test_reshuffle_after_a_session_leaves_fewer_than_three() -> None:
    # Four sessions enact L (12 tiles drawn, 5 left), the fifth enacts F (2 left).
    order = "LFLFFFFFFFFF"
    game = fixed_game(ROLES[5], "LFF" * 4 + "FLF" + "LF", reshuffles=(order,))
    for chancellor in (2, 3, 4, 0):
        events = govern(game, chancellor, "L")
        assert not of_type(events, ev.DeckReshuffled)
    assert len(game.draw_pile) == 5
    events = govern(game, 1, "F")
    assert of_type(events, ev.DeckReshuffled) == [ev.DeckReshuffled(12)]
    assert game.draw_pile == tiles(order) and game.discard_pile == []
    assert game.tiles_in_play() == 17


def test_enacted_tiles_never_return_to_the_deck() -> None:
    game = five_fascist_game(ROLES[7])
    # 5 Fascist tiles are on the board: the reshuffled pile holds the other 12.
    assert Counter(game.draw_pile) == {L: 6, F: 6}


def test_reshuffle_after_a_chaos_top_deck() -> None:
    # Four L sessions leave 5 tiles; two chaos top-decks leave 3 (no reshuffle), a
    # third leaves 2, which forces a reshuffle of those 2 with the 8 discards.
    game = fixed_game(ROLES[5], "LFF" * 4 + "FFF" + "LL", reshuffles=("LLFFFFFFFF",))
    for chancellor in (2, 3, 4, 0):
        govern(game, chancellor, "L")
    for expected_draw in (4, 3):
        events = play(game, "nominate 1", "nein", "nominate 2", "nein", "nominate 3", "nein")
        assert of_type(events, ev.PolicyEnacted)[0].chaos
        assert not of_type(events, ev.DeckReshuffled)
        assert len(game.draw_pile) == expected_draw
    assert game.fascist_policies == 2
    events = play(game, "nominate 1", "nein", "nominate 2", "nein", "nominate 3", "nein")
    enacted, reshuffled = of_type(events, ev.PolicyEnacted), of_type(events, ev.DeckReshuffled)
    assert enacted == [ev.PolicyEnacted(F, True, 4, 3)]  # chaos ignores the peek
    assert reshuffled == [ev.DeckReshuffled(10)]
    assert events.index(enacted[0]) < events.index(reshuffled[0])
    assert game.draw_pile == tiles("LLFFFFFFFF") and game.discard_pile == []
    assert not of_type(events, ev.PolicyPeeked)
    assert game.tiles_in_play() == 17


def test_reshuffle_after_an_agreed_veto() -> None:
    reshuffles = (AFTER_FIVE_FASCIST, "LLLLFFFFFF")
    game = five_fascist_game(ROLES[8], reshuffles=reshuffles)
    auto_govern(game, "L")  # 12 -> 9
    auto_govern(game, "L")  # 9 -> 6
    play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F", "veto", "agree")
    assert len(game.draw_pile) == 3 and game.election_tracker == 1
    play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F", "veto")
    events = play(game, "agree")
    assert of_type(events, ev.DeckReshuffled) == [ev.DeckReshuffled(10)]
    assert game.draw_pile == tiles("LLLLFFFFFF") and game.election_tracker == 2
    assert game.tiles_in_play() == 17


@pytest.mark.parametrize(("top", "over"), [("F", True), ("L", False)])
def test_after_an_agreed_veto_reshuffle_comes_before_tracker_and_chaos(
    top: str, over: bool
) -> None:
    # After five Fascist policies 12 tiles are reshuffled. Two L sessions and a vetoed
    # one leave 3; a failed election brings the tracker to 2; the next government
    # draws the last 3 and vetoes: the empty pile is reshuffled first, then the
    # tracker reaches 3 and chaos enacts the top tile of the *new* pile.
    second = {"F": "F" + "LLLL" + "FFFFF", "L": "L" + "LLL" + "FFFFFF"}[top]
    game = five_fascist_game(ROLES[8], reshuffles=("LFF" + "LFF" + "FLL" + "LLF", second))
    auto_govern(game, "L")
    auto_govern(game, "L")
    play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F", "veto", "agree")
    play(game, f"nominate {pick_chancellor(game)}", "nein")
    assert game.election_tracker == 2 and len(game.draw_pile) == 3
    play(game, f"nominate {pick_chancellor(game)}", "ja")
    assert game.draw_pile == []
    events = play(game, "discard L", "veto", "agree")
    kinds = [type(e) for e in events]
    veto_at = kinds.index(ev.VetoReplied)
    assert kinds[veto_at : veto_at + 4] == [
        ev.VetoReplied,
        ev.DeckReshuffled,
        ev.ElectionTrackerAdvanced,
        ev.PolicyEnacted,
    ]
    assert events[veto_at + 1] == ev.DeckReshuffled(10)
    assert events[veto_at + 2] == ev.ElectionTrackerAdvanced(3)
    (enacted,) = of_type(events, ev.PolicyEnacted)
    assert enacted.policy is Policy(top) and enacted.chaos
    assert game.is_over is over
    if over:
        assert game.win_reason is WinReason.SIX_FASCIST
    else:
        assert game.liberal_policies == 3 and game.election_tracker == 0
        assert game.draw_pile == tiles(second[1:]) and game.discard_pile == []
        assert of_type(events, ev.TermLimitsCleared) and game.term_limited() == []
    assert game.tiles_in_play() == 17


# --- presidential powers ------------------------------------------------------------

INV, SPEC, PEEK, EXEC = (
    Power.INVESTIGATE,
    Power.SPECIAL_ELECTION,
    Power.POLICY_PEEK,
    Power.EXECUTION,
)
POWER_TABLE = {  # RULES.md, "Presidential powers", one column per player-count group
    5: (None, None, PEEK, EXEC, EXEC),
    6: (None, None, PEEK, EXEC, EXEC),
    7: (None, INV, SPEC, EXEC, EXEC),
    8: (None, INV, SPEC, EXEC, EXEC),
    9: (INV, INV, SPEC, EXEC, EXEC),
    10: (INV, INV, SPEC, EXEC, EXEC),
}
POWER_PHASE = {INV: Phase.INVESTIGATE, SPEC: Phase.SPECIAL_ELECTION, EXEC: Phase.EXECUTE}


@pytest.mark.parametrize("players", range(5, 11))
def test_every_power_of_the_track_then_six_fascist_wins(players: int) -> None:
    game = fixed_game(ROLES[players], FIVE_FASCIST_DECK, reshuffles=(AFTER_FIVE_FASCIST,))
    for slot, power in enumerate(POWER_TABLE[players], start=1):
        assert game.veto_unlocked is False
        president = game.president
        events = govern(game, pick_chancellor(game), "F")
        assert game.fascist_policies == slot
        granted = of_type(events, ev.PowerGranted)
        if power is None:
            assert granted == [] and game.phase is Phase.NOMINATE
        elif power is PEEK:
            assert granted == [ev.PowerGranted(president, PEEK)]
            assert game.phase is Phase.NOMINATE  # a peek needs no decision
        else:
            assert granted == [ev.PowerGranted(president, power)]
            assert game.phase is POWER_PHASE[power] and game.awaiting() == [president]
            use_power(game)
        assert game.setup.power_after(slot) is power
    assert game.veto_unlocked is True
    events = govern(game, pick_chancellor(game), "F")
    assert game.is_over and game.winner is Party.FASCIST
    assert game.win_reason is WinReason.SIX_FASCIST
    assert not of_type(events, ev.PowerGranted)


def test_investigation_result_is_private_and_hitler_shows_fascist() -> None:
    game = fixed_game(ROLES[9], FIVE_FASCIST_DECK)
    govern(game, 1, "F")
    assert game.phase is Phase.INVESTIGATE
    assert game.power_targets() == [1, 2, 3, 4, 5, 6, 7, 8]  # not themself
    assert game.legal_actions(0) == [Investigate(0, t) for t in range(1, 9)]
    events = play(game, "investigate 2")
    assert events[:2] == [
        ev.PlayerInvestigated(0, 2),
        ev.InvestigationResult(0, 2, Party.FASCIST),
    ]
    assert events[0].audience is None and events[1].audience == frozenset({0})
    assert game.investigated == {2} and game.president == 1
    govern(game, 3, "F")
    assert game.phase is Phase.INVESTIGATE and game.president == 1
    assert 2 not in game.power_targets() and 1 not in game.power_targets()
    with pytest.raises(IllegalTarget, match="already been investigated"):
        game.apply(Investigate(1, 2))
    events = play(game, "investigate 0")
    assert of_type(events, ev.InvestigationResult) == [ev.InvestigationResult(1, 0, Party.LIBERAL)]
    assert game.investigated == {0, 2}


def seven_player_special_election(
    target: int | None = None, reshuffles: tuple[str, ...] = ()
) -> Game:
    """7 players at the special election after the 3rd Fascist policy (president 2)."""
    game = fixed_game(ROLES[7], FIVE_FASCIST_DECK, reshuffles=reshuffles)
    govern(game, 3, "F")  # P0
    govern(game, 4, "F")  # P1: investigation
    play(game, "investigate 5")
    govern(game, 5, "F")  # P2: special election
    assert game.phase is Phase.SPECIAL_ELECTION and game.president == 2
    if target is not None:
        play(game, f"special_election {target}")
    return game


def test_special_election_may_pick_any_other_living_player() -> None:
    game = seven_player_special_election()
    assert game.term_limited() == [2, 5]
    assert game.power_targets() == [0, 1, 3, 4, 5, 6]  # term limits do not apply
    assert game.legal_actions(2) == [CallSpecialElection(2, t) for t in (0, 1, 3, 4, 5, 6)]
    with pytest.raises(IllegalTarget):
        game.apply(CallSpecialElection(2, 2))
    events = play(game, "special_election 5")  # the last chancellor
    assert events[0] == ev.SpecialElectionCalled(2, 5)
    assert game.president == 5 and game.phase is Phase.NOMINATE
    assert game.special_election_caller == 2


@pytest.mark.parametrize("outcome", ["elected", "failed"])
def test_after_a_special_election_the_candidacy_returns_left_of_the_caller(
    outcome: str,
) -> None:
    # (Five sessions empty the deck down to 2: the 4 L and 8 F left are reshuffled.)
    game = seven_player_special_election(target=6, reshuffles=("LLLLFFFFFFFF",))
    if outcome == "elected":
        govern(game, 0, "L")
    else:
        play(game, "nominate 0", "nein")
        assert game.election_tracker == 1
    assert game.president == 3  # left of the caller (2), not left of 6
    assert game.special_election_caller is None
    govern(game, 1, "L")
    assert game.president == 4  # then on as usual


def test_special_election_of_the_next_player_gives_them_two_turns() -> None:
    game = seven_player_special_election(target=3)
    play(game, "nominate 0", "nein")
    assert game.president == 3


def test_after_a_vetoed_special_government_the_candidacy_returns_left_of_the_caller() -> None:
    # Veto and a special election coincide only with a custom track.
    track = (None, None, None, None, SPEC)
    game = fixed_game(
        ROLES[7],
        FIVE_FASCIST_DECK,
        reshuffles=(AFTER_FIVE_FASCIST,),
        variant=Variant("custom", powers=track),
    )
    for chancellor in (3, 4, 5, 6):
        govern(game, chancellor, "F")
    govern(game, 0, "F")  # P4 enacts the 5th: special election
    assert game.phase is Phase.SPECIAL_ELECTION and game.president == 4
    play(game, "special_election 1")
    play(game, "nominate 3", "ja", "discard F", "veto", "agree")
    assert game.election_tracker == 1 and game.fascist_policies == 5
    assert game.president == 5


def test_policy_peek_shows_the_top_three_privately_and_changes_nothing() -> None:
    peek_game = fixed_game(ROLES[5], FIVE_FASCIST_DECK)
    plain = fixed_game(ROLES[5], FIVE_FASCIST_DECK, variant=Variant("custom", powers=(None,) * 5))
    for game in (peek_game, plain):
        govern(game, 1, "F")
        govern(game, 3, "F")
        govern(game, 4, "F")
    peeked = of_type(peek_game.events, ev.PolicyPeeked)
    assert peeked == [ev.PolicyPeeked(2, tuple(peek_game.draw_pile[:3]))]
    assert peeked[0].audience == frozenset({2})
    assert peek_game.phase is Phase.NOMINATE and peek_game.president == 3
    # The same game without the power differs only by the peek's events, its name and
    # the president's right to claim what they saw (talk, not rules).
    a, b = snapshot(peek_game), snapshot(plain)
    assert a["open_claims"].peek == 2 and b["open_claims"].peek is None
    for state in (a, b):
        for key in ("events", "setup", "variant", "open_claims"):
            del state[key]
    assert a == b
    extra = [e for e in peek_game.events[1:] if e not in plain.events]
    assert extra == [ev.PowerGranted(2, PEEK), peeked[0]]
    # The next president draws exactly what was peeked.
    events = play(peek_game, "nominate 0", "ja")
    assert of_type(events, ev.PoliciesDrawn)[0].tiles == peeked[0].tiles


def four_fascist_five_players() -> Game:
    """5 players, 4 Fascist policies, president 3 must execute (seat 2 is Hitler)."""
    game = fixed_game(ROLES[5], FIVE_FASCIST_DECK, reshuffles=(AFTER_FIVE_FASCIST,))
    govern(game, 1, "F")  # P0
    govern(game, 3, "F")  # P1
    govern(game, 4, "F")  # P2: peek
    govern(game, 0, "F")  # P3: execution
    assert game.phase is Phase.EXECUTE and game.president == 3
    return game


def test_executed_player_is_skipped_for_the_presidency_and_cannot_take_part() -> None:
    game = four_fascist_five_players()
    assert game.legal_actions(3) == [Execute(3, t) for t in (0, 1, 2, 4)]
    events = play(game, "execute 4")  # the next in line
    assert events[0] == ev.PlayerExecuted(3, 4)
    assert not of_type(events, ev.GameEnded) and game.living() == [0, 1, 2, 3]
    assert game.president == 0  # seat 4 is skipped
    assert 4 not in game.eligible_chancellors()
    with pytest.raises(IllegalTarget, match="dead"):
        game.apply(Nominate(0, 4))
    play(game, "nominate 1", "votes JJJJ-", "discard F", "enact F")
    assert game.phase is Phase.EXECUTE
    assert 4 not in game.power_targets()
    with pytest.raises(IllegalTarget, match="dead"):
        game.apply(Execute(0, 4))


def test_left_of_skips_the_dead_even_when_the_seat_itself_is_dead() -> None:
    game = fixed_game(ROLES[7])
    game.alive[3] = game.alive[4] = game.alive[0] = False
    assert game.left_of(2) == 5
    assert game.left_of(3) == 5
    assert game.left_of(6) == 1
    assert game.left_of(0) == 1


def test_special_election_caller_executed_then_left_of_the_dead_caller() -> None:
    roles = "LFLHFLL"  # Hitler at seat 3
    game = fixed_game(roles, FIVE_FASCIST_DECK)
    govern(game, 2, "F")  # P0
    govern(game, 4, "F")  # P1: investigation
    play(game, "investigate 5")
    govern(game, 5, "F")  # P2: special election
    play(game, "special_election 0")
    govern(game, 1, "F")  # P0 (special): execution
    play(game, "execute 2")  # the caller
    assert not game.is_over and not game.alive[2]
    assert game.president == 3  # the first living seat after the dead caller


def test_executing_hitler_wins_for_the_liberals() -> None:
    game = four_fascist_five_players()
    events = play(game, "execute 2")
    assert game.is_over and game.winner is Party.LIBERAL
    assert game.win_reason is WinReason.HITLER_EXECUTED
    assert events[-1] == ev.GameEnded(Party.LIBERAL, WinReason.HITLER_EXECUTED, game.roles)


def test_executing_a_non_hitler_keeps_the_role_secret() -> None:
    game = four_fascist_five_players()
    events = play(game, "execute 1")  # a Fascist
    assert not game.is_over
    assert all(e.audience is None for e in events)
    assert all("role" not in e.to_dict() for e in events)
    assert game.spectator_view().known_roles == (None,) * 5


# --- Hitler as chancellor -----------------------------------------------------------


def test_hitler_elected_after_three_fascist_policies_wins() -> None:
    game = fixed_game(ROLES[5], FIVE_FASCIST_DECK)
    for chancellor in (1, 3, 4):
        govern(game, chancellor, "F")
    events = play(game, "nominate 2", "ja")
    assert game.is_over and game.win_reason is WinReason.HITLER_ELECTED
    assert game.winner is Party.FASCIST
    assert not of_type(events, ev.PoliciesDrawn)


def test_hitler_elected_before_three_fascist_policies_is_safe() -> None:
    game = fixed_game(ROLES[5], FIVE_FASCIST_DECK)
    govern(game, 1, "F")  # P0
    govern(game, 3, "F")  # P1
    play(game, "nominate 4", "nein")  # P2 (Hitler)
    events = govern(game, 2, "F")  # P3 + Hitler, elected with 2 on the board
    assert not game.is_over and game.fascist_policies == 3
    assert not of_type(events, ev.ChancellorNotHitler)


def test_non_hitler_chancellor_elected_after_three_is_confirmed_not_hitler() -> None:
    game = fixed_game(ROLES[5], FIVE_FASCIST_DECK)
    for chancellor in (1, 3, 4):
        govern(game, chancellor, "F")
    events = play(game, "nominate 1", "ja")
    assert ev.ChancellorNotHitler(1) in events
    assert game.not_hitler == {1} and game.spectator_view().not_hitler == (1,)
    assert game.phase is Phase.PRESIDENT_DISCARD


def test_failed_election_of_hitler_after_three_is_not_a_win() -> None:
    game = fixed_game(ROLES[5], FIVE_FASCIST_DECK)
    for chancellor in (1, 3, 4):
        govern(game, chancellor, "F")
    play(game, "nominate 2", "votes JJNNN")
    assert not game.is_over and game.not_hitler == set()


# --- veto ---------------------------------------------------------------------------


def test_veto_is_not_available_with_four_fascist_policies() -> None:
    game = four_fascist_five_players()
    play(game, "execute 4", "nominate 1", "ja", "discard F")
    assert game.phase is Phase.CHANCELLOR_ENACT and not game.veto_unlocked
    assert ProposeVeto(1) not in game.legal_actions(1)
    with pytest.raises(VetoUnavailable, match="5 Fascist"):
        game.apply(ProposeVeto(1))


def test_veto_becomes_available_in_the_session_after_the_fifth() -> None:
    game = five_fascist_game(ROLES[8])
    chancellor = pick_chancellor(game)
    play(game, f"nominate {chancellor}", "ja")
    assert ProposeVeto(chancellor) not in game.legal_actions(game.president)
    play(game, "discard F")
    assert game.legal_actions(chancellor)[-1] == ProposeVeto(chancellor)


def test_refused_veto_forces_an_enactment_and_only_one_proposal_per_session() -> None:
    game = five_fascist_game(ROLES[8])
    president, chancellor = game.president, pick_chancellor(game)
    play(game, f"nominate {chancellor}", "ja", "discard L")
    hand = list(game.hand)
    events = play(game, "veto")
    assert events == [ev.VetoProposed(chancellor)]
    assert game.phase is Phase.VETO_REPLY and game.awaiting() == [president]
    assert game.legal_actions(president) == [
        VetoReply(president, True),
        VetoReply(president, False),
    ]
    events = play(game, "refuse")
    assert events == [ev.VetoReplied(president, False)]
    assert game.phase is Phase.CHANCELLOR_ENACT and game.hand == hand
    assert game.legal_actions(chancellor) == [Enact(chancellor, p) for p in (L, F) if p in hand]
    with pytest.raises(VetoUnavailable, match="already refused"):
        game.apply(ProposeVeto(chancellor))
    play(game, "enact L")
    assert game.liberal_policies == 1 and game.election_tracker == 0
    # The next session may propose again.
    nxt = pick_chancellor(game)
    play(game, f"nominate {nxt}", "ja", "discard L")
    assert ProposeVeto(nxt) in game.legal_actions(nxt)


def test_agreed_veto_discards_both_and_advances_the_tracker() -> None:
    game = five_fascist_game(ROLES[8])
    president, chancellor = game.president, pick_chancellor(game)
    play(game, f"nominate {chancellor}", "ja", "discard L")
    draw, discard = len(game.draw_pile), len(game.discard_pile)
    events = play(game, "veto", "agree")
    assert events[:3] == [
        ev.VetoProposed(chancellor),
        ev.VetoReplied(president, True),
        ev.ElectionTrackerAdvanced(1),
    ]
    assert not of_type(events, ev.PolicyEnacted)
    assert (game.liberal_policies, game.fascist_policies) == (0, 5)
    assert len(game.discard_pile) == discard + 2 and len(game.draw_pile) == draw
    assert game.hand == [] and game.election_tracker == 1
    assert game.phase is Phase.NOMINATE and game.president == game.left_of(president)


def test_agreed_vetoes_can_cause_chaos() -> None:
    # Three vetoes draw 9 of the 12 reshuffled tiles; chaos takes the 10th (an L)
    # straight from the draw pile, leaving 2: then the 11 others are reshuffled.
    game = five_fascist_game(
        ROLES[8], reshuffles=("LLF" + "LLF" + "FFL" + "LFF", "L" * 5 + "F" * 6)
    )
    for tracker in (1, 2):
        play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F", "veto", "agree")
        assert game.election_tracker == tracker
    play(game, f"nominate {pick_chancellor(game)}", "ja", "discard F", "veto")
    events = play(game, "agree")
    kinds = [type(e) for e in events]
    assert kinds.index(ev.PolicyEnacted) < kinds.index(ev.DeckReshuffled)
    assert of_type(events, ev.PolicyEnacted) == [ev.PolicyEnacted(L, True, 1, 5)]
    assert of_type(events, ev.DeckReshuffled) == [ev.DeckReshuffled(11)]
    assert game.election_tracker == 0 and game.term_limited() == []
    assert not game.is_over and game.tiles_in_play() == 17


# --- winning ------------------------------------------------------------------------


def test_five_liberal_policies_win() -> None:
    game = fixed_game(ROLES[5], deck("LFF" * 5))
    for chancellor in (1, 2, 3, 4):
        govern(game, chancellor, "L")
    assert not game.is_over
    events = govern(game, 1, "L")
    assert game.is_over and game.phase is Phase.GAME_OVER
    assert (game.winner, game.win_reason) == (Party.LIBERAL, WinReason.FIVE_LIBERAL)
    assert game.awaiting() == [] and all(game.legal_actions(s) == [] for s in range(5))
    assert events[-1] == ev.GameEnded(Party.LIBERAL, WinReason.FIVE_LIBERAL, game.roles)


def test_six_fascist_policies_by_a_government_win() -> None:
    game = five_fascist_game(ROLES[7])
    auto_govern(game, "F")
    assert (game.winner, game.win_reason) == (Party.FASCIST, WinReason.SIX_FASCIST)


# --- variants -----------------------------------------------------------------------


def test_rebalanced_six_players_start_with_one_fascist_policy_and_ten_fascist_tiles() -> None:
    game = Game(6, variant=REBALANCED, seed=3)
    assert game.fascist_policies == 1
    assert Counter(game.draw_pile) == {L: 6, F: 10}
    assert game.tiles_in_play() == game.setup.total_tiles == 17
    assert game.events[0] == ev.GameStarted(6, "rebalanced", 1)


def test_rebalanced_six_players_board_slots_and_hitler_zone() -> None:
    game = fixed_game(ROLES[6], deck("FFL" * 2, fascist=10), variant=REBALANCED)
    events = govern(game, 1, "F")  # the 2nd slot: no power at 6 players
    assert game.fascist_policies == 2 and not of_type(events, ev.PowerGranted)
    events = govern(game, 3, "F")  # the 3rd slot: policy peek
    assert of_type(events, ev.PowerGranted) == [ev.PowerGranted(1, PEEK)]
    play(game, "nominate 4", "nein")  # P2 is Hitler
    play(game, "nominate 2", "ja")  # P3 + Hitler elected with 3 on the board
    assert game.win_reason is WinReason.HITLER_ELECTED


@pytest.mark.parametrize("players", [7, 9])
def test_rebalanced_seven_and_nine_players_have_ten_fascist_tiles(players: int) -> None:
    game = Game(players, variant=REBALANCED, seed=5)
    assert game.fascist_policies == 0
    assert Counter(game.draw_pile) == {L: 6, F: 10}
    assert game.setup.total_tiles == 16 == game.tiles_in_play()
    assert game.setup.powers == Game(players, seed=5).setup.powers


@pytest.mark.parametrize("players", [5, 8, 10])
def test_rebalanced_other_player_counts_are_unchanged(players: int) -> None:
    a, b = Game(players, variant=REBALANCED, seed=7), Game(players, variant=STANDARD, seed=7)
    assert (a.fascist_policies, Counter(a.draw_pile)) == (0, {L: 6, F: 11})
    assert a.setup.powers == b.setup.powers and a.roles == b.roles
    assert a.setup.variant == "rebalanced"


@pytest.mark.parametrize("players", range(5, 11))
def test_standard_is_the_default(players: int) -> None:
    game = Game(players, seed=1)
    assert game.variant == STANDARD and game.setup.variant == "standard"
    assert game.fascist_policies == 0 and game.setup.total_tiles == 17


def test_custom_power_track_and_deck() -> None:
    variant = Variant(
        "custom", liberal_tiles=7, fascist_tiles=12, powers=(EXEC, None, PEEK, INV, SPEC)
    )
    game = fixed_game(ROLES[7], deck("FFL", liberal=7, fascist=12), variant=variant)
    assert Counter(game.draw_pile) == {L: 7, F: 12} and game.setup.total_tiles == 19
    govern(game, 3, "F")
    assert game.phase is Phase.EXECUTE  # slot 1 of the custom track
    assert game.setup.power_after(4) is INV


def test_unknown_variant_or_bad_track_is_refused() -> None:
    with pytest.raises(SetupError, match="Unknown variant"):
        Game(5, variant=Variant("chaotic"), seed=1)
    with pytest.raises(SetupError, match="slots"):
        Game(5, variant=Variant("custom", powers=(None,) * 4), seed=1)


@pytest.mark.parametrize("name", ["standard", "rebalanced"])
def test_a_published_variant_with_its_own_deck_or_track_is_refused(name: str) -> None:
    """`Variant("standard", powers=...)` played a custom track while the game, its views
    and its narration said "standard rules", and the AI searched the published track
    (it rebuilds a variant from its name): a deck or track of one's own is `custom`."""
    for override in ({"powers": (EXEC,) * 5}, {"fascist_tiles": 12}, {"liberal_tiles": 7}):
        with pytest.raises(SetupError, match="custom"):
            Variant(name, **override).setup(7)  # type: ignore[arg-type]
    assert Variant(name).setup(7).variant == name


@pytest.mark.parametrize("players", [5, 6, 7])
def test_a_track_that_could_leave_nobody_to_nominate_is_refused(players: int) -> None:
    """Every slot an execution at five players: executions went on until two or one
    seat lived, a president was awaited and no seat had a legal action, for ever. An
    execution track leaves at least three players alive."""
    too_many = players - 2
    track = (EXEC,) * too_many + (None,) * (5 - too_many)
    with pytest.raises(SetupError, match="three players"):
        Variant("custom", powers=track).setup(players)
    fewer = (EXEC,) * (too_many - 1) + (None,) * (6 - too_many)
    assert Variant("custom", powers=fewer).setup(players).powers == fewer
    assert Variant("custom", powers=(EXEC,) * 5).setup(8).players == 8


@pytest.mark.parametrize(
    ("liberal", "fascist", "message"),
    [
        (10**9, None, "at most 100 liberal tiles"),
        (None, 101, "at most 100 fascist tiles"),
        (6.0, None, "whole number"),
        (None, True, "whole number"),
        ("six", None, "whole number"),
    ],
)
def test_a_custom_deck_of_absurd_or_unreadable_counts_is_refused(
    liberal: object, fascist: object, message: str
) -> None:
    """A stored record's variant is read from JSON: a count of a billion tiles used to
    deal a deck of a billion (minutes and gigabytes on the bot's event loop), and a
    count that is not a whole number failed later with a TypeError."""
    variant = Variant("custom", liberal_tiles=liberal, fascist_tiles=fascist)  # type: ignore[arg-type]
    with pytest.raises(SetupError, match=message):
        variant.setup(5)
    assert Variant("custom", liberal_tiles=100, fascist_tiles=100).setup(10).total_tiles == 200


@pytest.mark.parametrize(
    "variant",
    [
        STANDARD,
        REBALANCED,
        Variant("custom", fascist_tiles=12, powers=(INV, None, SPEC, EXEC, None)),
    ],
    ids=["standard", "rebalanced", "custom"],
)
def test_game_record_names_the_variant(variant: Variant) -> None:
    game = Game(6, variant=variant, seed=11)
    game.apply(game.legal_actions(game.president)[0])
    record = GameRecord.of(game)
    data = record.to_dict()
    assert data["variant"]["name"] == variant.name
    again = GameRecord.from_json(record.to_json())
    assert again.variant == variant
    replayed = again.replay()
    assert replayed.events == game.events
    assert replayed.events[0].variant == variant.name
    assert replayed.setup == game.setup


def test_the_discard_keeps_hand_order_irrelevant() -> None:
    # Discard/Enact name a party, not a position; the other tiles stay in the hand.
    game = fixed_game(ROLES[5], deck("LFL"))
    play(game, "nominate 1", "ja")
    assert game.hand == tiles("LFL")
    game.apply(Discard(0, L))
    assert Counter(game.hand) == {L: 1, F: 1}
    game.apply(Enact(1, F))
    assert game.fascist_policies == 1 and game.discard_pile.count(L) == 2
