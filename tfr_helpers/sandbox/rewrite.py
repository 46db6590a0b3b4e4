"""Make failed comparisons explain themselves: pytest-style assert rewriting and unittest capture.

``assert actual == expected`` in TEST source is rewritten so that, when it fails, the raised
``AssertionError`` carries the reprs of both sides (``exc._tfr_cmp = (actual, expected)``).
``unittest.TestCase.assertEqual`` and friends are wrapped the same way (first = actual, second = expected).
Only test code is rewritten; the program under test is executed as written.
"""

from __future__ import annotations

import ast
import re
import unittest
from collections.abc import Callable
from typing import Any

CMP_ATTR = "_tfr_cmp"
REPR_CAP = 1000
_OPS: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_AssertionError = AssertionError  # the class as it was before any program ran
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")


def mask_addresses(text: str) -> str:
    """``text`` with every object address of a default repr (``<generator object f at 0x7f...>``) written
    ``at 0x...``: an address changes from run to run, so a message or repr that carried it would make the same
    test's feedback (and the prompts built from it) differ between two identical runs."""
    return _ADDRESS.sub("at 0x...", text) if "0x" in text else text


def safe_repr(value: Any, cap: int = REPR_CAP) -> str:
    """``repr(value)`` capped at ``cap`` characters; never raises."""
    try:
        text = repr(value)
    except BaseException as exc:  # noqa: BLE001 - hostile __repr__
        text = f"<repr failed: {type(exc).__name__}>"
    text = mask_addresses(text)
    return text if len(text) <= cap else text[: cap - 3] + "..."


class _Rewriter(ast.NodeTransformer):
    """Turn ``assert L <op> R[, msg]`` into ``if not _tfr_cmp_(L, R, op): raise _tfr_fail_(msg)``."""

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPS):
            return node
        op = _OPS[type(test.ops[0])]
        call = ast.Call(
            func=ast.Name("_tfr_cmp_", ast.Load()),
            args=[test.left, test.comparators[0], ast.Constant(op)],
            keywords=[],
        )
        msg = node.msg if node.msg is not None else ast.Constant(None)
        fail_call = ast.Call(ast.Name("_tfr_fail_", ast.Load()), [msg], [])
        fail = ast.Raise(exc=fail_call, cause=None)
        negated = ast.UnaryOp(ast.Not(), call)
        new = ast.If(test=negated, body=[fail], orelse=[])
        # locate only the nodes made here (so callers need no whole-tree ast.fix_missing_locations)
        made = [call, call.func, call.args[2], fail_call, fail_call.func, fail, negated, new]
        if node.msg is None:
            made.append(msg)
        for n in made:
            ast.copy_location(n, node)
        return new


_REWRITER = _Rewriter()
_BLOCKS = ("body", "orelse", "finalbody")


def _rewrite_block(stmts: list[ast.stmt]) -> None:
    """Rewrite the asserts of a statement list in place, descending only into nested statement lists.

    Equivalent to ``_Rewriter().visit(tree)`` (statements occur only in these lists, never inside
    expressions) but it skips the expression nodes, which are most of a test module (literal tables of
    inputs and expected outputs): ~3x less Python work per forked child.
    """
    for i, node in enumerate(stmts):
        if isinstance(node, ast.Assert):
            stmts[i] = _REWRITER.visit_Assert(node)  # type: ignore[assignment,call-overload]
            continue
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if block and isinstance(block, list):
                _rewrite_block(block)
        for sub in getattr(node, "handlers", None) or getattr(node, "cases", None) or ():
            _rewrite_block(sub.body)


def compile_test(source: str, filename: str) -> Any:
    """Compile test source with comparison asserts rewritten (falls back to plain compile)."""
    tree = ast.parse(source, filename)
    if "assert" in source:
        _rewrite_block(tree.body)
    return compile(tree, filename, "exec")


def assert_helpers() -> dict[str, Callable[..., Any]]:
    """Fresh ``_tfr_cmp_``/``_tfr_fail_`` for a test namespace (one underscore: no name mangling)."""
    last: list[tuple[str, str, str]] = []
    ops: dict[str, Callable[[Any, Any], Any]] = {
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
        "is": lambda a, b: a is b,
        "is not": lambda a, b: a is not b,
        "in": lambda a, b: a in b,
        "not in": lambda a, b: a not in b,
    }

    def cmp(left: Any, right: Any, op: str) -> bool:
        result = bool(ops[op](left, right))
        if not result:
            last[:] = [(safe_repr(left), safe_repr(right), op)]
        return result

    def fail(msg: Any) -> BaseException:
        actual, expected, op = last[0] if last else ("?", "?", "==")
        exc = _AssertionError(msg if msg is not None else f"assert {actual} {op} {expected}")
        setattr(exc, CMP_ATTR, (actual, expected))
        return exc

    return {"_tfr_cmp_": cmp, "_tfr_fail_": fail}


_WRAPPED = (
    "assertEqual",
    "assertAlmostEqual",
    "assertListEqual",
    "assertTupleEqual",
    "assertDictEqual",
    "assertSetEqual",
    "assertSequenceEqual",
    "assertCountEqual",
    "assertMultiLineEqual",
)


def _wrap(method: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: Any, first: Any, second: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, first, second, *args, **kwargs)
        except _AssertionError as exc:
            if not hasattr(exc, CMP_ATTR):
                setattr(exc, CMP_ATTR, (safe_repr(first), safe_repr(second)))
            raise

    wrapper.__wrapped__ = method  # type: ignore[attr-defined]
    wrapper.__name__ = method.__name__
    return wrapper


def patch_unittest() -> None:
    """Wrap the comparison asserts of ``unittest.TestCase`` once per process (idempotent)."""
    for name in _WRAPPED:
        method = getattr(unittest.TestCase, name)
        if not hasattr(method, "__wrapped__"):
            setattr(unittest.TestCase, name, _wrap(method))
