"""The outputs matrix: test inputs from asserts, the outputs harness in the sandbox, MBR-Exec over outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.consensus.matrices import build, truth
from tfr_helpers.consensus.execute import OUTPUTS_SPEC, matrix_root, truth_of
from tfr_helpers.consensus.matrix import TaskMatrix, load_task, save_task, task_file
from tfr_helpers.consensus.outputs import exposed_inputs, outputs_snippet
from tfr_helpers.consensus.ranked_pass_at_k import task_pass_at_k
from tfr_helpers.consensus.rankers.mbr_outputs import mbr_outputs_hard, mbr_outputs_soft
from tfr_helpers.consensus.stored import stored_selection
from tfr_helpers.errors import DataError
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec


def test_inputs_are_the_unique_entry_point_calls_of_equality_asserts():
    tests = [
        "assert f(1) == 2",
        "assert f( 1 ) == 3",  # the same input, another expected value
        "assert [0] == sorted(f([2, 0]))",  # the call on the right, inside another call
        "assert f(2) != 5",  # not an equality
        "assert g(3) == 1",  # not the entry point
        "def test_unit():\n    assert f(4) == 5\n    assert f(5)\n",
        "assert f(",  # does not parse
    ]
    assert exposed_inputs(tests, "f") == ["f(1)", "sorted(f([2, 0]))", "f(4)"]


PROGRAM = """def f(x):
    print('noise ' * 1000)
    if x == 0:
        return 1 // x
    if x == 1:
        while True:
            pass
    if x == 2:
        return 'y' * 500
    return [x, None]
"""


def _outputs(program: str, inputs: list[str], budget: float = 2.0) -> list[str] | None:
    spec = TestSpec(OUTPUTS_SPEC, outputs_snippet(inputs, 0.1, budget), "snippet")
    check = TestSpec("check", "assert f(3) == [3, None]", "snippet")
    with Sandbox(Limits(), workers=1) as sandbox:
        run = sandbox.run(program, [check, spec], Limits(timeout_s=budget + 1, output_cap=1 << 16))
    correct, outputs = truth_of(run, len(inputs))
    assert correct == (run.load_error is None)  # the outputs spec never counts towards the benchmark verdict
    return outputs


def test_outputs_harness_records_values_exceptions_and_timeouts():
    got = _outputs(PROGRAM, ["f(3)", "f(0)", "f(1)", "f(2)", "g(1)"])
    assert got is not None and got[:3] == ["[3, None]", "<raises ZeroDivisionError>", "<timeout>"]
    assert got[3].startswith("'" + "y" * 99 + "...#") and len(got[3]) == 100 + 4 + 16  # capped, hashed
    assert got[4] == "<raises NameError>"


def test_outputs_left_when_the_budget_runs_out_are_not_run():
    assert _outputs(PROGRAM, ["f(1)", "f(1)", "f(3)"], budget=0.15) == ["<timeout>", "<timeout>", "<not run>"]


def test_a_program_that_does_not_load_has_no_outputs():
    assert _outputs("def f(x):\n    return (\n", ["f(3)"]) is None


# Hand-built outputs matrix: p0 (2 samples) and p1 (1) agree everywhere; p2 (1) agrees with them on input 0
# only; p3 (1) raises everywhere; p4 (1) reported no outputs. Truth: only p2 is correct.
OUT = build("HumanEval/5", ["1", "1", "0", "0", "0"], [2, 1, 1, 1, 1], [1]).model_copy(
    update={
        "inputs": ["f(0)", "f(1)"],
        "outputs": [["0", "1"], ["0", "1"], ["0", "2"], ["<raises ValueError>"] * 2, None],
    }
)
OUT_TRUTH = truth(OUT, [False, False, True, False, False])


def test_mbr_outputs_hard_scores_the_share_of_identical_output_vectors():
    # weights over programs with outputs: 2 + 1 + 1 + 1 = 5; p0 and p1 agree with 3 samples, p2 with itself
    ranking = mbr_outputs_hard(OUT)
    np.testing.assert_allclose(ranking.program_scores[:3], [3 / 5, 3 / 5, 1 / 5])
    assert np.isnan(ranking.program_scores[3:]).all()  # p3 returned no value, p4 no outputs: not ranked
    assert ranking.levels == [[0, 1], [2]]
    assert task_pass_at_k(OUT, OUT_TRUTH, ranking, 1) == 0.0
    assert task_pass_at_k(OUT, OUT_TRUTH, ranking, 2) == 1.0  # the second level is p2


def test_mbr_outputs_soft_scores_the_mean_fraction_of_agreeing_inputs():
    # p0: (2 * 1 + 1 * 1 + 1 * 0.5 + 1 * 0) / 5 = 0.7, the same for p1; p2: (3 * 0.5 + 1) / 5 = 0.5
    ranking = mbr_outputs_soft(OUT)
    np.testing.assert_allclose(ranking.program_scores[:3], [0.7, 0.7, 0.5])
    assert ranking.levels == [[0, 1], [2]]


def test_programs_raising_the_same_exception_agree_but_are_not_ranked():
    both = OUT.model_copy(update={"outputs": [["<raises ValueError>"] * 2] * 5})
    ranking = mbr_outputs_hard(both)
    assert ranking.levels == [] and "no program returned a value" in ranking.fallback
    tie = OUT.model_copy(update={"outputs": [["1", "2"], ["1", "3"], ["1", "4"], ["5", "6"], ["5", "7"]]})
    assert mbr_outputs_hard(tie).levels == [[0], [1, 2, 3, 4]]  # p0 stands for 2 samples, the rest for 1 each


@pytest.mark.parametrize(
    ("update", "reason"),
    [
        ({"inputs": [], "outputs": []}, "no test inputs"),
        ({"outputs": []}, "no outputs recorded"),
        ({"outputs": [None] * 5}, "no program reported outputs"),
    ],
)
def test_a_task_without_inputs_or_outputs_falls_back(update, reason):
    ranking = mbr_outputs_soft(OUT.model_copy(update=update))
    assert ranking.levels == [] and reason in ranking.fallback


def test_outputs_of_the_wrong_shape_are_refused():
    with pytest.raises(ValueError, match="outputs needs one entry per program"):
        TaskMatrix.model_validate({**OUT.model_dump(), "outputs": [["0"]] * 5})


def test_a_stored_matrix_of_the_old_format_is_rebuilt_or_refused(tmp_path: Path):
    root = matrix_root(tmp_path, "ds", "packed")
    root.mkdir(parents=True)
    save_task(root, OUT, OUT_TRUTH, "key")
    path = task_file(root, OUT.task_id)
    doc = json.loads(path.read_text())
    assert load_task(root, OUT.task_id, "key") == (OUT, OUT_TRUTH)  # the current format loads
    assert stored_selection("ds", "packed", tmp_path) is not None
    doc["version"] = doc["matrix"]["version"] = 1
    del doc["matrix"]["inputs"], doc["matrix"]["outputs"]
    path.write_text(json.dumps(doc))
    assert load_task(root, OUT.task_id, "key") is None  # `tfr select` rebuilds it
    with pytest.raises(DataError, match="format version 1 .* rerun `tfr select` to rebuild it"):
        load_task(root, OUT.task_id)
    assert stored_selection("ds", "packed", tmp_path) is None  # notebook 03b: "not built", not a crash
