"""The sandbox's cost outside a test's own time, per test execution, on the jobs of a real run.

Takes a finished run's generated codes and tests (its checkpoints) and builds the jobs of RQ1 as
``evaluate_code_test_pairs`` does for one sample: each code on its benchmark tests, each distinct program (code
samples and the reference) on its unit's distinct generated tests (a fresh child per test). Runs them through one
``Sandbox`` whose workers are started (and warmed) before the clock starts, ``--rounds`` times, and prints per
round: test executions, wall, the worker-seconds outside the tests' own time per execution (the mean over the
round, and the median of each job's wall on its worker less its tests), and CPU per execution (this process and
the workers with the programs they forked, user and system apart).

Run it under two checkouts' interpreters, alternating, for an A/B ratio on a shared machine:
``for i in 1 2; do A/.venv/bin/python benchmarks/perf/exec_overhead.py RUN; B/.venv/bin/python ...; done``.

Usage: ``uv run python benchmarks/perf/exec_overhead.py RUN_DIR [--rounds 2] [--limit N] [--light]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

CLK = os.sysconf("SC_CLK_TCK")


def _proc_cpu(pid: int) -> tuple[float, float]:
    """(user, system) seconds of a live process and the children it reaped."""
    with open(f"/proc/{pid}/stat") as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[13])) / CLK, (int(f[12]) + int(f[14])) / CLK


def _self_cpu() -> tuple[float, float]:
    s = resource.getrusage(resource.RUSAGE_SELF)
    return s.ru_utime, s.ru_stime


def _records(run: Path, name: str) -> list[Any]:
    from tfr_helpers import logfiles
    from tfr_helpers.pipeline.engine.codec import decode_records

    out: list[Any] = []
    for line in logfiles.read_text(run / "checkpoints" / f"{name}.jsonl").splitlines():
        try:
            out += decode_records(json.loads(line)["data"])
        except (ValueError, KeyError):
            continue
    return out


def build_jobs(run: Path, light: bool) -> tuple[list[Any], list[Any]]:
    """(benchmark jobs, generated-test jobs) of the run's units, each distinct job once."""
    from tfr_helpers.benchmarks import benchmark_tests
    from tfr_helpers.pipeline.config.experiment import ExperimentConfig
    from tfr_helpers.pipeline.engine.store import RunStore
    from tfr_helpers.pipeline.engine.tasks import select_tasks
    from tfr_helpers.sandbox import TestSpec

    config = ExperimentConfig.model_validate(json.loads((run / "config.json").read_text())["config"])
    tasks = select_tasks(config, RunStore(run))
    from tfr_helpers.records import GeneratedCode, GeneratedTest

    codes = [r for r in _records(run, "generated_codes") if isinstance(r, GeneratedCode)]
    tests = [r for r in _records(run, "generated_tests") if isinstance(r, GeneratedTest)]
    by_unit: dict[tuple[str, str], dict[str, Any]] = {}
    for t in tests:
        by_unit.setdefault((t.model, t.task_id), {}).setdefault(t.source, TestSpec(t.name, t.source, "function"))
    bench: dict[tuple[str, str], Any] = {}
    gen: dict[tuple[str, ...], Any] = {}
    for c in codes:
        task = tasks.get(c.task_id)
        if task is None or not c.code or (light and task.benchmark == "bigcodebench"):
            continue
        bench.setdefault((c.code, c.task_id), (c.code, list(benchmark_tests(task))))
        specs = list(by_unit.get((c.model, c.task_id), {}).values())
        if specs:
            for program in (c.code, task.reference):
                gen.setdefault((program, *(s.source for s in specs)), (program, specs))
    return list(bench.values()), list(gen.values())


def measure(sandbox: Any, jobs: list[Any], limits: Any) -> dict[str, float]:
    """Run ``jobs`` once; the figures of the round."""
    pids = [h.proc.pid for h in sandbox._all]  # noqa: SLF001 - measurement only
    spans: list[tuple[float, int, float]] = []  # (job wall on its worker, executions, their test time)
    run_one = sandbox.run

    def timed(program: str, tests: Any, lim: Any = None, call: str = "") -> Any:
        t0 = time.perf_counter()
        out = run_one(program, tests, lim, call)
        outcomes = [o for o in [*out.outcomes, out.load_error] if o is not None and o.status != "not_run"]
        spans.append((time.perf_counter() - t0, len(outcomes), sum(o.duration_s for o in outcomes)))
        return out

    sandbox.run = timed
    s0, w0, t0 = _self_cpu(), [_proc_cpu(p) for p in pids], time.perf_counter()
    runs = sandbox.run_many(jobs, limits=limits)
    wall = time.perf_counter() - t0
    s1, w1 = _self_cpu(), [_proc_cpu(p) for p in pids]
    sandbox.run = run_one
    n = sum(k for _, k, _ in spans) or 1
    test = sum(t for _, _, t in spans)
    per_exec = [max(0.0, (w - t) / k) for w, k, t in spans if k for _ in range(k)]
    return {
        "jobs": len(runs),
        "executions": n,
        "wall": wall,
        "test": test,
        "outside_mean_ms": 1000 * (wall * sandbox.n_workers - test) / n,
        "outside_median_ms": 1000 * statistics.median(per_exec) if per_exec else 0.0,
        "user_ms": 1000 * (s1[0] - s0[0] + sum(b[0] - a[0] for a, b in zip(w0, w1, strict=True))) / n,
        "sys_ms": 1000 * (s1[1] - s0[1] + sum(b[1] - a[1] for a, b in zip(w0, w1, strict=True))) / n,
        "driver_ms": 1000 * (s1[0] - s0[0] + s1[1] - s0[1]) / n,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N jobs of each kind")
    parser.add_argument("--light", action="store_true", help="leave BigCodeBench out (light workers only)")
    parser.add_argument("--label", default=sys.prefix)
    args = parser.parse_args()
    from tfr_helpers.sandbox import Limits, Sandbox

    bench, gen = build_jobs(args.run, args.light)
    bench, gen = bench[: args.limit], gen[: args.limit]
    base = Limits(seed=0, timeout_s=10.0, hypothesis_max_examples=30)
    gen_limits = Limits(seed=0, timeout_s=10.0, hypothesis_max_examples=30, fresh_per_test=True)
    with Sandbox(base, workers=2) as sandbox:
        sandbox.run_many(bench[:4] + gen[:4], limits=gen_limits)  # start and warm the workers
        for r in range(args.rounds):
            for name, jobs, limits in (("benchmark", bench, base), ("generated", gen, gen_limits)):
                m = measure(sandbox, jobs, limits)
                print(
                    f"{args.label} round {r} {name:<9} jobs {m['jobs']:4d} exec {m['executions']:5d} "
                    f"wall {m['wall']:6.1f} s test {m['test']:5.1f} s | outside/exec mean {m['outside_mean_ms']:6.2f} ms "
                    f"median "
                    f"{m['outside_median_ms']:6.2f} ms | CPU/exec user {m['user_ms']:6.2f} sys {m['sys_ms']:6.2f} "
                    f"(driver {m['driver_ms']:5.2f}) ms | load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
