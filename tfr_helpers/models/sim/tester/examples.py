"""Example calls and expected values taken from a task's native benchmark tests (the sim tester's inputs)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tfr_helpers.records import Task


@dataclass(frozen=True)
class Example:
    """One ``assert <actual> == <expected>`` of the benchmark, rewritten to call the entry point by name.

    Attributes:
        actual: Source of the checked expression (``f(1, 2)`` or a wrapper such as ``set(f(xs))``).
        expected: Source of the expected value, as the benchmark states it (the reference agrees with it).
        args: Source of each positional argument of the entry-point call.
        wrapped: True when the entry-point call sits inside another expression.
        has_keywords: True when the call passes keyword or starred arguments.
    """

    actual: str
    expected: str
    args: tuple[str, ...]
    wrapped: bool
    has_keywords: bool


class _Rename(ast.NodeTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id == self.old:
            node.id = self.new
        return node


def _entry_call(expr: ast.expr, entry: str) -> ast.Call | None:
    """The entry-point call inside ``expr`` (itself, or the first one nested in it)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry:
            return node
    return None


def _only_literal_names(expr: ast.expr, entry: str) -> bool:
    """True when ``expr`` uses no names besides the entry point and builtins (so it stands alone)."""
    builtins = {
        "set",
        "sorted",
        "list",
        "tuple",
        "round",
        "str",
        "int",
        "float",
        "len",
        "abs",
        "dict",
        "frozenset",
        "True",
        "False",
        "None",
        "range",
        "math",
        "sum",
    }
    return all(n.id in builtins or n.id == entry for n in ast.walk(expr) if isinstance(n, ast.Name))


def extract_examples(task: Task) -> list[Example]:
    """Every ``assert ... == ...`` in the task's native tests whose left side calls the entry point.

    HumanEval's ``candidate`` is renamed to the entry point; MBPP asserts already use it.
    BigCodeBench (unittest) tasks give no examples: the tester wraps their test methods instead.

    Args:
        task: The task.

    Returns:
        The examples in benchmark order, duplicates removed (may be empty).
    """
    if task.test_format == "unittest":
        return []
    try:
        tree = ast.parse(task.tests)
    except SyntaxError:
        return []
    if task.test_format == "check":
        tree = _Rename("candidate", task.entry_point).visit(tree)
    seen: set[str] = set()
    examples: list[Example] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)):
            continue
        cmp = node.test
        if len(cmp.ops) != 1 or not isinstance(cmp.ops[0], ast.Eq):
            continue
        left, right = cmp.left, cmp.comparators[0]
        call = _entry_call(left, task.entry_point)
        if call is None or _entry_call(right, task.entry_point) is not None:
            continue
        if not (_only_literal_names(left, task.entry_point) and _only_literal_names(right, task.entry_point)):
            continue
        actual = ast.unparse(left)
        if actual in seen:
            continue
        seen.add(actual)
        examples.append(
            Example(
                actual=actual,
                expected=ast.unparse(right),
                args=tuple(ast.unparse(a) for a in call.args),
                wrapped=call is not left,
                has_keywords=bool(call.keywords) or any(isinstance(a, ast.Starred) for a in call.args),
            )
        )
    return examples


def unittest_methods(task: Task) -> tuple[str, list[str], list[str]]:
    """Split a BigCodeBench test module: (body without imports, import lines, test method names)."""
    tree = ast.parse(task.tests)
    imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    body = [
        n
        for n in tree.body
        if not isinstance(n, (ast.Import, ast.ImportFrom))
        and not (isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))
    ]
    methods = [
        f.name
        for c in body
        if isinstance(c, ast.ClassDef)
        for f in c.body
        if isinstance(f, ast.FunctionDef) and f.name.startswith("test")
    ]
    return "\n".join(ast.unparse(n) for n in body), imports, methods
