"""Build hook: compile the search's hot loop with mypyc when the machine can.

Everything else about the package is in pyproject.toml. The modules below run every
playout of every AI decision; mypyc (part of mypy, which already checks them with
--strict) compiles the same typed Python to a C extension, about 1.7 times faster per
playout on this project's machines (bench/results/README.md, "Compiled playouts").
The decisions are the same either way: compiled or interpreted, it is one code.

A machine without a C compiler, or a build told `SHBOT_PURE=1`, installs the same
modules interpreted: the extensions are optional, and a failed compile is not a
failed install.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup

# The playout loop, the fast simulator it steps and the search trees it feeds.
HOT = [
    "engine/fastsim.py",
    "agents/playouts.py",
    "agents/tree.py",
    "agents/model_search.py",
    "agents/so_tree.py",
]


def compiled() -> list[Any]:
    """The hot modules as optional C extensions, or none (interpreted)."""
    if os.environ.get("SHBOT_PURE"):
        return []
    try:
        from mypyc.build import mypycify

        extensions = mypycify(HOT, opt_level="3")
    except (Exception, SystemExit) as exc:  # mypyc missing or refusing: interpreted
        print(f"shbot: not compiling the playouts ({exc!r}); they run interpreted", file=sys.stderr)
        return []
    for extension in extensions:
        extension.optional = True  # no compiler: interpreted, not a failed install
    return extensions


setup(ext_modules=compiled())
