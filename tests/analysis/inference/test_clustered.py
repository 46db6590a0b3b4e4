"""The cluster bootstrap: known answers, the two levels, paired differences, and its coverage against Wilson's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tfr_helpers.analysis.inference import clustered
from tfr_helpers.analysis.inference.clustered import (
    bootstrap_p,
    cells_stat,
    group_sums,
    ratio,
    resampler,
    share,
    task_mean,
)
from tfr_helpers.analysis.inference.measures import confusion_cells, joint_cells, paired, specificity
from tfr_helpers.analysis.inference.stats import wilson


def test_each_resample_draws_as_many_tasks_as_there_are() -> None:
    rs = resampler(["a", "a", "b", "c", "c", "c"], n_resamples=300, seed=1)
    assert rs.levels == 1 and rs.clusters == 3 and rs.method == "task bootstrap"
    assert (rs.task_weights.sum(axis=1) == 3).all() and (rs.weights == rs.task_weights).all()


def test_two_levels_draw_every_code_sample_of_a_drawn_task() -> None:
    # task a: code samples 0..2 (sample 2 has no row), task b: one sample
    rs = resampler(["a", "a", "b"], [0, 1, 0], samples_per_task={"a": 3}, n_resamples=500, seed=2)
    assert rs.levels == 2 and rs.method == "task>code bootstrap" and rs.weights.shape == (500, 4)
    # each draw of task a brings 3 code-sample draws; b has one sample, so its weight is its task count
    np.testing.assert_array_equal(rs.weights[:, :3].sum(axis=1), 3 * rs.task_weights[:, 0])
    np.testing.assert_array_equal(rs.weights[:, 3], rs.task_weights[:, 1])
    assert (rs.weights[:, 2] > 0).any()  # the sample without rows still takes part


def test_a_share_equal_in_every_task_has_zero_width() -> None:
    tasks = [t for t in "abcd" for _ in range(4)]
    hits = [True, False, False, False] * 4
    iv = share(resampler(tasks, n_resamples=200), hits)
    assert (iv.value, iv.low, iv.high) == pytest.approx((0.25, 0.25, 0.25))


def test_pooled_ratio_and_mean_of_task_shares_are_different_estimands() -> None:
    # task a: 1 of 1 unreliable; task b: 1 of 9 -> pooled 2/10, task mean (1 + 1/9) / 2
    tasks = ["a"] + ["b"] * 9
    hits = np.array([1] + [1] + [0] * 8, dtype=float)
    rs = resampler(tasks, n_resamples=200, seed=0)
    assert ratio(rs, hits, np.ones(10)).value == pytest.approx(0.2)
    assert task_mean(rs, hits, np.ones(10)).value == pytest.approx((1 + 1 / 9) / 2)


def test_design_effect_of_a_share_is_one_when_rows_are_their_own_tasks() -> None:
    rng = np.random.default_rng(4)
    hits = rng.random(400) < 0.3
    iv = share(resampler(range(400), n_resamples=2000, seed=4), hits)
    assert iv.design_effect == pytest.approx(1.0, abs=0.15) and iv.clusters == 400


def test_seeded_and_nan_without_rows() -> None:
    a = share(resampler(["a", "b", "b"], seed=7), [True, False, True])
    assert a == share(resampler(["a", "b", "b"], seed=7), [True, False, True])
    empty = share(resampler([], seed=0), [])
    assert math.isnan(empty.value) and math.isnan(empty.low) and empty.clusters == 0


def test_bootstrap_p_known_answers() -> None:
    assert bootstrap_p(np.ones(99)) == pytest.approx(2 / 100)  # never below the floor 2 / (B + 1)
    assert bootstrap_p(np.zeros(99)) == 1.0
    assert bootstrap_p(np.array([-1.0] * 25 + [1.0] * 74)) == pytest.approx(2 * 26 / 100)


def test_paired_bootstrap_of_identical_strategies_is_zero_with_p_one() -> None:
    rel = np.array([True, False, True, False, False, True])
    acc = np.array([True, False, False, True, False, True])
    rs = resampler(["a", "a", "b", "b", "c", "c"], n_resamples=300, seed=0)
    iv = cells_stat(rs, joint_cells(acc, acc, rel), paired(specificity))
    assert (iv.value, iv.low, iv.high, iv.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_a_uniform_gain_over_five_tasks_has_a_point_interval_but_too_few_tasks_for_a_test() -> None:
    # every task has reliable and unreliable feedback; A rejects exactly the unreliable, B accepts all.
    # The bootstrap's spread is 0 and its p hits the floor 2 / (B + 1): five tasks cannot show that, so the
    # task-level test gives no p at all (its exact p would be 2 / 2^5 = 0.0625).
    from tfr_helpers.analysis.inference.paired_tasks import TOO_FEW, paired_measure_test

    rel = np.array([True, False] * 5)
    tasks = [t for t in "abcde" for _ in range(2)]
    rs = resampler(tasks, n_resamples=199, seed=0)
    iv = cells_stat(rs, joint_cells(rel, np.ones(10, dtype=bool), rel), paired(specificity))
    assert (iv.value, iv.low, iv.high) == (1.0, 1.0, 1.0)
    test = paired_measure_test(tasks, rel, np.ones(10, dtype=bool), rel, specificity)
    assert test.value == 1.0 and test.status == TOO_FEW and test.p_value is None and not test.rejects()
    assert paired_measure_test(tasks, rel, np.ones(10, dtype=bool), rel, specificity, min_informative=1).p_value == (
        pytest.approx(2 / 32)
    )
    # the same numbers unpaired: B's specificity is 0 in every resample
    assert cells_stat(rs, confusion_cells(np.ones(10, dtype=bool), rel), specificity).value == 0.0


def _simulate(rng: np.random.Generator, n_tasks: int = 164) -> tuple[np.ndarray, np.ndarray, float]:
    """Feedback per task ~ 1 + Poisson(71); unreliable with a task-varying rate ~ Beta(2, 1.2) (true share known)."""
    sizes = 1 + rng.poisson(71, n_tasks)
    rates = rng.beta(2.0, 1.2, n_tasks)
    true = 2.0 / 3.2  # the rate is drawn independently of the size, so the pooled share's target is E[rate]
    hits = rng.random(sizes.sum()) < np.repeat(rates, sizes)
    return np.repeat(np.arange(n_tasks), sizes), hits, true


def test_the_interval_covers_the_true_unreliable_share_and_wilson_does_not() -> None:
    rng = np.random.default_rng(26)
    covered = wilson_covered = 0
    replications = 200
    for rep in range(replications):
        tasks, hits, true = _simulate(rng)
        iv = share(resampler(tasks, n_resamples=400, seed=rep), hits)
        covered += iv.low <= true <= iv.high
        w = wilson(int(hits.sum()), hits.size)
        wilson_covered += w.low <= true <= w.high
    assert 0.90 <= covered / replications <= 0.98
    assert wilson_covered / replications < 0.6  # instances are not independent: Wilson is far too narrow


def test_a_share_from_one_task_has_no_interval_and_one_at_the_boundary_gets_wilson_over_tasks() -> None:
    from tfr_helpers.analysis.inference.units import BOUNDARY_METHOD, ONE_TASK_METHOD, clustered_rows, share_interval

    one = share_interval(clustered_rows(["t"] * 8), np.array([1, 0] * 4, dtype=bool))
    assert one.value == 0.5 and math.isnan(one.low) and math.isnan(one.high) and one.method == ONE_TASK_METHOD
    every = share_interval(clustered_rows(["a", "a", "b", "c"]), np.ones(4, dtype=bool))
    assert every.method == BOUNDARY_METHOD and (every.low, every.high) == pytest.approx((wilson(3, 3).low, 1.0))
    # 0 of 15 attempts from 3 of 20 tasks: Wilson over the 3 tasks holding the denominator, not all 20
    tasks = [f"t{i}" for i in range(20) for _ in range(5)]
    among = np.array([i < 3 for i in range(20) for _ in range(5)])
    none = share_interval(clustered_rows(tasks), np.zeros(100, dtype=bool), among)
    assert none.clusters == 3 and (none.low, round(100 * none.high, 1)) == pytest.approx((0.0, 56.1))


def test_group_sums_are_bincounts_sums_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    group = rng.integers(0, 7, size=300)
    values = rng.normal(size=(300, 3)) / rng.integers(1, 7, size=(300, 3))
    out = group_sums(group, values, 9)  # two empty groups at the end
    expected = np.column_stack([np.bincount(group, weights=values[:, j], minlength=9) for j in range(3)])
    assert out.shape == (9, 3) and out.tobytes() == expected.tobytes()
    assert group_sums(np.array([1, 0, 1]), np.array([[1.0], [2.0], [4.0]]), 2).tolist() == [[2.0], [5.0]]
    assert group_sums(np.zeros(0, dtype=int), np.zeros((0, 2)), 0).shape == (0, 2)


def test_the_same_rows_get_the_kept_read_only_weights_and_the_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks, codes = ["a", "a", "b", "c", "c", "c"], [0, 1, 0, 0, 0, 2]
    first = resampler(tasks, codes, n_resamples=50, seed=3)
    again = resampler(list(tasks), np.array(codes), n_resamples=50, seed=3)
    assert again is first and not first.weights.flags.writeable
    fresh = clustered._resampler(tasks, codes, {}, 50, 3)  # what a first call computes
    assert np.array_equal(fresh.weights, first.weights) and np.array_equal(fresh.unit_of_row, first.unit_of_row)
    assert resampler(tasks, codes, n_resamples=50, seed=4) is not first  # another seed: other weights
    assert resampler(tasks, codes, samples_per_task={"b": 2}, n_resamples=50, seed=3) is not first
    monkeypatch.setattr(clustered, "KEPT_BYTES", 0)  # nothing kept beyond the last one made
    resampler(tasks, n_resamples=50, seed=5)
    assert len(clustered._kept.made) == 1 and resampler(tasks, codes, n_resamples=50, seed=3) is not first
