"""SO-ISMCTS: legal, deterministic, blind to hidden state, the paper's tree, and sensible.

Searches here use small iteration counts (tens to a few hundred); the benchmark
(bench/ismcts_bench.py) measures full 10,000-iteration decisions.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import random
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pytest

from agents.base import Budget
from agents.determinize import UniformSampler
from agents.ismcts import SOISMCTSAgent
from agents.registry import make_agent
from agents.search import SearchResult
from agents.search_agent import DEFAULT_ITERATIONS
from agents.tree import Node
from engine import (
    Enact,
    Execute,
    FixedChance,
    Game,
    Nominate,
    Phase,
    PlayerView,
    Policy,
    Role,
    Vote,
    WinReason,
)
from engine.fastsim import CHAOS_FASCIST, CHAOS_LIBERAL, ELECTED, FAILED, VOTE, FastGame
from tests.engine.helpers import deck, fixed_game, play, tiles

ROOT = Path(__file__).resolve().parents[2]


def agent(
    seat: int, seed: int = 1, iterations: int = 100, exploration: float = 0.7
) -> SOISMCTSAgent:
    """An SO-ISMCTS agent with a small iteration budget."""
    return SOISMCTSAgent(seat, seed, Budget(iterations=iterations), exploration=exploration)


def first_vote(players: int, seed: int) -> Game:
    """A seeded game at its first vote (nobody has voted yet)."""
    game = Game(players, seed=seed)
    game.apply(game.legal_actions(game.president)[0])
    assert game.phase is Phase.VOTE
    return game


# --- legality, claims, determinism ------------------------------------------------------


def test_legal_in_thousands_of_positions_with_claims_in_the_views() -> None:
    """Whole games of SO-ISMCTS seats at every size; random claims fill the views."""
    decisions = 0
    claims = 0
    for players in range(5, 11):
        for seed in range(3):
            game = Game(players, seed=100 * players + seed)
            seats = [agent(s, seed, iterations=25) for s in range(players)]
            talk = random.Random(seed)
            while not game.is_over:
                seat = game.awaiting()[0]
                view = game.view(seat)
                action = seats[seat].act(view)
                assert action in view.legal_actions
                assert seats[seat].claim(view) is None  # the baseline makes no claims
                game.apply(action)
                decisions += 1
                for s in range(players):  # other seats talk (the agent must read past it)
                    options = game.legal_claims(s)
                    if options and talk.random() < 0.5:
                        game.apply(talk.choice(options))
                        claims += 1
    assert decisions > 2000 and claims > 150, (decisions, claims)


def positions(count: int) -> list[PlayerView]:
    """Views of seats facing a real choice, from seeded random games."""
    rng = random.Random(7)
    out: list[PlayerView] = []
    seed = 0
    while len(out) < count:
        game = Game(5 + seed % 6, seed=seed)
        seed += 1
        for _ in range(rng.randrange(80)):
            if game.is_over:
                break
            seat = rng.choice(game.awaiting())
            game.apply(rng.choice(game.legal_actions(seat)))
        if game.is_over:
            continue
        seat = rng.choice(game.awaiting())
        view = game.view(seat)
        if len(view.legal_actions) > 1:
            out.append(view)
    return out


def test_deterministic_under_a_seed() -> None:
    differs = 0
    for view in positions(16):
        assert view.seat is not None
        first = agent(view.seat, seed=3, iterations=150)
        again = agent(view.seat, seed=3, iterations=150)
        a = first.search(view, first.rng(view))
        b = again.search(view, again.rng(view))
        assert a.best_action() == b.best_action()
        assert a.root.visits == b.root.visits and a.root.wins == b.root.wins
        assert first.act(view) == a.best_action()
        other = agent(view.seat, seed=4, iterations=150)
        differs += other.search(view, other.rng(view)).root.visits != a.root.visits
    assert differs > 0  # the seed matters


def test_decisions_depend_on_the_view_alone() -> None:
    """Same public history and same private knowledge, different hidden roles and deck."""
    # Seat 0 is a Liberal; who the Fascists are and the deck's order differ.
    games = [
        Game(7, chance=FixedChance([_role(c) for c in roles], 1, tiles(deck(top))))
        for roles, top in (("LFFHLLL", "LFF LFF LF"), ("LLLLHFF", "FLF FLF FL"))
    ]
    for game in games:
        play(game, "nominate 2", "ja", "discard F", "enact L")  # seat 1 discards F, 2 enacts L
        play(game, "nominate 0", "votes NJJJJJJ")  # seat 0 (the searcher) is elected chancellor
        play(game, "discard F")  # seat 0 receives L, F in both games
    views = [g.view(0) for g in games]
    assert views[0].hand == (Policy.LIBERAL, Policy.FASCIST)
    assert views[0] == views[1]  # the seat cannot tell the games apart
    assert games[0].roles != games[1].roles and games[0].draw_pile != games[1].draw_pile
    results = [agent(0, seed=5, iterations=300).search(v, agent(0, seed=5).rng(v)) for v in views]
    assert results[0].root.visits == results[1].root.visits
    assert results[0].root.wins == results[1].root.wins
    assert results[0].best_action() == results[1].best_action()


def _role(code: str) -> Role:
    return {"L": Role.LIBERAL, "F": Role.FASCIST, "H": Role.HITLER}[code]


# --- the tree ----------------------------------------------------------------------------


def vote_chain(node: Node) -> list[Node]:
    """The voter nodes from `node` on: each leads to the next through key 0."""
    chain = [node]
    while 0 in chain[-1].children and len(chain[-1].children) == 1:
        chain.append(chain[-1].children[0])
    return chain


@pytest.mark.parametrize("late_voter", [False, True])
def test_a_vote_is_one_two_move_node_per_voter(late_voter: bool) -> None:
    """Ten voters: ten nodes with Ja and Nein each, not one node with 1,024 joint ballots."""
    game = first_vote(10, seed=4)
    if late_voter:  # four seats have voted already; their ballots are hidden
        for seat in (0, 1, 2, 3):
            game.apply(Vote(seat, seat % 2 == 0))
    searcher = 7
    view = game.view(searcher)
    result = agent(searcher, iterations=1500).search(view, agent(searcher).rng(view))
    chain = vote_chain(result.root)
    voters = [s for s in range(10) if s not in game.votes]
    order = [searcher] + [s for s in voters if s != searcher]
    assert [node.seat for node in chain] == order  # the searcher first, then seat order
    for node in chain:
        assert node.tried() == [0, 1]  # two moves: Nein (0) and Ja (1)
        # Both ballots are always legal: availability counts every visit of the node.
        assert node.avail[0] == node.avail[1] == node.visits[0] + node.visits[1]
    for earlier, later in pairwise(chain):
        assert list(earlier.children) == [0]  # the same next voter whatever the ballot
        assert sum(later.visits) <= sum(earlier.visits)
    # After the last ballot, the table sees the result (and any chaos top-deck).
    assert set(chain[-1].children) <= {ELECTED, FAILED, CHAOS_LIBERAL, CHAOS_FASCIST}
    assert chain[-1].children


def test_nomination_children_are_vote_chains() -> None:
    game = Game(10, seed=8)
    president = game.president
    view = game.view(president)
    result = agent(president, iterations=2000).search(view, agent(president).rng(view))
    nominees = {a.chancellor for a in view.legal_actions if isinstance(a, Nominate)}
    assert set(result.root.tried()) == nominees and len(nominees) == 9
    for key, child in result.root.children.items():
        chain = vote_chain(child)
        assert len(chain) == 10 and [n.seat for n in chain] == list(range(10)), key
        assert all(len(n.tried()) <= 2 and len(n.children) <= 4 for n in chain)


@pytest.mark.parametrize(("players", "seed"), [(10, 8), (7, 5), (5, 3)])
def test_every_node_has_the_same_mover_in_every_determinization(players: int, seed: int) -> None:
    """A child is keyed by what the searcher sees (the move, bar ballots, and chance's
    public results); that must fix who moves next, whatever the hidden state."""
    game = Game(players, seed=seed)
    president = game.president
    view = game.view(president)
    result = agent(president, iterations=3000).search(view, random.Random(seed))
    sampler = UniformSampler(view)
    rng = random.Random(1)
    steps = 0
    for _ in range(300):
        fast = sampler.game(rng)
        node = result.root
        while True:
            if fast.phase == VOTE:
                assert node.seat == fast.next_voter()
                key = fast.cast(node.seat, rng.random() < 0.5)
            else:
                assert node.seat == fast.to_move()
                move = rng.choice(fast.legal_moves())
                key = move << 3 | fast.step(move)
            steps += 1
            if fast.reason is not None or key not in node.children:
                break
            node = node.children[key]
    assert steps > 3000


def _walk(a: Node, b: Node) -> Iterator[tuple[Node, Node]]:
    """Pairs of the same node in two trees (b grown from a by one iteration)."""
    yield a, b
    for key, child in a.children.items():
        yield from _walk(child, b.children[key])


def test_selection_is_ucb1_over_availability_counts() -> None:
    """Each iteration's choice at every node it visits, checked against the formula.

    Searches of k and k + 1 iterations share their first k iterations (same seed), so
    the difference between the two trees is one iteration: the moves whose availability
    grew were legal in its determinization, the move whose visits grew was chosen.
    """
    game = Game(7, seed=21)
    president = game.president
    view = game.view(president)
    c = 0.7
    trees = [
        agent(president, seed=2, iterations=k, exploration=c).search(view, _rng(view)).root
        for k in range(1, 161)
    ]
    checked = partial = 0
    for before, after in pairwise(trees):
        for a, b in _walk(before, after):
            legal = [m for m in range(len(a.avail)) if b.avail[m] > a.avail[m]]
            chosen = [m for m in range(len(a.visits)) if b.visits[m] > a.visits[m]]
            if not legal:
                continue  # not visited in this iteration
            assert len(chosen) == 1 and chosen[0] in legal
            move = chosen[0]
            untried = [m for m in legal if not a.visits[m]]
            if untried:
                assert move in untried  # expansion comes first
                continue
            scores = {
                m: a.wins[m] / a.visits[m] + c * math.sqrt(math.log(b.avail[m]) / a.visits[m])
                for m in legal
            }
            assert scores[move] >= max(scores.values()) - 1e-9
            checked += 1
            # Availability, not the parent's visits: some moves were legal less often.
            partial += any(b.avail[m] < sum(b.visits) for m in legal)
    assert checked > 300 and partial > 10, (checked, partial)


def _rng(view: PlayerView) -> random.Random:
    return random.Random(f"ucb:{len(view.events)}")


# --- sensible choices ---------------------------------------------------------------------


def brink(chancellor: int) -> Game:
    """5 players (seat 1 a Fascist, seat 2 Hitler), 4 Liberal and 5 Fascist policies down
    (by chaos: no powers), and `chancellor` holding a Liberal and a Fascist policy: one
    enactment wins the game for the chancellor's team, the other loses it."""
    game = fixed_game("LFHLL", deck("LLLL FFFFF LFF"))
    for _ in range(27):  # nine chaos top-decks
        nominee = next(s for s in game.eligible_chancellors() if s not in (2, chancellor))
        play(game, f"nominate {nominee}", "nein")
    assert (game.liberal_policies, game.fascist_policies) == (4, 5)
    assert game.president == 2
    play(game, f"nominate {chancellor}", "ja", "discard F")
    assert game.hand == [Policy.LIBERAL, Policy.FASCIST]
    return game


@pytest.mark.parametrize(("chancellor", "winning"), [(1, Policy.FASCIST), (0, Policy.LIBERAL)])
def test_a_chancellor_enacts_the_winning_policy(chancellor: int, winning: Policy) -> None:
    view = brink(chancellor).view(chancellor)
    assert len(view.legal_actions) == 3  # Liberal, Fascist, or propose a veto
    for seed in range(3):
        result = agent(chancellor, seed=seed, iterations=300).search(view, random.Random(seed))
        assert result.best_action() == Enact(chancellor, winning)
        losing = 0 if winning is Policy.FASCIST else 1
        assert result.root.wins[losing] == 0  # tried, and it always loses


def test_a_fascist_president_never_executes_hitler() -> None:
    game = fixed_game("LFHLL", deck("FFF FFF"))
    for _ in range(9):  # three Fascist chaos top-decks
        nominee = next(s for s in game.eligible_chancellors() if s != 2)
        play(game, f"nominate {nominee}", "nein")
    while game.president != 1:
        play(game, f"nominate {next(s for s in game.eligible_chancellors() if s != 2)}", "nein")
    play(game, "nominate 3", "ja", "discard F", "enact F")  # the fourth: an execution
    assert game.phase is Phase.EXECUTE and game.president == 1
    view = game.view(1)
    for seed in range(3):
        result = agent(1, seed=seed, iterations=300).search(view, random.Random(seed))
        assert result.best_action() != Execute(1, 2)
        assert result.root.wins[2] == 0 < result.root.visits[2]  # tried; it always loses
        assert result.root.visits[2] < max(result.root.visits)


# --- budget, shortcuts, extension points -------------------------------------------------


def test_one_distinct_option_is_taken_without_searching() -> None:
    class NoSearch(SOISMCTSAgent):
        """Fails if it ever searches."""

        def make_sampler(self, view: PlayerView) -> UniformSampler:
            raise AssertionError("searched a forced move")

    # A chancellor handed two Fascist policies before the veto is unlocked.
    game = fixed_game("LFHLL", deck("FFF"))
    play(game, "nominate 1", "ja", "discard F")
    assert NoSearch(1, 1).act(game.view(1)) == Enact(1, Policy.FASCIST)
    # A seat that has voted: its only option is to change its ballot.
    forced = first_vote(5, seed=2)
    forced.apply(Vote(0, True))
    assert NoSearch(0, 1).act(forced.view(0)) == Vote(0, False)


def test_a_decision_reports_its_own_iterations_not_the_last_ones() -> None:
    """A long-lived seat (the arena's) that searched, then takes a lone option or claims,
    reports no iterations for that decision rather than the earlier search's count."""
    game = fixed_game("LFHLL", deck("FFF"))
    play(game, "nominate 1", "ja", "discard F")
    chancellor = agent(1, iterations=30)
    searched = first_vote(5, seed=2).view(1)
    chancellor.act(searched)
    assert chancellor.iterations == 30
    assert chancellor.act(game.view(1)) == Enact(1, Policy.FASCIST)  # its only option
    assert chancellor.iterations is None
    game.apply(Enact(1, Policy.FASCIST))
    assert game.view(1).legal_claims  # the chancellor may now say what it was handed
    chancellor.act(searched)
    chancellor.claim(game.view(1))
    assert chancellor.iterations is None


def test_budgets() -> None:
    view = first_vote(6, seed=1).view(0)
    assert SOISMCTSAgent(0, 1).iteration_limit() == (DEFAULT_ITERATIONS, None)
    assert agent(0, iterations=37).search(view, random.Random(0)).iterations == 37
    timed = SOISMCTSAgent(0, 1, Budget(seconds=0.05))
    result = timed.search(view, random.Random(0))
    assert result.iterations > 0 and result.seconds < 1.0
    both = SOISMCTSAgent(0, 1, Budget(iterations=20, seconds=30))
    assert both.search(view, random.Random(0)).iterations == 20
    with pytest.raises(ValueError):
        SOISMCTSAgent(0, 1, exploration=-1)


def test_sampler_and_playout_are_pluggable() -> None:
    """A subclass swaps the determinizations and the playouts; the tree code stays."""
    samples: list[FastGame] = []
    playouts: list[FastGame] = []

    class Counting(SOISMCTSAgent):
        def make_sampler(self, view: PlayerView) -> UniformSampler:
            sampler = UniformSampler(view)
            inner = sampler.game

            def game(rng: random.Random) -> FastGame:
                samples.append(inner(rng))
                return samples[-1]

            sampler.game = game  # type: ignore[method-assign]
            return sampler

        def playout(self, game: FastGame, rng: random.Random) -> WinReason:
            playouts.append(game)
            return WinReason.FIVE_LIBERAL  # a playout policy that always says Liberal

    game = first_vote(7, seed=3)
    for seat, liberal in ((game.roles.index(Role.LIBERAL), True), (game.hitler, False)):
        samples.clear()
        playouts.clear()
        view = game.view(seat)
        result = Counting(seat, 1, Budget(iterations=60)).search(view, random.Random(1))
        assert len(samples) == 60 and 0 < len(playouts) <= 60
        assert len({id(g) for g in samples}) == 60  # a fresh determinization per iteration
        # The playouts all ended in a Liberal win (the rest ended inside the tree).
        wins = sum(result.root.wins)
        if liberal:
            assert wins >= len(playouts)
        else:
            assert wins <= 60 - len(playouts)


def test_the_final_choice_is_the_most_visited_move() -> None:
    """Visits decide, not the win rate (a rarely tried move may look lucky)."""
    root = Node(0, 5)
    root.visits[1:3] = [60, 40]
    root.wins[1:3] = [20, 30]  # move 2 won more often, and more times, but was tried less
    actions = (Vote(0, True), Vote(0, False))  # any two actions stand for moves 1 and 2
    result = SearchResult(root, 100, 0.0, (1, 2), actions)
    assert result.best_move() == 1 and result.best_action() == actions[0]
    root.visits[2] = 60  # a tie on visits goes to the move with more wins
    assert result.best_move() == 2


def test_registry_builds_the_agent() -> None:
    built = make_agent("ismcts:iterations=50,seconds=2", 3, 9)
    assert isinstance(built, SOISMCTSAgent)
    assert built.budget == Budget(50, 2.0) and built.seat == 3


# --- the benchmark ------------------------------------------------------------------------


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ismcts_bench", ROOT / "bench/ismcts_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("ismcts_bench", module)
    spec.loader.exec_module(module)
    return module


def test_bench_json_line() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        _bench().main(["--players", "6", "--iterations", "30", "--decisions", "5", "--json"])
    data = json.loads(out.getvalue())
    assert data["players"] == 6 and data["iterations"] == 30 and data["decisions"] == 5
    assert 0 < data["median_s"] <= data["max_s"] and data["p90_s"] <= data["max_s"]
    assert sum(data["by_phase_count"].values()) == 5 and len(data["by_phase_count"]) >= 4
    assert data["agent"] == "ismcts"


def test_bench_times_belief_ismcts_too() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        args = "--players 7 --iterations 20 --decisions 3 --json --agent belief-ismcts"
        _bench().main(args.split())
    data = json.loads(out.getvalue())
    assert data["agent"] == "belief-ismcts" and data["decisions"] == 3 and data["median_s"] > 0


def test_bench_times_a_variant_from_its_options() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        args = "--players 5 --iterations 20 --decisions 2 --json --agent belief-ismcts"
        _bench().main([*args.split(), "--options", "wild=0.7,fit=behaviour_fitted.json"])
    data = json.loads(out.getvalue())
    assert data["options"] == "wild=0.7,fit=behaviour_fitted.json" and data["decisions"] == 2
    with pytest.raises(SystemExit), redirect_stderr(io.StringIO()):
        _bench().main(["--agent", "ismcts", "--options", "wild=0.7"])  # not its option
    with pytest.raises(SystemExit), redirect_stderr(io.StringIO()):
        _bench().main(["--agent", "ismcts", "--options", "iterations=5"])  # a budget
