"""bench/ballot_read.py: every Liberal ballot against the perfect one, per belief model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.arena import main as arena_main
from engine import GameRecord, Role, Vote
from engine import events as ev

from .scripts import load_script


def _arena(tmp_path: Path, seed: int, capsys: pytest.CaptureFixture[str]) -> Path:
    records = tmp_path / f"s{seed}"
    pool = ["--pool", "random,selfish", "--players", "7-10", "--games", "6"]
    assert arena_main([*pool, "--seed", str(seed), "--records", str(records), "--json"]) == 0
    capsys.readouterr()
    return records


def test_every_liberal_ballot_is_read_by_every_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [_arena(tmp_path, seed, capsys) for seed in (5, 6)]
    read = load_script("ballot_read")
    argv = [f"{seed}/7-10:{d}" for seed, d in zip((5, 6), runs, strict=True)]
    assert read.main([*argv, "--pool", "random,selfish", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)

    ballots = clean = pivotal = 0
    for directory in runs:
        for path in sorted(directory.glob("game-*.json")):
            record = GameRecord.from_json(path.read_text(encoding="utf-8"))
            roles = record.replay().roles
            liberal_votes = [
                a for a in record.actions if isinstance(a, Vote) and roles[a.seat] is Role.LIBERAL
            ]
            ballots += len(liberal_votes)
            decided = read.pivotal_ballots(record)
            game = record.replay()
            results = [e for e in game.events if isinstance(e, ev.ElectionResult)]
            for index, result in enumerate(results):
                cast = [v for v in result.votes if v is not None]
                assert result.elected == (2 * sum(cast) > len(cast))  # the engine's majority
                for seat, vote in enumerate(result.votes):
                    if vote is not None and roles[seat] is Role.LIBERAL:
                        pivotal += decided[(index, seat)]
                        liberal = roles[result.president] is roles[result.chancellor]
                        clean += liberal and roles[result.president] is Role.LIBERAL
    assert report["games"] == 12 and report["ballots"] == ballots > 0
    assert report["pivotal"] == pivotal
    assert report["clean_share"] == pytest.approx(clean / ballots)
    assert set(report["models"]) == {"shipped", "agents"}
    for entry in report["models"].values():
        assert 0.0 <= entry["rule"] <= 1.0 and 0.0 <= entry["auc"] <= 1.0
        assert entry["best_threshold"] >= max(report["clean_share"], 1 - report["clean_share"])
