"""Reading JSON-lines files line by line, with errors that name the file and the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tfr_helpers.errors import DataError


def read_jsonl(path: Path, fix: str) -> list[tuple[int, dict[str, Any]]]:
    """Read every non-empty line of a JSONL file as a JSON object.

    Args:
        path: The file.
        fix: What the user should do when a line is bad, appended to the message.

    Returns:
        ``(line number, object)`` pairs in file order (line numbers are 1-based).

    Raises:
        DataError: The file cannot be read, or a line is not a JSON object (naming the file and line).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {path} ({exc}); {fix}") from exc
    out: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{lineno}: not valid JSON ({exc.msg}); {fix}") from exc
        if not isinstance(value, dict):
            raise DataError(f"{path}:{lineno}: a JSON {type(value).__name__}, not an object; {fix}")
        out.append((lineno, value))
    return out


def field(path: Path, lineno: int, record: dict[str, Any], key: str, fix: str) -> str:
    """Return a required string field of a line.

    Args:
        path: The file (for the message).
        lineno: The line number (for the message).
        record: The line's object.
        key: The field.
        fix: What the user should do, appended to the message.

    Returns:
        The field's value.

    Raises:
        DataError: The field is missing or not a string.
    """
    if key not in record:
        raise DataError(f"{path}:{lineno}: missing field {key!r}; {fix}")
    value = record[key]
    if not isinstance(value, str):
        raise DataError(f"{path}:{lineno}: field {key!r} is a {type(value).__name__}, not a string; {fix}")
    return value
