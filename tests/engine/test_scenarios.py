"""The shared rule scenarios, through `engine.scenario` (in-process and as a CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.scenario import main, run_file

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "scenarios"  # the project's contract; it may grow
VENDORED = Path(__file__).resolve().parent / "scenarios"  # a copy, for clones without it


def scenario_files() -> list[Path]:
    """Every shared scenario, plus the vendored copies of any the shared folder lacks."""
    files = {p.name: p for p in VENDORED.glob("*.json")}
    files.update({p.name: p for p in SHARED.glob("*.json")})
    return [files[name] for name in sorted(files)]


SCENARIO_FILES = scenario_files()


def test_scenario_folder_is_not_empty() -> None:
    # A missing or empty folder must fail the suite, not silently test nothing.
    assert len(SCENARIO_FILES) >= 10, f"no scenario files in {SHARED} or {VENDORED}"


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.stem for p in SCENARIO_FILES])
def test_scenario(path: Path) -> None:
    result = run_file(str(path))
    expect = json.loads(path.read_text(encoding="utf-8")).get("expect", {})
    mismatches = {k: (result.get(k), v) for k, v in expect.items() if result.get(k) != v}
    assert result["ok"], f"observed != expected: {mismatches}; error: {result.get('error')}"
    assert not mismatches


def run_cli(*paths: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.scenario", *map(str, paths)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def lines(proc: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


# A 5-player game: seat 0 president first; the deck is Liberal-heavy on top.
BASE = {
    "name": "cli probe",
    "players": 5,
    "roles": ["liberal", "fascist", "hitler", "liberal", "liberal"],
    "first_president": 0,
    "deck": list("LLFFFFFFFFFFFLLLL"),
}


def write(tmp_path: Path, name: str, **fields: object) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({**BASE, "name": name, **fields}), encoding="utf-8")
    return path


def test_cli_passes_every_shared_scenario() -> None:
    proc = run_cli(*SCENARIO_FILES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = lines(proc)
    assert len(results) == len(SCENARIO_FILES)
    assert all(r["ok"] for r in results)
    assert "Traceback" not in proc.stderr


def test_cli_reports_a_rejected_step_without_crashing(tmp_path: Path) -> None:
    good = write(
        tmp_path,
        "good",
        steps=[{"nominate": 2}, {"votes": "JJJNN"}, {"discard": "F"}, {"enact": "L"}],
        expect={"liberal_policies": 1, "president": 1, "error_at": None},
    )
    # Seat 2 was the last chancellor: nominating it again is illegal (step 4).
    bad = write(
        tmp_path,
        "bad",
        steps=[
            {"nominate": 2},
            {"votes": "JJJNN"},
            {"discard": "F"},
            {"enact": "L"},
            {"nominate": 2},
            {"votes": "JJJJJ"},
        ],
        expect={"liberal_policies": 1, "error_at": None},
    )
    proc = run_cli(good, bad)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    first, second = lines(proc)
    assert first["ok"] is True and first["error_at"] is None and "error" not in first
    assert second["ok"] is False
    assert second["error_at"] == 4
    assert "term-limited" in second["error"]
    # The observed state is the one before the rejected step.
    assert second["phase"] == "nominate" and second["president"] == 1
    assert second["liberal_policies"] == 1


def test_cli_expected_error_at_is_ok(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "expected rejection",
        steps=[{"nominate": 0}],  # the candidate nominates themselves
        expect={"error_at": 0, "phase": "nominate"},
    )
    proc = run_cli(path)
    assert proc.returncode == 0, proc.stdout
    (result,) = lines(proc)
    assert result["ok"] and result["error_at"] == 0 and result["error"]


def test_cli_mismatched_expectation_exits_1(tmp_path: Path) -> None:
    path = write(tmp_path, "wrong expectation", steps=[], expect={"phase": "vote"})
    proc = run_cli(path)
    assert proc.returncode == 1
    (result,) = lines(proc)
    assert result["ok"] is False and result["phase"] == "nominate"


def five_liberal_sessions_then_reshuffle(reshuffle: list[str]) -> dict:
    # Seats 0..4 each take a turn as president; sessions 1-4 enact L, 5 enacts F.
    # After five sessions the draw pile holds 2 tiles, so a reshuffle happens.
    steps: list[dict] = []
    for president in range(5):
        chancellor = (president + 2) % 5
        enact = "L" if president < 4 else "F"
        steps += [{"nominate": chancellor}, {"votes": "JJJJJ"}]
        steps += [{"discard": "F"}, {"enact": enact}]
    return {
        **BASE,
        "deck": list("LFF" * 4 + "FLF" + "LF"),
        "reshuffles": [reshuffle],
        "steps": steps,
        "expect": {"liberal_policies": 4, "fascist_policies": 1, "draw_pile": 12},
    }


def test_cli_accepts_a_valid_reshuffle_order(tmp_path: Path) -> None:
    path = tmp_path / "reshuffle.json"
    data = five_liberal_sessions_then_reshuffle(list("LL" + "F" * 10))
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = run_cli(path)
    assert proc.returncode == 0, proc.stdout
    assert lines(proc)[0]["discard_pile"] == 0


@pytest.mark.parametrize(
    "reshuffle",
    [
        list("LLL" + "F" * 9),  # wrong mix of tiles
        list("LL" + "F" * 9),  # one tile short
        list("LLX" + "F" * 9),  # not a tile at all
    ],
    ids=["wrong-mix", "short", "not-a-tile"],
)
def test_cli_rejects_a_malformed_reshuffle_order(tmp_path: Path, reshuffle: list[str]) -> None:
    path = tmp_path / "bad_reshuffle.json"
    path.write_text(json.dumps(five_liberal_sessions_then_reshuffle(reshuffle)), encoding="utf-8")
    proc = run_cli(path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    (result,) = lines(proc)
    assert result["ok"] is False and result["error"]


def test_cli_rejects_a_missing_reshuffle_order(tmp_path: Path) -> None:
    data = five_liberal_sessions_then_reshuffle([])
    data["reshuffles"] = []
    path = tmp_path / "no_reshuffle.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = run_cli(path)
    assert proc.returncode == 1
    (result,) = lines(proc)
    assert result["ok"] is False and "reshuffle" in result["error"]
    assert result["error_at"] == 19  # the enactment that empties the pile


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({**BASE, "deck": list("LLLLLLL" + "F" * 10)}),  # 7 L
        json.dumps({**BASE, "roles": ["liberal"] * 5}),
        json.dumps({**BASE, "players": 11}),
        json.dumps({**BASE, "steps": [{"dance": 1}]}),
        json.dumps({**BASE, "steps": [{"votes": "JJ"}]}),
        json.dumps({**BASE, "steps": [{"nominate": 2, "votes": "JJJJJ"}]}),
        json.dumps({**BASE, "steps": ["x"]}),
        json.dumps({**BASE, "steps": [{"nominate": 2}, {"votes": "JJJJJ"}, {"discard": "Q"}]}),
        json.dumps({**BASE, "steps": [], "expect": [1]}),
        json.dumps([1, 2]),
    ],
    ids=[
        "not-json",
        "bad-deck",
        "bad-roles",
        "bad-players",
        "unknown-step",
        "short-votes",
        "two-keys",
        "step-not-object",
        "not-a-tile",
        "expect-not-object",
        "not-an-object",
    ],
)
def test_cli_reports_malformed_files_without_traceback(tmp_path: Path, content: str) -> None:
    path = tmp_path / "malformed.json"
    path.write_text(content, encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps({**BASE, "steps": [], "expect": {"phase": "nominate"}}))
    proc = run_cli(path, good)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    bad_result, good_result = lines(proc)  # the next file still runs
    assert bad_result["ok"] is False and bad_result["error"]
    assert good_result["ok"] is True


def test_cli_without_arguments_prints_usage() -> None:
    proc = run_cli()
    assert proc.returncode == 2
    assert "usage" in proc.stderr


# --- bad input: one clear line per file, a non-zero exit, never a traceback ---------

GOOD = {**BASE, "steps": [], "expect": {"phase": "nominate"}}
NESTED_ARRAY = "[" * 100_000 + "]" * 100_000
NESTED_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def with_step(step: str) -> str:
    """A scenario text whose one step is written as raw JSON (so 1e400 stays as written)."""
    body = json.dumps({**BASE, "expect": {"phase": "vote"}})
    return body[:-1] + f', "steps": [{step}]}}'


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (with_step('{"nominate": 1e400}'), "Number out of range: '1e400'"),
        (with_step('{"nominate": -1e400}'), "Number out of range"),
        (with_step('{"nominate": NaN}'), "Not a JSON number: NaN"),
        (with_step('{"nominate": Infinity}'), "Not a JSON number: Infinity"),
        (json.dumps(BASE)[:-1] + ', "players": 1e400}', "Number out of range"),
        (with_step('{"nominate": 2.0}'), "'nominate' must be a whole number"),
        (with_step('{"nominate": true}'), "'nominate' must be a whole number"),
        (with_step('{"nominate": "2"}'), "'nominate' must be a whole number"),
        (with_step('{"veto_reply": "no"}'), "'veto_reply' must be true or false"),
        (with_step('{"votes": ["J", "J", "J", "J", "J"]}'), "'votes' must be a string"),
        (with_step('{"nominate": ' + "[" * 500 + "]" * 500 + "}"), "must be a whole number"),
        (NESTED_ARRAY, "The JSON is nested too deeply."),
        (NESTED_OBJECT, "The JSON is nested too deeply."),
        (with_step("[" * 100_000 + "]" * 100_000), "The JSON is nested too deeply."),
        ('{"players": ' + "9" * 5000 + "}", "Not JSON"),
        (json.dumps({**BASE, "steps": [{"nominate": 2}]}), "The scenario has no 'expect'"),
        (json.dumps({**BASE, "steps": [], "expect": {}}), "The scenario has no 'expect'"),
        (json.dumps({**BASE, "steps": [], "expect": None}), "The scenario has no 'expect'"),
        (json.dumps({**BASE, "steps": [], "expect": {"phas": None}}), "unknown keys: ['phas']"),
        (json.dumps({**BASE, "expect": {"phase": "nominate"}}), "The scenario has no 'steps'"),
        (json.dumps({**GOOD, "players": 5.0}), "'players' must be a whole number"),
        (json.dumps({**GOOD, "name": {"x": 1}}), "'name' must be a string"),
    ],
    ids=[
        "1e400",
        "-1e400",
        "NaN",
        "Infinity",
        "players-1e400",
        "float-seat",
        "bool-seat",
        "string-seat",
        "string-veto-reply",
        "votes-not-a-string",
        "nested-step-value",
        "nested-array",
        "nested-object",
        "nested-step",
        "huge-integer",
        "no-expect",
        "empty-expect",
        "null-expect",
        "misspelt-expect",
        "no-steps",
        "float-players",
        "name-not-a-string",
    ],
)
def test_cli_gives_one_clear_line_per_bad_file(tmp_path: Path, content: str, error: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    proc = run_cli(bad, good)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr == "" and "Traceback" not in proc.stdout
    assert len(proc.stdout.splitlines()) == 2  # one line per file, the next still runs
    bad_result, good_result = lines(proc)
    assert bad_result["ok"] is False and error in bad_result["error"], bad_result
    assert len(bad_result["error"]) < 200 and "\n" not in bad_result["error"]
    assert good_result["ok"] is True


def test_a_scenario_without_expect_fails_even_if_its_steps_play(tmp_path: Path) -> None:
    path = write(tmp_path, "expects nothing", steps=[{"nominate": 2}, {"votes": "JJJNN"}])
    proc = run_cli(path)
    assert proc.returncode == 1
    (result,) = lines(proc)
    assert result["ok"] is False and "no 'expect'" in result["error"]


@pytest.mark.parametrize("kind", ["missing", "directory", "not-utf8"])
def test_cli_exits_non_zero_for_a_file_it_cannot_read(tmp_path: Path, kind: str) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    target = tmp_path / "nowhere.json"
    if kind == "directory":
        target = tmp_path
    elif kind == "not-utf8":
        target.write_bytes(b"\xff\xfe{}")
    expected = {
        "missing": f"No such file: {target}",
        "directory": f"Not a file but a directory: {target}",
        "not-utf8": f"Not UTF-8 text: {target}",
    }[kind]
    for args in ((target,), (good, target)):  # alone, and after a passing file
        proc = run_cli(*args)
        assert proc.returncode == 1, proc.stdout
        assert "Traceback" not in proc.stderr + proc.stdout
        result = lines(proc)[-1]
        assert result == {"name": str(target), "ok": False, "error": expected}


def test_main_returns_non_zero_for_bad_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inf = tmp_path / "inf.json"
    inf.write_text(with_step('{"nominate": 1e400}'), encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    assert main([str(good)]) == 0
    assert main([str(good), str(inf)]) == 1
    assert main([str(tmp_path / "missing.json")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["ok"] for line in out] == [True, True, False, False]
