"""The bot/discord modules depend on each other one way: `app` wires the parts together
and nothing below it imports it back (issue 20, item 8). Read from the source with
`ast`, so imports under `if TYPE_CHECKING:` and inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "bot.discord"
ROOT = Path(__file__).resolve().parents[3]
DISCORD = ROOT / "bot" / "discord"


def _modules() -> dict[str, Path]:
    return {path.stem: path for path in sorted(DISCORD.glob("*.py")) if path.stem != "__init__"}


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute module an `ImportFrom` names, inside `package`."""
    if node.level == 0:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _imports(path: Path, package: str) -> set[str]:
    """Every module an import in `path` names (`from x import y`: x, and x.y)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    """bot/discord module -> the bot/discord modules it imports."""
    modules = _modules()
    return {
        name: {
            other
            for other in modules
            if other != name and f"{PACKAGE}.{other}" in _imports(path, PACKAGE)
        }
        for name, path in modules.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in `graph` (its modules in order), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_imports_are_read_including_type_checking_ones(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import texts\n"
        "if TYPE_CHECKING:\n"
        "    from .app import SecretHitlerBot\n"
        "def f() -> None:\n"
        "    from ..render import board_text\n",
        encoding="utf-8",
    )
    found = _imports(source, PACKAGE)
    assert {"bot.discord.texts", "bot.discord.app", "bot.render"} <= found


def test_a_cycle_is_found() -> None:
    assert _cycle({"app": {"commands"}, "commands": {"app"}}) == ["app", "commands", "app"]
    assert _cycle({"app": {"commands", "games"}, "commands": set(), "games": set()}) is None


def test_the_discord_modules_import_each_other_one_way() -> None:
    graph = _graph()
    assert {"app", "commands", "games"} <= graph.keys()
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


def test_nothing_below_the_app_imports_it() -> None:
    importers = sorted(name for name, imported in _graph().items() if "app" in imported)
    assert importers == []
    app = f"{PACKAGE}.app"
    outside = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "bot").rglob("*.py"))
        if path.parent != DISCORD
        and path.name not in ("cli.py", "__main__.py")
        and app in _imports(path, ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1]))
    ]
    assert outside == []
