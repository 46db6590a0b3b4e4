"""Reading ``assert <call> == <expected>`` pairs out of generated tests and the examples out of a task's prompt.

A test (or prompt example) of the form ``assert <call> == <expected>``, where exactly one side calls the entry
point, gives an :class:`AssertPair`: the call expression (the test's input) and the expected expression. The
prompt's examples are HumanEval's docstring examples (``>>> f(x)`` followed by the value, or one line
``f(x) == y``, ``f(x) -> y``, ``f(x) => y``, ``f(x) ➞ y``) and the examples a task shows beside its text
(:attr:`~tfr_helpers.records.TaskView.examples`: MBPP's first benchmark assert; BigCodeBench's ``Example:`` doctest
session, :func:`doctest_examples`). A unittest ``self.assertEqual(<call>, <expected>)`` gives a pair as an
``assert`` does. Values are compared after
:func:`normalise`: literals are evaluated, floats rounded to 6 significant digits, tuples read as lists, strings
stripped of surrounding whitespace.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_ARROW = re.compile(r"^\s*(?P<call>.+?\))\s*(?:==>|==|➞|=>|->|=|returns|should return|should be)\s*(?P<value>.+?)\s*$")


@dataclass(frozen=True)
class AssertPair:
    """One ``<call> == <expected>`` comparison: both sides unparsed (so spacing does not matter)."""

    call: str
    expected: str
    call_on_left: bool
    setup: str = ""
    """Statements to run before the comparison (a doctest session's earlier lines: imports, seeds, assignments)."""


_EQUAL_METHODS = frozenset({"assertEqual", "assertEquals", "assertListEqual", "assertTupleEqual", "assertDictEqual"})
"""unittest methods read as ``==`` comparisons of their first two arguments."""


def _calls(node: ast.AST, entry_point: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == entry_point for n in ast.walk(node))


def _sides(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """The two sides of ``assert a == b`` or of ``self.assertEqual(a, b)`` (and its list/tuple/dict kin)."""
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
        cmp = node.test
        if len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.Eq):
            return cmp.left, cmp.comparators[0]
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _EQUAL_METHODS
        and len(node.args) >= 2
    ):
        return node.args[0], node.args[1]
    return None


def _pair(sides: tuple[ast.expr, ast.expr], entry_point: str) -> AssertPair | None:
    left, right = sides
    if _calls(left, entry_point) == _calls(right, entry_point):
        return None
    if _calls(left, entry_point):
        return AssertPair(ast.unparse(left), ast.unparse(right), True)
    return AssertPair(ast.unparse(right), ast.unparse(left), False)


MEMO_SIZE = 1 << 16
"""Parsed tests and prompts kept per process: a feature extraction reads each of a task's tests once per feedback
on it (its agreement with the model's other tests), so one parse serves them all."""


@lru_cache(maxsize=MEMO_SIZE)
def _assert_pairs(source: str, entry_point: str) -> tuple[AssertPair, ...]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    pairs = (_pair(sides, entry_point) for sides in map(_sides, ast.walk(tree)) if sides is not None)
    return tuple(p for p in pairs if p is not None)


def assert_pairs(source: str, entry_point: str) -> list[AssertPair]:
    """The ``assert <call> == <expected>`` comparisons of a test, and its unittest ``self.assertEqual(<call>,
    <expected>)`` ones (either order), in order (empty when none or it does not parse).

    Memoised per (source, entry point) (:data:`MEMO_SIZE`); each call returns a new list."""
    return list(_assert_pairs(source, entry_point))


@lru_cache(maxsize=MEMO_SIZE)
def asserts_in(source: str) -> int:
    """How many assert statements a test holds (0 when it does not parse); memoised like :func:`assert_pairs`."""
    try:
        return sum(isinstance(n, ast.Assert) for n in ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError):
        return 0


def _expression(text: str) -> str | None:
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError):
        return None


def _docstring_examples(prompt: str, entry_point: str) -> list[AssertPair]:
    lines = prompt.splitlines()
    out = []
    for i, line in enumerate(lines):
        text = line.strip()
        if text.startswith(">>>") and " == " in text:
            text = text[3:]
        elif text.startswith(">>>"):
            call = _expression(text[3:])
            value = next((v.strip() for v in lines[i + 1 : i + 2] if v.strip() and not v.strip().startswith(">>>")), None)
            expected = _expression(value) if value is not None else None
            if call and expected and f"{entry_point}(" in call:
                out.append(AssertPair(call, expected, True))
            continue
        match = _ARROW.match(text)
        if match and f"{entry_point}(" in match["call"]:
            value = match["value"].rstrip(".,;").rsplit(" = ", 1)[-1]
            call, expected = _expression(match["call"]), _expression(value)
            if call and expected:
                out.append(AssertPair(call, expected, True))
    return out


def _literal_like(text: str) -> bool:
    """An expected output a comparison can use: an expression of constants and containers, no name, no ``...``."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return not any(
        isinstance(n, (ast.Name, ast.Call, ast.Attribute)) or (isinstance(n, ast.Constant) and n.value is Ellipsis)
        for n in ast.walk(tree)
    )


def _statement(text: str) -> str | None:
    try:
        return ast.unparse(ast.parse(text))
    except (SyntaxError, ValueError):
        return None


def doctest_examples(block: str, entry_point: str) -> list[AssertPair]:
    """The examples of a doctest session (BigCodeBench's ``Example:`` block): each ``>>>`` expression followed by
    its output becomes ``<expression> == <output>``, run after the session's earlier statements (its ``setup``).

    An output that is not a literal (a DataFrame's table, ``<class 'list'>``, a list ending in ``...``) gives no
    example; ``>>> print(x)`` with a one-line output compares ``str(x)`` with that line. The session must call the
    entry point somewhere up to the example.
    """
    lines = block.splitlines()
    setup: list[str] = []
    out = []
    i = 0
    while i < len(lines):
        text = lines[i].strip()
        i += 1
        if not text.startswith(">>>"):
            continue
        source = text[3:].strip()
        while i < len(lines) and lines[i].strip().startswith("... "):
            source += "\n" + lines[i].strip()[4:]
            i += 1
        output = []
        while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
            output.append(lines[i].strip())
            i += 1
        statement = _statement(source)
        if statement is None:
            continue
        calls_entry = f"{entry_point}(" in "\n".join([*setup, statement])
        if not output:
            setup.append(statement)
            continue
        call = _expression(source)
        if call is None or not calls_entry:
            continue
        value = "\n".join(output)
        if call.startswith("print(") and len(output) == 1:
            inner = _expression(call[len("print(") : -1]) if call.endswith(")") else None
            if inner is not None:
                out.append(AssertPair(f"str({inner})", repr(value), True, "\n".join(setup)))
        elif _literal_like(value):
            expected = _expression(value)
            if expected is not None:
                out.append(AssertPair(call, expected, True, "\n".join(setup)))
    return out


def prompt_examples(prompt: str, entry_point: str, shown: tuple[str, ...] = ()) -> list[AssertPair]:
    """The input/value examples of a task's prompt: its docstring examples, then the examples it shows beside its
    text (an assert line, or a doctest session: :func:`doctest_examples`).

    Memoised per (prompt, entry point, shown) like :func:`assert_pairs`; each call returns a new list."""
    return list(_prompt_examples(prompt, entry_point, tuple(shown)))


@lru_cache(maxsize=MEMO_SIZE)
def _prompt_examples(prompt: str, entry_point: str, shown: tuple[str, ...]) -> tuple[AssertPair, ...]:
    pairs = _docstring_examples(prompt, entry_point)
    for line in shown:
        pairs.extend(doctest_examples(line, entry_point) if ">>>" in line else assert_pairs(line, entry_point))
    unique: dict[str, AssertPair] = {}
    for p in pairs:
        unique.setdefault(p.call, p)
    return tuple(unique.values())


def literal(text: str | None) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is a Python literal, else ``(False, None)``."""
    if text is None:
        return False, None
    try:
        return True, ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def normalise(value: Any) -> Any:
    """A value with tolerable differences removed (see the module doc)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((repr(normalise(v)) for v in value))
    return value


def same_value(a: str | None, b: str | None) -> bool:
    """Whether two value texts are the same value after :func:`normalise` (their text when not literals)."""
    (ok_a, va), (ok_b, vb) = literal(a), literal(b)
    if ok_a and ok_b:
        try:
            return bool(normalise(va) == normalise(vb))
        except (TypeError, ValueError):
            return False
    return (a or "").strip() == (b or "").strip()
