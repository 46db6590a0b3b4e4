"""Generated tests under the main job's time rule: the code's limit from the reference's own time between a floor
and a cap, a hanging test costs the cap (with its band) once on each program and runs nothing again, and a pass
near its limit is set aside as ``indeterminate`` (never decided by the machine's speed)."""

from __future__ import annotations

import pytest

from tests.labels.conftest import CALL, LIGHT, SMOKE
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.stages.evaluate_code_test_pairs import PairJob, label_pair
from tfr_helpers.pipeline.steps.pair_runs import run_pairs
from tfr_helpers.pipeline.steps.time_limits import judge_near, limit_clock, starved
from tfr_helpers.records import GeneratedCode, GeneratedTest
from tfr_helpers.records import TestOutcome as Outcome

RULE = {"policy": "evalplus", "min_limit": 0.3, "factor": 4.0, "margin": 0.5}
"""Floor 0.3 s, cap 0.6 s (``generated_test_timeout_s``), the band 50% either side of a limit."""


def _outcome(status: str, own: float) -> Outcome:
    return Outcome(name="t", status=status, cpu_s=own, duration_s=own, wait_s=0.0)  # type: ignore[arg-type]


def test_a_pass_near_its_limit_is_set_aside_a_failure_or_a_kill_is_decided() -> None:
    for below in (True, False):
        assert judge_near(_outcome("passed", 0.5), 1.0, 0.25, below) == (_outcome("passed", 0.5), False)
        past, near = judge_near(_outcome("passed", 1.2), 1.0, 0.25, below)  # finished within the band past the limit
        assert past.status == "timeout" and "past its limit of 1 s" in (past.message or "") and near
        failed, near = judge_near(_outcome("failed", 0.9), 1.0, 0.25, below)  # fails at any machine speed
        assert failed.status == "failed" and not near
        assert judge_near(_outcome("timeout", 1.25), 1.0, 0.25, below) == (_outcome("timeout", 1.25), False)
        assert judge_near(_outcome("passed", 1.01), 1.0, 0.0, below)[1] is False  # no band: a timeout, decided
    # just under the limit: the reference's pass is near (reliable here, a timeout on a slower machine); the code's is
    # no feedback here, and its band above the limit leaves it out of every reliability denominator there
    assert judge_near(_outcome("passed", 0.8), 1.0, 0.25, below=True) == (_outcome("passed", 0.8), True)
    assert judge_near(_outcome("passed", 0.8), 1.0, 0.25, below=False) == (_outcome("passed", 0.8), False)


def test_the_margin_is_validated_and_named() -> None:
    params = {"tasks": 1, "sandbox": {"time_limit": RULE}}
    assert "within 50% of it on a generated test: indeterminate" in config_from_dict(params).sandbox.time_limit.describe()
    with pytest.raises(Exception, match="margin"):
        config_from_dict({"tasks": 1, "sandbox": {"time_limit": {**RULE, "margin": 1.5}}})


def _program(delay: float) -> str:
    task = get_task("HumanEval/0")
    return "import time\n" + task.reference.replace('    """\n', f'    """\n    time.sleep({delay})\n', 1)


def _test(index: int, name: str, body: str) -> GeneratedTest:
    return GeneratedTest(
        test_id=f"sim:default|HumanEval/0|ebt|{index}",
        model="sim:default",
        task_id="HumanEval/0",
        kind="ebt",
        index=index,
        name=name,
        source=f"def {name}():\n{body}",
        call=CALL,
    )


@pytest.mark.slow
def test_limits_hangs_and_the_near_band_in_a_run() -> None:
    sandbox = {"generated_test_timeout_s": 0.6, "time_limit": RULE}
    ctx = RunContext(config=load_config(SMOKE, {**LIGHT, "sandbox": sandbox}), store=None, tasks={})  # type: ignore[arg-type]
    task = get_task("HumanEval/0")
    delays = {"fast": 0.02, "near": 0.36, "slow": 3.0}  # the code's own time on a call: limit 0.3 s (the floor)
    codes = tuple(
        GeneratedCode(model="sim:default", task_id=task.task_id, sample_index=i, code=_program(d), call=CALL)
        for i, d in enumerate(delays.values())
    )
    call = _test(0, "test_call", "    assert has_close_elements([1.0, 2.0], 0.5) is False\n")
    hang = _test(1, "test_hang", "    while True:\n        pass\n")
    item = PairJob(task=task, codes=codes, tests=(call, hang))
    try:
        found = run_pairs(ctx, [item])
        labels = {(c.sample_index, t.name): label_pair(ctx, item, c, t, found) for c in codes for t in (call, hang)}
    finally:
        ctx.close()
    assert found.limits[(task.reference, call.source)] == 0.3  # the floor: the reference takes milliseconds
    assert found.limits[(task.reference, hang.source)] == 0.6  # the reference did not pass: the cap
    fast, near, slow = (labels[(i, "test_call")] for i in range(3))
    assert fast.case == "pass_pass" and fast.generated.status == "passed"
    assert near.case == "fail_pass" and near.reliability == "indeterminate", near  # past 0.3 s, before the kill at 0.45
    assert near.generated.status == "timeout" and "past its limit of 0.3 s" in (near.generated.message or "")
    assert slow.case == "fail_pass" and slow.reliability == "reliable" and slow.generated.status == "timeout"
    assert limit_clock(slow.generated) < 1.0  # killed at 0.45 s of its own time, not after its 3 s
    for i, code in enumerate(codes):  # the hang: the reference and every code killed at the cap's band
        hung = labels[(i, "test_hang")]
        assert hung.case == "fail_fail" and hung.reference.status == hung.generated.status == "timeout"
        if not {(code.code, hang.source), (task.reference, hang.source)} & set(found.alone):  # the load left it be
            assert hung.reliability == "unreliable" and hung.cause == "timeout_or_resource", hung
    assert not found.rerun  # a timeout its own time decided is final: no second seed
    sources = (call.source, hang.source)
    for program, source in found.alone:  # run alone only where the load starved it (the wall-clock guard)
        first = found.gen[(program, *sources)].outcomes[sources.index(source)]
        assert starved(first, 0.9), first
