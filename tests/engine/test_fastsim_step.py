"""The fast simulator's step API agrees with the clean engine, move by move.

Seeded games are played on `Game` and on `FastGame` side by side: at every decision
both must offer the same distinct options and, after the same move, hold the same
state. Fast games built from a seat's view plus the true hidden state must then
continue exactly as the clean game does.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import (
    REBALANCED,
    STANDARD,
    Action,
    Game,
    Phase,
    Policy,
    Power,
    Variant,
    Vote,
)
from engine import events as ev
from engine.fastsim import (
    CHAOS_FASCIST,
    CHAOS_LIBERAL,
    ELECTED,
    FAILED,
    NOTHING,
    RESHUFFLE_SEED_BITS,
    SEED_RESERVE,
    FastGame,
    move_of,
    play_clean_random,
    seeded_shuffle,
)

_I, _S, _P, _E = Power.INVESTIGATE, Power.SPECIAL_ELECTION, Power.POLICY_PEEK, Power.EXECUTION
VARIANTS: dict[str, Variant] = {
    "standard": STANDARD,
    "rebalanced": REBALANCED,
    "custom_early_kill": Variant(name="custom", powers=(_E, _I, _S, _P, _E)),
    "custom_investigate": Variant(
        name="custom", liberal_tiles=8, fascist_tiles=12, powers=(_I, _I, _I, _I, _I)
    ),
    "custom_specials": Variant(name="custom", powers=(_S, _S, _S, _E, _S)),
}


def assert_same_state(fast: FastGame, game: Game) -> None:
    """Every part of the state both engines keep is identical."""
    assert fast.phase_name is game.phase
    assert fast.reason is game.win_reason
    assert fast.liberal_policies == game.liberal_policies
    assert fast.fascist_policies == game.fascist_policies
    assert fast.election_tracker == game.election_tracker
    assert fast.alive == game.alive
    assert fast.investigated == game.investigated
    assert fast.draw_pile == game.draw_pile
    discards = Counter(game.discard_pile)
    assert fast.discard_counts == (discards[Policy.LIBERAL], discards[Policy.FASCIST])
    assert fast.hand_fascists == game.hand.count(Policy.FASCIST)
    if game.is_over:
        return
    assert fast.president == game.president
    assert fast.chancellor == (-1 if game.chancellor is None else game.chancellor)
    assert fast.last_president == (-1 if game.last_president is None else game.last_president)
    assert fast.last_chancellor == (-1 if game.last_chancellor is None else game.last_chancellor)
    caller = game.special_election_caller
    assert fast.special_election_caller == (-1 if caller is None else caller)
    assert fast.veto_refused == game.veto_refused
    assert fast.votes == game.votes


def expected_outcome(events: list[ev.Event]) -> int:
    """What `step`/`cast` must report for the events one clean action caused."""
    outcome = NOTHING
    for event in events:
        if isinstance(event, ev.ElectionResult):
            outcome = ELECTED if event.elected else FAILED
        elif isinstance(event, ev.PolicyEnacted) and event.chaos:
            outcome = CHAOS_FASCIST if event.policy is Policy.FASCIST else CHAOS_LIBERAL
    return outcome


def play_side_by_side(
    game: Game, fast: FastGame, rng: random.Random, seen: Counter[str] | None = None
) -> None:
    """Play both to the end with the same random moves, comparing after each one."""
    assert_same_state(fast, game)
    while not game.is_over:
        if game.phase is Phase.VOTE:
            # Ballots in a random order through `cast`, or in seat order through `step`.
            waiting = game.awaiting()
            seat = rng.choice(waiting) if rng.random() < 0.5 else waiting[0]
            assert fast.next_voter() == waiting[0] and fast.to_move() == waiting[0]
            assert [fast.to_action(m, seat) for m in fast.legal_moves()] == game.legal_actions(seat)
            ja = rng.random() < 0.5
            events = game.apply(Vote(seat, ja))
            if seat == waiting[0] and rng.random() < 0.5:
                outcome = fast.step(int(ja))
            else:
                outcome = fast.cast(seat, int(ja))
        else:
            seat = game.awaiting()[0]
            assert fast.to_move() == seat
            moves = fast.legal_moves()
            actions = [fast.to_action(m) for m in moves]
            assert actions == game.legal_actions(seat)
            assert [move_of(a) for a in actions] == list(moves)
            move = rng.choice(moves)
            events = game.apply(fast.to_action(move))
            outcome = fast.step(move)
        assert outcome == expected_outcome(events)
        if seen is not None:
            seen[str(outcome)] += 1
            seen[game.phase.value] += 1
        assert_same_state(fast, game)
    assert fast.to_move() == -1 and fast.legal_moves() == ()


@pytest.mark.parametrize("variant_name", list(VARIANTS))
def test_step_api_agrees_with_game_move_by_move(variant_name: str) -> None:
    variant = VARIANTS[variant_name]
    rng = random.Random(variant_name)
    seen: Counter[str] = Counter()
    for players in range(5, 11):
        for seed in range(70):  # 420 games per variant, 2,100 in all
            game = Game(players, variant=variant, seed=seed)
            play_side_by_side(game, FastGame.new(players, seed, variant), rng, seen)
    # Every outcome code and every decision phase occurred.
    for code in (NOTHING, ELECTED, FAILED, CHAOS_LIBERAL, CHAOS_FASCIST):
        assert seen[str(code)] > 0, seen
    phases = {Phase.NOMINATE, Phase.VOTE, Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT}
    phases |= {Phase.VETO_REPLY, Phase.GAME_OVER}
    for phase in phases:
        assert seen[phase.value] > 0, (phase, seen)


def _prefix(game: Game, rng: random.Random, stop: int) -> list[Action]:
    """Play `stop` random actions (one ballot at a time) on `game`."""
    for _ in range(stop):
        if game.is_over:
            break
        seat = game.awaiting()[0]
        if game.phase is Phase.VOTE:
            game.apply(Vote(rng.choice(game.awaiting()), rng.random() < 0.5))
        else:
            game.apply(rng.choice(game.legal_actions(seat)))
    return list(game.actions)


@pytest.mark.parametrize("variant_name", ["standard", "rebalanced", "custom_early_kill"])
def test_view_plus_true_hidden_state_continues_like_game(variant_name: str) -> None:
    """`from_view(...).determinized(<the truth>)` is the game itself, as far as play goes."""
    variant = VARIANTS[variant_name]
    rng = random.Random(variant_name)
    phases: Counter[Phase] = Counter()
    for players in range(5, 11):
        for seed in range(40):
            game = Game(players, variant=variant, seed=seed)
            _prefix(game, rng, rng.randrange(60))
            if game.is_over:
                continue
            phases[game.phase] += 1
            seat = rng.randrange(players)
            template = FastGame.from_view(game.view(seat), variant)
            truth = FastGame.from_game(game)
            # A wide seed (its indices read straight from it) or a narrow one (which
            # seeds a `random.Random`): the clean game reshuffles the same way.
            reshuffle_seed = rng.getrandbits(RESHUFFLE_SEED_BITS if seed % 2 else 32)
            fast = template.determinized(
                list(truth.roles),
                truth._pile[truth._top :],
                truth.discard_liberal,
                truth.discard_fascist,
                truth.hand_fascists,
                dict(game.votes),
                reshuffle_seed,
            )
            game.chance = _SeededReshuffles(reshuffle_seed)
            play_side_by_side(game, fast, rng)
    assert len(phases) >= 5, phases


class _SeededReshuffles:
    """The clean engine's chance for a determinized game: reshuffles from a seed alone."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng: random.Random | None = None

    def deal_roles(self, roles: object) -> list[object]:  # pragma: no cover
        raise AssertionError("only reshuffles are asked for")

    def first_president(self, players: int) -> int:  # pragma: no cover
        raise AssertionError("only reshuffles are asked for")

    def shuffle(self, tiles: list[Policy]) -> list[Policy]:
        pile = [0 if t is Policy.LIBERAL else 1 for t in tiles]
        if self.rng is None and self.seed >> SEED_RESERVE:
            self.seed = seeded_shuffle(pile, self.seed)
        else:
            if self.rng is None:
                self.rng = random.Random(self.seed)
            self.rng.shuffle(pile)
        return [Policy.FASCIST if t else Policy.LIBERAL for t in pile]


def test_seeded_shuffle_deals_every_order_alike() -> None:
    """Decoded indices permute (tiles are conserved) and spread orders evenly."""
    counts: Counter[tuple[int, ...]] = Counter()
    rng = random.Random(9)
    for _ in range(12_000):
        pile = [0, 0, 1, 1]
        rest = seeded_shuffle(pile, rng.getrandbits(RESHUFFLE_SEED_BITS))
        assert sorted(pile) == [0, 0, 1, 1] and rest < 1 << RESHUFFLE_SEED_BITS
        counts[tuple(pile)] += 1
    assert len(counts) == 6  # C(4, 2) distinct orders, each expected 2,000 times
    assert all(1_700 < n < 2_300 for n in counts.values()), counts


def test_determinized_games_replay_identically() -> None:
    """A determinization fixes its future reshuffles: the same moves give the same game."""
    for seed in range(30):
        game = Game(7, seed=seed)
        _prefix(game, random.Random(seed), 25)
        if game.is_over:
            continue
        template = FastGame.from_view(game.view(0))
        truth = FastGame.from_game(game)

        parts = (
            truth.roles,
            truth._pile[truth._top :],
            truth.discard_liberal,
            truth.discard_fascist,
            truth.hand_fascists,
            dict(game.votes),
            random.Random(seed).getrandbits(RESHUFFLE_SEED_BITS),
        )
        roles, pile, disc_l, disc_f, hand_f, votes, reshuffle_seed = parts
        first = template.determinized(
            list(roles), list(pile), disc_l, disc_f, hand_f, dict(votes), reshuffle_seed
        )
        second = template.determinized(
            list(roles), list(pile), disc_l, disc_f, hand_f, dict(votes), reshuffle_seed
        )
        record: list[Action] = []
        again: list[Action] = []
        ending = first.play_random(random.Random(seed), record)
        assert second.play_random(random.Random(seed), again) is ending
        assert record == again and first.draw_pile == second.draw_pile


def test_from_view_rejects_a_finished_game() -> None:
    game = Game(5, seed=1)
    play_clean_random(game, random.Random(1))
    with pytest.raises(ValueError):
        FastGame.from_view(game.view(0))
