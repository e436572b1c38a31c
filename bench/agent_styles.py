"""Does a style per agent sharpen the Hitler read? One fitted style per agent of the pool.

    python -m agents.arena --pool random,selfish,ismcts,belief-ismcts \\
        --budget ismcts:iterations=1000 --budget belief-ismcts:iterations=1000 \\
        --games 20 --seed S --records DIR_S
    python bench/agent_styles.py S1:DIR_S1 S2/9-10:DIR_S2 ... [--folds 2] [--json]

The shipped belief reads every seat with a mixture of four styles, the first fitted on
the project's bots pooled together. A table of bots is not one population: a Selfish
seat never enacts against its party, a Random one does half the time, a search agent
somewhere between. This fits one style per agent of the arena's pool (from the
decisions of that agent's seats only, `count_game(..., seats=)`), puts them in the
mixture in place of the pooled one, and scores the read of Hitler before every
execution with `bench/hitler_read.py`'s measure, cross-fitted: the runs are split into
`--folds` folds, each read by models fitted on the others (no game is read by a model
fitted on it). Models, all read on the very same views:

- `shipped`: the mixture every agent ships with;
- `refit`: the shipped mixture with its bot style refitted on the fold's games (every
  seat pooled): what fitting on this pool alone is worth;
- `agents`: one style per agent, the shipped prior's bot share split among them;
- `agents_sharp`: the same, with more prior weight on the agents' styles.

A run is `SEED:DIR` (an arena run's seed and its `--records`), or `SEED/LO-HI:DIR` when
it was played with `--players LO-HI`; `--pool` and `--budget` as the arena's. Analysis
only: it reads finished games' roles.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena import ArenaError, parse_players, plan_game, resolve_pool
from agents.behaviour import (
    STYLE_PRIOR,
    Behaviour,
    Styles,
    default_behaviour,
    load_behaviour,
    role_blind,
    uniform_behaviour,
    with_liberal_lies,
)
from agents.fit_behaviour import Counts, count_game, fit
from engine import GameRecord
from engine.variants import MAX_PLAYERS, MIN_PLAYERS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hitler_read import Model, Reads, read_game, render, summarise

PLAYER_COUNTS = range(MIN_PLAYERS, MAX_PLAYERS + 1)


@dataclass(frozen=True, slots=True)
class Run:
    """An arena run's records and what planned its seats."""

    seed: int
    players: tuple[int, int]
    directory: Path

    def games(self, names: Sequence[str]) -> list[tuple[GameRecord, tuple[str, ...]]]:
        """Each record with the agent name of every seat, checked against the plan."""
        out = []
        for path in sorted(self.directory.glob("game-*.json")):
            index = int(path.stem.removeprefix("game-"))
            record = GameRecord.from_json(path.read_text(encoding="utf-8"))
            planned = plan_game(self.seed, index, self.players, names)
            if planned.seed != record.seed or len(planned.specs) != record.players:
                raise ArenaError(
                    f"{path} was not game {index} of run {self.seed} with this pool and "
                    f"players {self.players[0]}-{self.players[1]}"
                )
            out.append((record, planned.specs))
        return out


def parse_run(text: str) -> Run:
    """`SEED:DIR` or `SEED/LO-HI:DIR`; a ValueError says what is wrong."""
    head, sep, directory = text.partition(":")
    seed_text, _, players_text = head.partition("/")
    if not sep or not seed_text.isdigit() or not directory:
        raise ValueError(f"a run is SEED:DIR or SEED/LO-HI:DIR, not {text!r}")
    players = parse_players(players_text) if players_text else (MIN_PLAYERS, MAX_PLAYERS)
    return Run(int(seed_text), players, Path(directory))


@dataclass(frozen=True, slots=True)
class FittedModel:
    """A mixture per player count, under a name (what `read_game` asks of a model)."""

    name: str
    styles: dict[int, Styles]

    def behaviour(self, players: int) -> Styles:
        """The mixture for a game of `players`."""
        return self.styles[players]


def _fit_all(counts: dict[int, Counts]) -> dict[int, Behaviour]:
    """Per player count fits; a count with no games gets the pooled fit."""
    fitted, pooled = fit({n: c for n, c in counts.items() if c.games})
    return {n: fitted.get(n, pooled) for n in PLAYER_COUNTS}


def build_models(
    games: Sequence[tuple[GameRecord, tuple[str, ...]]], names: Sequence[str]
) -> list[FittedModel]:
    """The `refit`, `agents` and `agents_sharp` models fitted on `games`."""
    every: dict[int, Counts] = {n: Counts() for n in PLAYER_COUNTS}
    per_agent = {a: {n: Counts() for n in PLAYER_COUNTS} for a in names}
    for record, specs in games:
        count_game(record, every[record.players])
        for agent in set(specs):
            seats = [s for s, spec in enumerate(specs) if spec == agent]
            count_game(record, per_agent[agent][record.players], seats)
    refit = _fit_all(every)
    agents = {a: _fit_all(per_agent[a]) for a in names}
    bot, human, chaotic, noise = STYLE_PRIOR
    models = [
        FittedModel(
            "refit",
            {
                n: Styles(
                    ("bot", "human", "chaotic", "noise"),
                    (
                        with_liberal_lies(refit[n]),
                        default_behaviour(n),
                        role_blind(refit[n]),
                        uniform_behaviour(),
                    ),
                    STYLE_PRIOR,
                )
                for n in PLAYER_COUNTS
            },
        )
    ]
    for label, share in (("agents", bot), ("agents_sharp", 0.6)):
        rest = (1.0 - share) / (human + chaotic + noise)
        prior = (
            *(share / len(names) for _ in names),
            human * rest,
            chaotic * rest,
            noise * rest,
        )
        models.append(
            FittedModel(
                label,
                {
                    n: Styles(
                        (*names, "human", "chaotic", "noise"),
                        (
                            *(with_liberal_lies(agents[a][n]) for a in names),
                            default_behaviour(n),
                            role_blind(load_behaviour(n)),
                            uniform_behaviour(),
                        ),
                        prior,
                    )
                    for n in PLAYER_COUNTS
                },
            )
        )
    return models


def analyse(runs: Sequence[Run], names: Sequence[str], folds: int) -> dict[str, Any]:
    """Cross-fitted reads: fold k's runs read by models fitted on every other fold."""
    per_run = [run.games(names) for run in runs]
    names_all = ["shipped", "refit", "agents", "agents_sharp"]
    reads = {name: Reads() for name in names_all}
    games = executions = 0
    for k in range(folds):
        fit_games = [g for i, run in enumerate(per_run) if i % folds != k for g in run]
        models = [Model("shipped"), *build_models(fit_games, names)]
        for i, run in enumerate(per_run):
            if i % folds != k:
                continue
            for record, _ in run:
                executions += read_game(record, models, reads, True)
                games += 1
    return summarise(reads, names_all, games, executions, everyone=True)


Analysis = Callable[[Sequence[Run], Sequence[str], int], dict[str, Any]]


def cross_fitted_main(
    argv: Sequence[str] | None,
    prog: str,
    description: str,
    analysis: Analysis,
    show: Callable[[dict[str, Any]], str],
) -> int:
    """The command line of a cross-fitted read of saved runs (this one, ballot_read)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("runs", nargs="+", help="SEED:DIR or SEED/LO-HI:DIR")
    parser.add_argument("--pool", default="random,selfish,ismcts,belief-ismcts")
    parser.add_argument("--budget", action="append", default=[])
    parser.add_argument("--folds", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        runs = [parse_run(text) for text in args.runs]
        pool = resolve_pool(args.pool, args.budget)
        if not 2 <= args.folds <= len(runs):
            raise ValueError("--folds is at least 2 and at most the number of runs")
        report = analysis(runs, list(pool), args.folds)
    except (ValueError, ArenaError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    report["pool"] = list(pool)
    print(json.dumps(report) if args.json else show(report))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    return cross_fitted_main(argv, "agent_styles", __doc__.splitlines()[0], analyse, render)


if __name__ == "__main__":
    sys.exit(main())
