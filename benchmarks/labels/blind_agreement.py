"""Agreement between two label columns: raw agreement and Cohen's kappa (scikit-learn), each with the study's 95%
cluster-bootstrap interval over tasks (``tfr_helpers.analysis.inference.clustered``: items of one task are not
independent, so tasks are resampled)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Interval, draws_interval, resampler, share

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


def agreement(
    a: Sequence[str], b: Sequence[str], tasks: Sequence[str], *, n_resamples: int = N_RESAMPLES, seed: int = SEED
) -> Agreement:
    """Raw agreement and kappa of ``a`` and ``b`` (one label per item), with intervals from resampling ``tasks``."""
    rs = resampler(list(tasks), n_resamples=n_resamples, seed=seed)
    same = np.array([x == y for x, y in zip(a, b, strict=True)], dtype=float)
    value = kappa(a, b)
    boot = np.array([kappa(a, b, w[rs.unit_of_row]) for w in rs.weights])
    iid = math.nan  # no closed-form variance over independent items is used: the design effect is left unknown
    return Agreement(len(same), rs.clusters, share(rs, same), draws_interval(value, boot, iid, rs, scale="atanh"))


def fmt(iv: Interval, digits: int = 2) -> str:
    """``0.85 [0.78, 0.91]``; ``undefined`` for NaN; the value alone when the interval is undefined."""
    if math.isnan(iv.value):
        return "undefined"
    if math.isnan(iv.low):
        return f"{iv.value:.{digits}f}"
    return f"{iv.value:.{digits}f} [{iv.low:.{digits}f}, {iv.high:.{digits}f}]"
