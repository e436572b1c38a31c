"""Many concurrent bot-only games, through the real session and storage.

    python bench/session_bench.py --games 200 [--players 7] [--agent selfish] [--json]
    python bench/session_bench.py --store postgresql://... --processes 2 --games 400 --json

Every game runs in its own `GameSession` with in-process fast agents and writes every
action to a real database, as the bot does: a SQLite file in a temporary directory, or
`--store` (a SQLite path or a PostgreSQL URL; an empty database: the bench counts the
games it finds there). A ticker task measures the event loop's lag (how late a 10 ms
sleep wakes up): the figure that says whether Discord interactions would still be
answered in time. Prints games completed per second, actions stored per second and the
worst and 99th-percentile loop lag. The goal is 200 concurrent games with a worst lag
under 100 ms.

`--processes N` runs N bot processes on the one database, as shard processes do:
SHARD_COUNT=N, each claims its own shard (as the bot does at start) and plays the games
of guilds on its shard. Afterwards the database is read back: `lost` counts games whose
stored log is not every action their process applied or that did not end stored as
finished, `double_driven` games that more than one process drove, and
`loop_lag_max_ms` is the worst lag of any process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from bot.gc_tuning import (  # noqa: E402
    FIRST_GENERATION_THRESHOLD,
    SECOND_GENERATION_THRESHOLD,
    tune_gc,
)
from bot.manager import SessionManager, ShardClaim  # noqa: E402
from bot.ports import Post, Private, Prompt, Reveal, Table, Waiting  # noqa: E402
from bot.session import SessionOptions  # noqa: E402
from bot.storage import GameScope, Storage  # noqa: E402
from bot.timers import Timers  # noqa: E402

TICK = 0.010


class CountingFrontend:
    """A front-end that only counts what it is sent (the cost of Discord is not measured)."""

    linger_s = 0.0  # nothing batched: a burst ends at once

    def __init__(self) -> None:
        self.calls = 0

    async def post(self, table: Table, post: Post) -> None:
        self.calls += 1

    async def tell(self, table: Table, private: Private) -> None:
        self.calls += 1

    async def ask(self, table: Table, prompt: Prompt) -> None:
        self.calls += 1

    async def withdraw(self, table: Table, prompt: Prompt, reason: str) -> None:
        self.calls += 1

    async def waiting(self, table: Table, waiting: Waiting) -> None:
        self.calls += 1

    async def reveal(self, table: Table, reveal: Reveal) -> None:
        self.calls += 1

    async def flush(self, table: Table) -> None:
        pass  # the end of a burst: nothing held back

    async def resume(self, table: Table) -> None:
        pass  # never restarted here


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(TICK)
        lags.append(loop.time() - start - TICK)


class GcPauses:
    """The longest garbage-collector pause while installed: a full collection stops the
    event loop too, and on a busy machine it is often the worst lag. `worst_cpu` is the
    CPU time the collector used in that pause, and `worst_generation` its generation:
    the rest of the pause is the process waiting for a core (other work on the machine),
    which no GC setting changes."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.worst_cpu = 0.0
        self.worst_generation = -1
        self._started = 0.0
        self._started_cpu = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
        elif time.perf_counter() - self._started > self.worst:
            self.worst = time.perf_counter() - self._started
            self.worst_cpu = time.thread_time() - self._started_cpu
            self.worst_generation = info["generation"]


def guild_on(shard: int, count: int, index: int) -> int:
    """A guild id (a Discord snowflake) that Discord puts on `shard` of `count`."""
    return ((index * count + shard) << 22) | 1


async def run(
    games: int,
    players: int,
    agent: str,
    seed: int,
    suspicion: bool = True,
    store_at: str | None = None,
    shard: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Play `games` games at once on `store_at` (default: a new SQLite file), as shard
    `shard = (id, count)` of a bot if given; return the figures."""
    with tempfile.TemporaryDirectory() as directory:
        store = await Storage.open(store_at or str(Path(directory) / "bench.db"))
        frontend = CountingFrontend()
        manager = SessionManager(store, frontend)
        claim = None
        if shard is not None:  # as the bot's start does: this process's shard, or refused
            scope = GameScope(False, shard[1], frozenset({shard[0]}))
            claim = await store.claim_shards(scope) or ShardClaim.take(store.path, scope)
        options = SessionOptions(timers=Timers.off(), substitute=agent, suspicion=suspicion)
        lags: list[float] = []
        pauses = GcPauses()
        gc.callbacks.append(pauses)
        stop = asyncio.Event()
        ticker = asyncio.create_task(_ticker(lags, stop))
        started = time.perf_counter()
        sessions = [
            await manager.create(
                [],
                players=players,
                fill_with_ai=True,
                ai_spec=agent,
                seed=seed + i,
                options=options,
                guild_id=None if shard is None else guild_on(shard[0], shard[1], i),
                channel_id=None if shard is None else i + 1,
            )
            for i in range(games)
        ]
        await asyncio.gather(*(s.wait() for s in sessions))
        elapsed = time.perf_counter() - started
        stop.set()
        await ticker
        gc.callbacks.remove(pauses)
        finished = sum(s.game.is_over for s in sessions)
        actions = sum(len(s.game.actions) for s in sessions)
        stored = len((await store.load_game(sessions[-1].game_id)).record.actions)
        assert stored == len(sessions[-1].game.actions), "every action is stored"
        if claim is not None:
            claim.release()
        await store.close()
    lags.sort()
    return {
        "driven": {s.game_id: len(s.game.actions) for s in sessions},  # game -> actions
        "games": games,
        "players": players,
        "agent": agent,
        "suspicion": suspicion,
        "finished": finished,
        "seconds": round(elapsed, 3),
        "games_per_second": round(finished / elapsed, 2),
        "actions_stored": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "front_end_calls": frontend.calls,
        "loop_lag_worst_ms": round(1000 * lags[-1], 1) if lags else 0.0,
        "loop_lag_p99_ms": round(1000 * lags[int(0.99 * (len(lags) - 1))], 1) if lags else 0.0,
        "loop_lag_median_ms": round(1000 * statistics.median(lags), 2) if lags else 0.0,
        "gc_pause_worst_ms": round(1000 * pauses.worst, 1),
        "gc_pause_worst_cpu_ms": round(1000 * pauses.worst_cpu, 1),
        "gc_pause_worst_generation": pauses.worst_generation,
    }


def _shard_process(args: argparse.Namespace, shard: int, start: Any, out: Any) -> None:
    """One bot process of `--processes`: its share of the games, on its own shard."""
    if not args.default_gc:
        tune_gc(*args.gc_threshold)
    games = args.games // args.processes + (shard < args.games % args.processes)
    start.wait()
    try:
        out.put(
            asyncio.run(
                run(
                    games,
                    args.players,
                    args.agent,
                    args.seed + 100_000 * shard,
                    not args.no_suspicion,
                    args.store,
                    (shard, args.processes),
                )
            )
        )
    except BaseException as exc:
        out.put({"error": f"{type(exc).__name__}: {exc}"})
        raise


async def _read_back(store_at: str, reports: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(finished, lost, double_driven) from the database and what each process drove."""
    owners: dict[int, int] = {}
    applied: dict[int, int] = {}
    for report in reports:
        for game_id, actions in report["driven"].items():
            owners[game_id] = owners.get(game_id, 0) + 1
            applied[game_id] = actions
    finished = lost = 0
    async with await Storage.open(store_at) as store:
        for game_id, actions in applied.items():
            stored = await store.load_game(game_id)
            done = stored.status == "finished" and stored.record.replay().is_over
            finished += done
            lost += not done or len(stored.record.actions) != actions
    return finished, lost, sum(count > 1 for count in owners.values())


async def _create(store_at: str) -> None:
    async with await Storage.open(store_at):
        pass


def run_processes(args: argparse.Namespace) -> dict[str, Any]:
    """`--processes N`: N bot processes on one database, then the database read back."""
    with tempfile.TemporaryDirectory() as directory:
        store_at = args.store or str(Path(directory) / "bench.db")
        args.store = store_at
        asyncio.run(_create(store_at))  # the schema, before the processes start
        context = multiprocessing.get_context("fork")
        start, out = context.Event(), context.Queue()
        children = [
            context.Process(target=_shard_process, args=(args, shard, start, out))
            for shard in range(args.processes)
        ]
        for child in children:
            child.start()
        started = time.perf_counter()
        start.set()
        reports = [out.get() for _ in children]
        elapsed = time.perf_counter() - started
        for child in children:
            child.join()
        errors = [r["error"] for r in reports if "error" in r]
        if errors:
            raise SystemExit(f"a bench process failed: {errors[0]}")
        finished, lost, double_driven = asyncio.run(_read_back(store_at, reports))
    actions = sum(r["actions_stored"] for r in reports)
    return {
        "games": args.games,
        "processes": args.processes,
        "store": "postgresql" if store_at.startswith("postgres") else "sqlite",
        "players": args.players,
        "agent": args.agent,
        "suspicion": not args.no_suspicion,
        "finished": finished,
        "lost": lost,
        "double_driven": double_driven,
        "seconds": round(elapsed, 3),
        "games_per_second": round(finished / elapsed, 2),
        "actions_stored": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "front_end_calls": sum(r["front_end_calls"] for r in reports),
        "loop_lag_max_ms": max(r["loop_lag_worst_ms"] for r in reports),
        "loop_lag_worst_ms": max(r["loop_lag_worst_ms"] for r in reports),
        "loop_lag_p99_ms": max(r["loop_lag_p99_ms"] for r in reports),
        "loop_lag_median_ms": max(r["loop_lag_median_ms"] for r in reports),
        "gc_pause_worst_ms": max(r["gc_pause_worst_ms"] for r in reports),
        # the CPU time and generation of that same worst pause (of the process it was in)
        "gc_pause_worst_cpu_ms": max(reports, key=lambda r: r["gc_pause_worst_ms"])[
            "gc_pause_worst_cpu_ms"
        ],
        "gc_pause_worst_generation": max(reports, key=lambda r: r["gc_pause_worst_ms"])[
            "gc_pause_worst_generation"
        ],
    }


def _thresholds(text: str) -> tuple[int, ...]:
    values = tuple(int(part) for part in text.split(","))
    if not 1 <= len(values) <= 2 or min(values) < 1:
        raise argparse.ArgumentTypeError("N or N,M: positive thresholds")
    return values


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=7, choices=range(5, 11))
    parser.add_argument("--agent", choices=["random", "selfish"], default="selfish")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-suspicion", action="store_true", help="skip the end-of-game suspicion tracks"
    )
    parser.add_argument(
        "--default-gc", action="store_true", help="keep CPython's GC settings (no tune_gc)"
    )
    parser.add_argument(
        "--gc-threshold",
        type=_thresholds,
        default=(FIRST_GENERATION_THRESHOLD, SECOND_GENERATION_THRESHOLD),
        help="the collector's first (and second: N,M) thresholds tune_gc sets (default: the bot's)",
    )
    parser.add_argument(
        "--store", default=None, help="a SQLite path or postgresql:// URL (an empty database)"
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="bot processes on the database, a shard each"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.processes > 1:
        figures = run_processes(args)
    else:
        if not args.default_gc:
            tune_gc(*args.gc_threshold)  # as the bot does at start-up (bot.gc_tuning)
        figures = asyncio.run(
            run(args.games, args.players, args.agent, args.seed, not args.no_suspicion, args.store)
        )
        driven = figures.pop("driven")
        if args.store is not None:  # a database that outlives the run: read it back
            finished, lost, double = asyncio.run(_read_back(args.store, [{"driven": driven}]))
        else:
            finished, lost, double = figures["finished"], 0, 0
        figures.update(finished=finished, lost=lost, double_driven=double)
        figures["loop_lag_max_ms"] = figures["loop_lag_worst_ms"]
    figures["gc_tuned"] = not args.default_gc
    figures["gc_threshold"] = None if args.default_gc else list(args.gc_threshold)
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{figures['finished']}/{figures['games']} games of {args.players} ({args.agent}) "
            f"in {args.processes} process(es), {figures['lost']} lost, "
            f"{figures['double_driven']} driven twice, "
            f"in {figures['seconds']} s: {figures['games_per_second']} games/s, "
            f"{figures['actions_per_second']} actions stored/s; event-loop lag worst "
            f"{figures['loop_lag_worst_ms']} ms, p99 {figures['loop_lag_p99_ms']} ms, "
            f"median {figures['loop_lag_median_ms']} ms; worst GC pause "
            f"{figures['gc_pause_worst_ms']} ms ({figures['gc_pause_worst_cpu_ms']} ms of it CPU,"
            f" generation {figures['gc_pause_worst_generation']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
