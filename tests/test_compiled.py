"""The playout modules that setup.py compiles with mypyc are the sources as they stand.

Python imports a module's C extension before its .py file: an extension built before the
source last changed would run old code, silently. And on a machine with a C compiler
the install compiles them (a failed compile falls back to the interpreted modules, which
would only show as slower searches): both are checked here.
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def hot_modules() -> list[str]:
    """The paths setup.py compiles (its `HOT` list, read without running setup.py)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "HOT" for t in node.targets
        ):
            return [str(path) for path in ast.literal_eval(node.value)]
    raise AssertionError("setup.py names no HOT modules")


def test_no_compiled_module_is_older_than_its_source() -> None:
    for path in hot_modules():
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        where = Path(module.__file__ or "")
        if where.suffix == ".so":
            source = ROOT / path
            assert where.stat().st_mtime >= source.stat().st_mtime, (
                f"{path} changed after it was compiled: run `pip install -e .` again"
            )


def test_the_playouts_are_compiled_where_a_c_compiler_is() -> None:
    if os.environ.get("SHBOT_PURE") or shutil.which("cc") is None:
        return  # interpreted by choice, or by necessity
    interpreted = [
        path
        for path in hot_modules()
        if not str(
            importlib.import_module(path.removesuffix(".py").replace("/", ".")).__file__
        ).endswith(".so")
    ]
    assert not interpreted, f"not compiled (run `pip install -e .`): {interpreted}"
