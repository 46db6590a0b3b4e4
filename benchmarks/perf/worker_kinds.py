"""CPU per generated-test run in a heavy worker against a hypothesis worker, on a finished run's HumanEval/MBPP tests.

Each generated test (EBT or PBT) of the run's HumanEval and MBPP tasks runs on its task's first code sample, in a
fresh child (``fresh_per_test``), through a one-worker ``Sandbox`` that preloads either the heavy workers' modules
(numpy, pandas, scipy, sklearn, seaborn, Hypothesis...) or the hypothesis workers' (the light workers' and
Hypothesis), alternately, ``--rounds`` times. Prints per kind the workers' user and system CPU per job (with the
programs they forked: ``Sandbox.cpu_times``), the tests' own time and the wall time.

Usage: ``uv run python benchmarks/perf/worker_kinds.py RUN_DIR [--rounds 2]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tfr_helpers import logfiles
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.records import GeneratedCode, GeneratedTest
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.preload import PRELOAD
from tfr_helpers.sandbox.routing import HYPOTHESIS_PRELOAD


def _records(run: Path, name: str) -> list[object]:
    out: list[object] = []
    for line in logfiles.read_text(run / "checkpoints" / f"{name}.jsonl").splitlines():
        out += decode_records(json.loads(line)["data"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    codes: dict[str, str] = {}
    for r in _records(args.run, "generated_codes"):
        if isinstance(r, GeneratedCode) and r.code and r.sample_index == 0:
            codes[r.task_id] = r.code
    tests = [
        t
        for t in _records(args.run, "generated_tests")
        if isinstance(t, GeneratedTest) and not t.task_id.startswith("BigCodeBench") and t.task_id in codes
    ]
    jobs = [(codes[t.task_id], [TestSpec(t.name, t.source, "function")]) for t in tests]
    limits = Limits(timeout_s=10, hypothesis_max_examples=30, fresh_per_test=True)
    for _ in range(args.rounds):
        for name, preload in (("heavy", PRELOAD), ("hypothesis", HYPOTHESIS_PRELOAD)):
            with Sandbox(limits, workers=1, preload=preload) as sandbox:
                sandbox.run_many(jobs[:3], limits=limits)  # the worker started and warm
                (u0, s0), t0 = sandbox.cpu_times(), time.perf_counter()
                runs = sandbox.run_many(jobs, limits=limits)
                (u1, s1), wall = sandbox.cpu_times(), time.perf_counter() - t0
            own = sum(o.duration_s for r in runs for o in r.outcomes)
            n = len(jobs)
            print(
                f"{name:<10} {n} jobs: CPU per job user {1000 * (u1 - u0) / n:.1f} ms, "
                f"system {1000 * (s1 - s0) / n:.1f} ms; "
                f"tests' own time {own:.2f} s; wall {wall:.1f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
