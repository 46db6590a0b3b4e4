"""A run's human-readable artifacts (prompts, replies, code, tests, execution records): one append-only JSON
lines file per stage, ``artifacts/<stage>.jsonl``, instead of a file each.

Each line is one artifact, ``{"path": <run-relative path>, "text": <its text>}``, the path first. Records keep
pointing at the path (``prompt_path``, ``record_path``...), as when every artifact was a file of its own;
:func:`read_artifact` finds its text: a file of that path where one exists (a run directory of the former
layout), else the last line of that path in the logs (a stage rerun after a kill appends its artifacts again).
A torn last line (a process killed mid-write) is skipped on read and ended before the next append, the rule of
the checkpoints; the store syncs the logs before it appends a checkpoint line, so a recorded record never points
at an artifact a crash could lose. A finished run's logs are gzip-compressed (``<stage>.jsonl.gz``,
:mod:`tfr_helpers.logfiles`): they read the same, and a later append puts the log back in plain form first.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from tfr_helpers import logfiles

ARTIFACTS_DIR = "artifacts"
"""Directory of the stages' artifact logs in a run directory."""
_PREFIX = b'{"path": '
_DECODER = json.JSONDecoder()


class ArtifactLog:
    """Appends the artifacts of one run directory to its stages' logs (thread-safe: chunks run in threads).

    Args:
        root: The run directory.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._files: dict[str, BinaryIO] = {}
        self._dirty: set[str] = set()
        self._lock = threading.Lock()

    def path(self, stage: str) -> Path:
        """The log file of ``stage``."""
        return self.root / ARTIFACTS_DIR / f"{stage}.jsonl"

    def write(self, stage: str, rel: str, text: str) -> None:
        """Append one artifact to the log of ``stage`` (flushed to the operating system, synced by :meth:`sync`)."""
        line = (json.dumps({"path": rel, "text": text}, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
        with self._lock:
            fh = self._files.get(stage) or self._open(stage)
            fh.write(line)
            fh.flush()
            self._dirty.add(stage)

    def _open(self, stage: str) -> BinaryIO:
        path = self.path(stage)
        path.parent.mkdir(parents=True, exist_ok=True)
        logfiles.prepare_append(path)  # a finished run's compressed log: appended to in plain form
        fh = open(path, "ab+")  # noqa: SIM115 - kept open for the run's appends, closed by close()
        if fh.tell() > 0:  # a torn line left by a killed writer must not swallow the next artifact
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                fh.write(b"\n")
        self._files[stage] = fh
        return fh

    def sync(self) -> None:
        """fsync every log appended to since the last sync (before a checkpoint records what points at them)."""
        with self._lock:
            for stage in self._dirty:
                os.fsync(self._files[stage].fileno())
            self._dirty.clear()

    def close(self) -> None:
        """Sync and close the logs."""
        self.sync()
        with self._lock:
            for fh in self._files.values():
                fh.close()
            self._files.clear()


def _logs(run: Path) -> tuple[tuple[str, int, int], ...]:
    found = []
    for log in logfiles.logs_in(run / ARTIFACTS_DIR):
        where = logfiles.stored(log)
        try:
            if where is not None:
                found.append((str(where), where.stat().st_size, where.stat().st_mtime_ns))
        except FileNotFoundError:  # compressed meanwhile: the next read finds it
            continue
    return tuple(found)


@lru_cache(maxsize=2)
def _content(name: str, _size: int, _mtime: int) -> bytes:
    """The content of a compressed log (by name, size and time: read again once it changed)."""
    return logfiles.read_bytes(logfiles.plain_path(Path(name)))


def _lines(name: str, size: int, mtime: int) -> Iterator[bytes]:
    if name.endswith(logfiles.GZ_SUFFIX):
        yield from _content(name, size, mtime).splitlines(keepends=True)
        return
    with open(name, "rb") as fh:
        yield from fh


def _line_at(name: str, size: int, mtime: int, offset: int) -> bytes:
    if name.endswith(logfiles.GZ_SUFFIX):
        data = _content(name, size, mtime)
        end = data.find(b"\n", offset)
        return data[offset : end + 1 if end >= 0 else len(data)]
    with open(name, "rb") as fh:
        fh.seek(offset)
        return fh.readline()


@lru_cache(maxsize=8)
def _index(logs: tuple[tuple[str, int, int], ...]) -> dict[str, tuple[str, int]]:
    """Artifact path -> (log file, offset of its last line), from the logs' names, sizes and times."""
    index: dict[str, tuple[str, int]] = {}
    for name, size, mtime in logs:
        offset = 0
        for line in _lines(name, size, mtime):
            if line.startswith(_PREFIX) and line.endswith(b"\n"):
                try:
                    rel, _ = _DECODER.raw_decode(line[len(_PREFIX) :].decode("utf-8", "surrogatepass"))
                except (ValueError, UnicodeDecodeError):
                    rel = None
                if isinstance(rel, str):
                    index[rel] = (name, offset)
            offset += len(line)
    return index


def artifact_index(run_dir: Path | str) -> dict[str, tuple[str, int]]:
    """Every artifact path in the run's logs -> (its log file, the offset of its last line)."""
    return _index(_logs(Path(run_dir)))


def read_artifact(run_dir: Path | str, rel: str | None) -> str | None:
    """The text of the artifact ``rel`` of a run: its file (a run of the former layout), else its last line in
    the stage logs; None when neither holds it (or the line does not decode: a torn line)."""
    if not rel:
        return None
    run = Path(run_dir)
    path = run / rel
    if path.is_file():
        return path.read_text(encoding="utf-8", errors="replace")
    for _ in range(3):  # a log compressed (or put back in plain form) meanwhile is found again
        logs = _logs(run)
        try:
            where = _index(logs).get(rel)
            if where is None:
                return None
            size, mtime = next((size, mtime) for name, size, mtime in logs if name == where[0])
            line = _line_at(where[0], size, mtime, where[1])
            break
        except FileNotFoundError:
            continue
    else:
        return None
    try:
        text = json.loads(line.decode("utf-8", "surrogatepass"))["text"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return text if isinstance(text, str) else None


def artifact_location(run_dir: Path | str, rel: str | None) -> Path | None:
    """The file that holds the artifact ``rel``: its own file, or its stage's log (None: not recorded)."""
    if not rel:
        return None
    run = Path(run_dir)
    if (run / rel).is_file():
        return run / rel
    where = artifact_index(run).get(rel)
    return Path(where[0]) if where else None
