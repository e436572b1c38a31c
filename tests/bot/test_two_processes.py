"""Two real bot processes on one PostgreSQL database (issue 23): games on both shards play
to the end; one process is killed with SIGKILL mid-game and started again (twice): nothing
acknowledged is lost, no game is driven twice.

Each process is `python -m tests.bot.shard_process` (see there: the production bot, its
configuration from the environment, attached to an in-memory simulated Discord instead
of the gateway), started with SHARD_COUNT=2 and its own SHARD_IDS over the database of
a real PostgreSQL server the tests start. Every wait has a deadline, so a hang fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Storage

pytest_plugins = ["tests.bot.postgres_server"]

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 120.0  # a deadline against hangs, never a measure


class ShardProcess:
    """`python -m tests.bot.shard_process MODE` for one shard; its reports, as they come."""

    def __init__(self, url: str, shard: int, mode: str, tmp: Path) -> None:
        mine = ("DISCORD_", "DATABASE_", "SHARD_", "AI_", "RAY_", "DEV_GUILD")  # the bot's own
        env = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
        env.update(
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
            DATABASE_URL=url,
            SHARD_COUNT="2",
            SHARD_IDS=str(shard),
            AI_EASY="random",
            AI_NORMAL="random",
            AI_STRONG="random",
            AI_PACE="0",
            SYNC_COMMANDS="true",
        )
        self.shard, self.mode = shard, mode
        self.stderr_path = tmp / f"shard{shard}-{mode}-{time.monotonic_ns()}.log"
        self._stderr = self.stderr_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.bot.shard_process", mode],
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            stdin=subprocess.DEVNULL,
            cwd=tmp,  # no .env of the developer's is found from here
            env=env,
        )
        self.reports: list[dict[str, Any]] = []
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(json.loads(line))
        self._lines.put(None)

    def wait_for(self, event: str, count: int = 1) -> dict[str, Any]:
        """The `count`-th report of `event` (waiting for it)."""
        deadline = time.monotonic() + WAIT_S
        while sum(r["event"] == event for r in self.reports) < count:
            try:
                report = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{self}: no {event!r} report; {self.stderr()}") from None
            if report is None:
                raise AssertionError(f"{self} ended before {event!r}: {self.stderr()}")
            self.reports.append(report)
        return [r for r in self.reports if r["event"] == event][count - 1]

    def of(self, event: str) -> list[dict[str, Any]]:
        return [r for r in self.reports if r["event"] == event]

    def kill(self) -> None:
        """kill -9: no handler runs, nothing is closed."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=WAIT_S)
        self._drain()

    def stop(self) -> int:
        """SIGTERM, as an orchestrator stops the bot; its exit code."""
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=WAIT_S)
        self._drain()
        return code

    def end(self) -> int:
        """Wait for the process to end by itself; its exit code."""
        code = self.proc.wait(timeout=WAIT_S)
        self._drain()
        return code

    def _drain(self) -> None:
        self._reader.join(timeout=WAIT_S)
        while (report := self._lines.get_nowait() if not self._lines.empty() else None) is not None:
            self.reports.append(report)
        self._stderr.close()

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")[-3000:]

    def __str__(self) -> str:
        return f"shard {self.shard} ({self.mode}, pid {self.proc.pid})"


async def _stored(url: str, *games: int) -> dict[int, tuple[str, list[str]]]:
    """Each game's status and stored actions (as the processes report them: repr)."""
    async with await Storage.open(url) as store:
        out = {}
        for game in games:
            stored = await store.load_game(game)
            out[game] = (stored.status, [repr(a) for a in stored.record.actions])
        return out


async def _shard_of(url: str, game: int) -> int:
    """The shard of the stored game's server: `(guild_id >> 22) % SHARD_COUNT`."""
    async with await Storage.open(url) as store:
        guild = (await store.load_game(game)).guild_id
    assert guild is not None
    return (guild >> 22) % 2


@pytest.mark.postgres
def test_two_processes_play_to_the_end_and_a_killed_one_resumes_without_loss(
    pg_url: str, tmp_path: Path
) -> None:
    processes: list[ShardProcess] = []

    def start(shard: int, mode: str) -> ShardProcess:
        process = ShardProcess(pg_url, shard, mode, tmp_path)
        processes.append(process)
        return process

    def kill_mid_game(process: ShardProcess) -> tuple[int, list[str]]:
        """kill -9 once the process's game is under way (three acknowledged clicks),
        whatever it is doing at that moment: (the game, its stored actions then)."""
        process.wait_for("ack", 3)
        process.kill()
        assert not process.of("done"), "the game ended before the kill: nothing was tested"
        game = process.of("ack")[0]["game"]
        acked = max((r["prefix"] for r in process.of("ack")), key=len)
        [(status, stored)] = asyncio.run(_stored(pg_url, game)).values()
        assert status == "running"
        assert stored[: len(acked)] == acked  # nothing acknowledged is lost
        return game, stored

    try:
        a, b = start(0, "new"), start(1, "new")
        assert a.wait_for("ready")["games"] == [] and b.wait_for("ready")["games"] == []
        game_a, stored = kill_mid_game(a)

        # Shard 1's process plays on to the end meanwhile.
        done_b = b.wait_for("done")
        game_b = done_b["game"]
        assert game_b != game_a

        # A second process for shard 1 while the first runs: refused at start, before it
        # resumes anything (it would drive shard 1's games twice).
        twin = start(1, "resume")
        refused = twin.wait_for("refused")["error"]
        assert "Shard 1 already runs in another process" in refused, refused
        assert twin.end() == 3 and not twin.of("ready")

        # Shard 0's process again: it resumes the killed process's game, and only it; it
        # is killed in its turn, and started once more.
        again = start(0, "resume")
        assert again.wait_for("ready")["games"] == [game_a]
        # It goes on from exactly what was stored (acknowledged or not yet): one log.
        game, stored_again = kill_mid_game(again)
        assert game == game_a and stored_again[: len(stored)] == stored
        last = start(0, "resume")
        assert last.wait_for("ready")["games"] == [game_a]
        done_a = last.wait_for("done")
        assert done_a["game"] == game_a
        assert done_a["actions"][: len(stored_again)] == stored_again

        for process in (b, last):
            assert process.stop() == 0, process.stderr()
            assert process.wait_for("stopped")["errors"] == []
        logged = [r for p in processes for r in p.of("log")]
        assert logged == [], logged

        # The database holds each game as the one process that finished it drove it.
        final = asyncio.run(_stored(pg_url, game_a, game_b))
        assert final[game_a] == ("finished", done_a["actions"])
        assert final[game_b] == ("finished", done_b["actions"])
        # No process but shard 0's ever drove game A, none but shard 1's game B.
        assert asyncio.run(_shard_of(pg_url, game_a)) == 0
        assert asyncio.run(_shard_of(pg_url, game_b)) == 1
        assert {r["game"] for r in b.of("ack")} == {game_b}
        assert {r["game"] for p in (a, again, last) for r in p.of("ack")} == {game_a}
    finally:
        for process in processes:
            if process.proc.poll() is None:
                process.proc.kill()
                process.proc.wait(timeout=WAIT_S)
