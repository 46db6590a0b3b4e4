"""Wilson's interval for a single independent sample, and the small number helpers the tables share.

Every table's interval is the cluster bootstrap of :mod:`tfr_helpers.analysis.inference.clustered` (feedback
instances of one task are not independent; docs/inference.md), the study's one uncertainty method. Wilson stays
for a sample of independent units (e.g. one observation per task) and for a share at 0 or 100%, counted over
tasks. Both give the one interval type, :class:`~tfr_helpers.analysis.inference.clustered.Interval`.

All shares are fractions in [0, 1]; the tables turn them into percentages.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from tfr_helpers.analysis.inference.clustered import Interval

WILSON = "wilson"
"""Method label of :func:`wilson`'s interval."""


def wilson(k: int, n: int) -> Interval:
    """The share ``k / n`` of ``n`` independent units with its 95% Wilson score interval
    (``statsmodels``' ``proportion_confint(method="wilson")``).

    Args:
        k: Successes, ``0 <= k <= n``.
        n: Trials (0 gives NaN share and bounds).

    Returns:
        The share and its interval, as fractions (``clusters``: the ``n`` units; no resamples, no design effect).

    Raises:
        ValueError: If ``k`` or ``n`` is negative or ``k > n``.

    >>> s = wilson(5, 10); round(s.low, 4), round(s.high, 4)
    (0.2366, 0.7634)
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"wilson needs 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, WILSON, 0, 0, math.nan)
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    return Interval(k / n, max(0.0, float(low)), min(1.0, float(high)), WILSON, 0, n, math.nan)


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
