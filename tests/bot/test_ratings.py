"""bot.ratings: openskill's Plackett-Luce update for the two sides of a finished game, with
the sides' unequal sizes kept even, an AI strength's several seats adding up, and the
ladder a fold over the games in order."""

from __future__ import annotations

import math
import random

import pytest

from bot.ratings import (
    MODEL,
    START_MU,
    RatedSeat,
    Rating,
    ai_key,
    ai_label,
    human_key,
    ladder,
    rate,
    spec_of,
    user_of,
)
from engine import Party

LIB, FAS = Party.LIBERAL, Party.FASCIST


def table(liberals: int, fascists: int) -> list[RatedSeat]:
    """Distinct humans: users 0.. the Liberals, then the Fascists."""
    return [
        RatedSeat(human_key(i), LIB if i < liberals else FAS) for i in range(liberals + fascists)
    ]


def test_keys_name_humans_by_id_and_ai_by_spec() -> None:
    assert user_of(human_key(1234)) == 1234 and spec_of(human_key(1234)) is None
    assert spec_of(ai_key("belief-ismcts:seconds=2")) == "belief-ismcts:seconds=2"
    assert user_of(ai_key("belief")) is None
    strengths = {"easy": "selfish", "normal": "belief", "strong": "belief-ismcts:seconds=2"}
    assert ai_label("belief-ismcts:seconds=2", strengths) == "AI: strong (belief-ismcts:seconds=2)"
    assert ai_label("random", strengths) == "AI: random"
    assert Rating().ordinal == pytest.approx(0.0)  # a new player: 25 - 3 * 25/3


def test_one_seat_each_is_exactly_openskills_update() -> None:
    rng = random.Random(3)
    seats = table(4, 3)
    before = {s.player: Rating(rng.uniform(15, 35), rng.uniform(2, 8.3)) for s in seats}
    after = rate(seats, FAS, before)
    teams = [[s for s in seats if s.party is side] for side in (LIB, FAS)]
    expected = MODEL.rate(
        [
            [
                MODEL.rating(mu=before[s.player].mu - START_MU, sigma=before[s.player].sigma)
                for s in t
            ]
            for t in teams
        ],
        ranks=[1.0, 0.0],
    )
    for team, new_team in zip(teams, expected, strict=True):
        for seat, new in zip(team, new_team, strict=True):
            assert after[seat.player].mu == pytest.approx(new.mu + START_MU, rel=1e-12)
            assert after[seat.player].sigma == pytest.approx(new.sigma, rel=1e-12)
    # The winners gained, the losers lost; everyone is a little more certain.
    for seat in seats:
        moved = after[seat.player].mu - before[seat.player].mu
        assert moved > 0 if seat.party is FAS else moved < 0
        assert after[seat.player].sigma < math.hypot(before[seat.player].sigma, MODEL.tau)


def test_new_players_on_sides_of_unequal_size_are_an_even_match() -> None:
    """Six Liberals against four Fascists, all new: either side's win moves its members
    by the same amount (on openskill's usual scale, where a team is the sum of its mus, a
    Fascist win would move each player six times as far as a Liberal win)."""
    seats = table(6, 4)
    liberal_win = rate(seats, LIB, {})
    fascist_win = rate(seats, FAS, {})
    gain_liberal = liberal_win[human_key(0)].mu - START_MU
    gain_fascist = fascist_win[human_key(9)].mu - START_MU
    assert gain_liberal > 0.5
    assert gain_liberal == pytest.approx(gain_fascist, rel=1e-9)
    assert liberal_win[human_key(9)].mu - START_MU == pytest.approx(-gain_liberal, rel=1e-9)


def test_an_ai_holding_several_seats_gains_the_evidence_of_each() -> None:
    strong = ai_key("belief-ismcts:seconds=2")
    seats = [
        RatedSeat(human_key(1), LIB),
        RatedSeat(strong, LIB),
        RatedSeat(strong, LIB),
        RatedSeat(human_key(2), FAS),
        RatedSeat(strong, FAS),
    ]
    before = {strong: Rating(27.0, 5.0), human_key(1): Rating(22.0, 7.0)}
    after = rate(seats, LIB, before)
    # The same game with three distinct stand-ins for the AI's seats, for reference.
    stand_ins = [
        RatedSeat(f"x{i}", s.party) if s.player == strong else s for i, s in enumerate(seats)
    ]
    each = rate(stand_ins, LIB, {**before, **{f"x{i}": before[strong] for i in (1, 2, 4)}})
    moved = sum(each[f"x{i}"].mu - before[strong].mu for i in (1, 2, 4))
    assert after[strong].mu - before[strong].mu == pytest.approx(moved, rel=1e-12)
    assert moved > 0  # two winning seats, one losing
    widened = before[strong].sigma ** 2 + MODEL.tau**2
    gained = sum(1 / each[f"x{i}"].sigma ** 2 - 1 / widened for i in (1, 2, 4))
    assert after[strong].sigma == pytest.approx(math.sqrt(1 / (1 / widened + gained)), rel=1e-12)
    assert after[strong].sigma < each["x1"].sigma  # three seats say more than one
    # The humans' updates are those of the reference game: the AI's seats count as seats.
    assert after[human_key(1)] == each[human_key(1)]


def test_a_game_of_one_player_against_itself_changes_nobody() -> None:
    belief = ai_key("belief")
    seats = [RatedSeat(belief, LIB if s < 3 else FAS) for s in range(5)]
    assert rate(seats, LIB, {belief: Rating(30.0, 4.0)}) == {}
    with pytest.raises(ValueError, match="both sides"):
        rate([RatedSeat(human_key(1), LIB), RatedSeat(human_key(2), LIB)], LIB, {})


def test_the_ladder_is_the_games_folded_in_order() -> None:
    rng = random.Random(11)
    games = []
    for _ in range(30):
        players = rng.sample(range(8), 5)
        seats = [RatedSeat(human_key(p), LIB if i < 3 else FAS) for i, p in enumerate(players)]
        games.append((seats, rng.choice([LIB, FAS])))
    ratings: dict[str, Rating] = {}
    for seats, winner in games:
        ratings.update(rate(seats, winner, ratings))
    assert ladder(games) == ratings
    assert ladder(games[10:], ladder(games[:10])) == ratings
    # Order matters: the same games in another order give another ladder.
    assert ladder(list(reversed(games))) != ratings
