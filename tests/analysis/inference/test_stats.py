"""Known-answer tests for the Wilson interval (the one interval type, method ``wilson``) and ``pct``."""

from __future__ import annotations

import math

import pytest

from tfr_helpers.analysis.inference.clustered import Interval
from tfr_helpers.analysis.inference.stats import WILSON, pct, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (1, 4, 0.0456, 0.6994)],
)
def test_wilson_matches_known_values(k: int, n: int, low: float, high: float) -> None:
    s = wilson(k, n)
    assert isinstance(s, Interval) and (s.method, s.clusters) == (WILSON, n)
    assert s.value == pytest.approx(k / n)
    assert s.low == pytest.approx(low, abs=5e-5)
    assert s.high == pytest.approx(high, abs=5e-5)


def test_wilson_of_empty_sample_is_nan() -> None:
    assert math.isnan(wilson(0, 0).value) and pct(wilson(0, 0).low) is None


@pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson(k, n)
