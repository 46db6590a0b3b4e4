"""The execution cache: a program run is a function of what was run, so an identical run is never repeated.

The key of a run is the SHA-256 of (program text, test specs, limits with the seed, the sandbox's version, the
Python version, the installed distributions, the worker preload and whether programs drop root). The
sandbox's version is the hash of its own source files, so any change to how programs are run invalidates every
entry. Entries live in ``<cache dir>/executions/<2 hex>/<key>.json`` (``$TFR_CACHE_DIR`` or the user cache
directory), one file per run, written atomically: a header line ``tfr-exec 1 <sha256 of the body>`` and the
:class:`~tfr_helpers.records.ProgramRun` as JSON. An entry whose checksum, key or record does not match is a
miss (and is replaced by the new run), never a verdict.

Not cached: runs with a ``timeout`` or ``crashed`` outcome (their verdict depends on the machine's load and on
the wall-clock budget, so they run again), and the caller's reruns that must execute (``use=False``, the
reference's nondeterminism check). ``TFR_EXEC_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tfr_helpers.fsutil import atomic_write_bytes
from tfr_helpers.launch import cache_root
from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox.spec import Limits, TestSpec

Job = tuple[str, Sequence[TestSpec]]
MAGIC = b"tfr-exec 1 "
UNCACHEABLE = frozenset({"timeout", "crashed"})
"""Statuses whose verdict depends on the wall clock (load, budget), not on the program: never stored."""


def default_dir() -> Path:
    """``$TFR_CACHE_DIR/executions`` or ``<user cache dir>/tfr/executions``."""
    return cache_root() / "executions"


def enabled_by_env() -> bool:
    """False when ``TFR_EXEC_CACHE`` is ``0``, ``off``, ``false`` or ``no``."""
    return os.environ.get("TFR_EXEC_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


@cache
def sandbox_version() -> str:
    """Hash of everything besides the job that decides an outcome: sandbox sources, Python, installed packages."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted(here.glob("*.py")):
        if path.name != "cache.py":
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(sys.version.encode() + b"\0" + sys.executable.encode() + b"\0")
    from importlib.metadata import distributions  # only here: sandbox workers import this module's users

    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in distributions())
    h.update("\n".join(dists).encode())
    return h.hexdigest()


def spec_fields(spec: TestSpec) -> dict[str, object]:
    """A spec's fields as a job key holds them (a test without a budget of its own keys as it always did)."""
    fields = dataclasses.asdict(spec)
    for own in ("timeout_s", "memory_mb"):
        if fields.get(own) is None:
            fields.pop(own, None)
    return fields


def job_key(program: str, tests: Sequence[TestSpec], limits: Limits, context: str = "") -> str:
    """Content address of one run (``context``: the worker preload and privilege mode, see module doc)."""
    body = {
        "program": program,
        "tests": [spec_fields(t) for t in tests],
        "limits": dataclasses.asdict(limits),
        "sandbox": sandbox_version(),
        "context": context,
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


def cacheable(run: ProgramRun) -> bool:
    """True when no outcome depends on the wall clock (no timeout, no crash)."""
    statuses = [o.status for o in run.outcomes] + ([run.load_error.status] if run.load_error else [])
    return not any(s in UNCACHEABLE for s in statuses)


@dataclass
class CacheStats:
    """What the cache did in this process."""

    hits: int = 0
    """Runs served from the store."""
    misses: int = 0
    """Runs executed (not found, corrupt, or bypassed)."""
    corrupt: int = 0
    """Entries found but rejected (checksum, key or record mismatch); counted in misses too."""
    stored: int = 0
    """Runs written to the store."""
    deduplicated: int = 0
    """Jobs identical to another job of the same batch (run once, not counted as misses)."""


class ExecutionCache:
    """A content-addressed store of program runs.

    Args:
        root: Directory of the store (default :func:`default_dir`).
        enabled: Serve and store runs (default: :func:`enabled_by_env`); disabled, every job executes.
    """

    def __init__(self, root: Path | None = None, enabled: bool | None = None) -> None:
        self.root = root or default_dir()
        self.enabled = enabled_by_env() if enabled is None else enabled
        self.stats = CacheStats()
        self._lock = threading.Lock()

    def path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ProgramRun | None:
        """The stored run of ``key``, or None (absent or corrupt; a corrupt entry is counted)."""
        try:
            data = self.path(key).read_bytes()
        except OSError:
            return None
        header, _, body = data.partition(b"\n")
        try:
            ok = header.startswith(MAGIC) and header[len(MAGIC) :].decode() == hashlib.sha256(body).hexdigest()
            stored = json.loads(body) if ok else None
            if stored is None or stored.get("key") != key:
                raise ValueError("checksum or key mismatch")
            return ProgramRun.model_validate(stored["run"])
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            with self._lock:
                self.stats.corrupt += 1
            return None

    def put(self, key: str, run: ProgramRun) -> bool:
        """Store ``run`` under ``key`` if it is :func:`cacheable`; whether it was stored."""
        if not cacheable(run):
            return False
        body = json.dumps({"key": key, "run": run.model_dump(mode="json")}, sort_keys=True).encode()
        try:
            atomic_write_bytes(self.path(key), MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body, fsync=False)
        except OSError:
            return False  # a full or read-only disk costs a rerun later, never a result
        with self._lock:
            self.stats.stored += 1
        return True

    def run_many(
        self,
        jobs: Sequence[Job],
        limits: Limits,
        execute: Callable[[list[Job]], list[ProgramRun]],
        *,
        context: str = "",
        use: bool = True,
    ) -> list[ProgramRun]:
        """Results of ``jobs`` in order: stored runs are served, the others go to ``execute`` once each.

        Args:
            jobs: ``(program, tests)`` pairs.
            limits: The limits they run under (part of the key).
            execute: Runs a list of jobs (order preserved), e.g. ``Sandbox.run_many``; called at most once.
            context: Anything else that decides the outcome (worker preload, privilege mode).
            use: False to execute everything (neither served nor stored), e.g. a nondeterminism rerun.
        """
        if not jobs:
            return []
        if not (self.enabled and use):
            with self._lock:
                self.stats.misses += len(jobs)
            return list(execute(list(jobs)))
        keys = [job_key(p, t, limits, context) for p, t in jobs]
        found: dict[str, ProgramRun] = {}
        todo: dict[str, Job] = {}
        for key, job in zip(keys, jobs, strict=True):
            if key in found or key in todo:
                continue
            run = self.get(key)
            if run is not None:
                found[key] = run
            else:
                todo[key] = job
        with self._lock:  # batches may come from several threads
            self.stats.deduplicated += len(keys) - len(found) - len(todo)
            self.stats.hits += len(found)
            self.stats.misses += len(todo)
        if todo:
            for key, run in zip(todo, execute(list(todo.values())), strict=True):
                found[key] = run
                self.put(key, run)
        return [found[k] for k in keys]

    # management -------------------------------------------------------------------------------
    def entries(self) -> list[Path]:
        """Every entry file in the store."""
        return sorted(self.root.glob("??/*.json")) if self.root.is_dir() else []

    def size(self) -> tuple[int, int]:
        """(entries, bytes) in the store."""
        files = self.entries()
        return len(files), sum(f.stat().st_size for f in files)

    def clear(self) -> int:
        """Delete every entry; how many there were."""
        n = len(self.entries())
        if self.root.is_dir():
            shutil.rmtree(self.root)
        return n
