"""The local executor: one ``Sandbox`` worker pool in this process (the default)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfr_helpers.sandbox import Sandbox

if TYPE_CHECKING:
    from tfr_helpers.executors import Job
    from tfr_helpers.records import ProgramRun
    from tfr_helpers.sandbox.pool import Sandbox
    from tfr_helpers.sandbox.spec import Limits


class LocalExecutor:
    """Runs batches on this machine's sandbox pool, started on first use.

    Args:
        limits: Default limits of the sandbox.
        workers: Workers per kind (None: one per core).
        preload: Modules the workers import once (None: the sandbox's light/heavy default).
    """

    def __init__(self, limits: Limits, workers: int | None = None, preload: tuple[str, ...] | None = None) -> None:
        self._limits, self._workers, self._preload = limits, workers, preload
        self._sandbox: Sandbox | None = None
        self._lock = threading.Lock()

    def run_many(self, jobs: Sequence[Job], desc: str, limits: Limits) -> list[ProgramRun]:
        """Run ``jobs`` in the local sandbox; results in input order."""
        with self._lock:  # batches may come from several threads (overlapping chunks)
            if self._sandbox is None:
                self._sandbox = Sandbox(self._limits, workers=self._workers, preload=self._preload)
        return list(self._sandbox.run_many(jobs, progress=False, desc=desc, limits=limits))

    def take_timings(self) -> list[dict[str, Any]]:
        """Timings of the runs made since the last call (``Sandbox.take_timings``)."""
        return self._sandbox.take_timings() if self._sandbox is not None else []

    def cpu_times(self) -> tuple[float, float]:
        """User and system CPU seconds of the sandbox's live workers and their programs (``Sandbox.cpu_times``)."""
        return self._sandbox.cpu_times() if self._sandbox is not None else (0.0, 0.0)

    def close(self) -> None:
        """Stop the workers."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
