"""Live progress of a running stage: ``<run>/progress.json``, rewritten every second, and the tqdm bar's postfix.

The runner wraps each stage's work in :class:`StageProgress`; a daemon thread writes a :class:`Snapshot` (stage,
items done of total, model calls answered, sandbox runs, cost spent, and the same numbers at the stage's start)
so that anything outside the process can show the run as it goes: ``tfr run`` while papermill executes a
notebook's kernel, ``tfr stage`` in-process (:mod:`tfr_helpers.cli.live`). :func:`describe` turns a snapshot into
one line: ``generate_tests 40/120 | 3.1 calls/s | 0.0 sandbox runs/s | $0.0123 | 00:13 | ETA 00:26``
(elapsed in the stage, then the time left at the stage's pace so far).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfr_helpers.fsutil import atomic_write_text

PROGRESS_FILE = "progress.json"
"""Where a run's live progress is written (under the run directory)."""


@dataclass(frozen=True)
class Snapshot:
    """The state of the running stage at one moment (numbers of this process since it started)."""

    stage: str
    done: int
    """Items of the stage recorded (earlier invocations included)."""
    total: int
    calls: int
    """Model calls answered by this process (cache hits included)."""
    sandbox_runs: int
    cost_usd: float
    """Spent by this process's calls (cache hits are free)."""
    time: float
    stage_start: float
    done_at_start: int
    calls_at_start: int
    sandbox_at_start: int
    running: bool = True

    def rates(self) -> tuple[float, float, float | None]:
        """(calls/s, sandbox runs/s, seconds left or None) over the stage so far."""
        elapsed = max(self.time - self.stage_start, 1e-6)
        items = self.done - self.done_at_start
        eta = (self.total - self.done) * elapsed / items if items > 0 else None
        return (self.calls - self.calls_at_start) / elapsed, (self.sandbox_runs - self.sandbox_at_start) / elapsed, eta


def read_snapshot(run_dir: Path) -> Snapshot | None:
    """The run's last written snapshot, or None (not started, or a torn file)."""
    try:
        return Snapshot(**json.loads((Path(run_dir) / PROGRESS_FILE).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    hours = f"{seconds // 3600}:" if seconds >= 3600 else ""
    return f"{hours}{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def describe(snap: Snapshot) -> str:
    """One line: stage, done/total, calls and sandbox runs per second, running cost and ETA."""
    calls, runs, eta = snap.rates()
    if snap.done >= snap.total:
        left = "done"
    elif eta is not None:
        left = f"ETA {_clock(eta)}"
    else:  # no item finished yet in this invocation: say what is moving instead of an unknown ETA
        work = snap.sandbox_runs - snap.sandbox_at_start, snap.calls - snap.calls_at_start
        left = f"first items running: {work[0]} sandbox runs, {work[1]} calls so far (ETA once one finishes)"
    return (
        f"{snap.stage} {snap.done}/{snap.total} | {calls:.1f} calls/s | {runs:.1f} sandbox runs/s | "
        f"${snap.cost_usd:.4f} | {_clock(snap.time - snap.stage_start)} | {left}"
    )


class StageProgress:
    """Tracks one stage's items and writes snapshots every ``interval`` seconds while used as a context manager.

    Args:
        ctx: The run context (its counters and model client give calls, sandbox runs and cost).
        stage: Stage name.
        total: Items of the stage; ``done``: those already recorded.
    """

    def __init__(self, ctx: Any, stage: str, total: int, done: int, interval: float = 1.0) -> None:
        self._ctx, self._interval = ctx, interval
        self._path = ctx.store.root / PROGRESS_FILE
        calls, runs, _ = self._live()
        now = time.time()
        self._snap = Snapshot(stage, done, total, calls, runs, 0.0, now, now, done, calls, runs)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tfr-progress", daemon=True)

    def _live(self) -> tuple[int, int, float]:
        counts = self._ctx.call_counts()
        return counts.sent + counts.cached, self._ctx.counters.sandbox_runs, counts.spent_usd

    def snapshot(self) -> Snapshot:
        """The current state (live counters read now)."""
        calls, runs, cost = self._live()
        with self._lock:
            return dataclasses.replace(self._snap, calls=calls, sandbox_runs=runs, cost_usd=cost, time=time.time())

    def advance(self, items: int) -> None:
        """``items`` more items of the stage are recorded."""
        with self._lock:
            self._snap = dataclasses.replace(self._snap, done=self._snap.done + items)

    def postfix(self) -> str:
        """The tqdm postfix: calls and sandbox runs per second and the cost so far."""
        snap = self.snapshot()
        calls, runs, _ = snap.rates()
        return f"{calls:.1f} calls/s, {runs:.1f} runs/s, ${snap.cost_usd:.4f}"

    def write(self, running: bool = True) -> None:
        """Write the current snapshot (atomically)."""
        snap = dataclasses.replace(self.snapshot(), running=running)
        atomic_write_text(self._path, json.dumps(dataclasses.asdict(snap)))

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.write()
            except OSError:  # progress is a display: never let it break the run
                pass

    def __enter__(self) -> StageProgress:
        self.write()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.write(running=False)
