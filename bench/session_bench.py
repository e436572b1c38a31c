"""Many concurrent bot-only games in one process, through the real session and storage.

    python bench/session_bench.py --games 200 [--players 7] [--agent selfish] [--json]

Every game runs in its own `GameSession` with in-process fast agents and writes every
action to one real SQLite file (in a temporary directory), as the bot does. A ticker task
measures the event loop's lag (how late a 10 ms sleep wakes up): the figure that says
whether Discord interactions would still be answered in time. Prints games completed per
second, actions stored per second and the worst and 99th-percentile loop lag. The goal
is 200 concurrent games with a worst lag under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from bot.gc_tuning import tune_gc  # noqa: E402
from bot.manager import SessionManager  # noqa: E402
from bot.ports import Post, Private, Prompt, Reveal, Table, Waiting  # noqa: E402
from bot.session import SessionOptions  # noqa: E402
from bot.storage import Storage  # noqa: E402
from bot.timers import Timers  # noqa: E402

TICK = 0.010


class CountingFrontend:
    """A front-end that only counts what it is sent (the cost of Discord is not measured)."""

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


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(TICK)
        lags.append(loop.time() - start - TICK)


class GcPauses:
    """The longest garbage-collector pause while installed: a full collection stops the
    event loop too, and on a busy machine it is often the worst lag."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.worst = max(self.worst, time.perf_counter() - self._started)


async def run(
    games: int, players: int, agent: str, seed: int, suspicion: bool = True
) -> dict[str, float | int | str | bool]:
    """Play `games` games at once; return the figures."""
    with tempfile.TemporaryDirectory() as directory:
        store = await Storage.open(Path(directory) / "bench.db")
        frontend = CountingFrontend()
        manager = SessionManager(store, frontend)
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
        await store.close()
    lags.sort()
    return {
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
    }


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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.default_gc:
        tune_gc()  # as the bot does at start-up (bot.gc_tuning)
    figures = asyncio.run(
        run(args.games, args.players, args.agent, args.seed, not args.no_suspicion)
    )
    figures["gc_tuned"] = not args.default_gc
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{figures['finished']}/{figures['games']} games of {args.players} ({args.agent}) "
            f"in {figures['seconds']} s: {figures['games_per_second']} games/s, "
            f"{figures['actions_per_second']} actions stored/s; event-loop lag worst "
            f"{figures['loop_lag_worst_ms']} ms, p99 {figures['loop_lag_p99_ms']} ms, "
            f"median {figures['loop_lag_median_ms']} ms; worst GC pause "
            f"{figures['gc_pause_worst_ms']} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
