"""Where the sandbox's CPU goes, per kind of worker, on a sample of a finished run's RQ1 jobs.

Builds RQ1's jobs from a finished run's checkpoints as ``exec_overhead.py`` does (each code on its benchmark
tests; each distinct program on its unit's generated tests, a fresh child per test), keeps every ``--every``-th,
and runs them through one ``Sandbox`` with its usual routing (light, hypothesis, heavy; each with its waiting
workers). Prints per pool: jobs, test executions, the tests' own time, the user and system CPU of its workers
with the programs they forked (a worker started during the round counts its start-up too: ``started``), and the
same per execution; then the driver's (this process's) CPU. The run's totals per kind are these per-execution
figures times the run's executions of that kind.

Usage: ``uv run python benchmarks/perf/worker_split.py RUN_DIR [--every 10] [--light]``
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from exec_overhead import build_jobs  # noqa: E402 - the sibling script's job builder

from tfr_helpers.sandbox import Limits, Sandbox  # noqa: E402
from tfr_helpers.sandbox.routing import proc_cpu  # noqa: E402


def _pool_cpu(sandbox: Any) -> dict[str, dict[int, tuple[float, float]]]:
    """Per pool, per live worker pid: its (user, system) CPU with its reaped children."""
    return {kind: {h.proc.pid: proc_cpu(h.proc.pid) for h in pool.all} for kind, pool in sandbox._pools.items()}  # noqa: SLF001


def _huge(pid: int) -> str:
    """``huge/anonymous`` MiB of a live process (``smaps_rollup``)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            kib = {f[0]: int(f[1]) for f in (line.split() for line in fh) if len(f) == 3}
    except OSError:
        return "?"
    return f"{kib.get('AnonHugePages:', 0) // 1024}/{kib.get('Anonymous:', 0) // 1024}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--every", type=int, default=10, help="keep every N-th job of each kind")
    parser.add_argument("--light", action="store_true", help="leave BigCodeBench out")
    parser.add_argument("--only", default=None, help="keep only the jobs of this pool (e.g. heavy)")
    parser.add_argument("--label", default=sys.prefix)
    args = parser.parse_args()
    bench, gen = build_jobs(args.run, args.light)
    base = Limits(seed=0, timeout_s=10.0, hypothesis_max_examples=30)
    gen_limits = Limits(seed=0, timeout_s=10.0, hypothesis_max_examples=30, fresh_per_test=True)
    with Sandbox(base, workers=2) as sandbox:
        if args.only:
            bench, gen = ([j for j in jobs if sandbox._pool_for(*j) is sandbox._pools[args.only]] for jobs in (bench, gen))  # noqa: SLF001
        rounds = (("benchmark", bench[:: args.every], base), ("generated", gen[:: args.every], gen_limits))
        warm: dict[str, Any] = {}  # one job per pool, so that every one-per-core worker starts before the clock
        for _, jobs, _ in rounds:
            for job in jobs:
                warm.setdefault(next(k for k, p in sandbox._pools.items() if p is sandbox._pool_for(*job)), job)  # noqa: SLF001
        sandbox.run_many(list(warm.values()), limits=gen_limits)
        for name, jobs, limits in rounds:
            counts: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
            kinds = [next(k for k, p in sandbox._pools.items() if p is sandbox._pool_for(*j)) for j in jobs]  # noqa: SLF001
            before, self0, t0 = _pool_cpu(sandbox), resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            runs = sandbox.run_many(jobs, limits=limits)
            wall = time.perf_counter() - t0
            after, self1 = _pool_cpu(sandbox), resource.getrusage(resource.RUSAGE_SELF)
            for kind, run in zip(kinds, runs, strict=True):
                done = [o for o in [run.load_error, *run.outcomes] if o is not None and o.status != "not_run"]
                counts[kind][0] += 1
                counts[kind][1] += len(done)
                counts[kind][2] += sum(o.duration_s for o in done)
            total_n = sum(c[1] for c in counts.values()) or 1
            print(
                f"{args.label} {name}: {len(jobs)} jobs, {total_n} executions, wall {wall:.1f} s, "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            for kind in sandbox._pools:  # noqa: SLF001
                user = sum(u - before[kind].get(pid, (0.0, 0.0))[0] for pid, (u, _) in after[kind].items())
                system = sum(s - before[kind].get(pid, (0.0, 0.0))[1] for pid, (_, s) in after[kind].items())
                started = len(set(after[kind]) - set(before[kind]))
                n_jobs, n, own = counts.get(kind, [0, 0, 0.0])
                if not n_jobs and not user and not system:
                    continue
                per = max(int(n), 1)
                print(
                    f"  {kind:<15} jobs {int(n_jobs):5d} exec {int(n):5d} own {own:7.2f} s | CPU user {user:7.2f} s "
                    f"sys {system:7.2f} s | per exec user {1000 * user / per:6.2f} sys {1000 * system / per:6.2f} ms"
                    f" | started {started}",
                    flush=True,
                )
            du = self1.ru_utime - self0.ru_utime
            ds = self1.ru_stime - self0.ru_stime
            print(
                f"  {'driver':<15} CPU user {du:7.2f} s sys {ds:7.2f} s | per exec user {1000 * du / total_n:6.2f} "
                f"sys {1000 * ds / total_n:6.2f} ms",
                flush=True,
            )
        print(
            "  anonymous memory in huge pages per worker (MiB of MiB): "
            + "; ".join(
                f"{kind} " + " ".join(_huge(h.proc.pid) for h in pool.all)
                for kind, pool in sandbox._pools.items()
                if pool.all  # noqa: SLF001
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
