"""Intervals for a single independent sample: Wilson for shares, a one-level bootstrap over tasks for ratios.

The RQ1/RQ2/RQ3 tables use the cluster bootstrap of :mod:`tfr_helpers.analysis.inference.clustered` instead (feedback
instances of one task are not independent; docs/inference.md). Wilson stays for a sample of independent units
(e.g. one observation per task) and for a share at 0 or 100%, counted over tasks.

All shares are fractions in [0, 1]; the tables turn them into percentages.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""
N_RESAMPLES = 2000
"""Default number of bootstrap resamples."""


@dataclass(frozen=True)
class Share:
    """A proportion ``k / n`` with its 95% Wilson interval (fractions; NaN when ``n == 0``)."""

    k: int
    n: int
    share: float
    low: float
    high: float


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a 95% bootstrap percentile interval (NaN when undefined)."""

    value: float
    low: float
    high: float


def wilson(k: int, n: int, z: float = Z95) -> Share:
    """Wilson score interval for ``k`` successes out of ``n``.

    Args:
        k: Successes, ``0 <= k <= n``.
        n: Trials (0 gives NaN share and bounds).
        z: Normal quantile (default 95% two-sided).

    Returns:
        The share ``k / n`` and its interval, as fractions.

    Raises:
        ValueError: If ``k`` or ``n`` is negative or ``k > n``.

    >>> s = wilson(5, 10); round(s.low, 4), round(s.high, 4)
    (0.2366, 0.7634)
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"wilson needs 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Share(k, n, math.nan, math.nan, math.nan)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Share(k, n, p, max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_ratio(
    numerators: Sequence[float] | np.ndarray,
    denominators: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """Ratio of sums ``sum(num) / sum(den)`` with a bootstrap-over-tasks percentile interval.

    Each position is one task (its rows already summed), so resampling tasks with replacement keeps the
    rows of one task together. A difference of rates per attempt is expressed as per-task sums of the
    per-attempt differences (numerators) over per-task attempt counts (denominators).

    Args:
        numerators: Shape ``(n_tasks,)``: per-task sum of the quantity.
        denominators: Shape ``(n_tasks,)``: per-task count (> 0 in total).
        n_resamples: Bootstrap resamples.
        seed: RNG seed (same seed, same interval).

    Returns:
        The ratio on the full sample and the 2.5/97.5 percentiles of the resampled ratios
        (resamples with a zero denominator are dropped). NaN when the total denominator is 0.

    Raises:
        ValueError: If the two arrays differ in length.
    """
    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    if num.shape != den.shape:
        raise ValueError(f"numerators {num.shape} and denominators {den.shape} must have the same shape")
    if num.size == 0 or den.sum() == 0:
        return Estimate(math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, num.size, size=(n_resamples, num.size))
    den_s = den[idx].sum(axis=1)
    keep = den_s > 0
    ratios = num[idx].sum(axis=1)[keep] / den_s[keep]
    low, high = np.percentile(ratios, [2.5, 97.5])
    return Estimate(float(num.sum() / den.sum()), float(low), float(high))


def pct(x: float) -> float | None:
    """A fraction as a percentage rounded to one decimal (None for NaN), the form tables and summary share."""
    return None if x is None or math.isnan(x) else round(100 * x, 1)


def mean_se(values: Iterable[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample std with ddof=1 over sqrt(n)); NaN values are dropped.

    Returns:
        ``(mean, se)``; ``(nan, nan)`` without values and ``(value, nan)`` for one value (no spread to estimate).

    >>> mean_se([1.0, 2.0, 3.0])
    (2.0, 0.5773502691896258)
    """
    arr = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if arr.size == 0:
        return math.nan, math.nan
    if arr.size == 1:
        return float(arr[0]), math.nan
    return float(arr.mean()), float(arr.std(ddof=1) / math.sqrt(arr.size))
