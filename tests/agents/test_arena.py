"""The arena: JSON structure and totals, Wilson intervals, workers, records, clear errors."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agents.arena import main, plan_game
from agents.random_agent import RandomAgent
from agents.registry import AGENTS
from agents.stats import Tally, wilson_interval
from engine import Action, GameRecord, PlayerView, Role, WinReason

POOL = ["--pool", "random,selfish"]


class BrokenAgent(RandomAgent):
    """Test agent: fails once the first Fascist policy is on the board."""

    name = "broken"

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        if view.fascist_policies:
            raise RuntimeError("the agent broke")
        return super().decide(view, rng)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main([*args, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # no progress bar with --json
    report: dict[str, Any] = json.loads(out)
    return report


def test_json_structure_and_counts_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    report = _run(capsys, *POOL, "--games", "80", "--seed", "3")
    assert report["games"] == 80 and report["seed"] == 3 and report["players"] == [5, 10]
    assert report["pool"] == {"random": "random", "selfish": "selfish"}
    assert "Wilson" in report["interval"]
    assert sum(e["count"] for e in report["endings"].values()) == 80
    assert set(report["endings"]) == {reason.value for reason in WinReason}
    seats = 0
    for agent in report["agents"].values():
        played, wins = agent["played"], agent["wins"]
        assert played > 0 and agent["win_rate"] == pytest.approx(wins / played)
        low, high = agent["ci95"]
        assert low <= agent["win_rate"] <= high
        assert set(agent["by_role"]) == {role.value for role in Role}
        for split in ("by_role", "by_players"):
            assert sum(t["played"] for t in agent[split].values()) == played
            assert sum(t["wins"] for t in agent[split].values()) == wins
        seats += played
    # Every seat of every game is counted once, for the agent that sat there.
    planned = [plan_game(3, i, (5, 10), ["random", "selfish"]) for i in range(80)]
    assert seats == sum(setup.players for setup in planned)
    assert set(report["agents"]["random"]["by_players"]) <= {str(n) for n in range(5, 11)}
    timing = report["timing"]["agents"]["selfish"]
    assert timing["decisions"] > 0 and timing["claim_offers"] == 0


def test_wilson_interval_matches_hand_computed_values() -> None:
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38415 = 0.71674,
    # half width 1.95996 / 1.38415 * sqrt(0.016 + 0.0096037) = 0.22657.
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.49016, abs=1e-4)
    assert high == pytest.approx(0.94331, abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    assert Tally(10, 8).to_dict()["ci95"] == list(wilson_interval(8, 10))


def test_two_workers_play_the_same_games_as_one(capsys: pytest.CaptureFixture[str]) -> None:
    one = _run(capsys, *POOL, "--games", "40", "--seed", "9", "--workers", "1")
    two = _run(capsys, *POOL, "--games", "40", "--seed", "9", "--workers", "2")
    other = _run(capsys, *POOL, "--games", "40", "--seed", "10")
    for report in (one, two, other):
        del report["timing"]  # wall-clock figures are the only thing allowed to differ
    assert one == two
    assert one["agents"] != other["agents"]


def test_records_replay_to_the_reported_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = _run(capsys, *POOL, "--games", "25", "--players", "7", "--records", str(tmp_path))
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 25
    endings: Counter[str] = Counter()
    for path in files:
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        game = record.replay()
        assert game.is_over and game.players == 7
        assert game.win_reason is not None
        endings[game.win_reason.value] += 1
    assert endings == {k: v["count"] for k, v in report["endings"].items() if v["count"]}
    assert all(set(a["by_players"]) == {"7"} for a in report["agents"].values())


def test_budgets_and_the_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = [*POOL, "--games", "12", "--budget", "selfish:iterations=5,seconds=0.5"]
    assert main(args) == 0
    out, _ = capsys.readouterr()
    assert "selfish:iterations=5,seconds=0.5" in out
    assert "Wilson" in out and "hitler_elected" in out and "random" in out
    report = _run(capsys, *args)
    assert report["pool"]["selfish"] == "selfish:iterations=5,seconds=0.5"


def test_a_labelled_entry_plays_the_same_agent_as_a_second_pool_member(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An A/B in the same games: "b=selfish" is a second Selfish with its own budget.
    args = ["--pool", "random,selfish,b=selfish", "--budget", "b:iterations=3"]
    report = _run(capsys, *args, "--games", "30", "--seed", "4")
    assert report["pool"] == {
        "random": "random",
        "selfish": "selfish",
        "b": "selfish:iterations=3",
    }
    planned = [plan_game(4, i, (5, 10), list(report["pool"].values())) for i in range(30)]
    for label, spec in report["pool"].items():
        seats = sum(setup.specs.count(spec) for setup in planned)
        assert report["agents"][label]["played"] == seats > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pool", "random,nobody"], "Unknown agent 'nobody'"),
        (["--pool", "random,ghost"], "Agent 'ghost' is not available"),
        (["--pool", "random", "--budget", "selfish:seconds=1"], "not in the pool"),
        (["--pool", "random,selfish,selfish"], "'selfish' is in the pool twice"),
        (["--pool", "selfish,b=selfish"], "Two labels of the pool play the same spec"),
        (["--pool", "b=nobody"], "Unknown agent 'nobody'"),
        (["--pool", "b=selfish", "--budget", "b:wild=0.5"], "unknown option 'wild'"),
        (["--pool", "random", "--players", "4-7"], "--players must lie within 5-10"),
        (["--pool", "random", "--players", "seven"], "--players takes a count"),
        (["--pool", "random", "--games", "0"], "at least 1"),
    ],
)
def test_bad_requests_give_a_clear_message(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    # An agent whose module is not written yet, like the search agents for a while.
    monkeypatch.setitem(AGENTS, "ghost", "agents.not_written_yet:GhostAgent")
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and "Traceback" not in err
    if "ghost" in message:  # the agents that do build are listed (more will land)
        available = err.split("available now:")[1]
        assert "random" in available and "selfish" in available and "ghost" not in available


def test_a_failing_game_is_named_with_its_reproduction(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(AGENTS, "broken", f"{__name__}:BrokenAgent")
    assert main(["--pool", "broken", "--games", "3", "--players", "5"]) == 1
    _, err = capsys.readouterr()
    assert "Game 0 failed (RuntimeError: the agent broke)" in err
    assert "play_game(['broken', 'broken', 'broken', 'broken', 'broken'], seed=" in err
