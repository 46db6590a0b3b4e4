"""The fork-server worker: a long-lived process (one per core) that forks a limited child per program.

Started by :class:`tfr_helpers.sandbox.pool.Sandbox` as
``[unshare -n -m] python -I -m tfr_helpers.sandbox.worker``.
Protocol on its original stdin/stdout: one JSON job per line in, one JSON result per line out.
Before its first job it imports its preloads and, when warm, warms Hypothesis (:mod:`tfr_helpers.sandbox.preload`);
it runs its programs as a uid of its own (:func:`~tfr_helpers.sandbox.privileges.acquire_uid`).
Per program: fresh working directory, fork, child drops privileges and applies rlimits, then runs the tests
(:mod:`tfr_helpers.sandbox.runner`). The worker judges each phase (the program's load, one test) by the
child's *own* time, wall time minus its wait for a CPU (:mod:`tfr_helpers.sandbox.clock`), with
:data:`~tfr_helpers.sandbox.clock.WALL_GUARD` times the budget in wall time as the outer guard; at either it
kills the child's process group (and, as root, every process of the worker's uid), reaps orphans (it is a child
subreaper), and re-forks after a timeout or crash so that the remaining tests still run (and before every test
spec with ``Limits.fresh_per_test``: each then starts from a freshly loaded program). Every outcome records
the child's wait for a CPU during its test (``wait_s``) where it was measured.
"""

from __future__ import annotations

import _signal  # the C module: signal.signal's enum conversions cost a forked child ~60 page faults
import argparse
import dataclasses
import gc
import importlib
import json
import math
import os
import secrets
import select
import shutil
import signal
import sys
import tempfile
import time
from typing import Any

from tfr_helpers.sandbox import privileges, runner, view  # runner: imported once here, not per child
from tfr_helpers.sandbox.clock import PhaseClock, Reading
from tfr_helpers.sandbox.preload import (
    HUGE_MIN_RANGES,
    PRELOAD,
    TABLES_ENV,
    collapse_huge_pages,
    warm_local_constants,
    warm_plotting,
    warm_unicode_tables,
)
from tfr_helpers.sandbox.spec import Limits

LINE_CAP = 1 << 20
TMPFS_MB = 1024
VIEW_ROOT = "/tmp/tfr-sandbox"
_CHILD_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "TZ")
_CHILD_SIGNALS = tuple(
    (int(sig), int(signal.SIG_DFL)) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGCHLD)
) + ((int(signal.SIGXFSZ), int(signal.SIG_IGN)),)


class Worker:
    """Runs jobs one at a time; see the module docstring."""

    def __init__(self, uid: int | None, hidden: list[str] | None = None, mount_ns: bool = False) -> None:
        self.uid = uid
        self.view: view.View | None = None
        self.huge: list[int] = []  # the 2 MiB ranges collapsed before the first fork (preload.collapse_huge_pages)
        self.pid_ns = os.getpid() == 1  # init of its own pid namespace (``unshare -p --fork``, the non-root path)
        if hidden is not None and mount_ns:
            # as root, or as uid 0 of a user namespace (``unshare -r -n -m``) when not root
            self.view = view.mount_view(privileges.libc(), hidden, TMPFS_MB)
            # one path in every worker (each has its own /tmp): messages naming it do not depend on the worker
            self.root = VIEW_ROOT
            os.makedirs(self.root, mode=0o711)
            if uid is not None:
                privileges.kill_uid(uid)
        elif uid is not None:
            self.root = f"/tmp/tfr-sandbox/{uid}"
            shutil.rmtree(self.root, ignore_errors=True)  # sweep what a killed predecessor left
            os.makedirs(self.root, mode=0o711)
            self.tmpfs = privileges.mount_tmpfs(self.root, TMPFS_MB)  # only inside a private mount namespace
            privileges.kill_uid(uid)
        else:
            self.root = tempfile.mkdtemp(prefix="tfr-sandbox-")
        # one fixed working directory path per worker, created empty before and removed after every program
        self.workdir = os.path.join(self.root, "w")
        self.env = {k: os.environ[k] for k in _CHILD_ENV_KEEP if k in os.environ}
        self.env.update(
            MPLBACKEND="Agg",
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            PYTHONHASHSEED="0",
            PYTHONDONTWRITEBYTECODE="1",
        )
        # The worker's own environment becomes the children's (the worker needs none of it after start-up),
        # so a child does not rebuild os.environ (clear+update cost ~0.4 ms of page faults per fork).
        os.environ.clear()
        os.environ.update(self.env, HOME=self.workdir, TMPDIR=self.workdir, MPLCONFIGDIR=self.workdir)

    def _make_workdir(self) -> str:
        """Create the (empty) working directory for the next program, owned by the sandbox uid."""
        try:
            os.mkdir(self.workdir, 0o700)
            workdir = self.workdir
        except FileExistsError:  # a leftover the last cleanup could not remove: never reuse it
            shutil.rmtree(self.workdir, ignore_errors=True)
            workdir = tempfile.mkdtemp(dir=self.root)
        if self.uid is not None:
            os.chown(workdir, self.uid, self.uid)
        return workdir

    # child side -------------------------------------------------------------------------------------------
    def _child(self, job: dict[str, Any], pos: tuple[int, int], workdir: str, wfd: int, nonce: str) -> None:
        os.setpgid(0, 0)
        for sig, handler in _CHILD_SIGNALS:  # SIGXFSZ ignored: oversized writes raise EFBIG instead of killing
            _signal.signal(sig, handler)
        os.chdir(workdir)
        if self.uid is not None:
            privileges.drop_to_uid(self.uid, keep_read_search=self.view is None)
        else:  # e.g. uid 0 of a user namespace, whose capabilities could undo the view
            privileges.drop_capabilities()
        limits = Limits(**job["limits"])
        own_memory = [t["memory_mb"] for t in job["tests"] if t.get("memory_mb")]
        if own_memory:  # the tests' own address-space limit (EvalPlus's memory rule), for the whole process
            limits = dataclasses.replace(limits, memory_mb=max(own_memory))
        cpu = math.ceil(limits.timeout_s * (len(job["tests"]) + 2) * 2) + 1
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(".tfr_stdout", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(".tfr_stderr", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        for src, dst in ((null, 0), (out, 1), (err, 2)):
            os.dup2(src, dst)
        os.closerange(3, wfd)
        os.closerange(wfd + 1, 1 << 16)
        privileges.apply_rlimits(limits, cpu)
        if workdir != self.workdir:
            os.environ.update(HOME=workdir, TMPDIR=workdir, MPLCONFIGDIR=workdir)
        tempfile.tempdir = None
        runner.ProgramRunner(job, workdir, runner.Channel(wfd, nonce)).run(*pos)

    # worker side ------------------------------------------------------------------------------------------
    def _cleanup(self, pid: int) -> float:
        """Kill what the program left and reap it; returns the child's CPU seconds (0 if reaped before)."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.uid is not None:
            privileges.kill_uid(self.uid)
        elif self.pid_ns:  # everything else in the namespace is what the program left (setsid escapes too)
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        cpu = 0.0
        try:
            _, _, usage = os.wait4(pid, 0)
            cpu = usage.ru_utime + usage.ru_stime
        except ChildProcessError:
            pass
        end = time.monotonic() + 2.0
        while time.monotonic() < end:  # orphans were re-parented to us (subreaper): reap them
            try:
                reaped, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if reaped == 0:
                time.sleep(0.005)
        return cpu

    @staticmethod
    def _death(status: int | None) -> tuple[str, str]:
        if status is None:
            return "crashed", "the test process closed the result channel"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            return "crashed", f"process killed by signal {signal.Signals(sig).name}"
        return "crashed", f"process exited with code {os.WEXITSTATUS(status)} before the test finished"

    def _fork_once(self, job: dict[str, Any], pos: tuple[int, int]) -> dict[str, Any]:
        """Fork one child from ``pos``; collect its messages until done, death or a deadline."""
        timeout = float(job["limits"]["timeout_s"])
        workdir = self._make_workdir()
        rfd, wfd = os.pipe()
        nonce = secrets.token_hex(16).encode()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(rfd)
                self._child(job, pos, workdir, wfd, nonce.decode())
            except BaseException:  # noqa: BLE001
                code = 70
            os._exit(code)
        os.close(wfd)
        state: dict[str, Any] = {
            "results": [],
            "current": None,
            "loaded": False,
            "load_error": None,
            "done": False,
            "death": None,
        }
        # the load phase, then one phase per message (a test's own budget while it runs)
        buf, clock = b"", PhaseClock(pid, timeout)
        try:
            while not state["done"]:
                reading = clock.poll()
                if reading.expired:
                    state["death"], state["phase"] = ("timeout", reading.message()), reading
                    break
                ready, _, _ = select.select([rfd], [], [], reading.sleep_s)
                if not ready:
                    continue
                chunk = os.read(rfd, 65536)
                if not chunk:
                    state["death"], state["phase"] = self._death(self._wait_exit(pid)), clock.read()
                    break
                buf += chunk
                while b"\n" in buf and not state["done"]:
                    line, buf = buf.split(b"\n", 1)
                    kind = self._handle(line, nonce, state, clock)
                    if kind is not None and kind != "done":  # a line without the nonce starts no phase
                        clock.start(self._budget(job, state, timeout), at_last_read=kind == "result")
                if len(buf) > LINE_CAP:
                    state["death"] = ("crashed", "oversized message on the result channel")
                    break
        finally:
            os.close(rfd)
            state["cpu_s"] = self._cleanup(pid)
            shutil.rmtree(workdir, ignore_errors=True)
            if self.view is not None:  # the private /tmp and /dev/shm: nothing passes to the next program
                view.sweep(self.root)
            if self.huge:  # what the worker wrote while the child lived is in 4 KiB pages again
                collapse_huge_pages(self.huge)
        return state

    @staticmethod
    def _budget(job: dict[str, Any], state: dict[str, Any], timeout: float) -> float:
        """The budget of the phase starting now, in own time: the running test's own (``TestSpec.timeout_s``),
        else the run's."""
        if state["current"] is None:
            return timeout
        own = job["tests"][state["current"][0]].get("timeout_s")
        return timeout if own is None else float(own)

    @staticmethod
    def _measured(state: dict[str, Any]) -> dict[str, Any]:
        """What the worker measured of a killed or dead child's last phase: its wall time (``duration_s``), its
        wait for a CPU (``wait_s``, where measured) and the child's CPU (its program load and that phase)."""
        phase: Reading | None = state.get("phase")
        out: dict[str, Any] = {"duration_s": phase.wall_s if phase else 0.0, "cpu_s": state.get("cpu_s", 0.0)}
        if phase is not None and phase.wait_s is not None:
            out["wait_s"] = phase.wait_s
        return out

    @staticmethod
    def _wait_exit(pid: int) -> int | None:
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            time.sleep(0.002)
        return None

    @staticmethod
    def _handle(line: bytes, nonce: bytes, state: dict[str, Any], clock: PhaseClock) -> str | None:
        """Apply one message of the child to ``state``; return its kind (None: not a message of this child).
        A test's result gets the wait of its phase, read from ``clock`` as the phase ends."""
        if not line.startswith(nonce + b" "):
            return None
        try:
            msg = json.loads(line[len(nonce) + 1 :])
        except ValueError:
            return None
        kind = msg.get("t") if isinstance(msg, dict) else None
        if kind == "loaded":
            state["loaded"] = True
        elif kind == "load_error":
            state["load_error"] = msg["outcome"]
        elif kind == "start":
            state["current"] = (msg["spec"], msg["sub"], msg["name"])
        elif kind == "result":
            outcome = msg["outcome"]
            phase = clock.read()
            if phase.wait_s is not None and isinstance(outcome, dict):
                outcome["wait_s"] = phase.wait_s
            state["results"].append(outcome)
            state["current"] = None
            state["next"] = (msg["spec"] + 1, 0) if msg["sub"] < 0 else (msg["spec"], msg["sub"] + 1)
        elif kind == "done":
            state["done"] = True
        else:
            return None
        return str(kind)

    def run_job(self, job: dict[str, Any]) -> dict[str, Any]:
        """Run one program against its tests; return ``ProgramRun`` fields (without isolation)."""
        t0 = time.monotonic()
        specs = job["tests"]
        outcomes: list[dict[str, Any]] = []
        load_error = None
        pos, first = (0, 0), True
        while True:
            state = self._fork_once(job, pos)
            outcomes.extend(state["results"])
            if state["done"]:
                if not job["limits"].get("fresh_per_test") or pos[0] + 1 >= len(specs):
                    break
                pos, first = (pos[0] + 1, 0), False  # the next spec in a fresh child, on a freshly loaded program
                continue
            if state["load_error"] or not state["loaded"] or (not state["results"] and state["current"] is None):
                if state["load_error"] is not None:
                    load_error = state["load_error"]
                else:
                    status, message = state["death"] or ("crashed", "no result")
                    load_error = {"name": "<program>", "status": status, "message": message, **self._measured(state)}
                if not first:
                    load_error = None
                start = pos[0] + (1 if pos[1] > 0 else 0)
                outcomes.extend(
                    {"name": s["name"], "status": "not_run", "message": "the program failed to load"} for s in specs[start:]
                )
                break
            if state["current"] is not None:
                spec, sub, name = state["current"]
                status, message = state["death"] or ("crashed", "no result")
                outcomes.append({"name": name, "status": status, "message": message, **self._measured(state)})
                pos = (spec + 1, 0) if sub < 0 else (spec, sub + 1)
            else:
                pos = state["next"]
            if pos[0] >= len(specs):
                break
            first = False
        return {"outcomes": outcomes, "load_error": load_error, "duration_s": time.monotonic() - t0}


def main() -> None:
    """Entry point: ``python -m tfr_helpers.sandbox.worker [--no-uid] [--preload a,b]``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-uid", action="store_true")
    parser.add_argument("--preload", default=",".join(PRELOAD))
    parser.add_argument("--hide", default=None, help="JSON list of directories to hide (see sandbox.view)")
    parser.add_argument("--mount-ns", action="store_true", help="started in a private mount namespace (unshare -m)")
    parser.add_argument("--warm", action="store_true", help="preloads' bytecode cached; Hypothesis warmed up")
    args = parser.parse_args()
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in filter(None, args.preload.split(",")):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - optional preloads
            pass
    if args.warm:
        warm_unicode_tables(os.environ.get(TABLES_ENV))
        warm_plotting()
    gc.collect()
    gc.freeze()  # preloaded objects stay out of the children's collections: fewer copy-on-write faults
    uid, _lock = (None, None) if args.no_uid or os.geteuid() != 0 else privileges.acquire_uid()
    privileges.set_subreaper()
    worker = Worker(uid, json.loads(args.hide) if args.hide else None, args.mount_ns)
    sys.dont_write_bytecode = True  # the preloads' bytecode may be cached (pool._worker_env): programs write none
    runner.warm_up(os.path.join(worker.root, "warm"))  # the runner's code and caches warm before the first fork
    gc.collect()
    gc.freeze()
    if args.warm:
        warm_local_constants()
        gc.freeze()
    # a heavy worker's memory in 2 MiB pages: fewer page table entries for each fork to copy (docs/performance.md)
    worker.huge = collapse_huge_pages(min_ranges=HUGE_MIN_RANGES)
    fs = dataclasses.asdict(worker.view) if worker.view is not None else None

    def reply(obj: dict[str, Any]) -> None:
        data = (json.dumps(obj) + "\n").encode()
        while data:
            data = data[os.write(proto_out, data) :]

    reply({"ready": True, "uid": uid, "pid": os.getpid(), "hash_randomization": sys.flags.hash_randomization, "view": fs})
    try:
        for line in proto_in:
            try:
                reply(worker.run_job(json.loads(line)))
            except Exception as exc:  # noqa: BLE001 - report, keep serving
                reply({"worker_error": f"{type(exc).__name__}: {exc}"})
    finally:
        shutil.rmtree(worker.root, ignore_errors=True)
        sys.exit(0)


if __name__ == "__main__":
    main()
