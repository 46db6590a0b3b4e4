"""Does where the project lives change how fast the study runs? The smoke study from a clone under ``/tmp``
against the same clone elsewhere (``/var/tmp`` by default), in one run.

Each clone is a copy of this checkout's tracked files (uncommitted edits included) with its own virtual
environment (``uv sync --frozen``) and its own empty caches (``TFR_CACHE_DIR`` inside the clone). The two
clones then run ``tfr stage all --params papermill_params/smoke.yaml`` alternately, ``--repeats`` times each
(a fresh run directory and empty caches every time, after ``--warmup`` untimed runs each that fill the
virtual environment's bytecode), so machine noise hits both alike. Prints each run's wall
and CPU seconds (the children's user + system time), the median of each location and the ratios
``/tmp`` over the other, of wall time and of CPU time (steadier on a shared machine): 1.00 means the location
costs nothing. Both clones are deleted at the end.

Usage: ``TFR_BENCHMARK_DIR=/path/to/benchmarks uv run python benchmarks/perf/clone_location.py
[--repeats 3] [--other /var/tmp] [--params papermill_params/smoke.yaml]``
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def make_clone(parent: str) -> Path:
    """Copy this checkout's files (tracked or new, not ignored) into a new directory below ``parent``.

    The directory's name holds a space, as a user's might.
    """
    clone = Path(tempfile.mkdtemp(prefix="tfr clone-", dir=parent))
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, check=True, capture_output=True
    ).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = REPO / rel
        if src.is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, clone / rel)
    subprocess.run(["uv", "sync", "--frozen", "--quiet"], cwd=clone, check=True)
    return clone


def run_smoke(clone: Path, params: str, index: int) -> tuple[float, float]:
    """Wall and children's CPU seconds of one smoke study in ``clone``, with empty caches."""
    cache = clone / f".perf-cache-{index}"
    shutil.rmtree(cache, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"TFR_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cmd = ["uv", "run", "--frozen", "tfr", "stage", "all", "--params", params, "--run-dir", f"runs/perf-{index}"]
    done = subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the smoke study failed in {clone}:\n{done.stderr[-3000:]}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shutil.rmtree(cache, ignore_errors=True)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per clone first (bytecode, page cache)")
    parser.add_argument("--other", default="/var/tmp", help="parent directory of the other clone")
    parser.add_argument("--params", default="papermill_params/smoke.yaml")
    args = parser.parse_args()
    if not os.environ.get("TFR_BENCHMARK_DIR"):
        sys.exit("set TFR_BENCHMARK_DIR to a directory holding the benchmark snapshots (absolute path)")
    clones = {"/tmp": make_clone("/tmp"), args.other: make_clone(args.other)}
    times: dict[str, list[float]] = {where: [] for where in clones}
    cpus: dict[str, list[float]] = {where: [] for where in clones}
    try:
        for i in range(args.warmup):
            for clone in clones.values():
                run_smoke(clone, args.params, -1 - i)
        for i in range(args.repeats):
            for where, clone in clones.items():
                wall, cpu = run_smoke(clone, args.params, i)
                times[where].append(wall)
                cpus[where].append(cpu)
                print(f"run {i + 1}: {where:<10} wall {wall:6.1f} s  cpu {cpu:6.1f} s", flush=True)
    finally:
        for clone in clones.values():
            shutil.rmtree(clone, ignore_errors=True)
    med = {where: statistics.median(t) for where, t in times.items()}
    cpu_med = {where: statistics.median(t) for where, t in cpus.items()}
    for where, m in med.items():
        print(f"median {where:<10} wall {m:6.1f} s  cpu {cpu_med[where]:6.1f} s over {args.repeats} runs")
    print(f"cpu ratio /tmp over {args.other}: {cpu_med['/tmp'] / cpu_med[args.other]:.2f}")
    print(f"ratio /tmp over {args.other}: {med['/tmp'] / med[args.other]:.2f}")


if __name__ == "__main__":
    main()
