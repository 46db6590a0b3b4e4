"""The parent side: a pool of fork-server workers, one per core, and the public :class:`Sandbox`.

Workers start inside a network namespace (``unshare -n``; ``unshare -rn`` when not root) and, as root,
run programs as one unprivileged uid per worker. What was actually active is recorded in
:attr:`Sandbox.isolation` and copied into every :class:`~tfr_helpers.records.ProgramRun`; anything
missing is logged as a warning once per sandbox.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from tfr_helpers.errors import SandboxError
from tfr_helpers.records import Isolation, ProgramRun, TestOutcome
from tfr_helpers.sandbox.privileges import RLIMIT_NAMES
from tfr_helpers.sandbox.routing import PRELOADS, job_timing, proc_cpu, waits, worker_kind
from tfr_helpers.sandbox.routing import WAITS as WAITS
from tfr_helpers.sandbox.spec import Limits, TestSpec
from tfr_helpers.sandbox.view import hidden_paths
from tfr_helpers.sandbox.worker_env import HASH_SEED as HASH_SEED  # re-exported: the users of the pool
from tfr_helpers.sandbox.worker_env import _network_prefix, _worker_env
from tfr_helpers.sandbox.worker_env import bytecode_dir as bytecode_dir

log = logging.getLogger(__name__)
Job = tuple[str, Sequence[TestSpec]]
_SELF_TEST = (
    "import colorsys, wave\n",
    [TestSpec("self_test", "assert colorsys.rgb_to_hsv(0, 0, 0) == (0, 0, 0)")],
)


_SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TestSpec))
_LIMIT_FIELDS = tuple(f.name for f in dataclasses.fields(Limits))


class _WorkerHandle:
    """One worker process and its pipes."""

    def __init__(self, cmd: list[str], *, ready: bool = True) -> None:
        """Start the worker; ``ready`` False returns at once (call :meth:`wait_ready` before the first job)."""
        env = _worker_env("--warm" in cmd)
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.buf = b""
        self.uid: int | None = None
        self.view: dict[str, list[str]] | None = None
        if ready:
            self.wait_ready()

    def wait_ready(self) -> None:
        """Wait for the worker's hello (its preloads done).

        Raises:
            SandboxError: The worker did not start, or started with a random string-hash seed.
        """
        hello = self.read_line(120.0)
        if hello is None or not hello.get("ready"):
            self.close()
            raise SandboxError(f"sandbox worker failed to start ({' '.join(self.cmd)}); run it by hand to see why")
        self.uid = hello.get("uid")
        self.view = hello.get("view")
        if hello.get("hash_randomization"):
            self.close()
            raise SandboxError("sandbox worker started with a random string-hash seed; start it with PYTHONHASHSEED set")

    def read_line(self, timeout: float) -> dict[str, Any] | None:
        """Next JSON line from the worker, or None on EOF / timeout."""
        assert self.proc.stdout is not None
        fd, end = self.proc.stdout.fileno(), time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None if left <= 0 else self.read_line(end - time.monotonic())
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, job: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send one job; the reply, or None if the worker died or hung."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        return self.read_line(timeout)

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, OSError):
            self.proc.kill()
            self.proc.wait()


WAIT_FACTOR = 4


def pool_mode() -> str:
    """``TFR_SANDBOX_POOLS``: ``auto`` (default; waiting workers) or ``old`` (one job per core, as before)."""
    mode = os.environ.get("TFR_SANDBOX_POOLS", "auto").strip().lower() or "auto"
    if mode not in ("auto", "old"):
        raise SandboxError(f"TFR_SANDBOX_POOLS={mode!r}: use auto or old")
    return mode


class _Pool:
    """Workers started with one command; started lazily on first use (``grow``: one by one, when all are busy)."""

    def __init__(self, cmd: list[str], size: int, grow: bool = False) -> None:
        self.cmd, self.size, self.grow = cmd, size, grow
        self.idle: queue.Queue[_WorkerHandle] = queue.Queue()
        self.all: list[_WorkerHandle] = []
        self.lock = threading.Lock()

    def get(self) -> _WorkerHandle:
        with self.lock:
            if self.grow and self.idle.empty() and len(self.all) < self.size:
                self.all.append(_WorkerHandle(self.cmd))
                return self.all[-1]
            if not self.all and not self.grow:
                # all spawned before any is waited for: their start-ups (a heavy worker's preloads take
                # seconds) run side by side instead of one after the other
                started = [_WorkerHandle(self.cmd, ready=False) for _ in range(self.size)]
                try:
                    for handle in started:
                        handle.wait_ready()
                except SandboxError:
                    for handle in started:
                        handle.proc.kill()
                        handle.close()
                    raise
                self.all = started
                for handle in self.all:
                    self.idle.put(handle)
        return self.idle.get()

    def replace(self, handle: _WorkerHandle) -> _WorkerHandle:
        log.warning("sandbox: restarting a worker that died or hung")
        handle.proc.kill()
        handle.close()
        new = _WorkerHandle(self.cmd)
        with self.lock:
            self.all = [new if h is handle else h for h in self.all]
        return new

    def close(self) -> None:
        with self.lock:
            for handle in self.all:
                handle.close()
            self.all = []
            self.idle = queue.Queue()


class Sandbox:
    """A pool of sandbox workers (context manager). See ``docs/architecture.md``.

    Three kinds of workers are started lazily: *light* ones (stdlib preloaded only; forking them is
    cheap), *hypothesis* ones (the same and Hypothesis) and *heavy* ones that also preload
    numpy/pandas/matplotlib/scipy/sklearn/seaborn; a program goes to a heavy worker when it or its tests import
    one of those (:data:`HEAVY`), else to a hypothesis worker when they import Hypothesis (:data:`HYPOTHESIS`).

    Args:
        limits: Default limits for every program.
        workers: Workers per kind (default: number of CPUs).
        preload: Use one kind of worker preloading exactly these modules (disables the light/heavy routing).
        drop_uid: Run programs as an unprivileged uid when root (disable only for debugging).
    """

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        preload: Sequence[str] | None = None,
        drop_uid: bool = True,
    ) -> None:
        self.limits = limits or Limits()
        self.n_workers = max(1, workers or os.cpu_count() or 1)
        self.wait_slots = WAIT_FACTOR * self.n_workers if pool_mode() == "auto" else 0
        # at most n_workers CPU-bound programs at once, whichever kind of worker runs them and however many
        # threads submit (overlapping batches): more would only slow each down toward its wall-clock timeout
        self._cores = threading.BoundedSemaphore(self.n_workers)
        self._preload = preload
        self._timings: list[dict[str, Any]] = []
        self._timings_lock = threading.Lock()
        self._prefix, warnings = _network_prefix()
        uid_drop = drop_uid and os.geteuid() == 0
        if not uid_drop:
            warnings.append(
                "programs run as the calling user (not root): its other processes count against RLIMIT_NPROC"
                if os.geteuid() != 0
                else "programs run as root (drop_uid=False): fork bombs and setsid escapes are not contained"
            )
        self._make_pools(uid_drop)
        if not self._self_test():  # imports must work for the sandbox uid inside the filesystem view
            warnings.append(
                "dropping to an unprivileged uid broke imports; programs run as root"
                if uid_drop
                else "the filesystem view broke imports; programs see the host's filesystem"
            )
            self.close()
            uid_drop = False
            self._make_pools(uid_drop, view=False)
        fs = self._view()
        if fs is None:
            warnings.append("no filesystem view (no private mount namespace): programs can read every file the user can")
        elif fs["errors"]:
            warnings.extend(f"filesystem view: {e}" for e in fs["errors"])
        kept = ["CAP_DAC_READ_SEARCH"] if uid_drop and fs is None else []  # else the child drops them all
        self.isolation = Isolation(
            network="netns" if self._prefix else "none",
            uid_drop=uid_drop,
            rlimits=list(RLIMIT_NAMES),
            warnings=warnings,
            filesystem="view" if fs is not None else "host",
            hidden=fs["hidden"] if fs else [],
            read_only_binds=fs["read_only_binds"] if fs else [],
            writable=fs["writable"] if fs else [],
            capabilities=kept,
        )
        for warning in warnings:
            log.warning("sandbox: %s", warning)

    def _view(self) -> dict[str, list[str]] | None:
        """The filesystem view the started workers built (None when they could not)."""
        views = [h.view for h in self._all]
        return views[0] if views and all(v is not None for v in views) else None

    def _make_pools(self, uid_drop: bool, view: bool = True) -> None:
        # not -I: it implies -E, which would ignore PYTHONHASHSEED; the environment is built from scratch
        # (_worker_env), -s skips the user site and -P keeps the working directory off sys.path
        base = [*self._prefix, sys.executable, "-s", "-P", "-m", "tfr_helpers.sandbox.worker"]
        if not uid_drop:
            base.append("--no-uid")
        if pool_mode() == "auto":
            base.append("--warm")
        if view:
            base.append("--hide=" + json.dumps(hidden_paths()))
            if "-m" in self._prefix:
                base.append("--mount-ns")
        if self._preload is not None:
            cmds = {"one": [*base, "--preload=" + ",".join(self._preload)]}
        else:
            cmds = {
                "light": [*base, "--preload=" + ",".join(PRELOADS["light"])],
                "hypothesis": [*base, "--preload=" + ",".join(PRELOADS["hypothesis"])],
                "heavy": base,
            }
        self._pools = {kind: _Pool(cmd, self.n_workers) for kind, cmd in cmds.items()}
        if self.wait_slots:
            self._pools.update({f"{kind}-wait": _Pool(cmd, self.wait_slots, grow=True) for kind, cmd in cmds.items()})

    @property
    def _all(self) -> list[_WorkerHandle]:
        """Every started worker (all kinds)."""
        return [h for pool in self._pools.values() for h in pool.all]

    def _pool_for(self, program: str, tests: Sequence[TestSpec]) -> _Pool:
        kind = "one" if "one" in self._pools else worker_kind(program, tests)
        return self._pools[kind + "-wait" if self.wait_slots and waits(program, tests) else kind]

    def _self_test(self) -> bool:
        pool = self._pool_for(*_SELF_TEST)
        handle = pool.get()
        try:
            reply = handle.request(self._job(*_SELF_TEST, self.limits), 60.0)
        finally:
            pool.idle.put(handle)
        return bool(reply and not reply.get("load_error") and reply["outcomes"][0]["status"] == "passed")

    @staticmethod
    def _job(program: str, tests: Sequence[TestSpec], limits: Limits) -> dict[str, Any]:
        # the fields read one by one: dataclasses.asdict deep-copies each (all of them are scalars) and cost
        # the caller more CPU than the rest of a trivial check's dispatch
        return {
            "program": program,
            "tests": [{name: getattr(t, name) for name in _SPEC_FIELDS} for t in tests],
            "limits": {name: getattr(limits, name) for name in _LIMIT_FIELDS},
        }

    def run(self, program: str, tests: Sequence[TestSpec], limits: Limits | None = None, call: str = "") -> ProgramRun:
        """Run ``program`` against ``tests``; one outcome per test (unittest/function specs expand). ``call``: what
        the caller asked for (a batch's description), kept with the run's timing (:meth:`take_timings`)."""
        limits = limits or self.limits
        for t in tests:
            if not isinstance(t, TestSpec) or t.kind not in ("snippet", "function", "unittest"):
                raise SandboxError(f"bad test spec {t!r}: build tests with TestSpec(name, source, kind)")
        job = self._job(program, tests, limits)
        budget = limits.timeout_s * (len(tests) + 2) * 20 + 120
        t0 = time.perf_counter()
        pool = self._pool_for(program, tests)
        core = None if pool.grow else self._cores  # waiting workers hold no core
        if core is not None:
            core.acquire()
        try:
            handle = pool.get()
            sent = time.perf_counter()  # the wait for a core and an idle worker (or a new one's start) ends here
            try:
                reply = handle.request(job, budget)
                if reply is None or "worker_error" in reply:
                    handle = pool.replace(handle)
                    reason = (reply or {}).get("worker_error", "the sandbox worker died or hung (killed by the program?)")
                    return self._failed_run(tests, reason)
            finally:
                pool.idle.put(handle)
        finally:
            if core is not None:
                core.release()
        run = ProgramRun(
            outcomes=[TestOutcome(**o) for o in reply["outcomes"]],
            load_error=TestOutcome(**reply["load_error"]) if reply["load_error"] else None,
            isolation=self.isolation,
            duration_s=reply["duration_s"],
        )
        with self._timings_lock:
            self._timings.append(job_timing(time.perf_counter() - sent, run, call, queue_s=sent - t0))
        return run

    def take_timings(self) -> list[dict[str, Any]]:
        """The timings of the runs made since the last call (:func:`job_timing` each), and forget them."""
        with self._timings_lock:
            out, self._timings = self._timings, []
        return out

    def cpu_times(self) -> tuple[float, float]:
        """User and system CPU seconds of the live workers and the programs they forked and reaped."""
        times = [proc_cpu(handle.proc.pid) for handle in self._all]
        return sum(t[0] for t in times), sum(t[1] for t in times)

    def _failed_run(self, tests: Sequence[TestSpec], reason: str) -> ProgramRun:
        crash = TestOutcome(name="<program>", status="crashed", message=reason)
        return ProgramRun(
            outcomes=[TestOutcome(name=t.name, status="not_run", message=reason) for t in tests],
            load_error=crash,
            isolation=self.isolation,
        )

    def run_many(
        self, jobs: Sequence[Job], progress: bool = False, desc: str = "", limits: Limits | None = None
    ) -> list[ProgramRun]:
        """Run many ``(program, tests)`` jobs in parallel across the workers; results in input order."""
        results: list[ProgramRun | None] = [None] * len(jobs)
        waiting = [i for i, (p, t) in enumerate(jobs) if self.wait_slots and waits(p, t)]
        queues: list[queue.Queue[int]] = [queue.Queue(), queue.Queue()]  # waiting jobs (own workers), the rest
        for i in waiting:
            queues[0].put(i)
        for i in sorted(set(range(len(jobs))) - set(waiting)):
            queues[1].put(i)
        bar = tqdm(total=len(jobs), desc=desc or "sandbox", disable=not progress)
        errors: list[BaseException] = []

        def drain(todo: queue.Queue[int]) -> None:
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[i] = self.run(jobs[i][0], jobs[i][1], limits, call=desc)
                except BaseException as exc:  # noqa: BLE001 - re-raised below
                    errors.append(exc)
                    return
                bar.update(1)

        counts = (min(self.wait_slots, len(waiting)), min(self.n_workers, len(jobs) - len(waiting)))
        threads = [
            threading.Thread(target=drain, args=(todo,), daemon=True)
            for todo, n in zip(queues, counts, strict=True)
            for _ in range(n)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        bar.close()
        if errors:
            raise errors[0]
        return [r for r in results if r is not None]

    def close(self) -> None:
        """Stop all workers."""
        for pool in self._pools.values():
            pool.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_program(program: str, tests: Sequence[TestSpec], limits: Limits | None = None) -> ProgramRun:
    """One-shot convenience: start a one-worker sandbox, run, stop it."""
    with Sandbox(limits or Limits(), workers=1) as sandbox:
        return sandbox.run(program, tests)
