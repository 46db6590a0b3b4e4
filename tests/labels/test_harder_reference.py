"""The reference is tested harder than the code: a PBT the reference passes runs on it again with 10x the
examples and another seed, so a wrong property the study's examples rarely violate is caught."""

from __future__ import annotations

import re
from pathlib import Path

from tests.labels.conftest import CALL, LIGHT, SMOKE
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.stages.evaluate_code_test_pairs import PairJob, evaluate_code_test_pairs
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation

# wrong on 1% of its inputs (x % 100 == 17): the study's 30 examples (seed 0) miss it, 300 with the rerun seed
# find it (fixed seeds: the same examples on every run)
RARE = (
    "from hypothesis import given, strategies as st\n\n"
    "@given(st.integers(0, 999))\n"
    "def test_p(x):\n"
    "    assert not has_close_elements([0.0, 5.0], 1.0)\n"
    "    assert not (x % 100 == 17)\n"
)


def test_a_rarely_violated_property_fails_on_the_reference_under_the_harder_check(tmp_path: Path) -> None:
    task = get_task("HumanEval/0")
    wrong = "def has_close_elements(numbers, threshold):\n    return True\n"
    codes = tuple(
        GeneratedCode(model="sim:default", task_id=task.task_id, sample_index=i, code=c, call=CALL)
        for i, c in enumerate((wrong, task.reference))
    )
    test = GeneratedTest(
        test_id="sim:default|HumanEval/0|pbt|0",
        model="sim:default",
        task_id=task.task_id,
        kind="pbt",
        index=0,
        name="test_p",
        source=RARE,
        call=CALL,
    )
    ctx = RunContext(config=load_config(SMOKE, LIGHT), store=RunStore(tmp_path / "run"), tasks={task.task_id: task})
    assert ctx.config.sandbox.hypothesis_max_examples == 30 and ctx.config.seed == 0
    try:
        records = evaluate_code_test_pairs([PairJob(task=task, codes=codes, tests=(test,))], ctx)
    finally:
        ctx.close()
    wrong_pair, right_pair = [r for r in records if isinstance(r, PairEvaluation)]
    # the code's verdicts keep the study's settings: the reference program itself passes as code
    assert right_pair.generated.status == "passed" and right_pair.case == "pass_fail"
    assert wrong_pair.generated.status == "failed"
    harder = wrong_pair.reference_harder
    assert harder is not None and re.search(r"x=\d*17,", harder.message or ""), harder
    assert wrong_pair.case == "fail_fail" and wrong_pair.reliability == "unreliable"
    assert wrong_pair.cause == "property_falsified"
