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


ONE_TASK_METHOD = "one task: no interval"
"""Method of a share strictly between 0 and 100% whose rows all come from one task: there is nothing to resample."""


def tasks_holding(rs: Resampler, among: np.ndarray | pd.Series | None = None) -> int:
    """Tasks with at least one row in the denominator (``among``; every row when None)."""
    rows = np.ones(len(rs.unit_of_row), dtype=bool) if among is None else np.asarray(among, dtype=float) > 0
    return int(np.unique(rs.task_of_unit[rs.unit_of_row[rows]]).size)


def boundary_interval(iv: Interval, at: int, rs: Resampler, among: np.ndarray | pd.Series | None = None) -> Interval:
    """A share of 0 (``at`` 0) or 1 (``at`` 1): Wilson's interval for ``at * T`` of ``T`` tasks, where ``T`` counts
    only the tasks that hold the share's denominator (:func:`tasks_holding`): 0 of 15 attempts from 3 tasks is
    [0, 56.1], not [0, 16.1] from every task of the resampler.

    The one boundary rule of RQ1, RQ2, RQ3 and the arms; the bootstrap collapses to one point there."""
    tasks = tasks_holding(rs, among)
    w = wilson(at * tasks, tasks)
    return replace(
        iv, low=w.low, high=w.high, clusters=tasks, method=BOUNDARY_METHOD, design_effect=math.nan, p_value=math.nan
    )


def share_interval(rs: Resampler, hits: np.ndarray | pd.Series, among: np.ndarray | pd.Series | None = None) -> Interval:
    """The pooled share of rows with ``hits`` among the rows with ``among`` (all when None), as a fraction, with
    its cluster-bootstrap interval (Wilson's over the tasks holding the denominator at 0 or 100%:
    :func:`boundary_interval`)."""
    den = np.ones(len(rs.unit_of_row)) if among is None else np.asarray(among, dtype=float)
    num = np.asarray(hits, dtype=float) * den
    pooled = ratio(rs, num, den)
    k, n = int(num.sum()), int(den.sum())
    if n and k in (0, n):  # every resample gives the same share: the bootstrap has no spread at 0 or 100%
        pooled = boundary_interval(pooled, k // n, rs, den)
    elif tasks_holding(rs, den) == 1:  # one task: every resample draws it, and its instances are not independent
        pooled = replace(pooled, low=math.nan, high=math.nan, method=ONE_TASK_METHOD, design_effect=math.nan)
    return pooled


def clustered_rows(tasks: list[str], codes: list[int] | None = None, samples: dict[str, int] | None = None) -> Resampler:
    """The resampler of rows given as plain lists: task of each row, code sample of each row (None: one level),
    code samples per task of the coder (``samples_per_task``)."""
    return resampler(tasks, codes, samples_per_task=samples, n_resamples=N_RESAMPLES, seed=SEED)


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
    pooled, mean = share_interval(rs, hits, among), task_mean(rs, num, den)
    k, n = int(num.sum()), int(den.sum())
    return {
        f"{prefix}k": k,
        f"{prefix}n": n,
        **interval_columns(pooled, prefix),
        f"{prefix}task_mean_pct": pct(mean.value),
        f"{prefix}task_mean_low": pct(mean.low),
        f"{prefix}task_mean_high": pct(mean.high),
    }
