"""A reduced run of the size-and-coverage simulation (benchmarks/stats/size_and_coverage.py prints the full one)."""

from __future__ import annotations

import numpy as np

from tfr_helpers.analysis.inference.calibration import clustered, coverage_of_intervals, size_of_tests


def test_simulated_tasks_have_the_asked_share_and_clustering() -> None:
    data = clustered(np.random.default_rng(0), n_tasks=400, icc=0.3, share=0.6)
    rates = data.rate_of_row[np.r_[0, np.cumsum(data.sizes)[:-1]]]
    assert abs(rates.mean() - 0.6) < 0.03
    assert abs(rates.var() / (0.6 * 0.4) - 0.3) < 0.06  # ICC of a Beta-binomial: var(rate) / (p (1 - p))


def test_the_task_test_holds_its_size_where_mcnemar_does_not() -> None:
    rates = size_of_tests(20, 0.3, replications=80, n_resamples=400, n_permutations=199, seed=1)
    assert rates["task swap permutation"] <= 0.1 and rates["task swap, MCC of screeners"] <= 0.1
    assert rates["McNemar over instances"] >= 0.15  # instances cluster by task: far above 5%
    assert rates["difference interval coverage"] >= 0.85


def test_the_used_interval_covers_at_fifteen_tasks_where_the_percentile_does_not() -> None:
    cov = coverage_of_intervals(15, 0.3, 0.876, replications=150, n_resamples=400, seed=2)
    assert cov["Wald, bootstrap SE, logit (used)"] >= 0.9
    assert cov["Wald, bootstrap SE, logit (used)"] > cov["percentile (former)"]
    assert cov["Wilson over instances"] < 0.8
