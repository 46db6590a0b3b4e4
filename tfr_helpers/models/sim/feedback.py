"""Reading test-fail feedback as the simulated refiner and judge do: the test source, its assertion."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.S)
_START = re.compile(r"^(import |from |@given|@settings|def test)")


def test_source(feedback: str) -> str | None:
    """The generated test's source inside a feedback text.

    A fenced block holding ``def test`` wins; otherwise the longest parseable run of lines that starts at
    the first ``import``/``from``/``@given``/``def test`` line and contains ``def test``.

    Returns:
        The test module source, or None when the feedback holds no recognisable test.
    """
    for block in _FENCE.findall(feedback):
        if "def test" in block and _parses(block):
            return block
    lines = feedback.splitlines()
    for start, line in enumerate(lines):
        if not _START.match(line):
            continue
        for end in range(len(lines), start, -1):
            chunk = "\n".join(lines[start:end])
            if "def test" in chunk and _parses(chunk):
                return chunk
    return None


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


@dataclass(frozen=True)
class Expectation:
    """What a failing test demanded of one call of the entry point.

    Attributes:
        args: Source of the positional arguments of the call.
        expected: Source of the demanded result (None when an exception was demanded).
        exception: Name of the demanded exception (None when a result was demanded).
    """

    args: tuple[str, ...]
    expected: str | None
    exception: str | None


def expectation(test: str, entry: str) -> Expectation | None:
    """The first ``assert entry(...) == value`` (or expected-exception ``try``) in a test, if any."""
    try:
        tree = ast.parse(test)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.Eq):
            call = node.test.left
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == entry
                and not call.keywords
            ):
                return Expectation(tuple(ast.unparse(a) for a in call.args), ast.unparse(node.test.comparators[0]), None)
        if isinstance(node, ast.Try) and node.handlers and isinstance(node.handlers[0].type, ast.Name):
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, ast.Name)
                    and stmt.value.func.id == entry
                ):
                    return Expectation(tuple(ast.unparse(a) for a in stmt.value.args), None, node.handlers[0].type.id)
    return None
