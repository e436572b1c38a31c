"""The rules live once: the fast simulator's tables are `engine.rules` evaluated, and
`engine.chance.shuffle` is `random.Random.shuffle`.

`Game` calls the rule functions; `FastGame` looks the same rules up in tables built from
them. These tests check the tables against the functions over every case, and the
functions against RULES.md where it states a number.
"""

from __future__ import annotations

import itertools
import random

import pytest

from engine import REBALANCED, STANDARD, Phase, Power, Variant, WinReason, rules
from engine.chance import randbelow, shuffle
from engine.fastsim import _PHASE_OF_CODE, _Seating, _table
from engine.variants import CHAOS_AT, FASCIST_TO_WIN, LIBERAL_TO_WIN, MAX_PLAYERS, MIN_PLAYERS

_I, _S, _P, _E = Power.INVESTIGATE, Power.SPECIAL_ELECTION, Power.POLICY_PEEK, Power.EXECUTION


@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_seating_tables_are_the_rules(players: int) -> None:
    for alive in itertools.product((True, False), repeat=players):
        if sum(alive) < 3:  # a game always keeps three or more alive
            continue
        seating = _Seating(alive)
        assert seating.living == tuple(rules.living(alive))
        assert seating.majority == rules.majority(sum(alive))
        seats: list[int | None] = [*range(players), None]
        for p in range(players):
            assert seating.next[p] == rules.left_of(alive, p)
            assert seating.others[p] == tuple(rules.others(alive, p))
            for lc, lp in itertools.product(seats, seats):
                expected = rules.eligible_chancellors(alive, p, lp, lc)
                got = seating.eligible[p][-1 if lc is None else lc][-1 if lp is None else lp]
                assert got == tuple(expected)


@pytest.mark.parametrize(
    "variant",
    [STANDARD, REBALANCED, Variant(name="custom", powers=(_E, _I, _S, _P, None))],
)
@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_power_table_is_the_setups_track(players: int, variant: Variant) -> None:
    setup = variant.setup(players)
    table = _table(variant, players)
    for fascist in range(1, FASCIST_TO_WIN):
        power = setup.power_after(fascist)
        code = table.powers[fascist]
        if power is None or power is Power.POLICY_PEEK:  # no decision to make
            assert code == 0
        else:
            assert _PHASE_OF_CODE[code] is rules.POWER_PHASE[power]


def test_count_tables_are_the_rule_functions() -> None:
    for n in range(LIBERAL_TO_WIN + 1):
        assert rules.ENDING_BY_LIBERAL[n] is rules.ending(n, 0)
    for n in range(FASCIST_TO_WIN + 1):
        assert rules.ENDING_BY_FASCIST[n] is rules.ending(0, n)
        assert rules.HITLER_ZONE_BY_FASCIST[n] is rules.hitler_zone(n)
        assert rules.VETO_BY_FASCIST[n] is rules.veto_unlocked(n)
    for n in range(CHAOS_AT + 1):
        assert rules.CHAOS_BY_TRACKER[n] is rules.chaos(n)


def test_rule_functions_say_what_rules_md_says() -> None:
    assert [rules.ending(5, 0), rules.ending(0, 6), rules.ending(4, 5)] == [
        WinReason.FIVE_LIBERAL,
        WinReason.SIX_FASCIST,
        None,
    ]
    # More than half of the living: a tie fails.
    assert [rules.majority(n) for n in range(3, 11)] == [2, 3, 3, 4, 4, 5, 5, 6]
    assert [rules.hitler_zone(n) for n in range(6)] == [False] * 3 + [True] * 3
    assert [rules.veto_unlocked(n) for n in range(6)] == [False] * 5 + [True]
    assert [rules.chaos(n) for n in range(4)] == [False, False, False, True]
    assert [rules.must_reshuffle(n) for n in range(5)] == [True, True, True, False, False]
    # Six alive: the last president and chancellor are term-limited; five: the chancellor.
    six = [True] * 6
    assert rules.term_limited(six, 1, 2) == [1, 2]
    assert rules.eligible_chancellors(six, 0, 1, 2) == [3, 4, 5]
    five = [True] * 5 + [False]
    assert rules.term_limited(five, 1, 2) == [2]
    assert rules.term_limited(five, 5, 1) == [1]  # a dead seat is not listed
    # Left of a seat is the next living one, whether or not the seat itself lives.
    assert rules.left_of([True, False, False, True, True], 0) == 3
    assert rules.left_of([True, False, False, True, True], 1) == 3
    assert rules.left_of([True, False, False, True, True], 4) == 0
    assert rules.POWER_PHASE == {
        Power.INVESTIGATE: Phase.INVESTIGATE,
        Power.SPECIAL_ELECTION: Phase.SPECIAL_ELECTION,
        Power.EXECUTION: Phase.EXECUTE,
    }


def test_shuffle_and_randbelow_draw_as_random_random() -> None:
    for seed in range(300):
        for size in (0, 1, 2, 3, 7, 10, 17, 40, 300):
            ours, theirs = random.Random(seed), random.Random(seed)
            x = list(range(size))
            y = list(range(size))
            shuffle(x, ours)
            theirs.shuffle(y)
            assert x == y
            assert ours.getstate() == theirs.getstate()
        for n in (1, 5, 7, 10, 1000):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert randbelow(n, ours) == theirs.randrange(n)
            assert ours.getstate() == theirs.getstate()


class _Dice(random.Random):
    """A subclass may draw its own way; the inlined loops must leave it to itself."""

    def random(self) -> float:
        return 0.0

    def getrandbits(self, k: int) -> int:
        return 0


def test_a_random_subclass_shuffles_its_own_way() -> None:
    x = list(range(10))
    shuffle(x, _Dice())
    y = list(range(10))
    _Dice().shuffle(y)
    assert x == y
    assert randbelow(7, _Dice()) == _Dice().randrange(7)
