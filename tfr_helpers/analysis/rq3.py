"""RQ3 numbers: screening strategies as classifiers of reliable feedback, and their downstream effect.

Definitions (per coder, never pooled; every strategy on the coder's common feedback set, :mod:`screening_set`):

- A strategy *accepts* feedback when its decision is ``accept``; ``undecided`` counts as reject here, and
  :func:`undecided_sensitivity` shows it as accept and left out too. A consensus screener that finds no evidence
  accepts as ``accept_all`` would: such decisions are counted (``abstained``) and their share is ``abstain_*``.
- Classifier: positive = reliable feedback, predicted positive = accepted. Accept rate, accuracy, precision,
  recall, specificity, F1, balanced accuracy and MCC (:mod:`measures`), and AUROC for strategies that state a
  score (over their decisions with a score), each with the cluster bootstrap over tasks then code samples.
- Downstream per code sample (the policy of :mod:`screening_set`, over all the coder's code samples):
  ``net_change_per_code_pp`` is the change in benchmark pass rate in percentage points, and
  ``diff_per_code_pp`` its difference from ``accept_all`` (a paired interval on the same resamples), with the
  task-level permutation p ``diff_per_code_p`` (:mod:`paired_tasks`; None below six informative tasks).
- Downstream per attempt (labelled as such): with strategy S the program kept after attempt i is the refined
  program when S accepted the feedback, else the generated one; ``net_change_pp = 100 * mean_i delta_S(i)`` and
  ``diff_vs_accept_all_pp = 100 * (regressions_avoided - fixes_lost) / attempts``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Resampler, cells_stat, counts_stat, ratio
from tfr_helpers.analysis.inference.measures import MEASURES, confusion_cells, level_cells
from tfr_helpers.analysis.inference.paired_tasks import paired_task_test
from tfr_helpers.analysis.inference.screening_set import (
    BASELINE,
    UNDECIDED_AS,
    CommonSet,
    common_sets,
    last_of,
    set_resamplers,
)
from tfr_helpers.analysis.inference.units import boundary_interval, interval_columns
from tfr_helpers.analysis.tidy.sources import skip_reason, source_of
from tfr_helpers.records import Results

__all__ = ["BASELINE", "screening_and_downstream", "undecided_sensitivity"]


STRUCTURAL = "structural: accepts every feedback"
"""Method of accept_all's accept rate (100%) and specificity (0%): fixed by construction, so no interval."""


def classifier_columns(
    rs: Resampler, accepted: np.ndarray, reliable: np.ndarray, *, accepts_all: bool = False
) -> dict[str, object]:
    """Every measure of :data:`~tfr_helpers.analysis.inference.measures.MEASURES` as ``<m>_pct, <m>_low, ...`` columns.

    MCC is reported x 100 too (``mcc_pct`` is 100 x MCC, in [-100, 100]). A proportion at 0 or 100%
    gets Wilson's interval over the tasks holding its denominator
    (:func:`~tfr_helpers.analysis.inference.units.boundary_interval`). With ``accepts_all`` (``accept_all``),
    the accept rate and specificity are fixed by construction: no interval (method :data:`STRUCTURAL`).
    """
    acc, rel = np.asarray(accepted, dtype=bool), np.asarray(reliable, dtype=bool)
    full, boot = rs.sums(confusion_cells(acc, rel))
    among = {"accept": acc | ~acc, "accuracy": acc | ~acc, "precision": acc, "recall": rel, "specificity": ~rel}
    out: dict[str, object] = {}
    for name, fn in MEASURES.items():
        iv = counts_stat(rs, full, boot, fn, scale="atanh" if name == "mcc" else "logit")
        if accepts_all and name in ("accept", "specificity"):
            iv = replace(iv, low=np.nan, high=np.nan, method=STRUCTURAL, design_effect=np.nan, p_value=np.nan)
        elif name in among and iv.value in (0.0, 1.0):
            iv = boundary_interval(iv, int(iv.value), rs, among[name])
        out |= interval_columns(iv, f"{name}_")
    return out


def screening_and_downstream(results: Results, *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per coder and screening strategy: classifier quality on the common set, and the downstream effect.

    Args:
        results: A finished run.
        n_resamples: Bootstrap resamples.
        seed: Bootstrap seed.

    A coder whose feedback was not refined (``results.skipped`` says so) has ``attempts`` 0 and no downstream
    numbers; ``refinement`` carries the reason.

    Returns:
        One row per coder and strategy (``accept_all`` first): ``model, source, refinement, strategy``,
        ``decided`` (before the common set), ``decisions`` (the common set),
        ``reliable, reliable_kept`` (recall's denominator and numerator), ``unreliable, unreliable_rejected``
        (specificity's), ``unique_feedback`` (distinct
        (task, code sample text, feedback text) prompts among them), ``accepted, rejected, undecided,
        abstained``, ``abstain_*``, the measures' ``<m>_pct, <m>_low, <m>_high, <m>_method, <m>_resamples,
        <m>_clusters, <m>_deff``, ``auroc_*`` (None without scores), the per-code-sample ``net_change_per_code_*``
        and ``diff_per_code_*`` (with ``diff_per_code_p``), and the per-attempt ``attempts,
        regressions_avoided, fixes_lost, net_change_pp, net_change_low, net_change_high, diff_vs_accept_all_pp,
        diff_low, diff_high``.
    """
    return last_of("rq3", results, (n_resamples, seed), lambda: _screening(results, n_resamples, seed))


def _screening(results: Results, n_resamples: int, seed: int) -> pd.DataFrame:
    rows = []
    for model, cs in common_sets(results).items():
        head = {
            "model": model,
            "source": source_of(results, model).source,
            "refinement": skip_reason(results, model, "refine_codes") or "run",
        }
        rs_fb, rs_codes = set_resamplers(cs, n_resamples, seed)
        base = cs.per_code_change(BASELINE) if BASELINE in cs.decisions else np.zeros(len(cs.codes))
        for strategy in cs.strategies:
            row = {**head, **_strategy_row(cs, strategy, rs_fb, rs_codes, base)}
            if head["refinement"] != "run":  # no refinement: no downstream numbers (not zeros)
                row |= {k: None for k in row if k.startswith(("net_change", "diff_"))} | {"attempts": 0}
            rows.append(row)
    return pd.DataFrame(rows)


def _strategy_row(
    cs: CommonSet, strategy: str, rs_fb: Resampler, rs_codes: Resampler, base: np.ndarray
) -> dict[str, object]:
    """The numbers of one strategy on one coder's common set."""
    dec = cs.decisions[strategy].to_numpy()
    acc, rel = cs.accepted(strategy), cs.feedback["reliable"].to_numpy(dtype=bool)
    abstained = cs.abstained[strategy].to_numpy(dtype=bool)
    scores = cs.ranking_scores(strategy)  # the whole common set, abstentions tied
    auroc: dict[str, object] = {"auroc_pct": None, "auroc_low": None, "auroc_high": None}
    if scores is not None and len(set(rel)) == 2:
        cells, stat = level_cells(scores, rel)
        auroc = interval_columns(cells_stat(rs_fb, cells, stat, scale="logit"), "auroc_")
    ones = np.ones(len(cs.codes))
    change = cs.per_code_change(strategy)
    # per attempt, over the common set's feedback with a refinement record
    gain = cs.feedback["gain"].to_numpy(dtype=float)
    refined = np.isfinite(gain)
    delta = np.where(acc, gain, 0.0)
    rejected = refined & ~acc
    transition = cs.feedback["transition"].to_numpy()
    net_cols = interval_columns(ratio(rs_fb, np.where(refined, delta, 0.0), refined, "identity"))
    diff_cols = interval_columns(ratio(rs_fb, np.where(refined, delta - gain, 0.0), refined, "identity"))
    per_code = ratio(rs_codes, change - base, ones, "identity")
    return {
        "strategy": strategy,
        "decided": cs.decided.get(strategy, 0),
        "decisions": len(dec),
        "unique_feedback": int(cs.feedback["prompt"].nunique()),
        "accepted": int(acc.sum()),
        "rejected": int((dec == "reject").sum()),
        "undecided": int((dec == "undecided").sum()),
        "abstained": int(abstained.sum()),
        "reliable": int(rel.sum()),
        "reliable_kept": int((acc & rel).sum()),
        "unreliable": int((~rel).sum()),
        "unreliable_rejected": int((~acc & ~rel).sum()),
        **interval_columns(ratio(rs_fb, abstained, np.ones(len(dec))), "abstain_"),
        **classifier_columns(rs_fb, acc, rel, accepts_all=strategy == BASELINE),
        **auroc,
        "codes": len(cs.codes),
        **interval_columns(ratio(rs_codes, change, ones, "identity"), "net_change_per_code_"),
        **interval_columns(per_code, "diff_per_code_"),
        "diff_per_code_p": _per_code_p(cs, strategy, change, base),
        "attempts": int(refined.sum()),
        "regressions_avoided": int((rejected & (transition == "pass->fail")).sum()),
        "fixes_lost": int((rejected & (transition == "fail->pass")).sum()),
        "net_change_pp": net_cols["pct"],
        "net_change_low": net_cols["low"],
        "net_change_high": net_cols["high"],
        "diff_vs_accept_all_pp": diff_cols["pct"],
        "diff_low": diff_cols["low"],
        "diff_high": diff_cols["high"],
    }


def _per_code_p(cs: CommonSet, strategy: str, change: np.ndarray, base: np.ndarray) -> float | None:
    """Task-level permutation p of the per-code-sample change against ``accept_all``'s (None without a test)."""
    if strategy == BASELINE:
        return None
    test = paired_task_test(cs.codes["task_id"].tolist(), change, base)
    return None if test.p_value is None else round(test.p_value, 4)


def undecided_sensitivity(results: Results, *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Precision, recall, specificity, F1 and MCC with undecided read as reject, as accept, and left out.

    Only strategies with at least one undecided decision have rows (for the others the three readings agree).

    Returns:
        Columns ``model, source, strategy, undecided_as, decisions, undecided`` and the measures' columns.
    """
    rows = []
    for model, cs in common_sets(results).items():
        rs_fb, _ = set_resamplers(cs, n_resamples, seed)
        for strategy in cs.strategies:
            dec = cs.decisions[strategy].to_numpy()
            undecided = dec == "undecided"
            if not undecided.any():
                continue
            rel = cs.feedback["reliable"].to_numpy(dtype=bool)
            for reading in UNDECIDED_AS:
                keep = ~undecided if reading == "excluded" else np.ones(len(dec), dtype=bool)
                acc = cs.accepted(strategy, "accept" if reading == "accept" else "reject")
                fb = cs.feedback[keep]
                rs = cs.resampler(fb, n_resamples, seed)
                rows.append(
                    {
                        "model": model,
                        "source": source_of(results, model).source,
                        "strategy": strategy,
                        "undecided_as": reading,
                        "decisions": int(keep.sum()),
                        "undecided": int(undecided.sum()),
                        **classifier_columns(rs if reading == "excluded" else rs_fb, acc[keep], rel[keep]),
                    }
                )
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=["model", "source", "strategy", "undecided_as"])


def abstained_everywhere(nums: pd.DataFrame) -> list[str]:
    """Strategies that abstained on every decision of the frame's rows (a consensus screener without consensus: it
    accepted as ``accept_all`` does, so its point would sit on ``accept_all``'s)."""
    if "abstained" not in nums:
        return []
    done = nums[(nums["decisions"] > 0) & (nums["abstained"] == nums["decisions"])]
    return [str(s) for s in done["strategy"]]
