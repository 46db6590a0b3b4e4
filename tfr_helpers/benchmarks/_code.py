"""Small AST helpers shared by the loaders: function headers and imported module names."""

from __future__ import annotations

import ast
import copy
import warnings


def parse_module(source: str) -> ast.Module:
    """Parse Python source without the SyntaxWarnings/DeprecationWarnings old benchmark code triggers.

    Args:
        source: Python source.

    Returns:
        The module's AST.

    Raises:
        SyntaxError: The source does not parse.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
        return ast.parse(source)


def function_header(source: str, name: str) -> str:
    """Return the ``def`` header of top-level function ``name`` in ``source`` (normalised by ``ast.unparse``).

    Args:
        source: A Python module.
        name: Function to find.

    Returns:
        The header without decorators or body, e.g. ``def add(a, b):`` (may span lines for long signatures).

    Raises:
        SyntaxError: ``source`` does not parse.
        LookupError: No top-level function is named ``name``.
    """
    for node in parse_module(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            stub = copy.copy(node)
            stub.body = [ast.Pass()]
            stub.decorator_list = []
            return ast.unparse(stub).rsplit("\n", 1)[0]
    raise LookupError(f"no top-level function {name!r}")


def imported_modules(source: str) -> list[str]:
    """Return the sorted top-level module names a module imports (``import a.b`` -> ``a``; no relative ones).

    Args:
        source: A Python module; an unparsable one yields ``[]``.

    Returns:
        Sorted, deduplicated names.
    """
    try:
        tree = parse_module(source)
    except SyntaxError:
        return []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return sorted(names)
