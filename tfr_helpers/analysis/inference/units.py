"""The units of the study's intervals: one coder's rows, clustered by task and code sample, as table columns.

Every share a table shows is the pooled ratio over instances (the estimand of the seed study) with its
cluster-bootstrap interval (:mod:`clustered`), and beside it the mean of per-task shares (each task counts once)
with its own interval, as a robustness column.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Interval, Resampler, ratio, resampler, task_mean
from tfr_helpers.analysis.inference.stats import pct, wilson
from tfr_helpers.records import Results

SHARE_COLUMNS = ["k", "n", "pct", "low", "high", "method", "resamples", "clusters", "deff"]
SHARE_COLUMNS += ["task_mean_pct", "task_mean_low", "task_mean_high"]
"""The columns :func:`share_columns` gives (without a prefix)."""


def samples_per_task(results: Results, model: str) -> dict[str, int]:
    """Code samples coder ``model`` produced per task (the second level of the resampling)."""
    seen = Counter(c.task_id for c in results.generated_codes if c.model == model)
    return dict(seen)


def rows_resampler(
    results: Results, rows: pd.DataFrame, model: str, *, n_resamples: int = N_RESAMPLES, seed: int = SEED
) -> Resampler:
    """Resampling weights for one coder's rows (columns ``task_id`` and ``code_index``)."""
    codes = rows["code_index"].fillna(0).astype(int).tolist() if "code_index" in rows else None
    return resampler(
        rows["task_id"].astype(str).tolist(),
        codes,
        samples_per_task=samples_per_task(results, model),
        n_resamples=n_resamples,
        seed=seed,
    )


def interval_columns(iv: Interval, prefix: str = "", *, scale: float = 100.0) -> dict[str, object]:
    """Columns ``pct, low, high`` (x ``scale``, one decimal) and the interval's ``method, resamples, clusters, deff``."""

    def show(x: float) -> float | None:
        return pct(x * scale / 100)

    return {
        f"{prefix}pct": show(iv.value),
        f"{prefix}low": show(iv.low),
        f"{prefix}high": show(iv.high),
        f"{prefix}method": iv.method,
        f"{prefix}resamples": iv.resamples,
        f"{prefix}clusters": iv.clusters,
        f"{prefix}deff": None if np.isnan(iv.design_effect) else round(iv.design_effect, 2),
    }


BOUNDARY_METHOD = "wilson over tasks"
"""Method of a share at 0 or 100%: the Wilson interval with the tasks as the independent observations."""


def boundary_interval(iv: Interval, at: int) -> Interval:
    """A share of 0 (``at`` 0) or 1 (``at`` 1): Wilson's interval for ``at * clusters`` of ``clusters`` tasks.

    The percentile bootstrap collapses to one point there; counting each task once is the honest sample size."""
    w = wilson(at * iv.clusters, iv.clusters)
    return replace(iv, low=w.low, high=w.high, method=BOUNDARY_METHOD, design_effect=math.nan, p_value=math.nan)


def share_columns(
    rs: Resampler, hits: np.ndarray | pd.Series, among: np.ndarray | pd.Series | None = None, prefix: str = ""
) -> dict[str, object]:
    """``k, n``, the pooled share with its interval, and ``task_mean_pct, task_mean_low, task_mean_high``.

    Args:
        rs: The rows' resampler.
        hits: Per row, whether it counts in the numerator.
        among: Per row, whether it counts in the denominator (all rows when None).
        prefix: Column prefix.
    """
    den = np.ones(len(rs.unit_of_row)) if among is None else np.asarray(among, dtype=float)
    num = np.asarray(hits, dtype=float) * den
    pooled, mean = ratio(rs, num, den), task_mean(rs, num, den)
    k, n = int(num.sum()), int(den.sum())
    if n and k in (0, n):  # every resample gives the same share: the bootstrap has no spread at 0 or 100%
        pooled = boundary_interval(pooled, k // n)
    return {
        f"{prefix}k": k,
        f"{prefix}n": n,
        **interval_columns(pooled, prefix),
        f"{prefix}task_mean_pct": pct(mean.value),
        f"{prefix}task_mean_low": pct(mean.low),
        f"{prefix}task_mean_high": pct(mean.high),
    }
