"""The analysis's independent CPU-heavy parts over the machine's free cores: a pool of forked processes.

``analyze`` is one thread of numpy and pandas; its pairwise tests (every pair of a coder's screening strategies, each
with its paired bootstrap and its permutation test) are most of its CPU, and each pair is computed from the same
inputs with its own fixed seed, independent of every other. :func:`map_in_order` hands such parts to forked worker
processes (they inherit the parent's memory: the loaded results and what was computed before the fork, never
pickled) and returns their results in the parts' order, so what is written is the same, byte for byte, whatever
the number of processes.

``TFR_ANALYSIS_PROCESSES`` sets the processes (default: the cores this process may run on; 1: every part in this
process, as before). Where the platform cannot fork (Windows, macOS's default), or inside a worker, the parts run in
this process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tfr_helpers.errors import ConfigError

T = TypeVar("T")
R = TypeVar("R")

ENV = "TFR_ANALYSIS_PROCESSES"
"""The environment variable setting the processes of :func:`map_in_order` (1: none forked)."""

_job: list[Any] = []
"""The parts and the function of the map in flight, set before the fork: a worker reads them from its copy of the
parent's memory (a closure over the results needs no pickling)."""
_in_worker = False
"""True in a forked worker: a map inside it runs in that worker."""


def analysis_processes() -> int:
    """``TFR_ANALYSIS_PROCESSES``, or the cores this process may run on (1 where there is no forking)."""
    value = os.environ.get(ENV, "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise ConfigError(f"{ENV}={value!r}: use a whole number of at least 1 (1: the analysis in one process)")
        return int(value)
    if not _can_fork():
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _run(index: int) -> Any:
    fn, items = _job
    return fn(items[index])


def _mark_worker() -> None:
    """A forked worker's start: it marks itself, and takes the default action of SIGTERM and SIGINT back, whatever
    handler the parent had (a library's, inherited by the fork): the pool ends its workers with SIGTERM when a part
    fails, and a worker that caught it would never end."""
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def map_in_order(fn: Callable[[T], R], items: Sequence[T], processes: int | None = None) -> list[R]:
    """``[fn(item) for item in items]``, the items spread over ``processes`` forked processes (default
    :func:`analysis_processes`) where there are at least two of each; in this process otherwise.

    ``fn`` and ``items`` are read by the workers from the fork (any closure will do); each result is pickled back.
    ``fn`` must depend on nothing but its item and what existed before the call (no global random state): a part
    computes the same in any process, and the results come back in ``items``' order.
    """
    count = min(analysis_processes() if processes is None else processes, len(items))
    if count < 2 or _in_worker or _job or not _can_fork():
        return [fn(item) for item in items]
    _job[:] = [fn, items]
    pool = multiprocessing.get_context("fork").Pool(count, initializer=_mark_worker)
    try:
        results = list(pool.imap(_run, range(len(items)), chunksize=1))
        pool.close()  # the workers end on their own once the queue is empty: no signal sent
        pool.join()
        return results
    finally:
        pool.terminate()  # after a failure (after join: nothing left to end)
        _job.clear()
