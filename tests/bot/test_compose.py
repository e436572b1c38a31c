"""compose.yaml: PostgreSQL and two shard processes of the Dockerfile's image, each with a
health check; the shard processes' check is run here against a real server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.storage import GameScope, Storage

pytest_plugins = ["tests.bot.postgres_server"]
ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def test_compose_runs_two_shards_of_the_image_on_one_database() -> None:
    services = _compose()["services"]
    db = services["db"]
    assert db["image"].startswith("postgres:") and "healthcheck" in db
    assert any(v.endswith(":/var/lib/postgresql/data") for v in db["volumes"])
    shards = [services["shard-0"], services["shard-1"]]
    for shard in shards:
        assert shard["build"] == "." and (ROOT / "Dockerfile").is_file()
        env = shard["environment"]
        assert env["SHARD_COUNT"] == "2"
        assert (
            env["DATABASE_URL"].startswith("postgresql://") and "@db:5432/" in env["DATABASE_URL"]
        )
        assert shard["depends_on"]["db"]["condition"] == "service_healthy"
        assert shard["healthcheck"]["test"][0] == "CMD"
    assert sorted(s["environment"]["SHARD_IDS"] for s in shards) == ["0", "1"]


def _healthy(url: str, shard: int) -> bool:
    script = _compose()["services"]["shard-0"]["healthcheck"]["test"][3]
    env = {**os.environ, "DATABASE_URL": url, "SHARD_IDS": str(shard)}
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=60, check=False)
    return done.returncode == 0


@pytest.mark.postgres
async def test_a_shard_process_is_healthy_while_it_holds_its_shard(pg_url: str) -> None:
    async with await Storage.open(pg_url) as store:
        assert not _healthy(pg_url, 0)
        lease = await store.claim_shards(GameScope(True, 2, frozenset({0})))
        assert lease is not None
        assert _healthy(pg_url, 0) and not _healthy(pg_url, 1)
        lease.release()
        await store.recent_games()  # the release is done before the next transaction
        assert not _healthy(pg_url, 0)
