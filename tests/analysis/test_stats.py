"""Known-answer tests for the Wilson interval, the bootstrap over tasks and F1."""

from __future__ import annotations

import math

import pytest

from tfr_helpers.analysis.inference.stats import bootstrap_ratio, pct, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (1, 4, 0.0456, 0.6994)],
)
def test_wilson_matches_known_values(k: int, n: int, low: float, high: float) -> None:
    s = wilson(k, n)
    assert s.share == pytest.approx(k / n)
    assert s.low == pytest.approx(low, abs=5e-5)
    assert s.high == pytest.approx(high, abs=5e-5)


def test_wilson_of_empty_sample_is_nan() -> None:
    assert math.isnan(wilson(0, 0).share) and pct(wilson(0, 0).low) is None


@pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson(k, n)


def test_bootstrap_of_constant_ratio_has_zero_width() -> None:
    est = bootstrap_ratio([1, 2, 3], [2, 4, 6], n_resamples=200)
    assert (est.value, est.low, est.high) == pytest.approx((0.5, 0.5, 0.5))


def test_bootstrap_is_seeded_and_covers_the_point() -> None:
    num, den = [1, 0, 3, -1, 2, 0], [2, 1, 3, 2, 2, 1]
    a, b = bootstrap_ratio(num, den, seed=7), bootstrap_ratio(num, den, seed=7)
    assert a == b
    assert a.value == pytest.approx(5 / 11)
    assert a.low < a.value < a.high


def test_bootstrap_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="same shape"):
        bootstrap_ratio([1, 2], [1])
