"""CodeT's published HumanEval number, reproduced from scratch on its published CodeGen-16B generations.

Executes every unique program on every unique generated test of its task with CodeT's released protocol (packed
semantics, 0.1 s per test) and on the benchmark tests, in a fresh temporary run directory (or ``--keep DIR``,
which a second call loads in seconds), then prints:

- the selection table (pass@1 and pass@10 of ``codet``, ``codet_paper`` and the random baseline, in percent) with
  CodeT's released evaluator (picks with replacement inside a tie level), as the paper computes it, then pass@10
  with the selection tables' estimator (without replacement: like the random baseline; pass@1 is the same);
- the comparison with the paper: CodeT pass@1 36.7 on CodeGen-Mono-16B HumanEval (Chen et al. 2022, Table 2);
  the exit status is 1 when the reproduction is more than 0.5 points away;
- the same table on the subset the test suite executes (``tests/consensus/test_codet_reproduction.py``: every
  ``SUBSET_STRIDE``-th task from ``SUBSET_START``), computed from these same matrices, which is where the test's
  expected values come from.

The whole run takes about 7 minutes on 2 quiet cores; the test suite runs only the subset.

Usage: ``TFR_BENCHMARK_DIR=/path/to/benchmarks TFR_REPLAY_DIR=/path/to/replay uv run python
benchmarks/perf/reproduce_codet.py [--workers 2] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from tfr_helpers.consensus.execute import build_matrices
from tfr_helpers.consensus.ranked_pass_at_k import PAPER_ESTIMATOR, SELECTION_ESTIMATOR
from tfr_helpers.consensus.report import selection_report
from tfr_helpers.replay import load_replay

DATASET = "codet-codegen16b-humaneval"
PUBLISHED_PASS_AT_1 = 36.7
"""CodeT on CodeGen-Mono-16B, HumanEval pass@1 (percent)."""
TOLERANCE = 0.5
SUBSET_START, SUBSET_STRIDE = 8, 16
"""The test suite's subset: tasks 8, 24, 40, ..., 152 of the dataset's order (10 of 164)."""
STRATEGIES = ["codet", "codet_paper"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="run directory to use (default: a temporary one)")
    args = parser.parse_args()
    dataset = load_replay(DATASET)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.keep or Path(tmp)
        load_before = os.getloadavg()[0]
        t0 = time.monotonic()
        matrices, truths, stats = build_matrices(dataset, run_dir, "packed", timeout=0.1, workers=args.workers)
        wall = time.monotonic() - t0
    print(f"{DATASET}: {len(matrices)} tasks, {stats.executions} executions, {stats.cached_tasks} tasks loaded")
    print(
        f"wall {wall:.0f} s with {args.workers} workers; load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after (1 min)"
    )
    report = selection_report(matrices, truths, STRATEGIES, ks=(1, 10), estimator=PAPER_ESTIMATOR)
    print(f"estimator {PAPER_ESTIMATOR} (CodeT's paper):")
    print(report.frame().round(2).to_string())
    like = selection_report(matrices, truths, STRATEGIES, ks=(1, 10), estimator=SELECTION_ESTIMATOR)
    print(f"estimator {SELECTION_ESTIMATOR} (the selection tables):")
    print(like.frame().round(2).to_string())
    got = 100 * report.row("codet").pass_at[1]
    ok = abs(got - PUBLISHED_PASS_AT_1) <= TOLERANCE
    print(
        f"CodeT pass@1 {got:.2f} vs published {PUBLISHED_PASS_AT_1} (tolerance {TOLERANCE}): "
        f"{'reproduced' if ok else 'NOT reproduced'}"
    )
    subset = matrices[SUBSET_START::SUBSET_STRIDE]
    sub = selection_report(subset, truths, STRATEGIES, ks=(1, 10), estimator=PAPER_ESTIMATOR)
    print(f"\nsubset of the test suite (every {SUBSET_STRIDE}th task from task {SUBSET_START}, {sub.tasks} tasks):")
    print(sub.frame().round(2).to_string())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
