"""The packages' shape holds: imports point down (engine <- agents <- bot), no module of
them imports another that (directly or not) imports it back. Every import counts: at
module level, inside functions and under `TYPE_CHECKING` alike, since a circle hidden in
a local or type-only import is still a circle a reader has to untangle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("engine", "agents", "bot")  # each may import only those before it


def _modules() -> dict[str, Path]:
    modules = {}
    for package in LAYERS:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imported(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The names `node` imports, absolute (`pkg.mod` or `pkg.mod.name`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if path.name != "__init__.py":
            base.pop()  # a module's package
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [f"{prefix}.{alias.name}" for alias in node.names]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in _imported(module, path, node):
                while name not in modules and "." in name:
                    name = name.rsplit(".", 1)[0]  # `pkg.mod.Name` -> `pkg.mod`
                if name in modules and name != module:
                    found.add(name)
        graph[module] = found
    return graph


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def test_imports_point_down_only() -> None:
    upward = sorted(
        (module, target)
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert upward == []


def test_no_module_imports_itself_round_a_circle() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    circles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, path)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert circles == []


def test_the_import_graph_reads_relative_and_absolute_imports() -> None:
    graph = _graph()
    # It reads relative imports: the engine's game imports its views, and agents the engine.
    assert "engine.views" in graph["engine.game"]
    assert any(target.startswith("engine") for target in graph["agents.belief"])
    assert any(target.startswith("agents") for target in graph["bot.table_talk"])
