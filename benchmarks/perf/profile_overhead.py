"""Per-check overhead of the tfr sandbox on trivial programs, and where the worker's time goes.

Two measurements:

1. ``end-to-end``: N trivial jobs (``pass`` + one trivial assert) through ``Sandbox.run_many`` with
   the real pool (netns, uid drop, rlimits). CPU per check = parent getrusage(SELF) delta + the workers'
   /proc/<pid>/stat utime+stime+cutime+cstime delta (cutime/cstime: the forked children they reaped).
   Optionally also the 164 HumanEval + 427 MBPP references (``--refs``).
2. ``breakdown``: one in-process :class:`~tfr_helpers.sandbox.worker.Worker` (re-executed under
   ``unshare -n -m`` as root, so it gets its uid and its tmpfs like a real worker) runs the same trivial
   jobs with timing wrappers around each phase. Worker-side phases report CPU (process_time) and wall;
   child-side phases (drop_to_uid, rlimits, runner) write their CPU into a shared mmap. ``child total`` is
   the reaped children's CPU (os.times cutime+cstime), which includes copy-on-write faults after fork.

Usage: ``uv run python benchmarks/perf/profile_overhead.py [-n 500] [--refs]``
(``TFR_BENCHMARK_DIR`` must point at the benchmark data for ``--refs``).
"""

from __future__ import annotations

import argparse
import inspect
import mmap
import os
import resource
import shutil
import struct
import sys
import time
from collections import defaultdict
from typing import Any

CLK = os.sysconf("SC_CLK_TCK")
SLOW = {"MBPP/123"}  # ~2.5 s of CPU in the reference's own tests: excluded from the breakdown
TRIVIAL = ("def f():\n    pass\n", "assert f() is None\n")


def _proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / CLK


def _self_cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    return s.ru_utime + s.ru_stime


def end_to_end(n: int, refs: bool, workers: int) -> None:
    from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

    program, test = TRIVIAL
    jobs: list[tuple[str, Any]] = [(program, [TestSpec("t", test)])] * n
    suites = [("trivial", jobs)]
    if refs:
        from tfr_helpers.benchmarks import benchmark_tests, load_tasks

        for bench in ("humaneval", "mbpp"):
            tasks = load_tasks(bench)
            suites.append((bench, [(t.reference, benchmark_tests(t)) for t in tasks]))
    with Sandbox(Limits(timeout_s=30.0), workers=workers) as sandbox:
        sandbox.run_many(jobs[:20])  # start the light workers, warm up
        pids = [h.proc.pid for h in sandbox._all]  # noqa: SLF001 - measurement only
        print(f"isolation: {sandbox.isolation}")
        for name, js in suites:
            for _round in range(2):
                c0, w0, t0 = _self_cpu(), sum(_proc_cpu(p) for p in pids), time.perf_counter()
                runs = sandbox.run_many(js)
                wall = time.perf_counter() - t0
                parent = _self_cpu() - c0
                work = sum(_proc_cpu(p) for p in pids) - w0
                ok = sum(r.passed for r in runs)
                print(
                    f"  {name:<10} {ok}/{len(js)} passed  {len(js) / wall:7.1f} checks/s  "
                    f"CPU/check {1000 * (parent + work) / len(js):6.2f} ms "
                    f"(parent {1000 * parent / len(js):.2f}, workers+children {1000 * work / len(js):.2f})"
                )


class Timers:
    """Phase timers: worker-side in a dict, child-side in a shared anonymous mmap."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.child_names: list[str] = []
        self.shm = mmap.mmap(-1, 8 * 64)
        self.pid = os.getpid()

    def wrap(self, owner: Any, attr: str, label: str, child: bool = False) -> None:
        fn = getattr(owner, attr)
        if child:
            self.child_names.append(label)
            slot = len(self.child_names) - 1

            def timed_child(*a: Any, **k: Any) -> Any:
                c0 = time.process_time()
                try:
                    return fn(*a, **k)
                finally:
                    if os.getpid() != self.pid:
                        old = struct.unpack_from("d", self.shm, 8 * slot)[0]
                        struct.pack_into("d", self.shm, 8 * slot, old + time.process_time() - c0)

            setattr(owner, attr, timed_child)
            return

        def timed(*a: Any, **k: Any) -> Any:
            if os.getpid() != self.pid:
                return fn(*a, **k)
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.cpu[label] += time.process_time() - c0
                self.wall[label] += time.perf_counter() - t0
                self.calls[label] += 1

        static = isinstance(owner, type) and isinstance(inspect.getattr_static(owner, attr), staticmethod)
        setattr(owner, attr, staticmethod(timed) if static else timed)

    def mark_child(self, owner: Any, attr: str, label: str, when: Any = None, first: bool = False) -> None:
        """Record the child's CPU since fork (process_time) when ``owner.attr`` is entered."""
        fn = getattr(owner, attr)
        self.child_names.append(label)
        slot = len(self.child_names) - 1
        seen: list[int] = []  # per child: forked copies start with the worker's (empty) list

        def marked(*a: Any, **k: Any) -> Any:
            if os.getpid() != self.pid and (when is None or when(a, k)) and not (first and seen):
                seen.append(1)
                old = struct.unpack_from("d", self.shm, 8 * slot)[0]
                struct.pack_into("d", self.shm, 8 * slot, old + time.process_time())
                flt = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                old = struct.unpack_from("d", self.shm, 8 * (32 + slot))[0]
                struct.pack_into("d", self.shm, 8 * (32 + slot), old + flt)
            return fn(*a, **k)

        setattr(owner, attr, marked)

    def child_cpu(self) -> dict[str, tuple[float, float]]:
        return {
            name: (struct.unpack_from("d", self.shm, 8 * i)[0], struct.unpack_from("d", self.shm, 8 * (32 + i))[0])
            for i, name in enumerate(self.child_names)
        }


def breakdown(n: int, suite: str) -> None:
    import json
    import select
    import tempfile

    from tfr_helpers.sandbox import preload, privileges, runner, worker
    from tfr_helpers.sandbox.spec import Limits, TestSpec

    for name in preload.LIGHT_PRELOAD:
        __import__(name)
    import gc

    gc.collect()
    gc.freeze()
    uid, _lock = (None, None) if os.geteuid() != 0 else privileges.acquire_uid()
    privileges.set_subreaper()
    w = worker.Worker(uid)
    runner.warm_up(os.path.join(w.root, "warm"))  # as worker.main does before its first fork
    gc.collect()
    gc.freeze()
    program, test = TRIVIAL
    import dataclasses

    limits = dataclasses.asdict(Limits(timeout_s=30.0))
    if suite == "trivial":
        lines = [json.dumps({"program": program, "tests": [dataclasses.asdict(TestSpec("t", test))], "limits": limits})]
    else:  # written by the outer process: loading benchmarks here would bloat this worker with pydantic
        with open(suite) as fh:
            lines = fh.read().splitlines()
    n = max(n, len(lines)) if suite != "trivial" else n
    for i in range(20):
        w.run_job(json.loads(lines[i % len(lines)]))
    tm = Timers()
    wrap_w = [
        (tempfile, "mkdtemp", "mkdtemp"),
        (os, "chown", "chown"),
        (os, "pipe", "pipe"),
        (os, "fork", "fork (parent side)"),
        (select, "select", "select (waiting for child)"),
        (os, "read", "read"),
        (worker.Worker, "_handle", "handle (json.loads)"),
        (worker.Worker, "_cleanup", "cleanup total"),
        (privileges, "kill_uid", "  kill_uid"),
        (os, "waitpid", "  waitpid"),
        (time, "sleep", "  sleep (reap loop)"),
        (shutil, "rmtree", "rmtree"),
    ]
    if hasattr(worker, "_reap_orphans"):
        wrap_w.append((worker, "_reap_orphans", "  reap orphans"))
    for owner, attr, label in wrap_w:
        tm.wrap(owner, attr, label)
    for owner, attr, label in [
        (worker.Worker, "_child", "child: _child total (after fork)"),
        (privileges, "drop_to_uid", "child:   drop_to_uid"),
        (privileges, "apply_rlimits", "child:   apply_rlimits"),
        (runner.ProgramRunner, "run", "child:   runner.run"),
        (runner.Channel, "send", "child:     channel send"),
    ]:
        tm.wrap(owner, attr, label, child=True)
    from tfr_helpers.sandbox import rewrite

    tm.mark_child(worker.Worker, "_child", "child: CPU since fork at _child entry")
    tm.mark_child(runner.ProgramRunner, "__init__", "child: CPU since fork at ProgramRunner()")
    tm.mark_child(runner.ProgramRunner, "_write_file", "child: .. at first _write_file", first=True)
    tm.mark_child(runner, "_restore", "child: .. at first _restore (program ran)", first=True)
    tm.mark_child(runner.ProgramRunner, "_run_spec", "child: .. at first _run_spec", first=True)
    tm.mark_child(rewrite, "compile_test", "child: .. at first compile_test", first=True)
    tm.mark_child(runner.Capture, "read", "child: .. at first Capture.read (test ran)", first=True)
    tm.mark_child(runner.Channel, "send", "child: CPU since fork at 'done' send", lambda a, k: k.get("t") == "done")
    # json encode/decode of the protocol line, as the worker main loop does it
    t_cpu0, t0 = os.times(), time.perf_counter()
    c_json = 0.0
    for _ in range(n):
        c = time.process_time()
        j = json.loads(lines[_ % len(lines)])
        c_json += time.process_time() - c
        reply = w.run_job(j)
        c = time.process_time()
        json.dumps(reply)
        c_json += time.process_time() - c
    t_cpu1, wall = os.times(), time.perf_counter() - t0
    if uid is not None:
        privileges.kill_uid(uid)
    shutil.rmtree(w.root, ignore_errors=True)
    worker_cpu = (t_cpu1.user - t_cpu0.user) + (t_cpu1.system - t_cpu0.system)
    child_cpu = (t_cpu1.children_user - t_cpu0.children_user) + (t_cpu1.children_system - t_cpu0.children_system)
    print(f"breakdown: {n} {suite} jobs, one in-process worker (uid={uid}, tmpfs={getattr(w, 'tmpfs', None)})")
    print(
        f"  wall {1000 * wall / n:.2f} ms/check; CPU {1000 * (worker_cpu + child_cpu) / n:.2f} ms/check "
        f"= worker {1000 * worker_cpu / n:.2f} + reaped children {1000 * child_cpu / n:.2f}"
    )
    print(f"  {'phase':<36} {'CPU ms/check':>12} {'wall ms/check':>14} {'calls/check':>12}")
    print(f"  {'json job/reply (worker main loop)':<36} {1000 * c_json / n:12.3f}")
    for label in tm.cpu:
        print(
            f"  {label:<36} {1000 * tm.cpu[label] / n:12.3f} {1000 * tm.wall[label] / n:14.3f} {tm.calls[label] / n:12.2f}"
        )
    for label, (cpu, flt) in tm.child_cpu().items():
        faults = f"   (minor faults since fork: {flt / n:.0f})" if flt else ""
        print(f"  {label:<36} {1000 * cpu / n:12.3f}{faults}")
    with open("/proc/self/status") as fh:
        rss = next(x.split()[1] for x in fh if x.startswith("VmRSS"))
    print(f"  worker RSS {int(rss) / 1024:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=500, help="trivial checks per measurement")
    parser.add_argument("--refs", action="store_true", help="also run HumanEval + MBPP references")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--suite", default="trivial", help="jobs of the breakdown (benchmark references need TFR_BENCHMARK_DIR)"
    )
    parser.add_argument("--skip-e2e", action="store_true")
    parser.add_argument("--skip-breakdown", action="store_true")
    parser.add_argument("--_breakdown-child", dest="inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        breakdown(args.n, args.suite)
        return
    print(f"load average: {os.getloadavg()}")
    if not args.skip_e2e:
        print("end-to-end (Sandbox.run_many):")
        end_to_end(args.n, args.refs, args.workers)
    if not args.skip_breakdown:
        prefix = ["unshare", "-n", "-m"] if os.geteuid() == 0 and shutil.which("unshare") else []
        cmd = [
            *prefix,
            sys.executable,
            "-I",
            os.path.abspath(__file__),
            "-n",
            str(args.n),
            "--suite",
            args.suite,
            "--_breakdown-child",
        ]
        env = dict(os.environ, PYTHONPATH=os.getcwd(), MPLBACKEND="Agg")
        if args.suite != "trivial":
            import dataclasses
            import json
            import tempfile

            from tfr_helpers.benchmarks import benchmark_tests, load_tasks
            from tfr_helpers.sandbox.spec import Limits

            limits = dataclasses.asdict(Limits(timeout_s=30.0))
            with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
                for t in load_tasks(args.suite):
                    if t.task_id not in SLOW:
                        tests = [dataclasses.asdict(s) for s in benchmark_tests(t)]
                        fh.write(json.dumps({"program": t.reference, "tests": tests, "limits": limits}) + "\n")
            cmd[cmd.index("--suite") + 1] = fh.name
        import subprocess  # not at the top: it imports threading, whose at-fork hook costs each fork

        subprocess.run(cmd, check=True, env=env)


if __name__ == "__main__":
    main()
