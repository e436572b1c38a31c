"""The PostgreSQL test server's own promise: without the binaries, the postgres tests fail
and say what to install; they are never skipped."""

from __future__ import annotations

import importlib

import pytest

# Imported when a test runs, not at collection: the modules that use the server load it
# as a pytest plugin first (so pytest rewrites its asserts).
pytest_plugins = ["tests.bot.postgres_server"]


def test_missing_binaries_fail_and_name_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    postgres_server = importlib.import_module("tests.bot.postgres_server")
    monkeypatch.setattr(postgres_server.shutil, "which", lambda name: None)
    monkeypatch.setattr(postgres_server.glob, "glob", lambda pattern: [])
    with pytest.raises(pytest.fail.Exception) as failure:
        postgres_server.find_binaries()
    assert "initdb" in str(failure.value) and "apt-get install postgresql" in str(failure.value)


def test_the_machines_binaries_are_found() -> None:
    postgres_server = importlib.import_module("tests.bot.postgres_server")
    found = postgres_server.find_binaries()
    assert (found / "initdb").is_file() and (found / "pg_ctl").is_file()
