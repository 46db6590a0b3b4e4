"""Which worker runs a program (light, hypothesis, heavy; waiting or not), and what the pool measures of a run.

A program goes to the kind of worker whose preloads it needs, and to the *waiting* workers when it or its tests
wait rather than compute (:class:`tfr_helpers.sandbox.pool.Sandbox`). The pool keeps each run's wall time on its
worker beside its tests' own times (:func:`job_timing`), and reads its workers' CPU (:func:`proc_cpu`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox.preload import LIGHT_PRELOAD, PRELOAD
from tfr_helpers.sandbox.spec import TestSpec

HEAVY = re.compile(r"^\s*(?:import|from)\s+(?:numpy|pandas|matplotlib|scipy|sklearn|seaborn)\b", re.M)
"""Programs or tests importing these go to the heavy workers (which preload them and Hypothesis)."""
HYPOTHESIS = re.compile(r"^\s*(?:import|from)\s+hypothesis\b", re.M)
"""Programs or tests importing Hypothesis and none of :data:`HEAVY` go to the *hypothesis* workers: the light
workers' preloads plus Hypothesis (warmed like the heavy ones). Not the light workers: preloading Hypothesis
would add ~14 MiB to each, and the cost of a fork grows with the forking process's resident memory (page tables
to copy, pages to unmap at exit); not the heavy ones: a fork and exit of a heavy worker (~220 MiB) costs about
15 ms of CPU, of a hypothesis worker (~33 MiB) about 3 ms (``docs/performance.md``). Hypothesis draws from the
constants of *local* modules only (neither the standard library nor site-packages), so what else a worker
preloads does not change a drawn example."""
HYPOTHESIS_PRELOAD = (*LIGHT_PRELOAD, "hypothesis")
PRELOADS = {"light": LIGHT_PRELOAD, "hypothesis": HYPOTHESIS_PRELOAD, "heavy": PRELOAD}
"""What each kind of worker preloads (:func:`worker_kind`)."""


WAITS = re.compile(r"\bsleep\(|\bsubprocess\b|\bPopen\b|\bos\.system\(|\burlopen\(|\bsocket\.")
"""Programs or tests that wait (sleep, child processes, sockets) hold a worker, not a core: with
``TFR_SANDBOX_POOLS=auto`` (the default) they run in extra *waiting* workers, :data:`WAIT_FACTOR` per core,
started one by one as needed, beside the one-per-core workers (BigCodeBench has tasks whose tests sleep ~30 s)."""


_CLK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of the live process ``pid`` and the children it reaped ((0, 0): gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rpartition(b")")[2].split()
    except OSError:
        return 0.0, 0.0
    return (int(fields[11]) + int(fields[13])) / _CLK, (int(fields[12]) + int(fields[14])) / _CLK


def job_timing(job_s: float, run: ProgramRun, call: str = "", queue_s: float | None = None) -> dict[str, Any]:
    """What the sandbox log of a stage keeps of one run: its wall time on its worker (``job_s``: from sending the
    job to its reply: the fork, the program's loads, the tests, the transport, the clean-up), each executed
    outcome's status and own time (``[status, duration_s]``; ``not_run`` left out), when given the call it belonged
    to (``call``: a batch's description, e.g. ``reference reruns``) and its wait before it was sent (``queue_s``:
    for a free core and an idle worker, a new worker's start included; not the engine's cost per execution, but
    other jobs' time or a start-up)."""
    done = [o for o in [run.load_error, *run.outcomes] if o is not None and o.status != "not_run"]
    timing: dict[str, Any] = {"job_s": round(job_s, 6), "tests": [[o.status, round(o.duration_s, 6)] for o in done]}
    if call:
        timing["call"] = call
    if queue_s is not None:
        timing["queue_s"] = round(queue_s, 6)
    return timing


def imports(pattern: re.Pattern[str], program: str, tests: Sequence[TestSpec]) -> bool:
    """Whether the program or a test (its source or setup) matches ``pattern``."""
    return bool(pattern.search(program) or any(pattern.search(t.source) or pattern.search(t.setup) for t in tests))


def worker_kind(program: str, tests: Sequence[TestSpec]) -> str:
    """The kind of worker a program and its tests go to: ``heavy`` (:data:`HEAVY`), ``hypothesis``
    (:data:`HYPOTHESIS` and none of :data:`HEAVY`) or ``light``."""
    if imports(HEAVY, program, tests):
        return "heavy"
    return "hypothesis" if imports(HYPOTHESIS, program, tests) else "light"


def waits(program: str, tests: Sequence[TestSpec]) -> bool:
    """True when the program or a test matches :data:`WAITS`."""
    return bool(WAITS.search(program) or any(WAITS.search(t.source) or WAITS.search(t.setup) for t in tests))
