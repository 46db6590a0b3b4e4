"""Time RQ1 on CodeT's published CodeGen-16B generations: 164 HumanEval tasks x 10 code samples x 10 test samples.

Runs the pipeline's first three stages (replayed code, replayed tests, evaluate_code_test_pairs) in a fresh run
directory and prints: (code sample, test) pairs, unique programs, unique tests, sandbox program runs, test
executions, the results file's size and the seconds of each stage. Identical programs and identical tests run
once, so executions are far fewer than pairs x 2 (code and reference).

Usage: ``TFR_BENCHMARK_DIR=/path/to/benchmarks TFR_REPLAY_DIR=/path/to/replay uv run python
benchmarks/perf/replay_rq1.py`` (options: ``--tasks N --code-samples N --test-samples N --workers N --keep DIR``)
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from pathlib import Path

from tfr_helpers import logfiles
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation

DATASET = "replay:codet-codegen16b-humaneval"
STAGES = ["generate_codes", "generate_tests", "evaluate_code_test_pairs"]


def _on_disk(checkpoint: Path) -> int:
    """Bytes of a checkpoint as stored (compressed once its run of stages ended)."""
    where = logfiles.stored(checkpoint)
    return where.stat().st_size if where is not None else 0


def _records(run: Path, checkpoint: str) -> list[object]:
    return [r for e in RunStore(run).read_checkpoint(checkpoint) for r in decode_records(e["data"])]


def main() -> None:
    """Run the three stages and print the counts and timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=164)
    parser.add_argument("--code-samples", type=int, default=10)
    parser.add_argument("--test-samples", type=int, default=10)
    parser.add_argument("--workers", type=int, default=None, help="sandbox workers (default: one per core)")
    parser.add_argument("--keep", type=Path, default=None, help="run directory to keep (default: a temporary one)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    config = config_from_dict(
        {
            "run_name": "perf_replay_rq1",
            "benchmarks": ["humaneval"],
            "tasks": {"humaneval": args.tasks},
            "models": {"coders": [{"model": DATASET, "code_samples": args.code_samples, "test_samples": args.test_samples}]},
            "ebts_per_task": 5,
            "pbts_per_task": 0,
            "screening": [],
            "concurrency": {"sandbox_workers": args.workers},
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        run = args.keep or Path(tmp) / "run"
        seconds = {}
        for stage in STAGES:
            started = time.perf_counter()
            summary = run_stages(config, run, stages=stage, progress=False)
            seconds[stage] = time.perf_counter() - started
        codes = [c for c in _records(run, "generated_codes") if isinstance(c, GeneratedCode)]
        tests = [t for t in _records(run, "generated_tests") if isinstance(t, GeneratedTest)]
        pairs = [p for p in _records(run, "test_execution_feedback") if isinstance(p, PairEvaluation)]
        by_task: dict[str, tuple[set[str], set[str]]] = {}
        for code in codes:
            if code.code:
                by_task.setdefault(code.task_id, (set(), set()))[0].add(code.code)
        for test in tests:
            by_task.setdefault(test.task_id, (set(), set()))[1].add(test.source)
        with_tests = {t: (p, s) for t, (p, s) in by_task.items() if s and p}
        programs = sum(len(p) for p, _ in by_task.values())
        unique_tests = sum(len(s) for _, s in by_task.values())
        reruns = len({(p.task_id, p.test_id) for p in pairs if p.reference_rerun is not None})
        executions = sum((len(p) + 1) * len(s) for p, s in with_tests.values()) + reruns
        size = len(json.dumps([p.model_dump(mode="json") for p in pairs]))
        print(f"tasks {args.tasks} x {args.code_samples} code samples x {args.test_samples} test samples ({DATASET})")
        print(f"code samples {len(codes)}, unique programs {programs} (+{len(with_tests)} references)")
        print(f"generated tests {len(tests)}, unique tests {unique_tests}")
        print(f"pairs (code sample, test) {len(pairs)}, test executions {executions} (reference reruns {reruns})")
        print(f"sandbox program runs in evaluate_code_test_pairs: {summary.sandbox_runs}")
        print(
            f"pair records as plain JSON: {size / 1e6:.1f} MB; checkpoint on disk: "
            f"{_on_disk(RunStore(run).checkpoint_path('test_execution_feedback')) / 1e6:.1f} MB"
        )
        print("seconds: " + ", ".join(f"{s} {v:.1f}" for s, v in seconds.items()))
        print(f"RQ1 (evaluate_code_test_pairs) seconds: {seconds['evaluate_code_test_pairs']:.1f}")


if __name__ == "__main__":
    main()
