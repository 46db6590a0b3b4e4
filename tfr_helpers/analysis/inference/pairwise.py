"""Paired comparisons between screening strategies on one coder's common feedback set.

For every pair (A, B) of a coder's strategies: the difference A - B in precision, recall, F1, specificity, MCC
and the per-code-sample net change, each with a paired cluster-bootstrap interval (both strategies computed on
the same task and code-sample resamples, :mod:`clustered`) and a two-sided bootstrap p-value. p-values are
Holm-adjusted (``statsmodels.stats.multitest.multipletests``) within one coder and one measure, across all its
strategy pairs: the family a row of the compact table belongs to. A difference is "shown" when ``p_holm < 0.05``.
"""

from __future__ import annotations

import gc
from itertools import combinations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Interval, counts_stat, ratio
from tfr_helpers.analysis.inference.measures import MEASURES, joint_cells, paired
from tfr_helpers.analysis.inference.screening_set import common_sets, last_of, set_resamplers
from tfr_helpers.analysis.inference.stats import pct
from tfr_helpers.analysis.tidy.sources import skip_reason, source_of
from tfr_helpers.records import Results

COMPARED = ("precision", "recall", "f1", "specificity", "mcc")
"""Classifier measures compared pairwise (plus ``net_change_per_code`` when the coder's feedback was refined)."""
ALPHA = 0.05
"""Family-wise level of the Holm adjustment."""
COLUMNS = ["model", "source", "a", "b", "measure", "decisions", "diff_pp", "low", "high", "p", "p_holm", "differs"]
COLUMNS += ["method", "resamples", "clusters", "deff"]


def _row(iv: Interval) -> dict[str, object]:
    return {
        "diff_pp": pct(iv.value),
        "low": pct(iv.low),
        "high": pct(iv.high),
        "p": iv.p_value,
        "method": iv.method,
        "resamples": iv.resamples,
        "clusters": iv.clusters,
        "deff": None if np.isnan(iv.design_effect) else round(iv.design_effect, 2),
    }


def pairwise_comparisons(results: Results, *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Every pair of each coder's strategies, every compared measure: A - B with paired interval, p and Holm p.

    Returns:
        Columns :data:`COLUMNS`: ``a``, ``b`` the two strategies (``a`` sorted first), ``measure``, ``diff_pp``
        (100 x the difference; MCC x 100 too), ``low``, ``high``, ``p`` (bootstrap), ``p_holm`` (Holm within
        the coder and measure), ``differs`` (``p_holm < 0.05``), and the interval's method, resamples, clusters
        and design effect.
    """
    return last_of("pairwise", results, (n_resamples, seed), lambda: _pairwise(results, n_resamples, seed))


def _pairwise(results: Results, n_resamples: int, seed: int) -> pd.DataFrame:
    rows: list[dict[str, object]] = []
    for model, cs in common_sets(results).items():
        rs_fb, rs_codes = set_resamplers(cs, n_resamples, seed)
        rel = cs.feedback["reliable"].to_numpy(dtype=bool)
        refined = skip_reason(results, model, "refine_codes") is None and cs.feedback["gain"].notna().any()
        head = {"model": model, "source": source_of(results, model).source, "decisions": len(cs.feedback)}
        change = {s: cs.per_code_change(s) for s in cs.strategies} if refined else {}
        for a, b in combinations(cs.strategies, 2):
            full, boot = rs_fb.sums(joint_cells(cs.accepted(a), cs.accepted(b), rel))
            for measure in COMPARED:
                iv = counts_stat(rs_fb, full, boot, paired(MEASURES[measure]))
                rows.append({**head, "a": a, "b": b, "measure": measure, **_row(iv)})
            if refined:
                iv = ratio(rs_codes, change[a] - change[b], np.ones(len(cs.codes)))
                rows.append({**head, "a": a, "b": b, "measure": "net_change_per_code", **_row(iv)})
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c not in ("p_holm", "differs")])
    frame["p_holm"] = np.nan
    gc.freeze()  # multipletests' Holm branch calls gc.collect(): frozen objects make that cheap
    try:
        for _, idx in frame.groupby(["model", "measure"]).groups.items():
            p = frame.loc[idx, "p"].astype(float)
            ok = p.notna()
            if ok.any():
                frame.loc[p[ok].index, "p_holm"] = multipletests(p[ok].to_numpy(), alpha=ALPHA, method="holm")[1]
    finally:
        gc.unfreeze()
    frame["differs"] = frame["p_holm"] < ALPHA
    frame["p"] = frame["p"].astype(float).round(4)
    frame["p_holm"] = frame["p_holm"].astype(float).round(4)
    return frame[COLUMNS]
