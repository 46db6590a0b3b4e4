"""Split a test-generation reply into self-contained test units, recording every test it does not keep."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from tfr_helpers.models.parse._text import bare_regions, compiles, fenced_blocks, strip_reasoning

_AUTO_IMPORTS = {
    "given": "from hypothesis import given",
    "st": "from hypothesis import strategies as st",
    "strategies": "from hypothesis import strategies",
    "settings": "from hypothesis import settings",
    "assume": "from hypothesis import assume",
    "example": "from hypothesis import example",
    "pytest": "import pytest",
    "math": "import math",
}
_TEST_FUNC = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(test\w*)", re.M)
_TEST_CLASS = re.compile(r"^class[ \t]+(Test\w*)", re.M)
_CHUNK_START = re.compile(r"^(?:def |async def |class |@|import |from \S+ import )")


@dataclass(frozen=True)
class ParsedTest:
    """One self-contained test unit: imports, the helpers it references and one ``test_*`` function."""

    name: str
    source: str


@dataclass(frozen=True)
class DroppedTest:
    """A test found in the reply and not kept, with the reason."""

    name: str
    reason: str


@dataclass(frozen=True)
class ParsedTests:
    """Tests split from one reply.

    ``error`` is set when no test could be used; ``dropped`` lists the tests the reply held but that were not
    kept (code that does not compile, tests beyond the requested count), so nothing is lost silently.
    """

    tests: list[ParsedTest] = field(default_factory=list)
    error: str | None = None
    dropped: list[DroppedTest] = field(default_factory=list)


def parse_tests(text: str | None, kind: str, entry_point: str, max_tests: int | None = None) -> ParsedTests:
    """Split a test-generation reply into one self-contained unit per ``def test_*`` function.

    Code is read as :func:`parse_code` reads it (``<think>`` dropped, fences with any Python tag or none,
    indented fences, several blocks, unfenced code amid prose). Each unit holds the module-level imports,
    the helper definitions and assignments (strategies, constants) the test references (transitively), then
    the test. Redefinitions of ``entry_point`` are dropped so the test runs against the code under test;
    common missing imports (hypothesis ``given``/``st``, ``pytest``) are added. A block that does not compile
    is read definition by definition, so one broken test does not lose its neighbours.

    Args:
        text: The raw reply (None for a failed call).
        kind: ``ebt`` or ``pbt`` (a PBT unit without ``@given`` is kept; the sandbox runs it as a plain test).
        entry_point: Name of the function under test.
        max_tests: Keep the first this many tests (in reply order); the rest are listed in ``dropped``.

    Returns:
        The tests in reply order, or an empty list and an error; ``dropped`` in either case.
    """
    if not text or not text.strip():
        return ParsedTests([], "empty response")
    module, dropped = _test_module(strip_reasoning(text.replace("\r\n", "\n")))
    if module is None:
        blocks = [b for b in fenced_blocks(text)[0] if b.python and b.body.strip()]
        error = "fenced code does not compile" if blocks else "no code block and the text is not Python"
        return ParsedTests([], error, dropped)
    tests, skipped = _split_units(module, entry_point)
    dropped += skipped
    if not tests:
        names = ", ".join(d.name for d in skipped)
        error = f"no test unit compiles ({names})" if skipped else f"no 'def test_...' function in the {kind} response"
        return ParsedTests([], error, dropped)
    if max_tests is not None and len(tests) > max_tests:
        reason = f"beyond the {max_tests} tests requested"
        dropped += [DroppedTest(t.name, reason) for t in tests[max_tests:]]
        tests = tests[:max_tests]
    return ParsedTests(tests, None, dropped)


def _test_module(answer: str) -> tuple[str | None, list[DroppedTest]]:
    """All the reply's test code as one module (None when there is none), and the tests that do not compile."""
    blocks, outside = fenced_blocks(answer)
    bodies = [b.body for b in blocks if b.python and b.body.strip()]
    parts: list[str] = []
    dropped: list[DroppedTest] = []
    for body in bodies:
        good, bad = _compiling_chunks(body)
        parts += good
        dropped += bad
    if not parts:
        parts = bare_regions(outside)
    return ("\n\n".join(parts) if parts else None), dropped


def _compiling_chunks(body: str) -> tuple[list[str], list[DroppedTest]]:
    """A block that compiles whole, or else its top-level definitions that compile one by one."""
    if compiles(body):
        return [body], []
    lines = body.splitlines()
    starts = [i for i, line in enumerate(lines) if _CHUNK_START.match(line) and (i == 0 or not lines[i - 1].startswith("@"))]
    bounds = list(zip([0, *starts], [*starts, len(lines)], strict=True))
    good, bad = [], []
    for lo, hi in bounds:
        chunk = "\n".join(lines[lo:hi]).strip("\n")
        if not chunk:
            continue
        if compiles(chunk):
            good.append(chunk)
        else:
            error = _syntax_error(chunk)
            names = _TEST_FUNC.findall(chunk) or _TEST_CLASS.findall(chunk)
            bad += [DroppedTest(name, f"does not compile ({error})") for name in names]
    return good, bad


def _syntax_error(src: str) -> str:
    try:
        compile(src, "<reply>", "exec")
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg}"
    except ValueError as exc:
        return f"ValueError: {exc}"
    return "compiles"


def _span(lines: list[str], node: ast.stmt) -> str:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(lines[start - 1 : node.end_lineno])


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _imported_names(node: ast.stmt) -> set[str]:
    names = getattr(node, "names", [])
    return {(a.asname or a.name).split(".")[0] for a in names}


def _split_units(module: str, entry_point: str) -> tuple[list[ParsedTest], list[DroppedTest]]:
    """One self-contained unit per test function (or test method), and the units that do not compile."""
    tree = ast.parse(module)
    lines = module.splitlines()
    body = [n for n in tree.body if entry_point not in _defined_names(n)]
    imports = [n for n in body if isinstance(n, (ast.Import, ast.ImportFrom))]
    units = [u for n in body for u in _test_units(n)]
    unit_nodes = {id(node) for node, _, _ in units}
    helpers = [n for n in body if _defined_names(n) and id(n) not in unit_nodes]
    imported = set().union(*(_imported_names(n) for n in imports)) if imports else set()
    out: list[ParsedTest] = []
    skipped: list[DroppedTest] = []
    seen: dict[str, int] = {}
    for node, name, tail in units:
        # helpers referenced transitively, kept in source order
        needed: set[int] = set()
        frontier = _used_names(node)
        while True:
            new = {i for i, h in enumerate(helpers) if i not in needed and _defined_names(h) & frontier}
            if not new:
                break
            needed |= new
            frontier = set().union(*(_used_names(helpers[i]) for i in new))
        used = _used_names(node).union(*(_used_names(helpers[i]) for i in needed))
        defined = imported.union(*(_defined_names(helpers[i]) for i in needed))
        parts = [_AUTO_IMPORTS[n] for n in sorted(used - defined) if n in _AUTO_IMPORTS]
        parts += [_span(lines, n) for n in imports]
        parts += [_span(lines, helpers[i]) for i in sorted(needed)] + [_span(lines, node), tail]
        source = "\n".join(p for p in parts if p).strip() + "\n"
        if not compiles(source):
            skipped.append(DroppedTest(name, f"does not compile with its imports and helpers ({_syntax_error(source)})"))
            continue
        seen[name] = seen.get(name, 0) + 1
        out.append(ParsedTest(name if seen[name] == 1 else f"{name}_{seen[name]}", source))
    return out, skipped


def _test_units(node: ast.stmt) -> list[tuple[ast.stmt, str, str]]:
    """``(node, test name, wrapper source)`` for a ``test_*`` function or each test method of a Test class.

    A class's methods become module-level ``test_<Class>_<method>`` wrappers (unittest classes run through
    ``TestCase(method).debug()``, so setUp/tearDown apply; plain pytest-style classes are instantiated).
    """
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
        return [(node, node.name, "")]
    if not (isinstance(node, ast.ClassDef) and node.name.startswith("Test")):
        return []
    is_unittest = any("TestCase" in ast.unparse(b) for b in node.bases)
    out: list[tuple[ast.stmt, str, str]] = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
            name = f"test_{node.name}_{item.name}"
            if is_unittest:
                call = f"    {node.name}({item.name!r}).debug()"
            else:
                call = (
                    f"    _case = {node.name}()\n"
                    f"    getattr(_case, 'setup_method', lambda m: None)(_case.{item.name})\n"
                    f"    _case.{item.name}()"
                )
            out.append((node, name, f"\n\ndef {name}():\n{call}\n"))
    return out
