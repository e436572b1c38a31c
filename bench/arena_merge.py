"""Merge `python -m agents.arena --json` outputs of runs with different seeds.

    python bench/arena_merge.py bench/results/load_i500_seed*.json [--json]

A long tournament is safer run as several shorter ones (a run prints its JSON only
when it ends); the games of runs with different seeds are independent, so their
win/played counts add up. Prints each agent's overall and per-role win rate with a
95% Wilson score interval, as the arena does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.stats import Tally

ROLES = ("liberal", "fascist", "hitler")


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Summed tallies per agent (overall and by role), and the games and seeds merged."""
    agents: dict[str, dict[str, Tally]] = {}
    specs: dict[str, str] = {}
    for report in reports:
        for name, entry in report["agents"].items():
            tallies = agents.setdefault(name, {k: Tally() for k in ("overall", *ROLES)})
            specs.setdefault(name, entry["spec"])
            if specs[name] != entry["spec"]:
                raise ValueError(f"{name} played {specs[name]} and {entry['spec']}: not mergeable.")
            tallies["overall"].played += entry["played"]
            tallies["overall"].wins += entry["wins"]
            for role in ROLES:
                tallies[role].played += entry["by_role"][role]["played"]
                tallies[role].wins += entry["by_role"][role]["wins"]
    endings: dict[str, int] = {}
    for report in reports:
        for reason, entry in report.get("endings", {}).items():
            endings[reason] = endings.get(reason, 0) + entry["count"]
    return {
        "games": sum(r["games"] for r in reports),
        "seeds": [r["seed"] for r in reports],
        "endings": endings,
        "interval": "95% Wilson score interval",
        "agents": {
            name: {"spec": specs[name], **{k: t.to_dict() for k, t in tallies.items()}}
            for name, tallies in agents.items()
        },
    }


def render(merged: dict[str, Any]) -> str:
    """A text table of the merged rates."""
    games = merged["games"]
    lines = [f"{games} games, seeds {merged['seeds']}"]
    if merged["endings"]:
        lines.append(
            "endings: "
            + ", ".join(f"{k} {v / games:.3f}" for k, v in sorted(merged["endings"].items()))
        )
    for entry in merged["agents"].values():
        cells = []
        for key in ("overall", *ROLES):
            t = entry[key]
            low, high = t["ci95"]
            rate = t["win_rate"] if t["win_rate"] is not None else float("nan")
            cells.append(f"{key} {rate:.3f} [{low:.3f}, {high:.3f}] n={t['played']}")
        lines.append(f"{entry['spec']:<34} " + "  ".join(cells))
    return "\n".join(lines)


def main() -> None:
    """Read the files, print the merged table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    merged = merge([json.loads(path.read_text()) for path in args.files])
    print(json.dumps(merged) if args.json else render(merged))


if __name__ == "__main__":
    main()
