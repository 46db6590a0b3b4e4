"""The simulated judge's ground truth: does the reference pass the test named in the feedback?

A real judge sees only the task, the code and the feedback. The simulated judge instead *measures* whether
the feedback is reliable by running the test against the task's reference (in a study it is granted RQ1's
verdict instead, and this module runs only tests RQ1 did not), then answers correctly or not according to
its error rate. This keeps its mistakes a controlled parameter and works for tests written by
any tester model, simulated or real.

Privileged: this module reads the reference solution, which no real provider and no screening strategy ever
receives; only the simulated model (``needs_reference``) reaches it, through the task lookup it is granted.
"""

from __future__ import annotations

import atexit
import logging
import os
import resource
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

TIMEOUT_S = 10.0
"""Wall-clock budget of one oracle run."""
MEMORY_BYTES = 2 * 1024**3
"""Address-space limit of one oracle run (an enormous input fails fast with MemoryError)."""

_RUNNER = """
import sys, types
ns = {"__name__": "solution"}
exec(compile(open("solution.py").read(), "solution.py", "exec"), ns)
module = types.ModuleType("solution"); module.__dict__.update(ns); sys.modules["solution"] = module
test = open("test_generated.py").read()
if "hypothesis" in test:
    from hypothesis import settings, HealthCheck
    settings.register_profile("sim", max_examples=30, derandomize=True, deadline=None,
                              suppress_health_check=list(HealthCheck))
    settings.load_profile("sim")
before = set(ns)
exec(compile(test, "test_generated.py", "exec"), ns)
for name in [n for n in ns if n.startswith("test") and n not in before]:
    if callable(ns[name]):
        ns[name]()
"""


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


_SANDBOX: list[Any] = []
_LOCK = threading.Lock()


def _shared_sandbox() -> Any:
    """One lazily started sandbox per process (a worker per core, closed at exit); None when unavailable."""
    with _LOCK:
        if not _SANDBOX:
            from tfr_helpers.sandbox import Limits, Sandbox  # the pool loads when the simulated judge first runs

            box = Sandbox(Limits(timeout_s=TIMEOUT_S, hypothesis_max_examples=30))
            box.__enter__()
            atexit.register(box.__exit__, None, None, None)
            _SANDBOX.append(box)
    return _SANDBOX[0]


def _run_in_sandbox(reference: str, test: str) -> bool | None:
    """Run in the project's sandbox (None when it cannot be used, so the caller falls back)."""
    try:
        from tfr_helpers.sandbox import TestSpec  # inside the try: no usable sandbox falls back to a subprocess
        from tfr_helpers.sandbox.cache import ExecutionCache

        # Sandbox.run is thread-safe (workers are handed out from a queue): judges run concurrently; an
        # identical run (a rerun of the study with other screening strategies) is served by the execution cache
        box, job = _shared_sandbox(), (reference, [TestSpec(name="generated", source=test, kind="function")])
        context = f"sim-oracle root={os.geteuid() == 0}"
        run = ExecutionCache().run_many([job], box.limits, lambda jobs: [box.run(*j) for j in jobs], context=context)[0]
    except Exception as exc:  # noqa: BLE001 - the judge falls back to a plain subprocess
        logger.warning("sandbox unavailable for the simulated judge (%s); using a subprocess", exc)
        return None
    return bool(run.passed)


def reference_passes(reference: str, test: str) -> bool:
    """Run one generated test module against the reference solution; True when every test in it passes.

    Args:
        reference: The reference solution (a whole module).
        test: A generated test module (imports + ``test_*`` functions calling the entry point by name).

    Returns:
        True when the reference passes; False on any failure, error, timeout or crash.
    """
    verdict = _run_in_sandbox(reference, test)
    if verdict is not None:
        return verdict
    with tempfile.TemporaryDirectory(prefix="tfr-sim-oracle-") as tmp:
        Path(tmp, "solution.py").write_text(reference)
        Path(tmp, "test_generated.py").write_text(test)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "PYTHONHASHSEED": "0"}
        try:
            # WARNING: runs model-written test code in a plain child process (resource limits, empty
            # directory, scrubbed environment, but no network or uid isolation): the fallback used only
            # while the project sandbox's run_program is unavailable.
            proc = subprocess.run(
                [sys.executable, "-I", "-c", _RUNNER],
                cwd=tmp,
                env=env,
                timeout=TIMEOUT_S,
                capture_output=True,
                preexec_fn=_limit_memory,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
    return proc.returncode == 0
