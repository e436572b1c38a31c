"""Agent tournaments: `python -m agents.arena`.

Evaluation in the manner of the SO-ISMCTS paper: each game draws a player count uniformly
from a range and an agent for every seat uniformly from a pool; the game's seed deals the
roles. The report gives each agent's win rate (per seat it played) with a 95% Wilson
score interval, overall, by role and by player count, and how the games ended.

Everything about game `i` (player count, agents, seed) is derived from the run seed and
`i` alone, so `--workers N` plays exactly the games `--workers 1` plays, and so does
`--backend ray`, which spreads the games over a Ray cluster (`--ray-address`, else
`RAY_ADDRESS`, else a local Ray instance; needs the `[scale]` extra). With budgets in
iterations rather than seconds, the reports of all three are the same but for timings.

    python -m agents.arena --pool random,selfish --games 2000 --seed 1
    python -m agents.arena --players 7 --pool random,ismcts --budget ismcts:iterations=1000
    python -m agents.arena --pool random,belief-ismcts,b=belief-ismcts --budget b:wild=0.7
    python -m agents.arena --pool random,ismcts --budget ismcts:iterations=500 --backend ray
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any

from tqdm import tqdm

from engine import REBALANCED, STANDARD, Role, Variant, WinReason
from engine.variants import MAX_PLAYERS, MIN_PLAYERS

from .registry import AGENTS, AgentSpec
from .runner import GameResult, play_game
from .stats import Tally
from .workers import install_registry, process_context

DEFAULT_POOL = "random,selfish,ismcts,belief,belief-ismcts"
VARIANTS = {"standard": STANDARD, "rebalanced": REBALANCED}
BACKENDS = ("local", "ray")
INTERVAL = "95% Wilson score interval"
# The SO-ISMCTS paper's evaluation (10,108 games, pool random/selfish/so-ismcts@10000),
# printed next to our figures for the agents it also measured.
PAPER: dict[str, dict[str, float]] = {
    "random": {"overall": 0.417, "liberal": 0.231, "fascist": 0.695, "hitler": 0.712},
    "selfish": {"overall": 0.477, "liberal": 0.286, "fascist": 0.754, "hitler": 0.776},
    "ismcts": {"overall": 0.471, "liberal": 0.287, "fascist": 0.773, "hitler": 0.697},
}
PAPER_ENDINGS = {
    WinReason.HITLER_ELECTED: 0.477,
    WinReason.SIX_FASCIST: 0.251,
    WinReason.FIVE_LIBERAL: 0.154,
    WinReason.HITLER_EXECUTED: 0.118,
}


class ArenaError(Exception):
    """A tournament cannot run as asked (the message says why)."""


class ArenaGameError(ArenaError):
    """One of the games failed; the message names it and how to reproduce it."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    """One arena game: its index in the run, seat agents and seed."""

    index: int
    specs: tuple[str, ...]
    seed: int

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.specs)


def plan_game(
    run_seed: int, index: int, players: tuple[int, int], pool: Sequence[str]
) -> GameSetup:
    """Game `index` of a run: a player count, an agent per seat and a seed, all uniform."""
    rng = random.Random(f"arena:{run_seed}:{index}")
    count = rng.randint(*players)
    specs = tuple(rng.choice(pool) for _ in range(count))
    return GameSetup(index, specs, rng.getrandbits(63))


def play_setup(setup: GameSetup, variant: Variant = STANDARD) -> GameResult:
    """Play one planned game; a failure names the game and how to reproduce it."""
    try:
        return play_game(setup.specs, seed=setup.seed, variant=variant)
    except Exception as exc:
        raise ArenaGameError(
            f"Game {setup.index} failed ({type(exc).__name__}: {exc}). Reproduce with "
            f"agents.runner.play_game({list(setup.specs)!r}, seed={setup.seed}, "
            f"variant=Variant({variant.name!r}))."
        ) from exc


def play_all(
    setups: Sequence[GameSetup],
    *,
    variant: Variant = STANDARD,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
) -> Iterator[GameResult]:
    """Play the games, in order of `setups`: with workers > 1 in that many processes,
    with `backend="ray"` as tasks on a Ray cluster (`workers` unused)."""
    if backend == "ray":
        try:
            from .ray_backend import ordered_map  # optional: the [scale] extra
        except ImportError as exc:
            raise ArenaError(f"--backend ray needs Ray: pip install '.[scale]' ({exc}).") from None
        try:
            yield from ordered_map(
                partial(play_setup, variant=variant), setups, address=ray_address
            )
        except ConnectionError as exc:  # a game's own failure is an ArenaGameError
            raise ArenaError(f"--backend ray cannot reach the Ray cluster: {exc}.") from None
        return
    if workers <= 1:
        for setup in setups:
            yield play_setup(setup, variant)
        return
    # Chunks cut the per-game inter-process traffic for fast agents, yet stay small
    # enough for the progress bar to move and for the workers to share the load.
    chunksize = max(1, min(16, len(setups) // (workers * 8)))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=process_context(),
        initializer=install_registry,
        initargs=(dict(AGENTS),),
    )
    try:
        yield from pool.map(play_setup, setups, repeat(variant), chunksize=chunksize)
    finally:
        # On an error or Ctrl-C the remaining games are dropped, not played out.
        pool.shutdown(wait=True, cancel_futures=True)


@dataclass(slots=True)
class AgentTally:
    """Everything the arena counts for one agent of the pool."""

    spec: str
    overall: Tally = field(default_factory=Tally)
    by_role: dict[Role, Tally] = field(default_factory=lambda: {r: Tally() for r in Role})
    by_players: dict[int, Tally] = field(default_factory=dict)
    decisions: int = 0
    claim_offers: int = 0
    seconds: float = 0.0
    max_seconds: float = 0.0


@dataclass(slots=True)
class ArenaReport:
    """The running totals of a tournament, and its text and JSON forms."""

    pool: dict[str, str]  # label (the agent's name unless labelled) -> spec played
    players: tuple[int, int]
    seed: int
    variant: str
    workers: int = 1
    backend: str = "local"
    games: int = 0
    claims: int = 0
    agents: dict[str, AgentTally] = field(default_factory=dict)
    endings: dict[WinReason, int] = field(default_factory=lambda: dict.fromkeys(WinReason, 0))
    wall_seconds: float = 0.0
    _labels: dict[str, str] = field(init=False, repr=False, default_factory=dict)  # spec -> label

    def __post_init__(self) -> None:
        for label, spec in self.pool.items():
            self.agents[label] = AgentTally(spec)
        self._labels = {spec: label for label, spec in self.pool.items()}

    def add(self, result: GameResult) -> None:
        """Count one finished game."""
        self.games += 1
        self.claims += result.claims
        self.endings[result.win_reason] += 1
        for seat, spec in enumerate(result.specs):
            tally = self.agents[self._labels[spec]]
            won = result.won(seat)
            tally.overall.add(won)
            tally.by_role[result.roles[seat]].add(won)
            tally.by_players.setdefault(result.players, Tally()).add(won)
            timing = result.timings[seat]
            tally.decisions += timing.decisions
            tally.claim_offers += timing.claim_offers
            tally.seconds += timing.seconds
            tally.max_seconds = max(tally.max_seconds, timing.max_seconds)

    def to_dict(self) -> dict[str, Any]:
        """The report as one JSON-ready object (timings apart, under "timing")."""
        agents: dict[str, Any] = {}
        timing: dict[str, Any] = {}
        for name, tally in self.agents.items():
            agents[name] = {
                "spec": tally.spec,
                **tally.overall.to_dict(),
                "by_role": {role.value: t.to_dict() for role, t in tally.by_role.items()},
                "by_players": {
                    str(n): tally.by_players[n].to_dict() for n in sorted(tally.by_players)
                },
            }
            calls = tally.decisions + tally.claim_offers
            timing[name] = {
                "decisions": tally.decisions,
                "claim_offers": tally.claim_offers,
                "mean_ms": 1000 * tally.seconds / calls if calls else None,
                "max_ms": 1000 * tally.max_seconds,
            }
        endings = {}
        for reason, count in self.endings.items():
            low, high = Tally(self.games, count).interval
            endings[reason.value] = {
                "count": count,
                "rate": count / self.games if self.games else None,
                "ci95": [low, high],
            }
        return {
            "games": self.games,
            "seed": self.seed,
            "players": list(self.players),
            "variant": self.variant,
            "pool": dict(self.pool),
            "interval": INTERVAL,
            "agents": agents,
            "endings": endings,
            "claims": self.claims,
            "timing": {
                "wall_seconds": self.wall_seconds,
                "workers": self.workers,
                "backend": self.backend,
                "agents": timing,
            },
        }

    def render(self) -> str:
        """A human-readable summary, with the paper's figures where it measured the agent."""
        low, high = self.players
        span = str(low) if low == high else f"{low}-{high}"
        lines = [
            f"Arena: {self.games} games, {span} players, variant {self.variant}, "
            f"seed {self.seed}, pool {', '.join(self.pool.values())}.",
            f"Win rate per seat played, [{INTERVAL}]. In parentheses: the SO-ISMCTS paper's",
            "figure (10,108 games, pool random, selfish, so-ismcts@10000).",
            "",
            f"{'agent':<14}{'seats':>7}  {'overall':<30}{'Liberal':<30}{'Fascist':<30}{'Hitler'}",
        ]
        for name, tally in self.agents.items():
            paper = PAPER.get(name, {})
            cells = [_cell(tally.overall, paper.get("overall"))]
            cells += [_cell(tally.by_role[r], paper.get(r.value)) for r in Role]
            lines.append(f"{name:<14}{tally.overall.played:>7}  " + "".join(cells).rstrip())
        counts = sorted({n for t in self.agents.values() for n in t.by_players})
        lines += [
            "",
            "Win rate by player count (± half the 95% interval's width):",
            f"{'agent':<14}" + "".join(f"{n:>16}" for n in counts),
        ]
        for name, tally in self.agents.items():
            row = "".join(
                f"{_rate(tally.by_players[n]):>16}" if n in tally.by_players else f"{'-':>16}"
                for n in counts
            )
            lines.append(f"{name:<14}{row}")
        lines += ["", "Endings:"]
        for reason, count in sorted(self.endings.items(), key=lambda item: -item[1]):
            lines.append(
                f"  {reason.value:<16}{count:>7}  "
                + _cell(Tally(self.games, count), PAPER_ENDINGS.get(reason)).rstrip()
            )
        lines += ["", f"Claims made: {self.claims}."]
        lines.append(
            f"Decision time (wall clock, {self._where()}, noisy on a shared machine): "
            + "; ".join(
                f"{name} mean {t['mean_ms']:.3f} ms, max {t['max_ms']:.1f} ms"
                for name, t in self.to_dict()["timing"]["agents"].items()
                if t["mean_ms"] is not None
            )
            + f"; {self.wall_seconds:.1f} s in all."
        )
        return "\n".join(lines)

    def _where(self) -> str:
        return "on Ray" if self.backend == "ray" else f"{self.workers} worker(s)"


def _rate(tally: Tally) -> str:
    if tally.rate is None:
        return "-"
    low, high = tally.interval
    return f"{tally.rate:.3f}±{(high - low) / 2:.3f}"


def _cell(tally: Tally, paper: float | None) -> str:
    if tally.rate is None:
        return f"{'-':<30}"
    low, high = tally.interval
    text = f"{tally.rate:.3f} [{low:.3f},{high:.3f}]"
    if paper is not None:
        text += f" ({paper:.3f})"
    return f"{text:<30}"


def parse_players(text: str) -> tuple[int, int]:
    """ "5-10" or "7" -> an inclusive range of player counts within 5..10."""
    try:
        low_text, _, high_text = text.partition("-")
        low = int(low_text)
        high = int(high_text) if high_text else low
    except ValueError:
        raise ArenaError(f"--players takes a count or a range like 5-10, not {text!r}.") from None
    if not MIN_PLAYERS <= low <= high <= MAX_PLAYERS:
        raise ArenaError(f"--players must lie within {MIN_PLAYERS}-{MAX_PLAYERS}, not {text!r}.")
    return low, high


def resolve_pool(pool: str, budgets: Sequence[str] = ()) -> dict[str, str]:
    """Pool entries and budgets -> {label: spec played}.

    An entry is an agent's name, or "label=name" to play one agent twice under two
    labels (an A/B in the same games); a budget "label:iterations=I,seconds=S,..."
    sets that entry's budget and options, e.g. `--pool belief-ismcts,b=belief-ismcts
    --budget b:wild=0.7`.
    """
    entries = [entry.strip() for entry in pool.split(",") if entry.strip()]
    if not entries:
        raise ArenaError("--pool needs at least one agent.")
    specs: dict[str, AgentSpec] = {}
    for entry in entries:
        if ":" in entry:
            raise ArenaError(f"Give budgets with --budget, not in --pool ({entry!r}).")
        label, _, name = entry.rpartition("=")
        label, name = (label or name).strip(), name.strip()
        if label in specs:
            raise ArenaError(f"{label!r} is in the pool twice; label one (label=agent).")
        try:
            specs[label] = AgentSpec.parse(name)
        except ValueError as exc:
            raise ArenaError(str(exc)) from None
    for text in budgets:
        label, _, options = text.strip().partition(":")
        if label not in specs:
            raise ArenaError(f"--budget {text!r} is for {label!r}, which is not in the pool.")
        try:
            specs[label] = AgentSpec.parse(f"{specs[label].name}:{options}")
        except ValueError as exc:
            raise ArenaError(str(exc)) from None
    played = {label: str(spec) for label, spec in specs.items()}
    if len(set(played.values())) < len(played):
        # A game result names each seat's spec; two labels must not play the same one.
        raise ArenaError("Two labels of the pool play the same spec; give them different budgets.")
    return played


def check_available(specs: Sequence[str]) -> None:
    """Build each agent once; raise ArenaError naming every agent that cannot be built."""
    missing = []
    for spec in specs:
        try:
            AgentSpec.parse(spec).build(0, 0)
        except ValueError as exc:  # the registry's own message names the agent
            missing.append(str(exc).rstrip("."))
        except Exception as exc:  # a module still being written may fail in any way
            name = AgentSpec.parse(spec).name
            missing.append(f"Agent {name!r} is not available: {type(exc).__name__}: {exc}")
    if missing:
        ready = [name for name in AGENTS if _builds(name)]
        raise ArenaError(
            ". ".join(missing) + f". Agents available now: {', '.join(ready)} (choose with --pool)."
        )


def _builds(name: str) -> bool:
    try:
        AgentSpec(name).build(0, 0)
    except Exception:
        return False
    return True


def run_arena(
    *,
    games: int,
    seed: int,
    players: tuple[int, int] = (MIN_PLAYERS, MAX_PLAYERS),
    pool: dict[str, str],
    variant: Variant = STANDARD,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    on_result: Callable[[GameSetup, GameResult], None] | None = None,
) -> ArenaReport:
    """Play a tournament and return its report; `on_result` sees each game in order.
    `backend`: "local" (`workers` processes) or "ray" (a Ray cluster, see `play_all`)."""
    if backend not in BACKENDS:
        raise ArenaError(f"--backend must be one of {', '.join(BACKENDS)}, not {backend!r}.")
    check_available(list(pool.values()))
    specs = list(pool.values())
    setups = [plan_game(seed, i, players, specs) for i in range(games)]
    report = ArenaReport(pool, players, seed, variant.name, workers, backend)
    start = time.perf_counter()
    played = play_all(
        setups, variant=variant, workers=workers, backend=backend, ray_address=ray_address
    )
    for setup, result in zip(setups, played, strict=True):
        report.add(result)
        if on_result is not None:
            on_result(setup, result)
    report.wall_seconds = time.perf_counter() - start
    return report


def build_parser() -> argparse.ArgumentParser:
    """The arena's command line."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.arena", description="Agent tournaments with win-rate intervals."
    )
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    parser.add_argument("--players", default="5-10", help="a count or a range (default 5-10)")
    parser.add_argument(
        "--pool",
        default=DEFAULT_POOL,
        help=f"agents, or label=agent for a second copy (default {DEFAULT_POOL})",
    )
    parser.add_argument(
        "--budget",
        action="append",
        default=[],
        metavar="SPEC",
        help="an entry's budget and options, e.g. ismcts:iterations=10000 (repeatable)",
    )
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="standard")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local processes (--workers) or a Ray cluster (default local)",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster of --backend ray (default RAY_ADDRESS, else a local Ray)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--records", type=Path, metavar="DIR", help="save each game's record")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m agents.arena`."""
    args = build_parser().parse_args(argv)
    try:
        if args.games < 1 or args.workers < 1:
            raise ArenaError("--games and --workers must be at least 1.")
        pool = resolve_pool(args.pool, args.budget)
        players = parse_players(args.players)
        records: Path | None = args.records
        if records is not None:
            records.mkdir(parents=True, exist_ok=True)
        bar = tqdm(
            total=args.games,
            unit="game",
            file=sys.stderr,
            disable=args.json or not sys.stderr.isatty(),
        )

        def on_result(setup: GameSetup, result: GameResult) -> None:
            if records is not None:
                path = records / f"game-{setup.index:06d}.json"
                path.write_text(result.record.to_json() + "\n", encoding="utf-8")
            bar.update()

        with bar:
            report = run_arena(
                games=args.games,
                seed=args.seed,
                players=players,
                pool=pool,
                variant=VARIANTS[args.variant],
                workers=args.workers,
                backend=args.backend,
                ray_address=args.ray_address,
                on_result=on_result,
            )
    except ArenaError as exc:
        print(f"arena: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, ArenaGameError) else 2
    except KeyboardInterrupt:
        print("arena: interrupted.", file=sys.stderr)
        return 130
    print(json.dumps(report.to_dict()) if args.json else report.render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
