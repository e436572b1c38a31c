"""Several tables of strong AI players at once, through the real session and AI service.

    python bench/ai_load_bench.py --tables 4 --players 10 --ai-seats 9 --seconds 2 [--json]

Plays `--tables` complete games at the same time in one event loop, as the bot would:
each game is a real `GameSession` created by a `SessionManager` over a real SQLite file
(in a temporary directory), with the bot's default timers; the human seats are played
by the fake front-end answering its prompts; the AI seats play
`belief-ismcts:seconds=S` through one `AgentService` (worker processes) shared by every
table. Every answer the service gives is recorded on its way to the sessions.

`--chaos X` makes the AI seats play `chaos:seconds=S` instead (bench/chaos_agent.py): a
share X of their decisions and claims raise, hang or kill their worker process; every
game must still end.

A game that accepts no action for `--stall` seconds is stuck: it is stopped and counted,
as is every game still running at `--timeout`. Prints the AI decisions and claims, the
fallbacks and their causes, decision seconds (p50, p95, max), search iterations (p50,
p5) and the event loop's lag (a ticker sleeping 5 ms: how late it wakes up).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import math
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for _path in (ROOT, BENCH):  # run from a checkout without installing; chaos_agent imports
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from chaos_agent import RATE_VARIABLE  # noqa: E402

from agents.base import Answer  # noqa: E402
from agents.registry import AGENTS  # noqa: E402
from agents.service import AgentService  # noqa: E402
from bot.frontends.fake import FakeFrontend, scripted  # noqa: E402
from bot.gc_tuning import tune_gc  # noqa: E402
from bot.manager import Member, SessionManager  # noqa: E402
from bot.session import GameSession, SessionOptions  # noqa: E402
from bot.storage import Storage  # noqa: E402
from engine import Action, Claim, PlayerView  # noqa: E402

TICK_S = 0.005
POLL_S = 0.5  # how often the watchers look at their game's progress
CHAOS_AGENT = "chaos_agent:ChaosAgent"


@dataclass(frozen=True, slots=True)
class Record:
    """One answer of the AI service, as the sessions received it."""

    kind: str  # "decide" | "claim"
    phase: str  # the game's phase when the decision was asked ("nominate", "vote", ...)
    seconds: float
    iterations: int | None
    fallback: str | None
    # The deciding seat's party (a bench figure after the fact: Liberal and Fascist
    # ballots search to different caps, see `ballots_by_party`).
    party: str | None = None


@dataclass
class RecordingPort:
    """An `AgentPort` that passes every call to the service and records its answer."""

    service: AgentService
    records: list[Record] = field(default_factory=list)

    async def decide(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = 2.0,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Action]:
        """The service's decision, recorded."""
        answer = await self.service.decide(
            spec, view, seed=seed, budget_s=budget_s, patience_s=patience_s, table=table
        )
        self._record("decide", view, answer)
        return answer

    async def claim(
        self,
        spec: str,
        view: PlayerView,
        *,
        seed: int,
        budget_s: float = 1.0,
        patience_s: float | None = None,
        table: Hashable | None = None,
    ) -> Answer[Claim | None]:
        """The service's claim, recorded (also when the view has nothing to claim)."""
        answer = await self.service.claim(
            spec, view, seed=seed, budget_s=budget_s, patience_s=patience_s, table=table
        )
        if view.legal_claims:  # only real claim windows count; the others ask no agent
            self._record("claim", view, answer)
        return answer

    def _record(self, kind: str, view: PlayerView, answer: Answer[Any]) -> None:
        self.records.append(
            Record(
                kind,
                view.phase.value,
                answer.seconds,
                answer.iterations,
                answer.fallback,
                None if view.role is None else view.role.party.value,
            )
        )


@dataclass
class Outcome:
    """How one table's game ended."""

    table: int
    finished: bool
    actions: int
    detail: dict[str, Any] | None = None  # for a stuck game: where it stood


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    """Sleep `TICK_S` again and again, recording how late each wake-up is."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(TICK_S)
        lags.append(loop.time() - start - TICK_S)


def _where(session: GameSession, why: str) -> dict[str, Any]:
    """What a stuck game was doing (public facts only: phase, awaited seats, cause)."""
    game = session.game
    failure = getattr(session, "failure", None)
    return {
        "why": why,
        "game_id": session.game_id,
        "phase": game.phase.value,
        "awaiting": list(game.awaiting()) if not game.is_over else [],
        "actions": len(game.actions),
        "failure": None if failure is None else type(failure).__name__,
    }


async def _watch(table: int, session: GameSession, stall_s: float, deadline: float) -> Outcome:
    """Wait for the game's end; stop it if it accepts no action for `stall_s` seconds
    or is still running at `deadline` (a `time.monotonic()` instant)."""
    ended = asyncio.create_task(session.wait())
    seen, moved = len(session.game.actions), time.monotonic()
    why: str | None = None
    while not ended.done():
        await asyncio.wait({ended}, timeout=POLL_S)
        now = time.monotonic()
        if len(session.game.actions) != seen:
            seen, moved = len(session.game.actions), now
        if ended.done():
            break
        if now - moved >= stall_s:
            why = f"no action for {stall_s:g} s"
        elif now >= deadline:
            why = "still running at the overall timeout"
        if why is not None:
            detail = _where(session, why)  # before stop() closes its prompts
            await session.stop()
            await asyncio.gather(ended, return_exceptions=True)
            return Outcome(table, False, len(session.game.actions), detail)
    await asyncio.gather(ended, return_exceptions=True)
    if session.game.is_over:
        return Outcome(table, True, len(session.game.actions))
    # The session's task ended without the game: for the table, a frozen game.
    return Outcome(table, False, seen, _where(session, "the session ended before the game"))


def _percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


async def run(
    *,
    tables: int,
    players: int,
    ai_seats: int,
    seconds: float,
    chaos: float,
    workers: int | None,
    seed: int,
    stall_s: float,
    timeout_s: float,
) -> dict[str, Any]:
    """Play `tables` games at once; return the figures."""
    if chaos > 0:
        # Before the service exists: it ships the registry and the environment (the
        # rate, bench/ on the path) to the worker processes when it starts them.
        AGENTS["chaos"] = CHAOS_AGENT
        os.environ[RATE_VARIABLE] = repr(chaos)
        paths = [str(BENCH), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    agent = "chaos" if chaos > 0 else "belief-ismcts"
    ai_spec = f"{agent}:seconds={seconds:g}"
    humans = players - ai_seats
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(lags, stop))
    service = AgentService(workers=workers)
    port = RecordingPort(service)
    sessions: list[GameSession] = []
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="shbot-ai-load-") as directory:
        store = await Storage.open(Path(directory) / "bench.db")
        frontend = FakeFrontend(answer=scripted)
        manager = SessionManager(store, frontend, port)
        try:
            await service.start()
            started = time.monotonic()
            deadline = started + timeout_s
            options = SessionOptions(ai_budget_s=seconds, suspicion=False)
            for table in range(tables):
                session = await manager.create(
                    # Distinct user ids per table: a member may sit at several games,
                    # but not twice at one; distinct ids keep the tables independent.
                    [Member(1000 * (table + 1) + i, f"Player{i}") for i in range(humans)],
                    players=players,
                    fill_with_ai=True,
                    ai_spec=ai_spec,
                    seed=seed + table,
                    options=options,
                )
                sessions.append(session)
            outcomes = list(
                await asyncio.gather(
                    *(_watch(t, s, stall_s, deadline) for t, s in enumerate(sessions))
                )
            )
            wall_s = time.monotonic() - started
            await frontend.settle()
            await manager.shutdown()
        finally:
            await service.close()
            await store.close()
            stop.set()
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)

    decisions = [r for r in port.records if r.kind == "decide"]
    claims = [r for r in port.records if r.kind == "claim"]
    causes = Counter(r.fallback for r in port.records if r.fallback is not None)
    decision_s = [r.seconds for r in decisions]
    iterations = [float(r.iterations) for r in decisions if r.iterations is not None]
    stats = dataclasses.asdict(service.stats)
    stats.pop("iterations", None)
    p50_iterations = _percentile(iterations, 0.50)
    p5_iterations = _percentile(iterations, 0.05)
    # The sessions' own counts (bot/session.py), where it keeps them.
    counted = [getattr(s, "fallbacks", None) for s in sessions]
    return {
        "tables": tables,
        "players": players,
        "ai_seats": ai_seats,
        "seconds": seconds,
        "chaos": chaos,
        "workers": service.workers,
        "games": len(outcomes),
        "finished": sum(o.finished for o in outcomes),
        "stuck": sum(not o.finished for o in outcomes),
        "stuck_games": [o.detail for o in outcomes if not o.finished],
        "actions": sum(o.actions for o in outcomes),
        "decisions": len(decisions),
        "claims": len(claims),
        "fallbacks": sum(causes.values()),
        "fallback_causes": dict(causes.most_common()),
        "session_fallbacks": None if None in counted else sum(c or 0 for c in counted),
        "p50_s": _rounded(_percentile(decision_s, 0.50), 3),
        "p95_s": _rounded(_percentile(decision_s, 0.95), 3),
        "max_s": _rounded(max(decision_s, default=None), 3),
        "iterations_p50": None if p50_iterations is None else int(p50_iterations),
        "iterations_p5": None if p5_iterations is None else int(p5_iterations),
        # The same without ballots (four decisions in five at a full table, and capped):
        # what the nominations, hands and powers reach.
        **_table_iterations(decisions),
        "loop_lag_max_ms": _rounded(1000 * max(lags), 1) if lags else None,
        "loop_lag_p99_ms": _rounded(1000 * (_percentile(lags, 0.99) or 0.0), 1),
        "wall_s": round(wall_s, 1),
        "by_phase": _by_phase(decisions),
        "ballots_by_party": _by_phase(
            [
                dataclasses.replace(r, phase=r.party or "unknown")
                for r in decisions
                if r.phase == "vote"
            ]
        ),
        "service": stats,
    }


def _table_iterations(decisions: list[Record]) -> dict[str, int | None]:
    """Iterations (p50, p5) of the decisions that are not ballots and searched."""
    searched = [float(r.iterations) for r in decisions if r.phase != "vote" and r.iterations]
    p50, p5 = _percentile(searched, 0.50), _percentile(searched, 0.05)
    return {
        "table_iterations_p50": None if p50 is None else int(p50),
        "table_iterations_p5": None if p5 is None else int(p5),
    }


def _by_phase(decisions: list[Record]) -> dict[str, dict[str, Any]]:
    """Where the time and the iterations go: per phase (or whatever `Record.phase`
    holds), the decisions, their seconds (p50, p95) and iterations (p50, p5; a decision
    with one legal move runs none)."""
    phases: dict[str, list[Record]] = {}
    for record in decisions:
        phases.setdefault(record.phase, []).append(record)
    table: dict[str, dict[str, Any]] = {}
    for phase, records in sorted(phases.items()):
        seconds = [r.seconds for r in records]
        searched = [float(r.iterations) for r in records if r.iterations]
        p50, p5 = _percentile(searched, 0.50), _percentile(searched, 0.05)
        table[phase] = {
            "decisions": len(records),
            "searched": len(searched),
            "p50_s": _rounded(_percentile(seconds, 0.50), 3),
            "p95_s": _rounded(_percentile(seconds, 0.95), 3),
            "iterations_p50": None if p50 is None else int(p50),
            "iterations_p5": None if p5 is None else int(p5),
        }
    return table


def _human(figures: dict[str, Any]) -> str:
    """The figures as a few readable lines."""
    lines = [
        f"{figures['tables']} table(s) of {figures['players']} players, "
        f"{figures['ai_seats']} AI seats each, {figures['seconds']:g} s per decision, "
        f"chaos {figures['chaos']:g}, {figures['workers']} worker(s): "
        f"{figures['finished']}/{figures['games']} games finished, "
        f"{figures['stuck']} stuck, in {figures['wall_s']} s",
        f"AI decisions {figures['decisions']}, claims {figures['claims']}, "
        f"fallbacks {figures['fallbacks']}",
        f"decision seconds: p50 {figures['p50_s']}, p95 {figures['p95_s']}, "
        f"max {figures['max_s']}; iterations p50 {figures['iterations_p50']}, "
        f"p5 {figures['iterations_p5']}; without ballots p50 "
        f"{figures['table_iterations_p50']}, p5 {figures['table_iterations_p5']}",
        f"event-loop lag: max {figures['loop_lag_max_ms']} ms, p99 {figures['loop_lag_p99_ms']} ms",
    ]
    lines += [f"  fallback: {n} x {cause}" for cause, n in figures["fallback_causes"].items()]
    lines += [
        f"  {phase}: {row['decisions']} decisions ({row['searched']} searched), "
        f"p50 {row['p50_s']} s, iterations p50 {row['iterations_p50']}, p5 {row['iterations_p5']}"
        for phase, row in figures["by_phase"].items()
    ]
    lines += [
        f"  ballots of the {party} party: {row['decisions']}, iterations p50 "
        f"{row['iterations_p50']}, p5 {row['iterations_p5']}"
        for party, row in figures["ballots_by_party"].items()
    ]
    lines += [f"  stuck: {detail}" for detail in figures["stuck_games"]]
    service = ", ".join(f"{key} {value}" for key, value in figures["service"].items())
    lines.append(f"service: {service}")
    return "\n".join(lines)


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("a share lies between 0 and 1")
    return value


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1, help="games played at once")
    parser.add_argument("--players", type=int, default=10, choices=range(5, 11))
    parser.add_argument("--ai-seats", type=int, default=9, help="AI seats per table")
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="AI budget per decision (belief-ismcts)"
    )
    parser.add_argument(
        "--chaos", type=_share, default=0.0, help="share of AI decisions that fail on purpose"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="AI worker processes (default: cores - 1)"
    )
    parser.add_argument("--seed", type=int, default=1, help="table t plays seed + t")
    parser.add_argument(
        "--stall", type=float, default=60.0, help="seconds without an action: a stuck game"
    )
    parser.add_argument(
        "--timeout", type=float, default=1800.0, help="seconds after which every game stops"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="log at INFO (each fallback)")
    args = parser.parse_args(argv)
    if not 0 <= args.ai_seats <= args.players:
        parser.error("--ai-seats lies between 0 and --players")
    if args.tables < 1 or args.seconds <= 0:
        parser.error("--tables and --seconds must be positive")
    # INFO would print a line per fallback: a flood under --chaos.
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    tune_gc()  # as the bot does at start-up (bot.gc_tuning)
    figures = asyncio.run(
        run(
            tables=args.tables,
            players=args.players,
            ai_seats=args.ai_seats,
            seconds=args.seconds,
            chaos=args.chaos,
            workers=args.workers,
            seed=args.seed,
            stall_s=args.stall,
            timeout_s=args.timeout,
        )
    )
    print(json.dumps(figures) if args.json else _human(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
