"""How well does each agent decide as a Liberal? Read from saved arena games.

    python -m agents.arena --pool random,selfish,ismcts,belief-ismcts \\
        --budget ismcts:iterations=300 --budget belief-ismcts:iterations=300 \\
        --games 200 --seed 201 --records /tmp/records
    python bench/liberal_decisions.py /tmp/records --pool random,selfish,ismcts,belief-ismcts \\
        --budget ismcts:iterations=300 --budget belief-ismcts:iterations=300 --seed 201 \\
        [--belief] [--json]

The arena's win rates say who wins; this says why. It replays each saved game (the
arena's `--records`), finds which agent sat in each seat (the same `--pool`,
`--budget`, `--seed` and `--players` recompute the arena's plan,
`agents.arena.plan_game`) and, for every Liberal seat, scores the decisions a Liberal
gets right or wrong with hindsight:

- nominations: the share of nominated chancellors who are Liberal, and, once three
  Fascist policies are down (the Hitler zone), the share who are Hitler;
- ballots (not on its own government): Ja rate on all-Liberal governments and on
  governments holding a Fascist, and on a Hitler chancellor in the zone;
- powers: executions of Hitler and of any Fascist, investigations of a Fascist.

`--belief` also asks how well the exact belief reads these games: at every election,
from every living Liberal seat outside the government, the belief (`agents.belief`)
is brought up to date and the sincere Liberal ballot (`agents.belief_agent.
liberal_ballot`) is cast on paper; it reports that ballot's Ja rates on all-Liberal
and on Fascist governments (a perfect reader: 1 and 0) and the share of nominated
governments that are all-Liberal. Analysis only: it reads finished games' roles.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.arena import ArenaError, parse_players, plan_game, resolve_pool
from agents.belief import Belief
from agents.belief_agent import liberal_ballot
from agents.registry import AgentSpec
from engine import Execute, Game, GameRecord, Investigate, Nominate, Phase, Role, Vote
from engine.variants import HITLER_ZONE

# (numerator, denominator, label) of every rate reported per agent.
RATES: tuple[tuple[str, str, str], ...] = (
    ("won", "seats", "win rate as Liberal"),
    ("nominated_liberal", "nominations", "nominee Liberal"),
    ("zone_nominated_hitler", "zone_nominations", "zone nominee Hitler"),
    ("ja_liberal", "ballots_liberal", "Ja on an all-Liberal government"),
    ("ja_fascist", "ballots_fascist", "Ja on a government holding a Fascist"),
    ("ja_zone_hitler", "ballots_zone_hitler", "Ja on a zone Hitler chancellor"),
    ("executed_hitler", "executions", "executed Hitler"),
    ("executed_fascist", "executions", "executed a Fascist or Hitler"),
    ("investigated_fascist", "investigations", "investigated a Fascist or Hitler"),
)
BELIEF_RATES: tuple[tuple[str, str, str], ...] = (
    ("liberal_governments", "ballots", "nominated government all-Liberal"),
    ("ja_liberal", "ballots_liberal", "sincere Ja on an all-Liberal government"),
    ("ja_fascist", "ballots_fascist", "sincere Ja on a government holding a Fascist"),
)


def seat_agents(seed: int, index: int, players: tuple[int, int], specs: Sequence[str]) -> list[str]:
    """The agent name at each seat of arena game `index` (as the arena planned it)."""
    return [AgentSpec.parse(spec).name for spec in plan_game(seed, index, players, specs).specs]


def score_game(
    record: GameRecord,
    agents: Sequence[str],
    counts: dict[str, Counter[str]],
    belief_tally: Counter[str] | None = None,
) -> None:
    """Add one game's Liberal decisions to `counts[agent]` and, with `belief_tally`,
    the exact belief's sincere ballots (`read_ballots`), in one replay."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    roles = game.roles
    setup = record.variant.setup(record.players)
    beliefs = {s: Belief(setup, s) for s, r in enumerate(roles) if r is Role.LIBERAL}
    in_vote = False
    for action in record.actions:
        if game.phase is not Phase.VOTE:
            in_vote = False
        elif not in_vote:  # the first ballot of an election: everyone still undecided
            in_vote = True
            if belief_tally is not None:
                read_ballots(game, beliefs, belief_tally)
        seat = getattr(action, "seat", None)
        if seat is not None and roles[seat] is Role.LIBERAL:
            _score_action(game, action, counts[agents[seat]])
        game.apply(action)
    for seat, role in enumerate(roles):
        if role is Role.LIBERAL:
            tally = counts[agents[seat]]
            tally["seats"] += 1
            tally["won"] += game.winner is role.party


def _score_action(game: Game, action: object, tally: Counter[str]) -> None:
    roles = game.roles
    zone = game.fascist_policies >= HITLER_ZONE
    match action:
        case Nominate(chancellor=nominee):
            tally["nominations"] += 1
            tally["nominated_liberal"] += roles[nominee] is Role.LIBERAL
            if zone:
                tally["zone_nominations"] += 1
                tally["zone_nominated_hitler"] += roles[nominee] is Role.HITLER
        case Vote(seat=voter, ja=ja):
            president, chancellor = game.president, game.chancellor
            assert chancellor is not None
            if voter in (president, chancellor):
                return
            clean = roles[president] is Role.LIBERAL and roles[chancellor] is Role.LIBERAL
            kind = "liberal" if clean else "fascist"
            tally[f"ballots_{kind}"] += 1
            tally[f"ja_{kind}"] += ja
            if zone and roles[chancellor] is Role.HITLER:
                tally["ballots_zone_hitler"] += 1
                tally["ja_zone_hitler"] += ja
        case Execute(target=target):
            tally["executions"] += 1
            tally["executed_hitler"] += roles[target] is Role.HITLER
            tally["executed_fascist"] += roles[target] is not Role.LIBERAL
        case Investigate(target=target):
            tally["investigations"] += 1
            tally["investigated_fascist"] += roles[target] is not Role.LIBERAL


def read_ballots(game: Game, beliefs: dict[int, Belief], tally: Counter[str]) -> None:
    """The sincere ballot of every living Liberal bystander's exact belief, cast on
    paper as an election opens."""
    roles = game.roles
    for seat, belief in beliefs.items():
        view = game.view(seat)
        chancellor = view.chancellor
        assert chancellor is not None
        if not view.alive[seat] or seat in (view.president, chancellor):
            continue
        belief.sync(view)
        ja = liberal_ballot(view, seat, belief.pair_liberal(), belief.hitler())
        clean = roles[view.president] is Role.LIBERAL and roles[chancellor] is Role.LIBERAL
        kind = "liberal" if clean else "fascist"
        tally["ballots"] += 1
        tally["liberal_governments"] += clean
        tally[f"ballots_{kind}"] += 1
        tally[f"ja_{kind}"] += ja


def rates(tally: Counter[str], table: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    """Each rate of `table` as {"rate": r or None, "n": denominator}."""
    out: dict[str, Any] = {}
    for numerator, denominator, _ in table:
        n = tally[denominator]
        out[numerator] = {"rate": tally[numerator] / n if n else None, "n": n}
    return out


def analyse(
    records: Sequence[Path],
    seed: int,
    players: tuple[int, int],
    specs: Sequence[str],
    belief: bool = False,
) -> dict[str, Any]:
    """Score every record (files named game-NNNNNN.json, as the arena writes them)."""
    counts: dict[str, Counter[str]] = {AgentSpec.parse(s).name: Counter() for s in specs}
    belief_tally: Counter[str] = Counter()
    for path in records:
        index = int(path.stem.rpartition("-")[2])
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        agents = seat_agents(seed, index, players, specs)
        if len(agents) != record.players:
            raise ArenaError(f"{path} has {record.players} seats; the plan says {len(agents)}.")
        score_game(record, agents, counts, belief_tally if belief else None)
    report: dict[str, Any] = {
        "games": len(records),
        "agents": {name: rates(tally, RATES) for name, tally in counts.items()},
    }
    if belief:
        report["belief"] = rates(belief_tally, BELIEF_RATES)
    return report


def render(report: dict[str, Any]) -> str:
    """The report as text: one block per agent."""

    def cell(entry: dict[str, Any]) -> str:
        rate = entry["rate"]
        return f"{rate:.3f} (n={entry['n']})" if rate is not None else f"- (n={entry['n']})"

    lines = [f"Liberal decisions in {report['games']} games, with hindsight:"]
    for name, entries in report["agents"].items():
        lines.append(f"{name}:")
        lines += [f"  {label:42s} {cell(entries[key])}" for key, _, label in RATES]
    if "belief" in report:
        lines.append("exact belief, sincere ballot from every Liberal bystander:")
        lines += [f"  {label:42s} {cell(report['belief'][key])}" for key, _, label in BELIEF_RATES]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, help="the arena's --records directory")
    parser.add_argument("--seed", type=int, default=1, help="the arena run's seed")
    parser.add_argument("--players", default="5-10", help="the arena run's --players")
    parser.add_argument("--pool", required=True, help="the arena run's --pool")
    parser.add_argument("--budget", action="append", default=[], help="the arena's --budget")
    parser.add_argument("--belief", action="store_true", help="also score the exact belief")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        specs = list(resolve_pool(args.pool, args.budget).values())
        players = parse_players(args.players)
        records = sorted(args.records.glob("game-*.json"))
        if not records:
            raise ArenaError(f"No game-*.json records in {args.records}.")
        report = analyse(records, args.seed, players, specs, args.belief)
    except ArenaError as exc:
        print(f"liberal_decisions: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
