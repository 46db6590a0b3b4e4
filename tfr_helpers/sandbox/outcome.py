"""Outcome fields of a test (or the program's load) that raised: its message, its trimmed traceback and, for a
rewritten assertion, the compared values, naming no path of this machine.

Runs inside the forked child (:mod:`tfr_helpers.sandbox.runner`), imported once by the worker before it forks:
it imports nothing the worker has not loaded. A message or traceback names the working directory as ``.`` and
the interpreter's and the harness's files by a placeholder (:func:`machine_paths`, set per child in
:data:`MACHINE_PATHS`), so feedback does not depend on where the project or Python lives.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tfr_helpers.sandbox.rewrite import CMP_ATTR, mask_addresses, safe_repr

_AssertionError = AssertionError  # captured: the code under test may replace the builtin
MESSAGE_CAP = 2000


def _trim_tb(exc: BaseException, keep: set[str]) -> tuple[str, bool]:
    """Traceback lines of frames in the program or test files, and whether the program is among them."""
    lines, in_program, tb = [], False, exc.__traceback__
    program = next((p for p in keep if p.endswith("solution.py")), "")
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in keep:
            in_program = in_program or code.co_filename == program
            lines.append(f'  File "{os.path.basename(code.co_filename)}", line {tb.tb_lineno}, in {code.co_name}')
            try:
                import linecache  # only when a traceback is shown: this module runs in every sandbox child

                src = linecache.getline(code.co_filename, tb.tb_lineno).strip()
            except Exception:  # noqa: BLE001
                src = ""
            if src:
                lines.append(f"    {src}")
        tb = tb.tb_next
    head = "Traceback (most recent call last):\n" if lines else ""
    return head + "\n".join(lines), in_program


_HARNESS_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MACHINE_PATHS: list[tuple[str, str]] = []
"""(path prefix, what a message says instead): where this machine keeps the program, Python and the harness."""


def machine_paths(workdir: str) -> list[tuple[str, str]]:
    """The path prefixes that depend on the machine or on where the project lives, longest first: a message
    names the working directory as ``.``, the interpreter's and the harness's files by a placeholder."""
    pairs = [(workdir.rstrip("/") + "/", ""), (workdir.rstrip("/"), ".")]
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix, sys.exec_prefix)):
        pairs.append((prefix.rstrip("/") + "/", "<python>/"))
    pairs.append((_HARNESS_ROOT.rstrip("/") + "/", "<harness>/"))
    return sorted(pairs, key=lambda p: -len(p[0]))


def scrub(text: str) -> str:
    """``text`` with every machine-dependent path prefix replaced (see :func:`machine_paths`) and every object
    address masked (:func:`~tfr_helpers.sandbox.rewrite.mask_addresses`)."""
    for prefix, instead in MACHINE_PATHS:
        if prefix in text:
            text = text.replace(prefix, instead)
    return mask_addresses(text)


def exc_outcome(name: str, exc: BaseException, keep: set[str], **extra: Any) -> dict[str, Any]:
    """Outcome fields for a test that raised ``exc`` (message and traceback name no machine path)."""
    message = safe_repr(exc, MESSAGE_CAP) if not str(exc) else str(exc)[:MESSAGE_CAP]
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list):
        message = (message + "\n" + "\n".join(str(n) for n in notes))[:MESSAGE_CAP]
    if isinstance(exc, BaseExceptionGroup):  # e.g. Hypothesis's distinct falsifying examples: say each one
        for sub in exc.exceptions[:5]:
            sub_notes = getattr(sub, "__notes__", None)
            text = "\n".join(str(n) for n in sub_notes) if isinstance(sub_notes, list) else ""
            message = (message + f"\n{type(sub).__name__}: {str(sub)[:200]}" + (f"\n{text}" if text else ""))[:MESSAGE_CAP]
    message = scrub(message)
    tb, in_program = _trim_tb(exc, keep)
    tb = scrub(tb)
    exc_type = type(exc).__name__
    cmp = getattr(exc, CMP_ATTR, None) if isinstance(exc, _AssertionError) else None
    return dict(
        name=name,
        status="failed" if isinstance(exc, _AssertionError) else "error",
        exc_type=exc_type,
        message=message,
        traceback=(tb + f"\n{exc_type}: {message}")[: 4 * MESSAGE_CAP] if tb else None,
        expected=cmp[1] if cmp else None,
        actual=cmp[0] if cmp else None,
        in_code_under_test=in_program,
        **extra,
    )
