"""bench/belief_bench.py's transfer mode: the calibration error, and one small pair end to
end through the command line (fit on random play, read human-style play)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from .scripts import BENCH, load_script


def test_expected_calibration_error_by_hand() -> None:
    ece = load_script("belief_bench").expected_calibration_error
    # One bin: 0.7 said, 3 of 4 happened.
    assert math.isclose(ece([(0.7, 1.0), (0.7, 1.0), (0.7, 0.0), (0.7, 1.0)]), 0.05)
    # Two bins: 0.15 said, 0 happened (x2); 0.95 said, 1 happened (x2): (2*0.15 + 2*0.05)/4.
    got = ece([(0.15, 0.0), (0.15, 0.0), (0.95, 1.0), (0.95, 1.0)])
    assert math.isclose(got, 0.1)
    assert ece([]) == 0.0


def test_a_transfer_pair_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "pair.json"
    command = [
        sys.executable,
        str(BENCH / "belief_bench.py"),
        "--fit-on",
        "random",
        "--test-on",
        "humanlike",
        "--games",
        "6",
        "--fit-games",
        "12",
        "--json",
        "--out",
        str(out),
        "--cache",
        str(tmp_path / "games"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    row = json.loads(done.stdout)
    assert (row["fit_on"], row["test_on"], row["games"]) == ("random", "humanlike", 6)
    assert row["points"] > 0
    for predictor in ("uniform", "fitted", "robust"):
        metrics = row["means"][predictor]
        for key in ("log_p_truth", "hitler_logloss", "ece", "truth_zero", "truth_below_1e-4"):
            assert math.isfinite(metrics[key])
    # The uniform prior: ln(1 / assignments a Liberal seat allows), the same at 5..10.
    assert row["means"]["uniform"]["log_p_truth"] < -math.log(4)
    assert row["means"]["robust"]["truth_zero"] == 0
    assert json.loads(out.read_text()) == [row]
    assert len(list((tmp_path / "games").glob("*.json"))) == 2  # fit and test games kept
