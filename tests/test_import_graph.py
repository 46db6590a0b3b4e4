"""The import graph of ``tfr_helpers`` has no cycle: every strongly connected component is one module.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import`` of a ``tfr_helpers``
module, at any depth (inside functions too), is an edge; imports under ``if TYPE_CHECKING:`` are left out (they
name types for the checker and never run, as import-linter's ``exclude_type_checking_imports``). ``from pkg import name``
is an edge to ``pkg.name`` when that is a module, else to ``pkg``. import-linter's contracts in
``pyproject.toml`` check the direction between folders; this test checks that no group of modules, wherever they
live, imports each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tfr_helpers

PACKAGE_DIR = Path(tfr_helpers.__file__).parent


def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = ("tfr_helpers", *path.relative_to(PACKAGE_DIR).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    modules = module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name if is_package else name.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}" if base else anchor
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in modules else base)
            for target in targets:
                if target.startswith("tfr_helpers"):
                    resolved = _resolve(target, modules)
                    if resolved and resolved != name:
                        graph[name].add(resolved)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively (each sorted; the list sorted by size, largest first)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return sorted(components, key=len, reverse=True)


def test_the_graph_sees_the_package() -> None:
    graph = import_graph()
    assert "tfr_helpers.records" in graph
    assert "tfr_helpers.records" in graph["tfr_helpers.pipeline.engine.store"]


def test_tarjan_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph)[0] == ["a", "b", "c"]


def test_no_import_cycle() -> None:
    cycles = [component for component in strongly_connected(import_graph()) if len(component) > 1]
    assert not cycles, "modules that import each other:\n" + "\n".join(", ".join(c) for c in cycles)
