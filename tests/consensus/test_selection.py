"""pass@k over tie levels, the random baseline, the report over tasks, and malformed input."""

from __future__ import annotations

import pytest

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.ranked_pass_at_k import (
    capped_picks,
    picks_per_level,
    random_pass_at_k,
    ranked_pass_at_k,
    ranked_pass_at_k_without_replacement,
)
from tfr_helpers.consensus.report import selection_report
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.passk import pass_at_k

from .matrices import A_TRUTH, B_TRUTH, C_TRUTH, D_TRUTH, A, B, C, D, build


def test_round_robin_picks_when_fewer_levels_than_k():
    assert picks_per_level(3, 2) == [1, 1]
    assert picks_per_level(2, 5) == [3, 2]
    assert picks_per_level(1, 10) == [10]


def test_ranked_pass_at_k_with_replacement_inside_a_level():
    # levels (4 samples, 1 correct), (2, 2): pass@1 = 1/4; pass@2 = 1 - 3/4 * 0; pass@3 = 1 - (3/4)^2 * 0
    assert ranked_pass_at_k([(4, 1), (2, 2)], 1) == pytest.approx(0.25)
    assert ranked_pass_at_k([(4, 1), (2, 0)], 3) == pytest.approx(1 - (3 / 4) ** 2)


def test_without_replacement_no_level_is_picked_more_often_than_it_has_samples():
    assert capped_picks([1, 3], 2) == ([1, 1], 0)  # CodeT's one pick per level
    assert capped_picks([1, 3], 4) == ([1, 3], 0)  # level 1's later turns pass to level 2
    assert capped_picks([2, 1], 5) == ([2, 1], 2)  # two picks left for the unranked samples
    assert capped_picks([3, 3], 3) == ([2, 1], 0)  # round-robin, as CodeT


def test_ranked_pass_at_k_without_replacement_known_answers():
    wr = ranked_pass_at_k_without_replacement
    # one pick per level: the same as CodeT's evaluator
    assert wr([(4, 1), (2, 2)], 1) == pytest.approx(0.25) == ranked_pass_at_k([(4, 1), (2, 2)], 1)
    assert wr([(4, 1), (2, 0)], 2) == pytest.approx(0.25) == ranked_pass_at_k([(4, 1), (2, 0)], 2)
    # 3 picks on (4,1), (2,0): 2 from level 1 without replacement -> 1 - C(3,2)/C(4,2) = 1/2 (CodeT: 7/16)
    assert wr([(4, 1), (2, 0)], 3) == pytest.approx(0.5)
    assert ranked_pass_at_k([(4, 1), (2, 0)], 3) == pytest.approx(7 / 16)
    # one level holding every sample is the random baseline at every k
    for k in range(1, 7):
        assert wr([(6, 2)], k) == pytest.approx(pass_at_k(6, 2, k))
    # k = n: every sample is picked, whatever the levels
    assert wr([(1, 0), (2, 0)], 4, unranked=(1, 1)) == 1.0
    assert wr([(1, 0), (2, 0)], 3, unranked=(1, 1)) == 0.0  # the unranked sample is never reached


def test_random_baseline_is_the_unbiased_estimator_with_k_capped():
    assert random_pass_at_k(A, A_TRUTH, 1) == pytest.approx(0.4)  # 2 of 5
    assert random_pass_at_k(A, A_TRUTH, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert random_pass_at_k(A, A_TRUTH, 10) == 1.0  # k capped at n = 5


def test_report_over_tasks_with_fallbacks():
    truths = {t.task_id: t for t in (A_TRUTH, B_TRUTH, C_TRUTH, D_TRUTH)}
    report = selection_report([A, B, C, D], truths, ["codet"], ks=(1, 2))
    codet = report.row("codet")
    # A 2/3, B 1/2, C falls back to 1/3, D (no tests) falls back to 1/2
    assert codet.pass_at[1] == pytest.approx((2 / 3 + 1 / 2 + 1 / 3 + 1 / 2) / 4)
    assert codet.fallbacks == 2 and codet.fallback_reasons["no tests"] == 1
    assert report.row("random").pass_at[1] == pytest.approx((0.4 + 0.5 + 1 / 3 + 0.5) / 4)
    frame = report.frame()
    assert list(frame.columns) == ["pass@1", "pass@2", "fallback tasks"]
    assert frame.loc["codet", "pass@1"] == pytest.approx(100 * codet.pass_at[1])


def test_all_expands_to_every_strategy():
    truths = {A.task_id: A_TRUTH}
    report = selection_report([A], truths)
    assert [r.strategy for r in report.rows][:2] == ["codet", "codet_paper"]
    assert report.rows[-1].strategy == "random" and len(report.rows) == 14


def test_a_task_without_code_samples_is_left_out_and_listed():
    empty = build("HumanEval/7", [], [], [1])
    report = selection_report([A, empty], {A.task_id: A_TRUTH}, ["codet"])
    assert report.tasks == 1 and report.skipped == {"HumanEval/7": "no code sample"}


def test_a_selection_without_any_code_sample_is_a_clear_error():
    with pytest.raises(DataError, match=r"no task has a code sample to select from \(1 tasks given\)"):
        selection_report([build("HumanEval/7", [], [], [1])], {}, ["codet"])
    with pytest.raises(DataError, match="no task has a code sample"):
        selection_report([], {}, ["codet"])


def test_a_task_given_twice_is_a_clear_error():
    with pytest.raises(DataError, match=r"tasks \['HumanEval/0'\] have more than one matrix"):
        selection_report([A, A], {A.task_id: A_TRUTH}, ["codet"])


def test_truth_that_does_not_fit_the_matrix_is_a_clear_error():
    with pytest.raises(DataError, match="do not match the matrix"):
        selection_report([A], {A.task_id: TaskTruth(task_id=A.task_id, correct=[True])}, ["codet"])
    with pytest.raises(DataError, match="no benchmark verdicts"):
        selection_report([A], {}, ["codet"])
    with pytest.raises(ConfigError, match="unknown consensus strategy"):
        selection_report([A], {A.task_id: A_TRUTH}, ["nope"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"passes": ["11", "110", "001", "000"]}, "every passes row needs 3"),
        ({"test_counts": [2, 0, 2]}, "test_counts"),
        ({"suites": [[0, 5]]}, "suite names a test index"),
        ({"executed": [True]}, "one entry per program"),
        ({"program_samples": [[0], [], [1], [2]]}, "at least one code sample"),
    ],
)
def test_malformed_matrix_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        TaskMatrix.model_validate({**A.model_dump(), **change})


def test_plot_selection_draws_one_bar_per_strategy_and_the_baseline():
    import matplotlib

    matplotlib.use("Agg")
    from tfr_helpers.consensus.figures import plot_selection

    report = selection_report([A, B], {A.task_id: A_TRUTH, B.task_id: B_TRUTH}, ["codet", "maxpass_soft"])
    ax = plot_selection(report)
    assert [p.get_height() for p in ax.patches] == pytest.approx([100 * (2 / 3 + 1 / 2) / 2, 100 * (2 / 3 + 1 / 2) / 2])
    assert ax.lines[0].get_ydata()[0] == pytest.approx(100 * (0.4 + 0.5) / 2)


def test_stored_selection_reads_matrices_back_without_running(tmp_path):
    from tfr_helpers.consensus.execute import matrix_root
    from tfr_helpers.consensus.matrix import save_task
    from tfr_helpers.consensus.stored import stored_selection

    assert stored_selection("mine", "packed", tmp_path) is None  # never built
    root = matrix_root(tmp_path, "mine", "packed")
    save_task(root, A, A_TRUTH, "f1")
    save_task(root, B, B_TRUTH, "f2")
    report = stored_selection("mine", "packed", tmp_path)
    assert report is not None and report.tasks == 2
    assert report.row("codet").pass_at[1] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert stored_selection("mine", "packed", tmp_path, expected_tasks=164) is None  # incomplete
