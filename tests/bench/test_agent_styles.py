"""bench/agent_styles.py: a style per agent of the pool, cross-fitted Hitler reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.arena import main as arena_main
from engine import Execute, GameRecord, Role

from .scripts import load_script


def _arena(tmp_path: Path, seed: int, capsys: pytest.CaptureFixture[str]) -> Path:
    records = tmp_path / f"s{seed}"
    pool = ["--pool", "random,selfish", "--players", "7-10", "--games", "10"]
    assert arena_main([*pool, "--seed", str(seed), "--records", str(records), "--json"]) == 0
    capsys.readouterr()
    return records


def _liberal_reads(directory: Path) -> int:
    reads = 0
    for path in sorted(directory.glob("game-*.json")):
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        game = record.replay()
        roles = game.roles
        alive = [True] * record.players
        for action in record.actions:
            if isinstance(action, Execute):
                reads += sum(r is Role.LIBERAL and alive[s] for s, r in enumerate(roles))
                alive[action.target] = False
    return reads


def test_every_fold_is_read_by_models_fitted_on_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [_arena(tmp_path, seed, capsys) for seed in (3, 4)]
    styles = load_script("agent_styles")
    argv = [f"{seed}/7-10:{d}" for seed, d in zip((3, 4), runs, strict=True)]
    assert styles.main([*argv, "--pool", "random,selfish", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pool"] == ["random", "selfish"]
    assert report["games"] == 20
    assert report["reads"] == sum(_liberal_reads(d) for d in runs) > 0
    assert set(report["models"]) == {"shipped", "refit", "agents", "agents_sharp"}
    for name in ("refit", "agents", "agents_sharp"):
        assert "top1_diff" in report["models"][name]  # paired with the shipped reads

    # The per-agent styles are one per agent of the pool, fitted from its seats alone.
    games = styles.parse_run(argv[0]).games(["random", "selfish"])
    agents = styles.build_models(games, ["random", "selfish"])[1]
    assert agents.behaviour(8).names == ("random", "selfish", "human", "chaotic", "noise")
    random_fit, selfish_fit = agents.behaviour(8).behaviours[:2]
    # enact_fascist[role, president role, zone]: a Selfish Liberal never enacts Fascist.
    assert selfish_fit.enact_fascist[0].max() < random_fit.enact_fascist[0].min()


def test_a_run_played_otherwise_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [_arena(tmp_path, 3, capsys), _arena(tmp_path, 4, capsys)]
    styles = load_script("agent_styles")
    # Seeds swapped: no record matches its planned game.
    assert styles.main([f"4/7-10:{runs[0]}", f"3/7-10:{runs[1]}", "--pool", "random,selfish"]) == 2
    assert "was not game 0 of run 4" in capsys.readouterr().err
    assert styles.main([f"3:{runs[0]}", "--folds", "2"]) == 2
    assert styles.main(["x:y"]) == 2
