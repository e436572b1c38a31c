"""Run rule scenarios (`shared/scenarios/*.json`) through the real engine.

    python -m engine.scenario FILE [FILE ...]

Prints one JSON line per file with the observed state (every key a scenario may
expect, plus "name" and "ok") and exits 0 only if every scenario is ok. A file that
cannot be read or is malformed gives one line with "ok": false and an "error" saying
why; a scenario must expect something (a missing or empty `expect` fails).
"""

from __future__ import annotations

import json
import math
import reprlib
import sys
from collections.abc import Sequence
from typing import Any, TypeVar

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


_T = TypeVar("_T")


def _short_repr() -> reprlib.Repr:
    """A bounded repr: scenario values are quoted in errors and may be huge or deep."""
    short = reprlib.Repr()  # keyword settings arrive only in Python 3.12
    short.maxlevel, short.maxstring, short.maxother = 2, 40, 40
    short.maxlist, short.maxdict = 6, 4
    return short


_short = _short_repr().repr


def _typed(value: object, kind: type[_T], what: str) -> _T:
    """`value` if it is exactly of `kind` (so true is no number and 2.5 no seat)."""
    if type(value) is not kind:
        words = {int: "a whole number", str: "a string", bool: "true or false"}
        raise ScenarioError(f"{what} must be {words.get(kind, kind.__name__)}: {_short(value)}")
    return value


def step_actions(game: Game, step: dict[str, Any]) -> list[Action]:
    """The engine actions one scenario step stands for, taken by whoever must act."""
    if not isinstance(step, dict) or len(step) != 1:
        raise ScenarioError(f"A step is an object with exactly one key: {_short(step)}")
    ((key, value),) = step.items()
    actor = game.chancellor if game.phase is Phase.CHANCELLOR_ENACT else game.president
    actor = game.president if actor is None else actor
    if key == "nominate":
        return [Nominate(actor, _typed(value, int, "'nominate'"))]
    if key == "votes":
        value = _typed(value, str, "'votes'")
        if len(value) != game.players:
            raise ScenarioError(f"'votes' needs one character per seat: {_short(value)}")
        return [Vote(s, c == "J") for s, c in enumerate(value) if c in "JN"]
    if key == "discard":
        return [Discard(game.president, Policy(_typed(value, str, "'discard'")))]
    if key == "enact":
        return [Enact(actor, Policy(_typed(value, str, "'enact'")))]
    if key == "veto":
        return [ProposeVeto(actor)] if _typed(value, bool, "'veto'") else []
    if key == "veto_reply":
        return [VetoReply(game.president, _typed(value, bool, "'veto_reply'"))]
    if key in _TARGET_STEPS:
        return [_TARGET_STEPS[key](game.president, _typed(value, int, repr(key)))]
    raise ScenarioError(f"Unknown step {_short(key)}")


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


def _required(data: dict[str, Any], key: str, kind: type[_T]) -> _T:
    if key not in data:
        raise ScenarioError(f"The scenario has no {key!r}.")
    return _typed(data[key], kind, repr(key))


def _tiles(letters: object, what: str) -> list[Policy]:
    return [Policy(_typed(t, str, what)) for t in _typed(letters, list, what)]


def run_scenario(data: dict[str, Any]) -> dict[str, Any]:
    """Play one scenario and compare the observed state with its `expect`."""
    if not isinstance(data, dict):
        raise ScenarioError("A scenario is a JSON object.")
    name = _typed(data.get("name", ""), str, "'name'")
    expect = data.get("expect")
    if expect is None or expect == {}:
        # A scenario that expects nothing would pass whatever the engine does.
        raise ScenarioError("The scenario has no 'expect': say what the steps must lead to.")
    expect = _typed(expect, dict, "'expect'")
    reshuffles = _typed(data.get("reshuffles", []), list, "'reshuffles'")
    chance = FixedChance(
        roles=[Role(_typed(r, str, "'roles'")) for r in _required(data, "roles", list)],
        first_president=_required(data, "first_president", int),
        deck=_tiles(_required(data, "deck", list), "'deck'"),
        reshuffles=[_tiles(pile, "'reshuffles'") for pile in reshuffles],
    )
    game = Game(_required(data, "players", int), chance=chance)
    error_at: int | None = None
    error: str | None = None
    for index, step in enumerate(_required(data, "steps", list)):
        try:
            for action in step_actions(game, step):
                game.apply(action)
        except EngineError as exc:
            error_at, error = index, str(exc)
            break
    observed = observe(game)
    observed["error_at"] = error_at
    unknown = sorted(set(expect) - set(observed))
    if unknown:  # a misspelt key would otherwise compare None with null and pass
        raise ScenarioError(f"'expect' names unknown keys: {_short(unknown)}")
    ok = all(observed[key] == value for key, value in expect.items())
    result: dict[str, Any] = {"name": name, "ok": ok, **observed}
    if error is not None:
        result["error"] = error
    return result


def _finite(text: str) -> float:
    """`json` turns 1e400 into inf (and reads NaN, Infinity): no scenario value is one."""
    value = float(text)
    if not math.isfinite(value):
        raise ScenarioError(f"Number out of range: {_short(text)}")
    return value


def _not_a_number(text: str) -> float:
    raise ScenarioError(f"Not a JSON number: {text}")


def load(path: str) -> Any:
    """The JSON in `path`; raises `ScenarioError` with a one-line reason otherwise."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise ScenarioError(f"No such file: {path}") from None
    except IsADirectoryError:
        raise ScenarioError(f"Not a file but a directory: {path}") from None
    except OSError as exc:
        raise ScenarioError(f"Cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"Not UTF-8 text: {path}") from None
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"Not JSON: {exc}") from None
    except RecursionError:
        raise ScenarioError("The JSON is nested too deeply.") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ScenarioError(f"Not JSON: {exc}") from None


def run_file(path: str) -> dict[str, Any]:
    """Run one scenario file; a malformed file or rejected setup is reported, not raised."""
    try:
        return run_scenario(load(path))
    except ScenarioError as exc:
        return {"name": path, "ok": False, "error": str(exc)}
    except (ValueError, EngineError) as exc:  # a bad role or tile name; an impossible setup
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
