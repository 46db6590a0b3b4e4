"""RQ3 numbers: screening strategies as classifiers of reliable feedback, and their downstream effect.

Definitions (per refinement attempt, i.e. per test-fail feedback that has a refinement record):

- A strategy *accepts* feedback when its decision is ``accept``; ``undecided`` counts as reject.
- Classifier: positive = reliable feedback, predicted positive = accepted. Accuracy, precision
  (reliable among accepted), recall (accepted among reliable) get Wilson intervals; F1 a bootstrap one.
- Downstream: with strategy S the program kept after attempt i is the refined program when S accepted the
  feedback and refinement produced code, else the generated program. Its benchmark change is
  ``delta_S(i) = after_S(i) - before(i)`` in {-1, 0, +1}.
  ``net_change_pp = 100 * mean_i delta_S(i)``: change in benchmark pass rate per refinement attempt, in
  percentage points. ``diff_vs_accept_all_pp = net_change_pp(S) - net_change_pp(accept_all)
  = 100 * (regressions_avoided - fixes_lost) / attempts``, where regressions avoided are Pass->Fail
  attempts S rejected and fixes lost are Fail->Pass attempts S rejected. Both get a bootstrap-over-tasks
  95% interval (tasks resampled with replacement, all attempts of a task together, seeded).
"""

from __future__ import annotations

import pandas as pd

from tfr_helpers.analysis.frames import screening_frame
from tfr_helpers.analysis.sources import skip_reason, source_of
from tfr_helpers.analysis.stats import N_RESAMPLES, bootstrap_ratio, pct, share_columns, wilson
from tfr_helpers.records import Results

BASELINE = "accept_all"


def _strategies(frame: pd.DataFrame) -> list[str]:
    names = sorted(frame["strategy"].unique())
    return sorted(names, key=lambda s: s != BASELINE)


def _task_sums(frame: pd.DataFrame, column: str) -> tuple[list[float], list[float]]:
    grouped = frame.groupby("task_id")[column].agg(["sum", "count"])
    return grouped["sum"].tolist(), grouped["count"].tolist()


def screening_and_downstream(results: Results, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """Per screening strategy: accept rate, classifier quality and downstream effect vs ``accept_all``.

    Args:
        results: A finished run.
        n_resamples: Bootstrap resamples for F1 and the pass-rate changes.
        seed: Bootstrap seed.

    Models are never pooled (a simulated and a real model are different evidence): one row per model and
    strategy. A model whose feedback was not refined (no refiner: ``results.skipped`` says so) has
    ``attempts`` 0 and no downstream numbers; ``refinement`` carries the reason.

    Returns:
        One row per model and strategy (``accept_all`` first), with ``model``, ``source`` and ``refinement``
        (``run`` or the reason it was not). Share metrics ``accept, accuracy, precision, recall``
        each as ``<m>_k, <m>_n, <m>_pct, <m>_low, <m>_high``; ``f1_pct, f1_low, f1_high`` (F1 x 100);
        ``decisions, accepted, rejected, undecided, attempts, regressions_avoided, fixes_lost``;
        ``net_change_pp`` and ``diff_vs_accept_all_pp`` each with ``_low``/``_high`` (see module doc).
    """
    frame = screening_frame(results)
    frame = frame[frame["reliable"].notna()]
    rows = []
    for model in sorted(frame["model"].unique()):
        mine = frame[frame["model"] == model]
        head = {
            "model": model,
            "source": source_of(results, model).source,
            "refinement": skip_reason(results, model, "refine_codes") or "run",
        }
        rows += [{**head, **_strategy_row(mine, s, n_resamples, seed)} for s in _strategies(mine)]
    return pd.DataFrame(rows)


def _strategy_row(frame: pd.DataFrame, strategy: str, n_resamples: int, seed: int) -> dict[str, object]:
    """The numbers of one strategy on one model's decisions."""
    dec = frame[frame["strategy"] == strategy].copy()
    acc = dec["accepted"].astype(bool)
    rel = dec["reliable"].astype(bool)
    tp, fp = int((acc & rel).sum()), int((acc & ~rel).sum())
    fn, tn = int((~acc & rel).sum()), int((~acc & ~rel).sum())
    dec["f1_num"] = 2 * (acc & rel).astype(int)
    dec["f1_den"] = dec["f1_num"] + (acc & ~rel).astype(int) + (~acc & rel).astype(int)
    f1_num = dec.groupby("task_id")["f1_num"].sum().tolist()
    f1_den = dec.groupby("task_id")["f1_den"].sum().tolist()
    f1 = bootstrap_ratio(f1_num, f1_den, n_resamples=n_resamples, seed=seed)
    # downstream, over attempts that have a refinement record
    att = dec[dec["transition"].notna()].copy()
    gain = att["transition"].map({"fail->pass": 1, "pass->fail": -1}).fillna(0)
    att["delta"] = gain.where(att["accepted"].astype(bool), 0)
    att["diff"] = att["delta"] - gain
    net = bootstrap_ratio(*_task_sums(att, "delta"), n_resamples=n_resamples, seed=seed)
    diff = bootstrap_ratio(*_task_sums(att, "diff"), n_resamples=n_resamples, seed=seed)
    rejected = ~att["accepted"].astype(bool)
    return {
        "strategy": strategy,
        "decisions": len(dec),
        "accepted": int(acc.sum()),
        "rejected": int((dec["decision"] == "reject").sum()),
        "undecided": int((dec["decision"] == "undecided").sum()),
        **share_columns(wilson(int(acc.sum()), len(dec)), "accept_"),
        **share_columns(wilson(tp + tn, len(dec)), "accuracy_"),
        **share_columns(wilson(tp, tp + fp), "precision_"),
        **share_columns(wilson(tp, tp + fn), "recall_"),
        "f1_pct": pct(f1.value),
        "f1_low": pct(f1.low),
        "f1_high": pct(f1.high),
        "attempts": len(att),
        "regressions_avoided": int((rejected & (att["transition"] == "pass->fail")).sum()),
        "fixes_lost": int((rejected & (att["transition"] == "fail->pass")).sum()),
        "net_change_pp": pct(net.value),
        "net_change_low": pct(net.low),
        "net_change_high": pct(net.high),
        "diff_vs_accept_all_pp": pct(diff.value),
        "diff_low": pct(diff.low),
        "diff_high": pct(diff.high),
    }
