"""Run rule scenarios (`shared/scenarios/*.json`) through the real engine.

    python -m engine.scenario FILE [FILE ...]

Prints one JSON line per file with the observed state (every key a scenario may
expect, plus "name" and "ok") and exits 0 only if every scenario is ok.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from .actions import (
    Action,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    ProposeVeto,
    VetoReply,
    Vote,
)
from .chance import FixedChance
from .errors import EngineError
from .game import Game
from .roles import Phase, Policy, Role

_TARGET_STEPS: dict[str, type[Investigate] | type[CallSpecialElection] | type[Execute]] = {
    "investigate": Investigate,
    "special_election": CallSpecialElection,
    "execute": Execute,
}


class ScenarioError(Exception):
    """The scenario file itself is malformed."""


def step_actions(game: Game, step: dict[str, Any]) -> list[Action]:
    """The engine actions one scenario step stands for, taken by whoever must act."""
    if not isinstance(step, dict) or len(step) != 1:
        raise ScenarioError(f"A step is an object with exactly one key: {step!r}")
    ((key, value),) = step.items()
    actor = game.chancellor if game.phase is Phase.CHANCELLOR_ENACT else game.president
    actor = game.president if actor is None else actor
    if key == "nominate":
        return [Nominate(actor, int(value))]
    if key == "votes":
        if len(value) != game.players:
            raise ScenarioError(f"'votes' needs one character per seat: {value!r}")
        return [Vote(s, c == "J") for s, c in enumerate(value) if c in "JN"]
    if key == "discard":
        return [Discard(game.president, Policy(value))]
    if key == "enact":
        return [Enact(actor, Policy(value))]
    if key == "veto":
        return [ProposeVeto(actor)] if value else []
    if key == "veto_reply":
        return [VetoReply(game.president, bool(value))]
    if key in _TARGET_STEPS:
        return [_TARGET_STEPS[key](game.president, int(value))]
    raise ScenarioError(f"Unknown step {key!r}")


def observe(game: Game) -> dict[str, Any]:
    """The observed state, under the keys a scenario's `expect` may use."""
    return {
        "phase": game.phase.value,
        "president": game.president,
        "chancellor": game.chancellor,
        "eligible": game.eligible_chancellors() if game.phase is Phase.NOMINATE else [],
        "liberal_policies": game.liberal_policies,
        "fascist_policies": game.fascist_policies,
        "election_tracker": game.election_tracker,
        "draw_pile": len(game.draw_pile),
        "discard_pile": len(game.discard_pile),
        "alive": game.living(),
        "investigated": sorted(game.investigated),
        "veto_unlocked": game.veto_unlocked,
        "winner": game.winner.value if game.winner else None,
        "win_reason": game.win_reason.value if game.win_reason else None,
    }


def run_scenario(data: dict[str, Any]) -> dict[str, Any]:
    """Play one scenario and compare the observed state with its `expect`."""
    chance = FixedChance(
        roles=[Role(r) for r in data["roles"]],
        first_president=int(data["first_president"]),
        deck=[Policy(t) for t in data["deck"]],
        reshuffles=[[Policy(t) for t in pile] for pile in data.get("reshuffles", [])],
    )
    game = Game(int(data["players"]), chance=chance)
    error_at: int | None = None
    error: str | None = None
    for index, step in enumerate(data["steps"]):
        try:
            for action in step_actions(game, step):
                game.apply(action)
        except EngineError as exc:
            error_at, error = index, str(exc)
            break
    observed = observe(game)
    observed["error_at"] = error_at
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise ScenarioError(f"'expect' must be an object: {expect!r}")
    ok = all(observed.get(key) == value for key, value in expect.items())
    result: dict[str, Any] = {"name": data.get("name", ""), "ok": ok, **observed}
    if error is not None:
        result["error"] = error
    return result


def run_file(path: str) -> dict[str, Any]:
    """Run one scenario file; a malformed file or rejected setup is reported, not raised."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return run_scenario(data)
    except (OSError, ValueError, KeyError, TypeError, ScenarioError, EngineError) as exc:
        return {"name": path, "ok": False, "error": f"{type(exc).__name__}: {exc}"}


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m engine.scenario FILE [FILE ...]", file=sys.stderr)
        return 2
    results = [run_file(p) for p in paths]
    for result in results:
        print(json.dumps(result))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
