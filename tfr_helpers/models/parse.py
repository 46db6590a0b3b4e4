"""Parse model responses into code, individual tests and judge decisions; never raises on bad text."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Literal

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_CODE_LANGS = {"", "python", "py", "python3", "py3"}
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


@dataclass(frozen=True)
class ParsedCode:
    """Code extracted from a response; ``code`` is None and ``error`` says why when nothing was usable."""

    code: str | None
    error: str | None = None


@dataclass(frozen=True)
class ParsedTest:
    """One self-contained test unit: imports, the helpers it references and one ``test_*`` function."""

    name: str
    source: str


@dataclass(frozen=True)
class ParsedTests:
    """Tests split from one response; ``error`` is set when none could be used (or notes skipped ones)."""

    tests: list[ParsedTest] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class ParsedDecision:
    """A judge's decision and the reasoning written before it."""

    decision: Literal["accept", "reject", "undecided"]
    reasoning: str | None = None


def _compiles(src: str) -> bool:
    try:
        compile(src, "<response>", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


def _defines(src: str, name: str) -> bool:
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return False
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in ast.walk(tree)
    )


def _blocks(text: str) -> list[str]:
    return [m.group(2).strip("\n") for m in _FENCE.finditer(text) if m.group(1).lower() in _CODE_LANGS]


def _bare_code(text: str) -> str | None:
    """The text itself if it compiles, else the text from its first line that looks like code."""
    lines = text.strip("\n").splitlines()
    for i, line in enumerate(lines):
        if i == 0 or re.match(r"(def |class |import |from |@|async def )", line):
            candidate = "\n".join(lines[i:]).strip("\n")
            if candidate and _compiles(candidate):
                return candidate
    return None


def parse_code(text: str | None, entry_point: str | None = None) -> ParsedCode:
    """Extract the program from a response.

    Picks, among fenced python blocks that compile, the longest one defining ``entry_point`` (the last on a
    tie);
    without fences, the bare text when it compiles.

    Args:
        text: The raw response (None for a failed call).
        entry_point: Function the code must define; when given and no block defines it, that is the error.

    Returns:
        ``ParsedCode(code, None)`` or ``ParsedCode(None, error)``.
    """
    if not text or not text.strip():
        return ParsedCode(None, "empty response")
    blocks = [b for b in _blocks(text) if b.strip()]
    candidates = [b for b in blocks if _compiles(b)] if blocks else []
    if not blocks:
        bare = _bare_code(text)
        candidates = [bare] if bare else []
    if not candidates:
        what = "fenced code does not compile" if blocks else "no code block and the text is not Python"
        return ParsedCode(None, what)
    if entry_point:
        defining = [c for c in candidates if _defines(c, entry_point)]
        if not defining:
            return ParsedCode(None, f"no code block defines {entry_point!r}")
        candidates = defining
    best = max(range(len(candidates)), key=lambda i: (len(candidates[i]), i))
    return ParsedCode(candidates[best].strip() + "\n", None)


# -- tests -------------------------------------------------------------------------------------------
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


def _is_import(node: ast.stmt) -> bool:
    return isinstance(node, (ast.Import, ast.ImportFrom))


def _imported_names(node: ast.stmt) -> set[str]:
    names = getattr(node, "names", [])
    return {(a.asname or a.name).split(".")[0] for a in names}


def _test_module(text: str) -> tuple[str | None, str | None]:
    blocks = [b for b in _blocks(text) if b.strip()]
    if blocks:
        good = [b for b in blocks if _compiles(b)]
        if not good:
            return None, "fenced code does not compile"
        return "\n\n".join(good), None
    bare = _bare_code(text)
    return (bare, None) if bare else (None, "no code block and the text is not Python")


def parse_tests(text: str | None, kind: str, entry_point: str) -> ParsedTests:
    """Split a test-generation response into one self-contained unit per ``def test_*`` function.

    Each unit holds the module-level imports, the helper definitions and assignments (strategies, constants)
    the test references (transitively), then the test. Redefinitions of ``entry_point`` are dropped so the
    test runs against the code under test; common missing imports (hypothesis ``given``/``st``, ``pytest``)
    are added.

    Args:
        text: The raw response (None for a failed call).
        kind: ``ebt`` or ``pbt`` (a PBT unit without ``@given`` is kept; the sandbox runs it as a plain test).
        entry_point: Name of the function under test.

    Returns:
        The tests in response order, or an empty list and an error.
    """
    if not text or not text.strip():
        return ParsedTests([], "empty response")
    module, err = _test_module(text)
    if module is None:
        return ParsedTests([], err)
    tree = ast.parse(module)
    lines = module.splitlines()
    body = [n for n in tree.body if entry_point not in _defined_names(n)]
    imports = [n for n in body if _is_import(n)]
    units = [u for n in body for u in _test_units(n)]
    unit_nodes = {id(node) for node, _, _ in units}
    helpers = [n for n in body if _defined_names(n) and id(n) not in unit_nodes]
    if not units:
        return ParsedTests([], f"no 'def test_...' function in the {kind} response")
    imported = set().union(*(_imported_names(n) for n in imports)) if imports else set()
    out: list[ParsedTest] = []
    skipped: list[str] = []
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
        if not _compiles(source):
            skipped.append(name)
            continue
        seen[name] = seen.get(name, 0) + 1
        out.append(ParsedTest(name if seen[name] == 1 else f"{name}_{seen[name]}", source))
    if not out:
        return ParsedTests([], f"no test unit compiles ({', '.join(skipped)})")
    return ParsedTests(out, f"skipped tests that do not compile: {', '.join(skipped)}" if skipped else None)


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


# -- judge decisions ---------------------------------------------------------------------------------
_EXPLICIT = re.compile(
    r"^[\W_]*(?:(?:(?:my|the|final|overall)\s+)*(?:decision|verdict|answer|judg(?:e)?ment)[\W_]*)?"
    r"(accept|reject)(?:ed)?[\W_]*$",
    re.I,
)
_WORD = re.compile(r"\b(accept|reject)(?:s|ed|ing)?\b", re.I)


def parse_decision(text: str | None) -> ParsedDecision:
    """Read a judge's Accept/Reject.

    The last line that is an explicit verdict (``Accept``, ``**Reject**``, ``Decision: Accept``...) wins.
    Without such a line, the decision is the one word used in the text; both or neither give ``undecided``.

    Args:
        text: The raw response (None for a failed call).

    Returns:
        The decision and the reasoning before it (None when there is none).
    """
    if not text or not text.strip():
        return ParsedDecision("undecided", None)
    lines = text.strip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        match = _EXPLICIT.match(lines[i].strip())
        if match:
            reasoning = "\n".join(lines[:i]).strip() or None
            return ParsedDecision(match.group(1).lower(), reasoning)  # type: ignore[arg-type]
    words = {m.group(1).lower() for m in _WORD.finditer(text)}
    if len(words) == 1:
        return ParsedDecision(words.pop(), text.strip())  # type: ignore[arg-type]
    return ParsedDecision("undecided", text.strip())
