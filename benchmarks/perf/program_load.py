"""What loading a program costs a fresh child: the part of a test's cost a zygote per program would save.

Builds RQ1's generated-test jobs from a finished run as ``exec_overhead.py`` does (each distinct program on its
unit's generated tests, a fresh child per test), keeps those of one kind of worker (``light``, ``hypothesis`` or
``heavy``, by the sandbox's own routing), imports that worker's preloads into this process, then for a sample of
the programs forks a child that executes the program as a module and reports the CPU time that took. Prints the
median, mean and 90th percentile per program and, times the kind's test executions, the CPU all of RQ1's
generated tests of that kind spend loading their program (each test loads it again in its own child).

Run outside the sandbox (no uid drop, limits or view): the figure is the program's own load, not the child's set-up.

Usage: ``uv run python benchmarks/perf/program_load.py RUN_DIR light|hypothesis|heavy [--sample 80]``
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from exec_overhead import build_jobs  # noqa: E402 - the sibling script's job builder

from tfr_helpers.sandbox.routing import PRELOADS, worker_kind  # noqa: E402


def load_cpu_ms(program: str) -> float:
    """CPU milliseconds a forked child spends executing ``program`` as a module (its errors included)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: load the program, report, exit without clean-up
        os.close(read)
        os.chdir(tempfile.mkdtemp())
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115
        start = time.process_time()
        try:
            exec(compile(program, "solution.py", "exec"), types.ModuleType("solution").__dict__)  # noqa: S102
        except BaseException:  # noqa: BLE001, S110 - a program that fails to load still cost its load
            pass
        os.write(write, json.dumps(1000 * (time.process_time() - start)).encode())
        os._exit(0)
    os.close(write)
    data = os.read(read, 100)
    os.waitpid(pid, 0)
    os.close(read)
    return float(json.loads(data))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("kind", choices=sorted(PRELOADS))
    parser.add_argument("--sample", type=int, default=80, help="programs to load (evenly spaced)")
    args = parser.parse_args(argv)
    _, generated = build_jobs(args.run, light=False)
    jobs = [(p, t) for p, t in generated if worker_kind(p, t) == args.kind]
    if not jobs:
        print(f"no generated-test jobs of the {args.kind} workers in {args.run}")
        return 1
    for module in PRELOADS[args.kind]:
        importlib.import_module(module)
    costs = [load_cpu_ms(p) for p, _ in jobs[:: max(1, len(jobs) // args.sample)]]
    tests = sum(len(t) for _, t in jobs)
    p90 = sorted(costs)[int(0.9 * (len(costs) - 1))]
    print(
        f"{args.kind}: {len(jobs)} jobs, {tests} test executions; {len(costs)} programs loaded: CPU per load median "
        f"{statistics.median(costs):.2f} ms, mean {statistics.mean(costs):.2f} ms, p90 {p90:.2f} ms; "
        f"RQ1's generated tests of this kind spend about {statistics.mean(costs) * tests / 1000:.1f} s loading programs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
