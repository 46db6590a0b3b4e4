"""Agreement between two label columns: raw agreement and Cohen's kappa (scikit-learn), each with the study's 95%
cluster-bootstrap interval over tasks (``tfr_helpers.analysis.inference.clustered``: items of one task are not
independent, so tasks are resampled)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Interval, resampler
from tfr_helpers.analysis.inference.units import share_interval

LABELS = ("reliable", "unreliable")
"""The two labels a reader gives (and the classifier's labels of the sampled items)."""


@dataclass(frozen=True)
class Agreement:
    """Two raters on the same items."""

    items: int
    tasks: int
    agreement: Interval
    """Share of items with the same label."""
    kappa: Interval
    """Cohen's kappa (NaN where undefined: both raters give one and the same label to every item)."""


def kappa(a: Sequence[str], b: Sequence[str], weights: np.ndarray | None = None) -> float:
    """Cohen's kappa of two label columns (scikit-learn), NaN where undefined."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = cohen_kappa_score(a, b, labels=list(LABELS), sample_weight=weights, replace_undefined_by=np.nan)
    return float(value)


def kappa_interval(value: float, boot: np.ndarray, rs: Any) -> Interval:
    """The 95% percentile interval of the resampled kappas (NaN resamples dropped): kappa sits at its bound of 1
    in most resamples here, where an interval on a transformed scale is not defined."""
    kept = boot[np.isfinite(boot)]
    if not np.isfinite(value) or kept.size < 2:
        return Interval(value, math.nan, math.nan, rs.method, rs.resamples, rs.clusters, math.nan)
    low, high = np.percentile(kept, [2.5, 97.5])
    return Interval(
        float(value), min(float(low), value), max(float(high), value), rs.method, rs.resamples, rs.clusters, math.nan
    )


def agreement(
    a: Sequence[str], b: Sequence[str], tasks: Sequence[str], *, n_resamples: int = N_RESAMPLES, seed: int = SEED
) -> Agreement:
    """Raw agreement and kappa of ``a`` and ``b`` (one label per item), with intervals from resampling ``tasks``."""
    rs = resampler(list(tasks), n_resamples=n_resamples, seed=seed)
    same = np.array([x == y for x, y in zip(a, b, strict=True)], dtype=float)
    value = kappa(a, b)
    boot = np.array([kappa(a, b, w[rs.unit_of_row]) for w in rs.weights])
    return Agreement(len(same), rs.clusters, share_interval(rs, same), kappa_interval(value, boot, rs))


def fmt(iv: Interval, digits: int = 2) -> str:
    """``0.85 [0.78, 0.91]``; ``undefined`` for NaN; the value alone when the interval is undefined."""
    if math.isnan(iv.value):
        return "undefined"
    if math.isnan(iv.low):
        return f"{iv.value:.{digits}f}"
    return f"{iv.value:.{digits}f} [{iv.low:.{digits}f}, {iv.high:.{digits}f}]"
