"""A real PostgreSQL server for the tests, started from the machine's own binaries.

`pg_server` (session scope) runs `initdb` and `pg_ctl start` in a temporary directory on a
free local port, and stops and removes it after the session; `pg_url` (per test) is a
fresh database on it. The tests that use them are marked `postgres` (`pytest -m postgres`).

PostgreSQL refuses to run as root: as root (CI), the server runs as the `postgres`
system user (through `runuser`), which owns the temporary directory; any other user
runs it as itself. Missing binaries are a failure that says what to install, never a
skip: CI must really run these tests. (pytest-postgresql would start the server too, but
not drop root by itself, and this is shorter than configuring it to.)
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

USER = "shbot"  # the server's superuser, trusted on the local address only


@dataclass(frozen=True)
class PgServer:
    """A running test server: its binaries, port, and the OS user it runs as."""

    bin: Path
    port: int
    run_as: list[str]  # command prefix: ["runuser", "-u", "postgres", "--"] as root

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        port = str(self.port)
        _run([str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", port, "-U", USER, name])
        return self.url(name)

    def sql(self, database: str, statement: str) -> str:
        """Run one statement with psql as the superuser; its output (unaligned)."""
        return _run(
            [
                str(self.bin / "psql"),
                "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", database,
                "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement,
            ]
        )  # fmt: skip


def find_binaries() -> Path:
    """The directory of initdb, pg_ctl and createdb, or a failure naming what to install."""
    candidates = []
    found = shutil.which("pg_ctl")
    if found:
        candidates.append(Path(os.path.realpath(found)).parent)
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for directory in candidates:
        if all((directory / tool).is_file() for tool in ("initdb", "pg_ctl", "createdb", "psql")):
            return directory
    pytest.fail(
        "The postgres tests need PostgreSQL's server binaries (initdb, pg_ctl, createdb,"
        " psql) on PATH or in /usr/lib/postgresql/*/bin: install the postgresql package"
        " (Debian/Ubuntu: apt-get install postgresql).",
        pytrace=False,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server for the whole test session (see the module's docstring)."""
    binaries = find_binaries()
    run_as: list[str] = []
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None  # no disk flushes to wait on
    root = Path(tempfile.mkdtemp(prefix="shbot-pg-", dir=base))
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail(
                "The postgres tests run as root, and PostgreSQL refuses root: they need the"
                " `postgres` system user (created by the postgresql package).",
                pytrace=False,
            )
        os.chown(root, owner.pw_uid, owner.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data, log = root / "data", root / "server.log"
    try:
        _run([*run_as, str(binaries / "initdb"), "-D", str(data), "-U", USER,
              "--auth=trust", "-E", "UTF8", "--no-sync"])  # fmt: skip
        for attempt in itertools.count():  # a port taken between the probe and the start
            port = _free_port()
            options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=200"
            try:
                _run([*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log),
                      "-o", options, "-w", "-t", "60", "start"])  # fmt: skip
                break
            except RuntimeError as exc:
                if attempt >= 2:
                    raise RuntimeError(
                        f"PostgreSQL did not start: {log.read_text()[-2000:]}"
                    ) from exc
        yield PgServer(binaries, port, run_as)
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
                check=False,
            )
        shutil.rmtree(root, ignore_errors=True)


_names = itertools.count()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A fresh, empty database on the test server: its URL."""
    return pg_server.create_database(f"test_{os.getpid()}_{next(_names)}")
