"""Paired comparisons between screening strategies on one coder's common feedback set.

For every pair (A, B) of a coder's strategies: the difference A - B in precision, recall, F1, specificity, MCC
and the per-code-sample net change, each with a paired cluster-bootstrap interval (both strategies computed on
the same task and code-sample resamples, :mod:`clustered`) and a task-level permutation p-value (the two
strategies' decisions swapped within whole tasks, :mod:`paired_tasks`; no p below six informative tasks).

Pre-specified families (Holm, ``statsmodels.stats.multitest.multipletests``, within one coder):

- **primary**: each strategy against ``accept_all`` on MCC, one family per coder. ``accept_all``'s MCC is 0 by
  convention, so the row tests the strategy's MCC = 0, by permuting the reliability labels within tasks, and
  within each code sample of a task (:mod:`label_permutation`, exact); its interval is the paired bootstrap's
  like every other row's;
- **exploratory**: every other row, Holm within one coder and one measure (all its other pairs).

A difference is "shown" when ``p_holm < 0.05``; exploratory rows say so in ``family``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Interval, Resampler, counts_stat, ratio
from tfr_helpers.analysis.inference.label_permutation import mcc_zero_test
from tfr_helpers.analysis.inference.measures import MEASURES, joint_cells, paired, paired_level_cells
from tfr_helpers.analysis.inference.paired_tasks import (
    TaskIndex,
    TaskTest,
    holm,
    paired_measure_tests,
    paired_task_test,
    swap_test,
)
from tfr_helpers.analysis.inference.screening_set import BASELINE, CommonSet, common_sets, last_of, set_resamplers
from tfr_helpers.analysis.inference.stats import pct
from tfr_helpers.analysis.processes import map_in_order
from tfr_helpers.analysis.tidy.sources import skip_reason, source_of
from tfr_helpers.records import Results

COMPARED = ("precision", "recall", "f1", "specificity", "mcc")
"""Classifier measures compared pairwise (plus ``auroc`` for two strategies that state scores, on the common set
with abstentions tied, and ``net_change_per_code`` when the coder's feedback was refined)."""
ALPHA = 0.05
"""Family-wise level of the Holm adjustment."""
PRIMARY_MEASURE = "mcc"
"""The one pre-specified measure: each strategy against ``accept_all`` on it is the primary family."""
COLUMNS = ["model", "source", "a", "b", "measure", "family", "decisions", "diff_pp", "low", "high"]
COLUMNS += ["informative_tasks", "test", "p", "p_holm", "differs", "method", "resamples", "clusters", "deff"]


def family_of(a: str, b: str, measure: str) -> str:
    """``primary`` for a strategy against ``accept_all`` on MCC, else ``exploratory``."""
    return "primary" if BASELINE in (a, b) and measure == PRIMARY_MEASURE else "exploratory"


def _row(iv: Interval, test: TaskTest) -> dict[str, object]:
    return {
        "diff_pp": pct(iv.value),
        "low": pct(iv.low),
        "high": pct(iv.high),
        "informative_tasks": test.informative_tasks,
        "test": test.method if test.tested else test.status,
        "p": test.p_value,
        "method": iv.method,
        "resamples": iv.resamples,
        "clusters": iv.clusters,
        "deff": None if np.isnan(iv.design_effect) else round(iv.design_effect, 2),
    }


def pairwise_comparisons(results: Results, *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Every pair of each coder's strategies, every compared measure: A - B with paired interval, p and Holm p.

    Returns:
        Columns :data:`COLUMNS`: ``a``, ``b`` the two strategies (``a`` sorted first, so ``accept_all`` is ``a``),
        ``measure``, ``family`` (``primary`` or ``exploratory``), ``diff_pp`` (100 x the difference; MCC x 100
        too), ``low``, ``high`` (paired cluster bootstrap), ``informative_tasks``, ``test`` (the permutation's
        method, or ``too few tasks``), ``p`` (task-level permutation: for a primary row, the strategy's MCC = 0
        with the labels permuted within tasks; NaN without a test), ``p_holm`` (Holm within
        the coder's primary family, or within the coder and measure for exploratory rows), ``differs``
        (``p_holm < 0.05``), and the interval's method, resamples, clusters and design effect.
    """
    return last_of("pairwise", results, (n_resamples, seed), lambda: _pairwise(results, n_resamples, seed))


@dataclass(frozen=True)
class _Coder:
    """What every pair of one coder's strategies is computed from (made once, before the pairs)."""

    cs: CommonSet
    head: dict[str, object]
    rs_fb: Resampler
    rs_codes: Resampler
    rel: np.ndarray
    tasks: list[str]
    code_samples: list[int]
    task_index: TaskIndex
    code_task_index: TaskIndex
    change: dict[str, np.ndarray]
    """Each strategy's per-code-sample net change (empty when the coder's feedback was not refined)."""

    @classmethod
    def of(cls, results: Results, model: str, cs: CommonSet, n_resamples: int, seed: int) -> _Coder:
        rs_fb, rs_codes = set_resamplers(cs, n_resamples, seed)
        tasks, code_tasks = cs.feedback["task_id"].tolist(), cs.codes["task_id"].tolist()
        refined = skip_reason(results, model, "refine_codes") is None and cs.feedback["gain"].notna().any()
        return cls(
            cs=cs,
            head={"model": model, "source": source_of(results, model).source, "decisions": len(cs.feedback)},
            rs_fb=rs_fb,
            rs_codes=rs_codes,
            rel=cs.feedback["reliable"].to_numpy(dtype=bool),
            tasks=tasks,
            code_samples=cs.feedback["code_index"].tolist(),
            task_index=TaskIndex.of(tasks),  # once for every test of the coder's pairs
            code_task_index=TaskIndex.of(code_tasks),
            change={s: cs.per_code_change(s) for s in cs.strategies} if refined else {},
        )


def _pair_rows(coder: _Coder, a: str, b: str, seed: int) -> list[dict[str, object]]:
    """The rows of one pair of a coder's strategies: every compared measure, AUROC where both state scores, the net
    change per code sample where the feedback was refined (each test seeded with ``seed``: the same in any process)."""
    cs, rs_fb, rel, head = coder.cs, coder.rs_fb, coder.rel, coder.head
    rows: list[dict[str, object]] = []
    acc_a, acc_b = cs.accepted(a), cs.accepted(b)
    full, boot = rs_fb.sums(joint_cells(acc_a, acc_b, rel))
    swapping = [m for m in COMPARED if family_of(a, b, m) != "primary"]  # one swap of the decisions for them all
    swaps = paired_measure_tests(coder.task_index, acc_a, acc_b, rel, [MEASURES[m] for m in swapping], seed=seed)
    tests = dict(zip(swapping, swaps, strict=True))
    for measure in COMPARED:
        iv = counts_stat(rs_fb, full, boot, paired(MEASURES[measure]), scale="identity")
        family = family_of(a, b, measure)
        if family == "primary":  # the other strategy's MCC = 0 (accept_all's, by convention)
            test = mcc_zero_test(coder.tasks, acc_b if a == BASELINE else acc_a, rel, within=coder.code_samples)
        else:
            test = tests[measure]
        row = {"a": a, "b": b, "measure": measure, "family": family}
        rows.append({**head, **row, **_row(iv, test)})
    scores_a, scores_b = cs.ranking_scores(a), cs.ranking_scores(b)
    if scores_a is not None and scores_b is not None and len(set(rel)) == 2:
        cells, swapped, stat = paired_level_cells(scores_a, scores_b, rel)
        iv = counts_stat(rs_fb, *rs_fb.sums(cells), stat, scale="identity")
        test = swap_test(coder.task_index, cells, swapped, stat, seed=seed)
        rows.append({**head, "a": a, "b": b, "measure": "auroc", "family": "exploratory", **_row(iv, test)})
    if coder.change:
        change = coder.change
        iv = ratio(coder.rs_codes, change[a] - change[b], np.ones(len(cs.codes)), "identity")
        test = paired_task_test(coder.code_task_index, change[a], change[b], seed=seed)
        row = {"a": a, "b": b, "measure": "net_change_per_code", "family": "exploratory"}
        rows.append({**head, **row, **_row(iv, test)})
    return rows


def _pairwise(results: Results, n_resamples: int, seed: int) -> pd.DataFrame:
    pairs = [
        (coder, a, b)
        for model, cs in common_sets(results).items()
        for coder in [_Coder.of(results, model, cs, n_resamples, seed)]
        for a, b in combinations(cs.strategies, 2)
    ]  # every pair is independent of the others: spread over the free cores, the rows in this order
    rows = [row for part in map_in_order(lambda pair: _pair_rows(*pair, seed), pairs) for row in part]
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c not in ("p_holm", "differs")])
    frame["p"] = frame["p"].astype(float)
    # the primary family is one per coder; an exploratory family is one coder and one measure
    key = frame.assign(holm_family=np.where(frame["family"] == "primary", "primary", frame["measure"]))
    frame["p_holm"] = holm(key, ["model", "holm_family"], "p", ALPHA)
    frame["differs"] = frame["p_holm"] < ALPHA
    frame["p"] = frame["p"].astype(float).round(4)
    frame["p_holm"] = frame["p_holm"].astype(float).round(4)
    return frame[COLUMNS]
