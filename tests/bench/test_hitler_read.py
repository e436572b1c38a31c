"""bench/hitler_read.py: the Hitler read before each execution, per belief model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.arena import main as arena_main
from engine import Execute, GameRecord, Role

from .scripts import load_script


def test_every_execution_is_read_by_every_model_on_the_same_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    pool = ["--pool", "random,selfish", "--players", "7-10", "--seed", "3", "--games", "12"]
    assert arena_main([*pool, "--records", str(records), "--json"]) == 0
    capsys.readouterr()
    read = load_script("hitler_read")
    models = [
        read.Model("shipped"),
        read.parse_model("fit=fit"),
        read.parse_model("flat=styles:1/1/1/1"),
    ]
    report = read.analyse([records], models, everyone=False)

    executions = liberal_presidents = 0
    for path in sorted(records.glob("game-*.json")):
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        roles = record.replay().roles
        for action in record.actions:
            if isinstance(action, Execute):
                executions += 1
                liberal_presidents += roles[action.seat] is Role.LIBERAL
    assert report["games"] == 12 and report["executions"] == executions
    assert report["reads"] == liberal_presidents > 0  # one read per Liberal who executes
    assert 0.0 < report["chance_top1"] <= 0.5  # at least two living seats to choose from
    shipped, fit, flat = (report["models"][m.name] for m in models)
    for entry in (shipped, fit, flat):
        low, high = entry["top1_interval"]
        assert 0.0 <= low <= entry["top1"] <= high <= 1.0
        assert entry["log_p"] < 0.0 and 0.0 < entry["confidence"] <= 1.0
    # Paired against the first model: the difference of the means, read for read.
    assert fit["log_p_diff"] == pytest.approx(fit["log_p"] - shipped["log_p"])
    assert fit["top1_diff"] == pytest.approx(fit["top1"] - shipped["top1"])
    assert "top1_diff" not in shipped
    # The command line prints the same report, and refuses a model it cannot read.
    args = [str(records), "--readers", "president", "--model", "fit=fit"]
    assert read.main([*args, "--model", "flat=styles:1/1/1/1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report
    assert read.main([*args, "--model", "odd=styles:1/2"]) == 2
    assert "style weights" in capsys.readouterr().err
