"""Live progress on the terminal and in logs while ``tfr run`` / ``tfr stage`` work: reads ``<run>/progress.json``.

The stages write the snapshot (:mod:`tfr_helpers.pipeline.engine.progress`), in this process (``tfr stage``) or in a
notebook's kernel (``tfr run``); a thread here polls it. On a TTY one status line is redrawn in place every
``interval`` seconds; otherwise (a log file, CI) a plain line is printed when the state changed and at most every
``log_every`` seconds, and once at the end of each stage.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from tfr_helpers.models.batch import BatchState
from tfr_helpers.pipeline.engine.progress import Snapshot, describe, read_snapshot
from tfr_helpers.pipeline.engine.seed_dirs import live_run


class LiveProgress:
    """Polls a run directory's progress snapshot and prints it (see the module docstring)."""

    def __init__(
        self,
        run_dir: Path,
        stream: TextIO | None = None,
        interval: float = 1.0,
        log_every: float = 10.0,
        prefix: Callable[[], str] = lambda: "",
    ) -> None:
        self.run_dir = Path(run_dir)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval, self.log_every, self.prefix = interval, log_every, prefix
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tfr-live", daemon=True)
        self._last: Snapshot | None = None
        self._printed: Snapshot | None = None
        self._last_print = 0.0
        self._drawn = False

    def poll(self) -> None:
        """Read the snapshot once and print it if there is something new to show."""
        run, seed = live_run(self.run_dir)  # a multi-seed run: the seed working now
        snap = read_snapshot(run)
        if snap is None or snap == self._last:
            return
        self._last = snap
        line = self.prefix() + seed + describe(snap)
        if snap.running:
            line += "".join(f" | batch {b}" for b in BatchState(run, snap.stage).pending())
        if self.tty:  # redraw in place (cut to the width: a wrapped line cannot be redrawn); a finished stage stays
            width = shutil.get_terminal_size().columns - 1
            self.stream.write("\r\x1b[K" + line[:width] + ("" if snap.running else "\n"))
            self._drawn = snap.running
        else:
            printed, now = self._printed, time.monotonic()
            new_stage = printed is None or (printed.stage, printed.stage_start) != (snap.stage, snap.stage_start)
            finished = not snap.running and (new_stage or (printed is not None and printed.running))
            moved = printed is None or (snap.done, snap.calls, snap.sandbox_runs) != (
                printed.done,
                printed.calls,
                printed.sandbox_runs,
            )
            if new_stage or finished or (moved and now - self._last_print >= self.log_every):
                self.stream.write(line + "\n")
                self._printed, self._last_print = snap, now
        self.stream.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            with contextlib.suppress(Exception):  # a display never breaks the run
                self.poll()

    def start(self) -> LiveProgress:
        """Start polling on a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop polling, show the final state and end the status line."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        with contextlib.suppress(Exception):
            self.poll()
        if self.tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()


@contextlib.contextmanager
def live_progress(run_dir: Path, enabled: bool = True, **options: object) -> Iterator[LiveProgress | None]:
    """Show live progress of ``run_dir`` while the block runs (nothing when ``enabled`` is False)."""
    if not enabled:
        yield None
        return
    live = LiveProgress(run_dir, **options).start()  # type: ignore[arg-type]
    try:
        yield live
    finally:
        live.stop()
