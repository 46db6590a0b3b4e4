"""Syntax checks of a replay dataset's programs and tests, remembered on disk from one process to the next.

Loading CodeT's dataset checks that each of its 46,010 programs and extracted asserts compiles (seconds of CPU),
and every process that loads it (each ``tfr`` command, each notebook kernel) did so again. While a
:func:`remembered` block is active, :func:`tfr_helpers.replay.units.compiles` answers from a table kept in
``$TFR_CACHE_DIR/replay-syntax/`` (the user cache without it), one file per dataset whose name holds the sha256 of
the dataset's verified files, the adapters' :data:`RECORDS_VERSION <tfr_helpers.replay.load.RECORDS_VERSION>` and
the Python version (``compile`` follows the interpreter's grammar); the table maps a digest of each source to
whether it compiles. A missing, unreadable or foreign file is rebuilt; a cache that cannot be written is
skipped: the checks then run as before. Answers are the same either way.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.launch import cache_root

FORMAT = "tfr-replay-syntax-1"
"""The table's format."""

_TABLE: contextvars.ContextVar[dict[str, bool] | None] = contextvars.ContextVar("replay_syntax", default=None)


def table_file(name: str, parts: list[str]) -> Path:
    """Where the table of dataset ``name`` built from ``parts`` (its files' sha256, the records' version) lives."""
    key = json.dumps([sorted(parts), list(sys.version_info[:3]), sys.implementation.name])
    return cache_root() / "replay-syntax" / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def _digest(source: str) -> str:
    return hashlib.blake2b(source.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _read(path: Path) -> dict[str, bool]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("compiles"), dict):
        return {}
    return {str(k): bool(v) for k, v in doc["compiles"].items()}


@contextmanager
def remembered(path: Path) -> Iterator[None]:
    """Answer :func:`check` from the table at ``path`` within the block; write it back if the block added to it."""
    table = _read(path)
    size = len(table)
    token = _TABLE.set(table)
    try:
        yield
    finally:
        _TABLE.reset(token)
    if len(table) != size:
        try:
            atomic_write_text(path, json.dumps({"format": FORMAT, "compiles": table}), fsync=False)
        except OSError:
            pass  # a read-only cache: the next process checks again


def check(source: str, compiles: Callable[[str], bool]) -> bool:
    """``compiles(source)``, answered from the active table when one is (see :func:`remembered`)."""
    table = _TABLE.get()
    if table is None:
        return compiles(source)
    key = _digest(source)
    known = table.get(key)
    if known is None:
        known = table[key] = compiles(source)
    return known
