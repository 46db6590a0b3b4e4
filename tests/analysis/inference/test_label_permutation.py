"""The primary test of a screener: MCC = 0 with the reliability labels permuted within tasks, exactly."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import hypergeom

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import load_results, pairwise_comparisons
from tfr_helpers.analysis.inference import pairwise
from tfr_helpers.analysis.inference.calibration import BY_CODE_SAMPLE, PRIMARY, primary_rejection
from tfr_helpers.analysis.inference.label_permutation import METHOD, METHOD_WITHIN, mcc_zero_test
from tfr_helpers.analysis.inference.measures import confusion_cells, mcc
from tfr_helpers.analysis.inference.screening_set import common_sets


def test_six_tasks_each_perfectly_screened_give_the_two_extreme_patterns_of_64() -> None:
    test = mcc_zero_test(list("aabbccddeeff"), [1, 0] * 6, [1, 0] * 6)
    assert test.value == pytest.approx(1.0) and test.informative_tasks == 6 and test.method == METHOD
    assert test.p_value == pytest.approx(2 / 64)  # TP ~ Binomial(6, 1/2): only TP = 0 and TP = 6 are as far


def test_one_task_is_the_hypergeometric_distance_from_its_mean() -> None:
    rng = np.random.default_rng(3)
    acc, rel = rng.random(40) < 0.4, rng.random(40) < 0.5
    n, a, r, x = 40, int(acc.sum()), int(rel.sum()), int((acc & rel).sum())
    k = np.arange(0, min(a, r) + 1)
    far = np.abs(k - a * r / n) >= abs(x - a * r / n) - 1e-9
    want = hypergeom.pmf(k[far], n, r, a).sum()
    assert mcc_zero_test(["t"] * 40, acc, rel, min_informative=1).p_value == pytest.approx(want)


def test_the_exact_p_agrees_with_random_permutations_of_the_labels_within_tasks() -> None:
    rng = np.random.default_rng(1)
    tasks = np.repeat(np.arange(8), rng.integers(3, 9, 8))
    rel = rng.random(tasks.size) < 0.5
    acc = np.where(rng.random(tasks.size) < 0.3, rel, rng.random(tasks.size) < 0.5)
    observed = abs(float(mcc(confusion_cells(acc, rel).sum(axis=0))))
    draws = 4000
    extreme = 0
    for _ in range(draws):
        permuted = rel.copy()
        for t in np.unique(tasks):
            rows = np.flatnonzero(tasks == t)
            permuted[rows] = rng.permutation(rel[rows])
        extreme += abs(float(mcc(confusion_cells(acc, permuted).sum(axis=0)))) >= observed - 1e-12
    exact = mcc_zero_test(tasks, acc, rel).p_value
    assert exact is not None and exact == pytest.approx(extreme / draws, abs=4 * np.sqrt(exact * (1 - exact) / draws))


def test_no_p_with_few_informative_tasks_or_without_an_mcc() -> None:
    few = mcc_zero_test(list("aabbcc"), [1, 0] * 3, [1, 0] * 3)
    assert few.status == "too few tasks" and few.p_value is None and few.informative_tasks == 3
    everything = mcc_zero_test(list("aabbccddeeff"), [1] * 12, [1, 0] * 6)
    assert everything.status == "undefined" and everything.p_value is None
    # a task of one class, or one decision, is not informative: its permutations change nothing
    assert mcc_zero_test(list("aabb"), [1, 0, 1, 1], [1, 0, 1, 0], min_informative=1).informative_tasks == 1


def test_the_primary_rows_test_each_strategy_s_mcc_with_the_labels_permuted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = load_results(make_synthetic_run(tmp_path, seed=5))
    # the synthetic run has two informative tasks: lower the floor so that the rows carry a p to compare
    monkeypatch.setattr(pairwise, "mcc_zero_test", partial(mcc_zero_test, min_informative=1))
    frame = pairwise_comparisons(results, n_resamples=100)
    primary = frame[frame["family"] == "primary"]
    assert len(primary) and primary["p"].notna().all()
    for _, row in primary.iterrows():
        cs = common_sets(results)[row["model"]]
        accepted, reliable, codes = cs.accepted(row["b"]), cs.feedback["reliable"], cs.feedback["code_index"]
        want = mcc_zero_test(cs.feedback["task_id"].tolist(), accepted, reliable, within=codes, min_informative=1)
        assert row["test"] == (want.method if want.tested else want.status)
        if want.p_value is None:
            assert np.isnan(row["p"])
        else:
            assert row["p"] == pytest.approx(round(want.p_value, 4))


def test_reduced_simulation_size_near_nominal_and_more_power_than_the_former_test() -> None:
    null = primary_rejection(15, 0.3, 0.0, replications=100, n_permutations=99)
    assert null[PRIMARY[0]] <= 0.1  # nominal 0.05; 100 replications
    assert abs(null["mean MCC"]) < 0.03
    effect = primary_rejection(15, 0.3, 0.15, replications=40, n_permutations=99, seed=1)
    assert effect[PRIMARY[0]] > effect[PRIMARY[1]] and effect[PRIMARY[0]] >= 0.4


def test_code_sample_clustering_is_simulated_for_both_strata() -> None:
    from tfr_helpers.analysis.inference.calibration import primary_size_by_code_sample

    rates = primary_size_by_code_sample(15, 0.3, replications=30)
    assert set(rates) == set(BY_CODE_SAMPLE)
    assert all(0 <= r <= 0.2 for r in rates.values())


def test_within_code_samples_permutes_inside_each_task_s_code_samples_and_counts_informative_tasks() -> None:
    # two tasks of two code samples each; every code sample perfectly screened, two rows each
    tasks, codes = ["a"] * 8 + ["b"] * 8, [0, 0, 1, 1, 2, 2, 3, 3] * 2
    acc = rel = [1, 0] * 8
    test = mcc_zero_test(tasks, acc, rel, within=codes, min_informative=1)
    assert test.informative_tasks == 2 and test.tasks == 2 and test.method == METHOD_WITHIN
    assert test.p_value == pytest.approx(2 / 2**8)  # eight strata, each TP ~ Bernoulli(1/2)
    whole = mcc_zero_test(tasks, acc, rel, min_informative=1)  # within whole tasks: hypergeometric(8, 4, 4) twice
    assert whole.p_value == pytest.approx(2 * (1 / 70) ** 2)
    assert mcc_zero_test(tasks, acc, rel, within=codes).status == "too few tasks"  # the floor counts tasks
