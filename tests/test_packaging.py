"""Packaging: every data file the packages read ships in a wheel (and so in the image)."""

from __future__ import annotations

import logging
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest

from agents.behaviour import _load, default_behaviour

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "agents", "bot")


def _package_data() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data: dict[str, list[str]] = config["tool"]["setuptools"].get("package-data", {})
    return data


def test_every_data_file_of_the_packages_is_declared_as_package_data() -> None:
    declared = _package_data()
    data_files = [
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        # (.so, .pyd: the playouts mypyc compiles, built by the install, not shipped data)
        if path.is_file()
        and path.suffix not in {".py", ".pyc", ".so", ".pyd"}
        and "__pycache__" not in path.parts
    ]
    assert any(path.name == "behaviour_fitted.json" for path in data_files)
    for path in data_files:
        package = path.relative_to(ROOT).parts[0]
        inside = path.relative_to(ROOT / package).as_posix()
        patterns = declared.get(package, [])
        assert any(fnmatch(inside, pattern) for pattern in patterns), (
            f"{path.relative_to(ROOT)} is not in [tool.setuptools.package-data]: "
            "a wheel would leave it out"
        )


def test_a_missing_fit_is_said_out_loud(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="agents.behaviour"):
        behaviour = _load(7, str(tmp_path / "gone.json"))
    assert np.array_equal(behaviour.vote_ja, default_behaviour(7).vote_ja)
    assert "No behaviour fit at" in caplog.text and "gone.json" in caplog.text
