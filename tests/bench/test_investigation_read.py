"""bench/investigation_read.py: what a Liberal's investigation teaches it about Hitler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.arena import main as arena_main
from engine import GameRecord, Investigate, Role

from .scripts import load_script


def test_every_liberal_investigation_is_scored_by_every_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    run = ["--pool", "random,selfish", "--players", "9-10", "--seed", "4", "--games", "12"]
    assert arena_main([*run, "--records", str(records), "--json"]) == 0
    capsys.readouterr()
    read = load_script("investigation_read")
    common = ["--pool", "random,selfish", "--players", "9-10"]
    assert read.main([f"4:{records}", *common, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)

    liberal = 0
    for path in sorted(records.glob("game-*.json")):
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        roles = record.replay().roles
        liberal += sum(
            isinstance(a, Investigate) and roles[a.seat] is Role.LIBERAL for a in record.actions
        )
    assert report["games"] == 12
    everyone = report["agents"]["all"]
    # Every Liberal investigation with a choice (two legal targets or more) is one point.
    assert 0 < everyone["decisions"] <= liberal
    assert (
        sum(e["decisions"] for a, e in report["agents"].items() if a != "all")
        == (everyone["decisions"])
    )
    chosen, hindsight = everyone["chosen"], everyone["hindsight"]
    for rule in read.RULES:
        entry = everyone[rule]
        assert entry["log_p"] < 0.0 and 0.0 <= entry["top1"] <= 1.0
        # The best target knowing the truth bounds every rule, decision by decision.
        assert entry["log_p"] <= hindsight["log_p"] + 1e-9
    assert hindsight["log_p_diff"] == pytest.approx(hindsight["log_p"] - chosen["log_p"])
    assert "log_p_diff" not in chosen
    # A run named without its seed, or a directory without records, is refused.
    assert read.main([str(records), *common]) == 2
    assert "SEED:DIR" in capsys.readouterr().err
    assert read.main([f"4:{tmp_path}", *common]) == 2
    assert "No game-*.json" in capsys.readouterr().err
