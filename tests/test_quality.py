"""The style bar is part of the suite: ruff clean everywhere, mypy --strict on engine/,
agents/ and bot/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_is_clean() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_is_mypy_strict() -> None:
    result = _run("mypy", "--strict", "engine")
    assert result.returncode == 0, result.stdout + result.stderr


def test_agents_are_mypy_strict() -> None:
    result = _run("mypy", "--strict", "agents")
    assert result.returncode == 0, result.stdout + result.stderr


def test_bot_is_mypy_strict() -> None:
    result = _run("mypy", "--strict", "bot")
    assert result.returncode == 0, result.stdout + result.stderr
