"""Measure what the time limit of generated tests should be: the reference's own time on the generated tests it
passes, how near the code's passes come to their limits, what a floor, cap and margin would change, and how much
a program's own time on one test varies from run to run.

Reads a run whose RQ1 stage (``evaluate_code_test_pairs``) finished, made under any time rule, and prints:

- the reference's own time (``limit_clock``: wall time less its waits for a CPU, at least its CPU time) on every
  distinct generated test it passed, per benchmark and kind: quartiles, the 99th and 99.9th percentiles, the
  largest, and how many took more than 1, 2, 3, 5 s;
- for each candidate ``--floor``, ``--cap``, ``--margin`` (``max(floor, factor x reference)`` at most ``cap``, the
  sandbox's kill at ``limit x (1 + margin)``): the references that pass past ``cap x (1 - margin)`` (set aside
  as near the cap, or past it), the code's passes that would lie past their new limit (within the band:
  indeterminate; past it: a timeout), from the times the run measured;
- with ``--repeat R``: the references' distinct generated tests that took at least ``--min-time`` seconds, each
  run ``R`` more times through one sandbox (a fresh program per test, two workers, under whatever load the
  machine has): the spread of each test's own time, ``max / min`` over its runs, with its quantiles. The margin
  must cover that spread for the reference's time (which sets the limit) and the code's (which is judged by it).

Usage: ``uv run python benchmarks/perf/time_limit_study.py RUN_DIR [--factor 4] [--floor 0.5 1 2] [--cap 3 5 10]
[--margin 0.25 0.5] [--repeat 3 --min-time 0.2]``
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.steps.time_limits import limit_clock
from tfr_helpers.records import GeneratedTest, PairEvaluation
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec


def _records(run: Path, checkpoint: str) -> list[object]:
    return [r for e in RunStore(run).read_checkpoint(checkpoint) for r in decode_records(e["data"])]


def _quantiles(values: list[float]) -> str:
    a = np.array(values)
    q = np.quantile(a, [0.25, 0.5, 0.75, 0.99, 0.999])
    over = ", ".join(f">{t:g} s {int((a > t).sum())}" for t in (1, 2, 3, 5))
    return (
        f"n {len(a)}; quartiles {q[0]:.3f} {q[1]:.3f} {q[2]:.3f}; p99 {q[3]:.3f}; p99.9 {q[4]:.3f}; "
        f"max {a.max():.3f} s; {over}"
    )


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--factor", type=float, default=4.0)
    parser.add_argument("--floor", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--cap", type=float, nargs="+", default=[3.0, 5.0, 10.0])
    parser.add_argument("--margin", type=float, nargs="+", default=[0.25, 0.5])
    parser.add_argument("--repeat", type=int, default=0, help="runs per slow reference test (0: none)")
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds: the tests --repeat runs again")
    parser.add_argument("--most", type=int, default=150, help="at most this many tests for --repeat (the slowest)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    pairs = [p for p in _records(args.run, "test_execution_feedback") if isinstance(p, PairEvaluation)]
    refs: dict[str, PairEvaluation] = {}
    for p in pairs:
        refs.setdefault(p.test_id, p)
    print(f"{len(pairs)} pairs, {len(refs)} distinct generated tests")
    by_group: dict[tuple[str, str], list[float]] = defaultdict(list)
    for p in refs.values():
        first = p.reference_first or p.reference
        if first.status == "passed":
            by_group[(p.benchmark, p.kind)].append(limit_clock(first))
    print("the reference's own time on the generated tests it passed:")
    for (bench, kind), times in sorted(by_group.items()):
        print(f"  {bench} {kind}: {_quantiles(times)}")
    every = [t for times in by_group.values() for t in times]
    if not every:
        raise SystemExit("no reference passed a generated test in this run: run its RQ1 stage first")
    print(f"  all: {_quantiles(every)}")

    print(f"candidate rules (factor {args.factor:g}): references set aside or timed out; code passes past the new limit")
    for floor, cap, margin in itertools.product(args.floor, args.cap, args.margin):
        if floor > cap:
            continue
        ref_near = sum(cap * (1 - margin) < t <= cap * (1 + margin) for t in every)
        ref_over = sum(t > cap * (1 + margin) for t in every)
        band = past = 0
        for p in pairs:
            first = p.reference_first or p.reference
            if first.status != "passed" or p.generated.status != "passed":
                continue
            limit = min(cap, max(floor, args.factor * limit_clock(first)))
            took = limit_clock(p.generated_first or p.generated)
            band += limit < took <= limit * (1 + margin)
            past += took > limit * (1 + margin)
        print(
            f"  floor {floor:g} s, cap {cap:g} s, margin {margin:.0%}: reference near the cap {ref_near}, past it "
            f"{ref_over}; code passes now in the band {band}, past it {past}"
        )
    if args.repeat:
        _repeat(args, pairs, refs)


def _repeat(args: argparse.Namespace, pairs: list[PairEvaluation], refs: dict[str, PairEvaluation]) -> None:
    tests = {t.test_id: t for t in _records(args.run, "generated_tests") if isinstance(t, GeneratedTest)}
    slow = [
        (limit_clock(p.reference_first or p.reference), p)
        for p in refs.values()
        if (p.reference_first or p.reference).status == "passed"
        and limit_clock(p.reference_first or p.reference) >= args.min_time
    ]
    slow = sorted(slow, key=lambda x: -x[0])[: args.most]
    print(
        f"{len(slow)} reference tests of at least {args.min_time:g} s, each run {args.repeat} more times (load "
        f"{os.getloadavg()[0]:.1f}):"
    )
    times: dict[str, list[float]] = {p.test_id: [t] for t, p in slow}
    limits = Limits(timeout_s=30.0, fresh_per_test=True, hypothesis_max_examples=25)
    with Sandbox(limits, workers=2) as sandbox:
        jobs = [
            (get_task(p.task_id).reference, [TestSpec(tests[p.test_id].name, tests[p.test_id].source, kind="function")])
            for _, p in slow
        ]
        for _ in range(args.repeat):
            for (_, p), run in zip(slow, sandbox.run_many(jobs, limits=limits), strict=True):
                if run.outcomes and run.outcomes[0].status == "passed":
                    times[p.test_id].append(limit_clock(run.outcomes[0]))
    spread = [max(v) / min(v) for v in times.values() if len(v) > 1 and min(v) > 0]
    q = np.quantile(np.array(spread), [0.5, 0.9, 0.99, 1.0])
    print(
        f"  own time max/min over {args.repeat + 1} runs of {len(spread)} tests: median {q[0]:.3f}, p90 {q[1]:.3f}, "
        f"p99 {q[2]:.3f}, max {q[3]:.3f} (load at the end {os.getloadavg()[0]:.1f})"
    )
    worst = sorted(((max(v) / min(v), k, v) for k, v in times.items() if len(v) > 1 and min(v) > 0), reverse=True)[:5]
    for ratio, key, values in worst:
        print(f"    {key}: {ratio:.2f} ({', '.join(f'{x:.2f}' for x in values)} s)")


if __name__ == "__main__":
    main()
