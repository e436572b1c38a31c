"""The fast simulator agrees with the clean engine, game for game.

Every fast game is played with its decisions recorded as clean `Action`s; the record is
replayed through `Game`, which must accept every action and end in the identical state.
The same holds for fast continuations of clean games stopped at random points.
"""

from __future__ import annotations

import importlib.util
import io
import json
import random
import sys
from collections import Counter
from collections.abc import Sequence
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType

import pytest

from engine import (
    REBALANCED,
    STANDARD,
    Action,
    CallSpecialElection,
    Execute,
    Game,
    Investigate,
    Phase,
    Policy,
    Power,
    ProposeVeto,
    SeededChance,
    Variant,
    VetoReply,
    Vote,
    WinReason,
)
from engine import events as ev
from engine.fastsim import FIELDS, FastGame, play_clean_random

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = range(5, 11)
GAMES_PER_COUNT = 400  # per player count and variant: 12,000 recorded games in all

_I, _S, _P, _E = Power.INVESTIGATE, Power.SPECIAL_ELECTION, Power.POLICY_PEEK, Power.EXECUTION
VARIANTS: dict[str, Variant] = {
    "standard": STANDARD,
    "rebalanced": REBALANCED,
    # An early execution, a special election, a peek, a late execution.
    "custom_early_kill": Variant(name="custom", powers=(_E, _I, _S, _P, _E)),
    # Investigations until nobody is left to investigate (the power lapses), a bigger deck.
    "custom_investigate": Variant(
        name="custom", liberal_tiles=8, fascist_tiles=12, powers=(_I, _I, _I, _I, _I)
    ),
    # Special elections in a row: a special candidate may call another one.
    "custom_specials": Variant(name="custom", powers=(_S, _S, _S, _E, _S)),
}


def assert_same_end(fast: FastGame, game: Game, record: Sequence[Action], start: int = 0) -> None:
    """The clean game, after the recorded actions, ended exactly as the fast one."""
    assert game.is_over and fast.is_over
    assert game.win_reason is fast.reason
    assert game.winner is fast.winner
    assert game.liberal_policies == fast.liberal_policies
    assert game.fascist_policies == fast.fascist_policies
    assert game.alive == fast.alive
    assert game.investigated == fast.investigated
    assert game.draw_pile == fast.draw_pile
    discards = Counter(game.discard_pile)
    assert (discards[Policy.LIBERAL], discards[Policy.FASCIST]) == fast.discard_counts
    assert len(game.actions) - start == len(record)
    assert game.election_tracker == fast.election_tracker


def replay(game: Game, record: Sequence[Action]) -> None:
    """Apply every recorded action; `Game.apply` raises on any illegal one."""
    for action in record:
        game.apply(action)


def note_paths(game: Game, seen: Counter[str]) -> None:
    """Count the endings and rare paths a finished clean game went through."""
    assert game.win_reason is not None
    seen[game.win_reason.value] += 1
    cause = ""  # what moved the election tracker last: a failed vote or a veto
    special_candidate: int | None = None
    previous: ev.Event | None = None
    for event in game.events:
        if isinstance(event, ev.ElectionResult) and not event.elected:
            cause = "vote"
        elif isinstance(event, ev.VetoReplied):
            seen["veto_agreed" if event.agreed else "veto_refused"] += 1
            cause = "veto"
        elif isinstance(event, ev.PolicyEnacted) and event.chaos:
            seen[f"chaos_after_{cause}"] += 1
        elif isinstance(event, ev.GameEnded):
            if isinstance(previous, ev.PolicyEnacted) and previous.chaos:
                seen["chaos_ends_game"] += 1
        elif isinstance(event, ev.DeckReshuffled):
            seen["reshuffle"] += 1
        elif isinstance(event, ev.PowerSkipped):
            seen["power_skipped"] += 1
        elif isinstance(event, ev.PolicyPeeked):
            seen["peek"] += 1
        elif isinstance(event, ev.PlayerInvestigated):
            seen["investigate"] += 1
        elif isinstance(event, ev.PlayerExecuted):
            seen["execute"] += 1
        elif isinstance(event, ev.SpecialElectionCalled):
            seen["special_election"] += 1
            if event.president == special_candidate:
                seen["special_by_special_candidate"] += 1
            special_candidate = event.target
        elif isinstance(event, ev.PresidentialCandidate) and not isinstance(
            previous, ev.SpecialElectionCalled
        ):
            special_candidate = None
        previous = event


# Paths every variant's agreement run must go through, and those of its track.
COMMON_PATHS = (
    "five_liberal",
    "six_fascist",
    "hitler_elected",
    "chaos_after_vote",
    "chaos_after_veto",
    "chaos_ends_game",
    "reshuffle",
    "veto_agreed",
    "veto_refused",
)
TRACK_PATHS: dict[str, tuple[str, ...]] = {
    "standard": ("peek", "investigate", "special_election", "execute", "hitler_executed"),
    "rebalanced": ("peek", "investigate", "special_election", "execute", "hitler_executed"),
    "custom_early_kill": (
        "peek",
        "investigate",
        "special_election",
        "execute",
        "hitler_executed",
    ),
    "custom_investigate": ("investigate", "power_skipped"),
    "custom_specials": (
        "special_election",
        "special_by_special_candidate",
        "execute",
        "hitler_executed",
    ),
}


# --- fresh games --------------------------------------------------------------------------


@pytest.mark.parametrize("variant_name", list(VARIANTS))
@pytest.mark.parametrize("players", PLAYERS)
def test_new_deals_like_game(players: int, variant_name: str) -> None:
    variant = VARIANTS[variant_name]
    chance = random.Random()
    for seed in range(40):
        fast = FastGame.new(players, seed, variant, rng=chance if seed % 2 else None)
        game = Game(players, variant=variant, seed=seed)
        assert fast.role_list == game.roles
        assert fast.hitler == game.hitler
        assert fast.president == game.president
        assert fast.draw_pile == game.draw_pile
        assert fast.fascist_policies == game.fascist_policies
        assert fast.phase_name is game.phase


@pytest.mark.parametrize("variant_name", list(VARIANTS))
def test_recorded_fast_games_replay_identically(variant_name: str) -> None:
    variant = VARIANTS[variant_name]
    seen: Counter[str] = Counter()
    for players in PLAYERS:
        decisions = random.Random(f"{players}-{variant_name}")
        for seed in range(GAMES_PER_COUNT):
            fast = FastGame.new(players, seed, variant)
            record: list[Action] = []
            reason = fast.play_random(decisions, record)
            assert reason is fast.reason
            game = Game(players, variant=variant, seed=seed)
            replay(game, record)
            assert_same_end(fast, game, record)
            note_paths(game, seen)
    # The games went through every ending and every rare path of the rules.
    for path in (*COMMON_PATHS, *TRACK_PATHS[variant_name]):
        assert seen[path] > 0, (path, seen)


@pytest.mark.parametrize("players", PLAYERS)
def test_clean_random_players_play_the_same_games(players: int) -> None:
    """Both random players, fed the same decision RNG, take the very same actions."""
    for seed in range(15):
        fast_record: list[Action] = []
        clean_record: list[Action] = []
        FastGame.new(players, seed).play_random(random.Random(seed), fast_record)
        play_clean_random(Game(players, seed=seed), random.Random(seed), clean_record)
        assert fast_record == clean_record


def test_recording_does_not_change_the_game() -> None:
    for seed in range(200):
        plain = FastGame.new(7, seed)
        recorded = FastGame.new(7, seed)
        plain.play_random(random.Random(seed))
        recorded.play_random(random.Random(seed), [])
        for name in FIELDS:
            if name != "_rng":
                assert getattr(plain, name) == getattr(recorded, name), name


def test_a_clone_copies_every_field() -> None:
    # `clone` copies the fields one by one (fast, and compiled by mypyc): a field added
    # to FIELDS and forgotten there would be missing from every search's games.
    game = FastGame.new(9, 4)
    game.play_random(random.Random(4))
    copy = game.clone(random.Random(1))
    for name in FIELDS:
        if name not in ("_rng", "_chance", "_pile", "_top"):  # a new generator; the pile:
            assert getattr(copy, name) == getattr(game, name), name
    assert copy._pile[copy._top :] == game._pile[game._top :]  # what is left to draw


def test_clone_is_independent() -> None:
    for seed in range(100):
        original = FastGame.new(8, seed)
        copy = original.clone()  # with a copy of the chance generator's state
        record: list[Action] = []
        reason = copy.play_random(random.Random(seed), record)
        assert not original.is_over and original.alive == [True] * 8
        assert original.play_random(random.Random(seed)) is reason
        game = Game(8, seed=seed)
        replay(game, record)
        assert_same_end(original, game, record)


# --- continuing clean games -----------------------------------------------------------


def random_clean_record(game: Game, rng: random.Random) -> list[Action]:
    """Play `game` to the end one action at a time (single votes included)."""
    while not game.is_over:
        if game.phase is Phase.VOTE:
            seat = game.awaiting()[0]
            game.apply(Vote(seat, rng.random() < 0.5))
        else:
            game.apply(rng.choice(game.legal_actions(game.awaiting()[0])))
    return list(game.actions)


def continue_fast_and_compare(
    players: int, variant: Variant, seed: int, prefix: Sequence[Action], decisions: random.Random
) -> Phase:
    """Stop a clean game after `prefix`, finish it fast, replay that on the clean game."""
    game = Game(players, variant=variant, seed=seed)
    replay(game, prefix)
    phase = game.phase
    fast = FastGame.from_game(game)
    assert fast.draw_pile == game.draw_pile and fast.phase_name is phase
    record: list[Action] = []
    fast.play_random(decisions, record)
    replay(game, record)  # the clean game's own chance was left untouched
    assert_same_end(fast, game, record, start=len(prefix))
    return phase


@pytest.mark.parametrize("variant_name", ["standard", "rebalanced", "custom_specials"])
def test_from_game_continues_identically(variant_name: str) -> None:
    variant = VARIANTS[variant_name]
    rng = random.Random(variant_name)
    phases: Counter[Phase] = Counter()
    partial_votes = refused_then_enact = 0
    for players in PLAYERS:
        for seed in range(80):
            actions = random_clean_record(Game(players, variant=variant, seed=seed), rng)
            # A random stop, and stops at the rare decisions: the first power of each
            # kind, a veto reply, an enactment after a refused veto.
            stops = {rng.randrange(len(actions))}
            first_power: dict[type[Action], int] = {}
            for i, action in enumerate(actions):
                if isinstance(action, (Investigate, CallSpecialElection, Execute)):
                    first_power.setdefault(type(action), i)
                elif isinstance(action, ProposeVeto):
                    stops.add(i + 1)
                elif isinstance(action, VetoReply) and not action.agree:
                    stops.add(i + 1)
                    refused_then_enact += 1
            stops.update(first_power.values())
            for stop in sorted(stops):
                phases[continue_fast_and_compare(players, variant, seed, actions[:stop], rng)] += 1
                if stop > 0 and isinstance(actions[stop - 1], Vote):
                    partial_votes += isinstance(actions[stop], Vote)
    expected = set(Phase) - {Phase.GAME_OVER}
    if variant_name == "custom_specials":
        expected.discard(Phase.INVESTIGATE)  # its track has no investigation
    assert set(phases) == expected
    assert partial_votes > 0 and refused_then_enact > 0


class _OwnChance:
    """A `Chance` that is not a `SeededChance`: shuffles `Policy` lists itself."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def deal_roles(self, roles: Sequence[object]) -> list[object]:  # pragma: no cover
        raise AssertionError("only reshuffles are asked for")

    def first_president(self, players: int) -> int:  # pragma: no cover
        raise AssertionError("only reshuffles are asked for")

    def shuffle(self, tiles: Sequence[Policy]) -> list[Policy]:
        pile = list(tiles)
        self.rng.shuffle(pile)
        return pile


def test_from_game_with_other_chance_sources() -> None:
    """Future reshuffles can come from a given `random.Random` or any `Chance`."""
    rng = random.Random(3)
    for seed in range(60):
        actions = random_clean_record(Game(7, seed=seed), rng)
        prefix = actions[: rng.randrange(len(actions))]
        for source in ("random", "chance"):
            game = Game(7, seed=seed)
            replay(game, prefix)
            if source == "random":
                fast = FastGame.from_game(game, random.Random(seed))
                game.chance = SeededChance(seed)  # the same generator state as the fast one
            else:
                fast = FastGame.from_game(game, _OwnChance(seed))  # type: ignore[arg-type]
                game.chance = _OwnChance(seed)  # type: ignore[assignment]
            record: list[Action] = []
            fast.play_random(random.Random(seed), record)
            replay(game, record)
            assert_same_end(fast, game, record, start=len(prefix))


def test_from_a_finished_game_does_nothing() -> None:
    game = Game(6, seed=4)
    play_clean_random(game, random.Random(4))
    fast = FastGame.from_game(game)
    record: list[Action] = []
    assert fast.play_random(random.Random(0), record) is game.win_reason
    assert record == []


# --- the benchmark loops --------------------------------------------------------------


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engine_bench", ROOT / "bench/engine_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("engine_bench", module)
    spec.loader.exec_module(module)
    return module


def test_bench_loops_agree_and_look_sensible() -> None:
    bench = _bench()
    for players, games in ((5, 100), (7, 300), (10, 100)):
        fast = bench.run_fast(players, games, 11)
        clean = bench.run_clean(players, games, 11)
        assert fast == clean  # same seeds, same decision rule: the same games
        assert sum(fast.values()) == games
        if players == 7:  # random play: every ending happens, none dominates entirely
            for reason in WinReason:
                assert 0.01 < fast[reason] / games < 0.8, (reason, fast)


def test_bench_json_line() -> None:
    bench = _bench()
    out = io.StringIO()
    with redirect_stdout(out):
        bench.main(["--players", "7", "--games", "50", "--seed", "3", "--json", "--repeat", "2"])
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["players"] == 7 and data["games"] == 50 and data["games_per_s"] > 0
    assert set(data["endings"]) == {r.value for r in WinReason}
    assert abs(sum(data["endings"].values()) - 1) < 1e-9
