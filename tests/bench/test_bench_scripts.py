"""The analysis scripts in bench/: arena merges add up, the Liberal ceiling runs, fits compare."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.arena import plan_game, run_arena
from agents.behaviour import FITTED_PATH
from engine import Game, Role, Vote

from .scripts import BENCH, load_script


def test_arena_merge_adds_up_runs_of_different_seeds() -> None:
    pool = {"random": "random", "selfish": "selfish"}
    reports = [run_arena(games=12, seed=s, players=(5, 6), pool=pool).to_dict() for s in (1, 2)]
    merged = load_script("arena_merge").merge(reports)
    assert merged["games"] == 24 and merged["seeds"] == [1, 2]
    assert sum(merged["endings"].values()) == 24
    for name in pool:
        total = merged["agents"][name]["overall"]
        assert total["played"] == sum(r["agents"][name]["played"] for r in reports)
        assert total["wins"] == sum(r["agents"][name]["wins"] for r in reports)
        roles = ("liberal", "fascist", "hitler")
        assert sum(merged["agents"][name][role]["played"] for role in roles) == total["played"]
    json.dumps(merged)  # the --json output is plain JSON


def test_liberal_bound_oracle_wins_more_as_a_liberal() -> None:
    """The omniscient Liberal of bench/liberal_bound.py is built from the deal and plays
    legal moves; over a few dozen cheap games it wins more as a Liberal than random."""
    bound = load_script("liberal_bound")
    report = bound.run(40, 3, (5, 7), 8, 1)
    oracle = report["agents"]["oracle"]["liberal"]
    rand = report["agents"]["random"]["liberal"]
    assert oracle["played"] > 10 and oracle["win_rate"] > rand["win_rate"]
    assert sum(report["endings"].values()) == 40


def test_liberal_bound_hitler_vote_says_nein_only_to_hitler_in_the_zone() -> None:
    """`--perfect hitler_vote`: in the Hitler zone, Nein to Hitler as chancellor; every
    other ballot (and decision) is the honest agent's."""
    from dataclasses import replace

    from agents.random_agent import RandomAgent

    bound = load_script("liberal_bound")
    game = Game(7, seed=5)
    roles = game.roles
    hitler = roles.index(Role.HITLER)
    liberal = next(s for s, r in enumerate(roles) if r is Role.LIBERAL and s != game.president)

    class Ja(RandomAgent):
        def act(self, view: Any) -> Any:
            return Vote(self.seat, True)

    oracle = bound.OracleLiberal(liberal, roles, Ja(liberal, 1), frozenset({"hitler_vote"}))
    nominee = next(a for a in game.legal_actions(game.president) if a.chancellor == hitler)
    game.apply(nominee)
    view = game.view(liberal)
    assert oracle.act(view) == Vote(liberal, True)  # not the zone: the honest ballot
    zone = replace(view, fascist_policies=3)
    assert oracle.act(zone) == Vote(liberal, False)  # Hitler, in the zone: Nein
    other = replace(zone, chancellor=next(s for s in range(7) if s not in (hitler, liberal)))
    assert oracle.act(other) == Vote(liberal, True)  # anyone else: the honest ballot


def test_liberal_decisions_reads_the_arena_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench/liberal_decisions.py finds who sat where from the arena's plan, counts every
    Liberal seat once, and the exact belief's sincere ballot backs all-Liberal
    governments more often than Fascist ones."""
    from agents.arena import main as arena_main

    records = tmp_path / "records"
    pool = ["--pool", "random,selfish,belief", "--players", "5-7", "--seed", "4"]
    assert arena_main([*pool, "--games", "30", "--records", str(records), "--json"]) == 0
    capsys.readouterr()
    decisions = load_script("liberal_decisions")
    specs = ["random", "selfish", "belief"]
    report = decisions.analyse(sorted(records.glob("game-*.json")), 4, (5, 7), specs, True)
    assert report["games"] == 30
    liberal_seats = 0
    for index in range(30):
        setup = plan_game(4, index, (5, 7), specs)
        roles = Game(setup.players, seed=setup.seed).roles
        liberal_seats += sum(role is Role.LIBERAL for role in roles)
    agents = report["agents"]
    assert sum(agents[name]["won"]["n"] for name in specs) == liberal_seats
    for entries in agents.values():
        for entry in entries.values():
            assert entry["rate"] is None or 0.0 <= entry["rate"] <= 1.0
    belief = report["belief"]
    ballots = belief["liberal_governments"]["n"]
    assert belief["ja_liberal"]["n"] + belief["ja_fascist"]["n"] == ballots > 0
    assert belief["ja_liberal"]["rate"] > belief["ja_fascist"]["rate"]
    # The command line prints the same report.
    assert decisions.main([str(records), *pool, "--belief", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report


def test_ballot_noise_searches_the_same_liberal_ballots_at_both_budgets() -> None:
    """bench/ballot_noise.py: every ballot found is a Liberal's outside the government,
    and the noise test calls clear no capped margin the share alone would not."""
    noise = load_script("ballot_noise")
    views = noise.liberal_ballots(1, 3)
    assert views and all(
        v.role is Role.LIBERAL and v.seat not in (v.president, v.chancellor) for v in views
    )
    out = noise.measure(1, 3, full=600)
    assert out["ballots"] == len(views) and out["full"] == 600
    assert out["capped_clear_noise"] <= out["capped_clear_share"] <= out["ballots"]
    assert 0 <= out["agree_share"] <= out["ballots"] and 0 <= out["agree_noise"] <= out["ballots"]
    assert out["agree_noise_rate"] == out["agree_noise"] / out["ballots"]


def test_the_clear_margin_rule_asks_the_share_and_the_noise_of_the_paired_games() -> None:
    clear_ballot = load_script("ballot_noise").clear_ballot
    # A capped ballot (100 paired games): a 10-game margin is 0.1 of the games, over
    # CLEAR_BALLOT, and still within the noise of 100 games.
    assert not clear_ballot(10, 100) and not clear_ballot(-19, 100)
    assert clear_ballot(20, 100) and clear_ballot(-20, 100)
    # 10,000 iterations (5,000 games a ballot): the share decides.
    assert clear_ballot(150, 5_000) and clear_ballot(-150, 5_000)
    assert not clear_ballot(149, 5_000)
    assert not clear_ballot(0, 0)


def test_fit_compare_scores_two_fits_on_the_same_games(tmp_path: Path) -> None:
    compare = load_script("fit_compare").compare
    pool = ["random", "selfish"]
    same, points = compare([FITTED_PATH, FITTED_PATH], games=4, seed=1, pool=pool)
    assert points > 0 and same[0] == same[1]
    # A missing file means the hand-set defaults: another model, other figures.
    other, again = compare([FITTED_PATH, tmp_path / "none.json"], games=4, seed=1, pool=pool)
    assert again == points and other[0] == same[0] and other[1] != other[0]


AI_LOAD_KEYS = {
    "tables",
    "players",
    "ai_seats",
    "seconds",
    "chaos",
    "workers",
    "games",
    "finished",
    "stuck",
    "decisions",
    "claims",
    "fallbacks",
    "fallback_causes",
    "p50_s",
    "p95_s",
    "max_s",
    "iterations_p50",
    "iterations_p5",
    "table_iterations_p50",
    "table_iterations_p5",
    "loop_lag_max_ms",
    "loop_lag_p99_ms",
    "wall_s",
    "service",
}


@pytest.mark.parametrize("chaos", ["0", "0.1"])
def test_ai_load_bench_plays_every_game_to_its_end(chaos: str) -> None:
    """bench/ai_load_bench.py plays two small AI-only tables through the real session and
    worker processes and prints one JSON object; with --chaos (a tenth of the AI answers
    raise, hang or kill their worker) every game still ends. No timing is asserted: the
    figures depend on the machine and its load.

    Each hang or kill costs a new worker process (most of the test's time): a tenth is
    some 20 faults over two games, so each of the three kinds is met but in about one
    run in a thousand; decisions think 0.1 s, which keeps every fault path (a hang is
    still stopped past its deadline)."""
    command = [sys.executable, str(BENCH / "ai_load_bench.py"), "--tables", "2"]
    command += ["--players", "5", "--ai-seats", "5", "--seconds", "0.1", "--workers", "1"]
    command += ["--stall", "30", "--timeout", "120", "--chaos", chaos, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)  # exactly one JSON object, nothing else
    assert not AI_LOAD_KEYS - figures.keys(), AI_LOAD_KEYS - figures.keys()
    assert figures["games"] == figures["finished"] == 2 and figures["stuck"] == 0
    assert figures["tables"] == 2 and figures["workers"] == 1 and figures["decisions"] > 0
    assert figures["fallbacks"] == sum(figures["fallback_causes"].values())
    assert "iterations" not in figures["service"]
    assert figures["service"]["decisions"] == figures["decisions"]
