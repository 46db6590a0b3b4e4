"""Throughput of `tfr select` on CodeT's published CodeGen-16B HumanEval generations.

Builds the consensus matrices (every unique program on every unique test of its task, plus each unique
program on the benchmark tests, followed in the same run by its outputs on the tests' inputs) in a fresh
temporary run directory, prints program runs, executions
(unique programs x unique tests) and executions per second with the load average, then the selection table;
then repeats the call on the same directory to show the cache (no execution).

Usage: ``TFR_BENCHMARK_DIR=/path/to/benchmarks TFR_REPLAY_DIR=/path/to/replay uv run python
benchmarks/perf/select_codet.py [--tasks N] [--semantics packed|single] [--workers 2] [--keep DIR]``
(default: all 164 tasks, packed, CodeT's protocol).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tfr_helpers.consensus.selection_run import run_selection
from tfr_helpers.replay import load_replay

DATASET = "codet-codegen16b-humaneval"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=None, help="first N tasks only (default: all 164)")
    parser.add_argument("--semantics", choices=["packed", "single"], default="packed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="run directory to use (default: a temporary one)")
    args = parser.parse_args()
    dataset = load_replay(DATASET)
    if args.tasks:
        dataset = dataset.model_copy(update={"tasks": dict(list(dataset.tasks.items())[: args.tasks])})
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.keep or Path(tmp)
        load_before = os.getloadavg()
        t0 = time.monotonic()
        first = run_selection(dataset, run_dir, semantics=args.semantics, workers=args.workers)
        wall = time.monotonic() - t0
        s = first.stats
        print(f"{DATASET}: {s.tasks} tasks, semantics {args.semantics}, {args.workers} workers, {os.cpu_count()} CPUs")
        print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} (1 min)")
        print(f"program runs {s.program_runs}, executions {s.executions} (unique programs x unique tests)")
        print(f"output evaluations {s.output_evaluations} (unique programs x unique test inputs, in the benchmark runs)")
        print(f"wall {wall:.1f} s: {s.executions / wall:.0f} executions/s, {s.program_runs / wall:.1f} program runs/s")
        t1 = time.monotonic()
        second = run_selection(dataset, run_dir, semantics=args.semantics, workers=args.workers)
        print(f"second call (cached, {second.stats.cached_tasks} tasks): {time.monotonic() - t1:.1f} s")
        print(first.report.frame().round(2).to_string())


if __name__ == "__main__":
    main()
