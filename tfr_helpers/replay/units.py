"""Test units and reply texts: how replayed tests and programs are written for the pipeline's parsers.

An assert becomes one pytest-style unit, ``def test_assert_<k>():`` with the assert as its body (indented
line by line, as CodeT packs its asserts into a function). A test sample's reply is one fenced Python block
holding its compiling units, which :func:`tfr_helpers.models.parse_tests` splits back into exactly those
units; a code reply is the bare program, which :func:`tfr_helpers.models.parse_code` returns unchanged.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

from tfr_helpers.records import TestKind
from tfr_helpers.replay.records import ReplayCode, ReplayTest, ReplayTestSample
from tfr_helpers.replay.syntax import check

FENCE = "```"


def compiles(source: str) -> bool:
    """Whether Python source compiles (syntax only; nothing runs).

    Args:
        source: Python source.

    Returns:
        True when ``compile(source, ..., "exec")`` succeeds (answered from the dataset's table of earlier checks
        while one is loaded, :mod:`tfr_helpers.replay.syntax`).
    """
    return check(source, _compiles)


def _compiles(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<replay>", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


def assert_unit(name: str, text: str) -> str:
    """Wrap an assert statement (or any statement block) as the body of a test function.

    Args:
        name: The function's name (``test_...``).
        text: The statement(s), unindented.

    Returns:
        ``def <name>():`` followed by the text with every line indented by four spaces (whitespace-only lines
        become empty, as the parser's dedent leaves them), ending in a newline.
    """
    lines = [f"    {line}" if line.strip() else "" for line in text.strip().split("\n")]
    return f"def {name}():\n" + "\n".join(lines) + "\n"


def assert_sample(index: int, kind: TestKind, asserts: Sequence[str], *, empty_note: str) -> ReplayTestSample:
    """Build a test sample from assert statements, one unit per assert (``test_assert_0``, ...).

    Args:
        index: The sample's index within its task and kind.
        kind: ``ebt`` or ``pbt``.
        asserts: The statements, in order.
        empty_note: The note to record when ``asserts`` is empty.

    Returns:
        The sample; units that do not compile are kept with ``compiles=False``, left out of ``module`` and
        named in ``note``.
    """
    tests = []
    for k, text in enumerate(asserts):
        source = assert_unit(f"test_assert_{k}", text)
        tests.append(ReplayTest(name=f"test_assert_{k}", source=source, text=text, compiles=compiles(source)))
    left_out = [t.name for t in tests if not t.compiles]
    note = empty_note if not tests else None
    if left_out:
        note = f"left out, they do not compile as test functions: {', '.join(left_out)}"
    module = "\n\n".join(t.source for t in tests if t.compiles)
    return ReplayTestSample(index=index, kind=kind, tests=tests, module=module, note=note)


def tests_reply(sample: ReplayTestSample, header: str) -> str:
    """The reply text of a tester request: the sample's module in a fenced block, then a note.

    Args:
        sample: The test sample.
        header: One line saying where the tests come from (written above the block, outside the code).

    Returns:
        The text; a sample without compiling tests gives a Python comment only (the parser then reports
        that the reply holds no test).
    """
    if not sample.module.strip():
        return f"# {header}\n# no test: {sample.note or 'the sample holds no test'}\n"
    body = sample.module.rstrip("\n")
    if FENCE in body:  # cannot be fenced: bare code, the parser reads it whole (header and note as comments)
        note = f"\n# note: {sample.note}" if sample.note else ""
        return f"# {header}\n{body}{note}\n"
    note = f"\n\nNote: {sample.note}" if sample.note else ""
    return f"{header}\n\n{FENCE}python\n{body}\n{FENCE}{note}\n"


def _fence(text: str) -> str:
    """A backtick fence longer than any backtick run in ``text`` (at least three)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def code_reply(code: ReplayCode, header: str) -> str:
    """The reply text of a coder request: a header line, then the program in a fence.

    A program that compiles goes in a ``python`` fence, from which :func:`tfr_helpers.models.parse_code`
    returns it with only line ends (CRLF -> LF) and whitespace-only lines normalised. One that does not
    compile goes in a ``text`` fence, so the parser finds no code instead of salvaging a compiling part: a
    published sample that does not compile stays code that fails to load. (Bare, unfenced code is not used:
    the parser trims what it takes for prose around bare code, e.g. a stray ``import torch`` line.)

    Args:
        code: The code sample.
        header: One line saying where the code comes from (outside the fence).

    Returns:
        The reply text.
    """
    fence = _fence(code.program)
    body = code.program.rstrip("\n")
    if code.compiles:
        return f"{header}\n\n{fence}python\n{body}\n{fence}\n"
    return f"{header}\n{NOT_COMPILING}\n\n{fence}text\n{body}\n{fence}\n"


NOT_COMPILING = "It does not compile as published; shown as text, not as code."
_TEXT_FENCE = re.compile(r"^(`{3,})text\n(.*)\n\1$", re.S | re.M)


def published_program(text: str) -> str | None:
    """The program of a code reply that holds a sample which does not compile (see :func:`code_reply`).

    The pipeline runs such a program as published, so it counts as generated code that fails to load.

    Args:
        text: A replay provider's code reply.

    Returns:
        The program (ending in a newline), or None when the reply is not one of a non-compiling sample.
    """
    if NOT_COMPILING not in text:
        return None
    found = _TEXT_FENCE.search(text)
    return found.group(2) + "\n" if found else None
