"""Reading sandbox runs: test-file kind detection, a run's first problem, one-line outcome summaries."""

from __future__ import annotations

import ast

from tfr_helpers.errors import SandboxError
from tfr_helpers.records import ProgramRun, TestOutcome
from tfr_helpers.sandbox.spec import TestSpec, TestSpecKind


def detect_kind(source: str) -> TestSpecKind:
    """Kind of a test file.

    ``unittest`` if it defines a TestCase class, ``function`` if it defines ``test_*`` functions,
    else ``snippet``.

    Raises:
        SandboxError: The test file is not valid Python.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise SandboxError(f"the tests file is not valid Python (line {exc.lineno}: {exc.msg}); fix it") from exc
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
            (isinstance(b, ast.Attribute) and b.attr == "TestCase") or (isinstance(b, ast.Name) and b.id == "TestCase")
            for b in node.bases
        ):
            return "unittest"
    if any(isinstance(n, ast.FunctionDef) and n.name.startswith("test") for n in tree.body):
        return "function"
    return "snippet"


def tests_from_file(source: str, name: str = "tests") -> list[TestSpec]:
    """One spec for a whole test file, kind auto-detected."""
    return [TestSpec(name=name, source=source, kind=detect_kind(source))]


def describe(outcome: TestOutcome) -> str:
    """One line for an outcome: ``name: status ExcType: message (expected ..., got ...)``."""
    text = f"{outcome.name}: {outcome.status}"
    if outcome.exc_type:
        text += f" {outcome.exc_type}"
    if outcome.message:
        text += f": {outcome.message.splitlines()[0][:200]}"
    if outcome.expected is not None:
        text += f" (expected {outcome.expected[:100]}, got {(outcome.actual or '')[:100]})"
    return text


def first_problem(run: ProgramRun) -> TestOutcome | None:
    """The load error or the first non-passed outcome of a run (None when it passed)."""
    if run.load_error is not None:
        return run.load_error
    return next((o for o in run.outcomes if o.status != "passed"), None)
