"""Known answers of stage oracle_repair_tests on hand-written tests, run in the real sandbox: the reference's and the
generated code's outcomes are executed, the repaired tests are verified against the reference."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.arms.oracle.records import RepairedTest
from tfr_helpers.arms.oracle.stages.oracle_repair_tests import STAGE, RepairJob, oracle_repair_tests, repair_items
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.steps.feedback import build_feedback
from tfr_helpers.pipeline.steps.labels import case_of, cause_of, reliability_of
from tfr_helpers.records import GeneratedCode, GeneratedTest, ModelCallRecord, PairEvaluation, Task, pair_id

REFERENCE = "def add(a, b):\n    if a < 0:\n        raise ValueError('a must be >= 0')\n    return a + b\n"
MUTANT = REFERENCE.replace("a + b", "a - b")
CORRECT = "def add(a, b):\n    if a < 0:\n        raise ValueError('negative')\n    return b + a\n"
TASK = Task(
    task_id="HumanEval/0",
    benchmark="humaneval",
    description="Add two non-negative numbers.",
    entry_point="add",
    signature="def add(a, b):",
    reference=REFERENCE,
    tests="def check(candidate):\n    assert candidate(1, 2) == 3\n",
    test_format="check",
)
TESTS = {
    "wrong": "def test_wrong():\n    assert add(2, 2) == 5\n",
    "two": "def test_two():\n    assert add(1, 1) == 3  # both wrong\n    assert add(2, 3) == 6\n",
    "invalid": "def test_invalid():\n    assert add(-1, 2) == 1\n",
    "greater": "def test_greater():\n    assert add(2, 2) > 5\n",
    "loop": "def test_loop():\n    for x in [1, 2]:\n        assert add(x, 0) == 5\n",
}
pytestmark = pytest.mark.slow  # one sandbox pool, about 20 program runs

CALL = ModelCallRecord(model="sim:default", role="tester", stage="generate_tests", template="ebt", template_version="1")


def generated_test(index: int, name: str, kind: str = "ebt") -> GeneratedTest:
    return GeneratedTest(
        test_id=f"sim:default|{TASK.task_id}|{kind}|{index}",
        model="sim:default",
        task_id=TASK.task_id,
        kind=kind,  # type: ignore[arg-type]
        index=index,
        name=f"test_{name}",
        source=TESTS[name],
        call=CALL,
    )


def pair(ctx: RunContext, test: GeneratedTest, code: str, code_index: int) -> PairEvaluation:
    """The stage-3 record of (test, code), from real sandbox runs of the code and the reference."""
    from tfr_helpers.pipeline.steps.pair_runs import test_spec

    gen, ref = ctx.run_programs([(code, [test_spec(test)]), (REFERENCE, [test_spec(test)])], generated=True)
    g, r = gen.outcomes[0], ref.outcomes[0]
    case = case_of(g.status == "passed", r.status == "passed")
    fb = None if g.status == "passed" else build_feedback(test.test_id, test.source, g, gen.load_error)
    return PairEvaluation(
        test_id=test.test_id,
        code_index=code_index,
        model=test.model,
        task_id=TASK.task_id,
        benchmark="humaneval",
        kind=test.kind,
        generated=g,
        reference=r,
        case=case,
        reliability=reliability_of(case),
        cause=cause_of(test.kind, test.source, r, None) if reliability_of(case) == "unreliable" else None,
        feedback=fb.model_copy(update={"feedback_id": pair_id(test.test_id, code_index)}) if fb else None,
        isolation=gen.isolation,
    )


@pytest.fixture(scope="module")
def repaired(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, RepairedTest]]:
    """Each hand-written test against the mutant (sample 0), ``wrong`` also against a correct program (sample 1)."""
    config = ExperimentConfig(
        benchmarks=["humaneval"], refinement={"oracle_repair": True}, concurrency={"sandbox_workers": 1}
    )
    ctx = RunContext(config, RunStore(tmp_path_factory.mktemp("oracle") / "run"), {TASK.task_id: TASK})
    try:
        jobs = []
        for i, name in enumerate(TESTS):
            test = generated_test(i, name)
            jobs.append(RepairJob(TASK, pair(ctx, test, MUTANT, 0), test, MUTANT))
        test = generated_test(0, "wrong")
        jobs.append(RepairJob(TASK, pair(ctx, test, CORRECT, 1), test, CORRECT))
        assert all(j.pair.reliability == "unreliable" for j in jobs)
        out = oracle_repair_tests(jobs, ctx)
    finally:
        ctx.close()
    names = [*TESTS, "wrong_correct"]
    yield dict(zip(names, out, strict=True))


def test_equality_assert_is_repaired_and_verified_against_the_reference(repaired: dict[str, RepairedTest]) -> None:
    r = repaired["wrong"]
    assert r.status == "repaired" and r.source == "def test_wrong():\n    assert add(2, 2) == 4\n"
    assert r.reference is not None and r.reference.status == "passed"
    assert r.generated is not None and r.generated.status == "failed" and r.generated.actual == "0"
    assert r.feedback is not None and r.feedback.feedback_id == r.feedback_id == r.test_id
    assert "assert add(2, 2) == 4" in r.feedback.text and "Expected: 4" in r.feedback.text
    assert "== 5" not in r.feedback.text


def test_every_failed_assert_of_a_test_is_repaired(repaired: dict[str, RepairedTest]) -> None:
    r = repaired["two"]
    assert r.status == "repaired" and r.reference is not None and r.reference.status == "passed"
    assert r.source == "def test_two():\n    assert add(1, 1) == 2  # both wrong\n    assert add(2, 3) == 5\n"


def test_invalid_input_is_reported_not_repaired(repaired: dict[str, RepairedTest]) -> None:
    r = repaired["invalid"]
    assert r.cause == "invalid_input" and r.status == "not_repaired" and r.source is None and r.feedback is None
    assert r.reason is not None and r.reason.startswith("invalid input")


def test_non_equality_assert_is_reported(repaired: dict[str, RepairedTest]) -> None:
    r = repaired["greater"]
    assert r.cause == "wrong_expected_value" and r.status == "not_repaired" and r.reason == "not an equality assert (Gt)"


def test_repair_the_reference_still_fails_is_not_kept(repaired: dict[str, RepairedTest]) -> None:
    r = repaired["loop"]
    assert r.status == "not_repaired" and r.source is None
    assert r.reason == "the reference fails the repaired test: the same assert fails again"
    assert r.reference is not None and r.reference.status == "failed"


def test_code_passing_the_repaired_test_gets_no_feedback(repaired: dict[str, RepairedTest]) -> None:
    r = repaired["wrong_correct"]
    assert r.feedback_id == pair_id(r.test_id, 1) and r.code_index == 1
    assert r.status == "repaired" and r.generated is not None and r.generated.status == "passed" and r.feedback is None


def _records(config: ExperimentConfig) -> tuple[RunContext, dict[str, list[object]]]:
    ctx = RunContext(config, RunStore(Path("/nonexistent")), {TASK.task_id: TASK})
    ebt, pbt = generated_test(0, "wrong"), generated_test(0, "wrong", kind="pbt")
    outcome = {"name": "t", "status": "failed", "exc_type": "AssertionError"}
    pairs = [
        PairEvaluation.model_validate(
            {
                "test_id": t.test_id,
                "model": "sim:default",
                "task_id": TASK.task_id,
                "benchmark": "humaneval",
                "kind": t.kind,
                "generated": outcome,
                "reference": outcome,
                "case": "fail_fail",
                "reliability": "unreliable",
                "cause": "wrong_expected_value" if t.kind == "ebt" else "property_falsified",
                "feedback": {"feedback_id": t.test_id, "test_id": t.test_id, "text": "x"},
                "isolation": {"network": "none", "uid_drop": False},
            }
        )
        for t in (ebt, pbt)
    ]
    code = GeneratedCode(model="sim:default", task_id=TASK.task_id, code=MUTANT, call=CALL)
    return ctx, {"generate_codes": [code], "generate_tests": [ebt, pbt], "evaluate_code_test_pairs": pairs}


def test_pbt_feedback_gets_no_repair_job() -> None:
    ctx, records = _records(ExperimentConfig(benchmarks=["humaneval"], refinement={"oracle_repair": True}))
    jobs = repair_items(ctx, STAGE.input_records(records))
    assert [j.test.kind for j in jobs] == ["ebt"]


def test_nothing_runs_when_oracle_repair_is_off() -> None:
    ctx, records = _records(ExperimentConfig(benchmarks=["humaneval"]))
    assert repair_items(ctx, STAGE.input_records(records)) == []


def test_a_screening_change_keeps_the_arms_records() -> None:
    from tfr_helpers.pipeline.engine import stage as fp
    from tfr_helpers.pipeline.engine.stage import registered_stages

    stages = registered_stages()
    oracle = {s.name for s in stages if s.name.startswith("oracle_")}
    assert len(oracle) == 3
    blocked = fp.blocking_stages(["screening", "refinement.oracle_repair"], stages, lambda name: True)
    assert not oracle & set(blocked["screening"]) and set(blocked["refinement.oracle_repair"]) == oracle
