"""What a generated test's source says, read from its syntax tree (never from a regex over its text).

Two questions the labels need: does the test *expect* an exception (``pytest.raises``, ``assertRaises``,
a ``try``/``except`` around a call), and does it rely on pytest features the sandbox's harness does not
provide (fixtures, ``@pytest.mark.parametrize``), so that its failure says nothing about the test's oracle.
Prose and comments never count: ``# except when empty`` is not an ``except`` clause.
"""

from __future__ import annotations

import ast
from functools import lru_cache

_RAISES_CALLS = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
_UNSUPPORTED_MARKS = frozenset({"parametrize", "usefixtures"})
_GIVEN = frozenset({"given", "example", "settings", "seed", "reproduce_failure"})


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _name(node: ast.AST) -> str:
    """The last name of a call's or a decorator's target (``pytest.raises`` -> ``raises``)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _has_call(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) for stmt in stmts for n in ast.walk(stmt))


@lru_cache(maxsize=4096)
def expects_exception(source: str) -> bool:
    """True when the test states that an exception is expected: a ``pytest.raises`` / ``assertRaises*``
    call or context manager, or a ``try`` block that makes a call and has an ``except`` clause."""
    tree = _parse(source)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node) in _RAISES_CALLS:
            return True
        if isinstance(node, ast.Try | ast.TryStar) and node.handlers and _has_call(node.body):
            return True
    return False


def _test_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level ``test*`` functions (the ones the harness calls with no arguments)."""
    return [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")]


@lru_cache(maxsize=4096)
def unsupported_feature(source: str) -> str | None:
    """The pytest feature the harness does not provide that the test relies on, or None.

    The harness calls every module-level ``test*`` function with no arguments (Hypothesis's ``@given``
    supplies its own), so a fixture argument, ``@pytest.fixture`` or ``@pytest.mark.parametrize`` /
    ``usefixtures`` cannot work there.
    """
    tree = _parse(source)
    if tree is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                if _name(deco) == "fixture":
                    return "pytest fixture"
                if _name(deco) in _UNSUPPORTED_MARKS:
                    return f"pytest.mark.{_name(deco)}"
    for fn in _test_functions(tree):
        if any(_name(d) in _GIVEN for d in fn.decorator_list):
            continue
        args = fn.args
        if args.posonlyargs or args.args or args.kwonlyargs:
            required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
            kw_required = sum(d is None for d in args.kw_defaults)
            if required > 0 or kw_required > 0:
                return "pytest fixture argument"
    return None
