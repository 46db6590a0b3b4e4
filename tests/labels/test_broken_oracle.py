"""A run reports and excludes a task whose reference fails its own benchmark tests in that run: every label of
it would be judged against a broken oracle (BigCodeBench/1103's test sleeps past the study's budget)."""

from __future__ import annotations

from pathlib import Path

from tests.labels.conftest import CALL, LIGHT, SMOKE
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import Counters, RunContext
from tfr_helpers.pipeline.engine.run_summary import summarize
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.stages import evaluate_code_test_pairs as stage
from tfr_helpers.pipeline.stages.finalize_results import bundle_items, finalize_results
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation, SkippedWork
from tfr_helpers.results_file import RESULTS_FILE, read_results_bytes

SLEEPY = "import time\n\ndef has_close_elements(numbers, threshold):\n    time.sleep(5)\n    return False\n"
"""A reference that cannot answer within the study's 1 s budget, nor alone with three times it."""


def _unit(reference: str) -> stage.PairJob:
    task = get_task("HumanEval/0").model_copy(update={"reference": reference})
    code = GeneratedCode(model="sim:default", task_id=task.task_id, code=get_task("HumanEval/0").reference, call=CALL)
    test = GeneratedTest(
        test_id="sim:default|HumanEval/0|ebt|0",
        model="sim:default",
        task_id=task.task_id,
        kind="ebt",
        index=0,
        name="test_x",
        source="def test_x():\n    assert has_close_elements([1.0, 2.0], 0.5) is False\n",
        call=CALL,
    )
    return stage.PairJob(task=task, codes=(code,), tests=(test,))


def test_a_task_whose_reference_fails_its_benchmark_tests_is_reported_and_excluded(tmp_path: Path) -> None:
    config = load_config(SMOKE, {**LIGHT, "sandbox": {"timeout_s": 1.0, "generated_test_timeout_s": 1.0}})
    broken, sound = _unit(SLEEPY), _unit(get_task("HumanEval/0").reference)
    ctx = RunContext(config=config, store=RunStore(tmp_path / "run"), tasks={"HumanEval/0": broken.task})
    try:
        out = stage.evaluate_code_test_pairs([broken], ctx)
        kept = stage.evaluate_code_test_pairs([sound], ctx)
        records = {"evaluate_code_test_pairs": out}
        (results,) = finalize_results(bundle_items(ctx, records), ctx)
    finally:
        ctx.close()
    assert len(out) == 1 and isinstance(out[0], SkippedWork), out
    reason = out[0].reason
    assert (out[0].model, out[0].task_id, out[0].stage) == ("sim:default", "HumanEval/0", "evaluate_code_test_pairs")
    assert reason.startswith("reference fails its own benchmark tests in this run: ") and "timeout" in reason, reason
    assert any(isinstance(r, PairEvaluation) for r in kept), "a sound reference keeps its task"
    assert out[0] in results.skipped and not results.pair_evaluations and not results.benchmark_verdicts
    assert read_results_bytes(tmp_path / "run" / RESULTS_FILE).decode().count("reference fails its own benchmark tests") == 1
    lines = summarize(tmp_path / "run", {}, Counters(), results).lines()
    assert any(line.startswith("skipped: sim:default evaluate_code_test_pairs: reference fails") for line in lines)
