"""A unified diff of two programs that is right whatever their final newline."""

from __future__ import annotations

import difflib


def _lines(text: str) -> list[str]:
    """``text``'s lines, each ending in a newline: a last line without one would run into the next diff line
    (``-    return n+    return n * n``)."""
    return [line if line.endswith("\n") else line + "\n" for line in text.splitlines(keepends=True)]


def unified_diff(before: str, after: str, before_name: str, after_name: str) -> str:
    """The unified diff of ``before`` against ``after`` ("" when they are equal but for the final newline)."""
    return "".join(difflib.unified_diff(_lines(before), _lines(after), before_name, after_name))
