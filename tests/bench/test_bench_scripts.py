"""The analysis scripts in bench/: arena merges add up, and the Liberal ceiling runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from agents.arena import run_arena

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_arena_merge_adds_up_runs_of_different_seeds() -> None:
    pool = {"random": "random", "selfish": "selfish"}
    reports = [run_arena(games=12, seed=s, players=(5, 6), pool=pool).to_dict() for s in (1, 2)]
    merged = _load("arena_merge").merge(reports)
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
    bound = _load("liberal_bound")
    report = bound.run(40, 3, (5, 7), 8, 1)
    oracle = report["agents"]["oracle"]["liberal"]
    rand = report["agents"]["random"]["liberal"]
    assert oracle["played"] > 10 and oracle["win_rate"] > rand["win_rate"]
    assert sum(report["endings"].values()) == 40
