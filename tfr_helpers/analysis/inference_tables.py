"""More tables of the analysis: RQ1 by failure mode, RQ2's conditional transitions, RQ3's pairwise comparison and
RQ3's undecided sensitivity, each ``Results -> pandas Styler`` like :mod:`tables`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis import rq1_modes, rq2, rq3
from tfr_helpers.analysis.inference import pairwise
from tfr_helpers.analysis.tables import CAPTIONS, MEASURE_LABELS, TRANSITION_LABELS, share_cell
from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.records import Results


def _styler(frame: pd.DataFrame, name: str, results: Results) -> Styler:
    """The table with its own caption only, as :mod:`tables` gives it (the LaTeX export adds the sources)."""
    return frame.style.set_caption(CAPTIONS[name])


FAILURE_MODES_CAPTION = (
    "Unreliable test-fail feedback by how the generated code failed, per model: unreliable of reliable + "
    "unreliable feedback of that mode (percent [95 percent bootstrap over tasks, then code samples]), the mean of "
    "per-task shares, and the indeterminate feedback of that mode (kept out of the share). Feedback whose code did "
    "not load or raised inside its own code says something true about the code whatever the test expects."
)


def rq1_failure_modes_table(results: Results) -> Styler:
    """Per model and failure mode (``all`` first): unreliable share [CI], task mean, indeterminate, tasks."""
    nums = rq1_modes.by_failure_mode(results)
    rows = [
        {
            "Model": r["model"],
            "Failure mode": r["failure_mode"],
            "Source": source_label(results, r["model"]),
            "Feedback": str(r["n"]),
            "Unreliable": share_cell(r, with_count=True),
            "Task mean": share_cell(r, "task_mean_"),
            "Indeterminate": str(r["indeterminate"]),
            "Tasks": str(r["clusters"]),
        }
        for _, r in nums.iterrows()
        if r["n"] or r["indeterminate"]
    ]
    cols = ["Model", "Failure mode", "Source", "Feedback", "Unreliable", "Task mean", "Indeterminate", "Tasks"]
    frame = pd.DataFrame(rows, columns=cols).set_index(["Model", "Failure mode"])
    return frame.style.set_caption(FAILURE_MODES_CAPTION)


def rq2_conditional_transitions_table(results: Results) -> Styler:
    """Per model, reliability and transition: attempts (distinct prompts), rate [CI], task mean, unique-weighted."""
    nums = rq2.conditional_transitions(results)
    before = {"pass->fail": "passed before", "fail->pass": "failed before"}
    rows = [
        {
            "Model": r["model"],
            "Feedback": r["reliability"],
            "Transition": f"{TRANSITION_LABELS[r['transition']]} | {before[r['transition']]}",
            "Source": source_label(results, r["model"]),
            "Attempts (unique)": f"{r['attempts']} ({r['unique_attempts']})",
            "Rate per attempt": share_cell(r, with_count=True),
            "Task mean": share_cell(r, "task_mean_"),
            "Rate per unique prompt": share_cell(r, "unique_", with_count=True),
            "Tasks": str(r["clusters"]),
        }
        for _, r in nums.iterrows()
    ]
    cols = ["Model", "Feedback", "Transition", "Source", "Attempts (unique)", "Rate per attempt", "Task mean"]
    frame = pd.DataFrame(rows, columns=[*cols, "Rate per unique prompt", "Tasks"])
    return _styler(frame.set_index(["Model", "Feedback", "Transition"]), "rq2_conditional_transitions", results)


def _delta_cell(row: pd.Series) -> str:
    if pd.isna(row["diff_pp"]):
        return "--"
    star = "*" if row["differs"] else ""
    test = f"p={row['p_holm']:.3f}" if pd.notna(row["p_holm"]) else str(row.get("test", "no test"))
    if pd.isna(row["low"]) or pd.isna(row["high"]):  # too few tasks for an interval
        return f"{row['diff_pp']:.1f} {test}{star}"
    return f"{row['diff_pp']:.1f} [{row['low']:.1f}, {row['high']:.1f}] {test}{star}"


def rq3_pairwise_table(results: Results, measure: str = "f1") -> Styler:
    """Strategy x strategy per model: the paired difference in ``measure`` [CI] with its Holm-adjusted p-value.

    Rows are the first strategy of a pair, columns the second (each pair once, above the diagonal)."""
    nums = pairwise.pairwise_comparisons(results)
    mine = nums[nums["measure"] == measure]
    strategies = list(dict.fromkeys([*mine["a"], *mine["b"]]))
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for _, r in mine.iterrows():
        who = f"{r['model']} ({source_label(results, r['model'])})"
        cells.setdefault((who, r["a"]), {})[r["b"]] = _delta_cell(r)
    index = pd.MultiIndex.from_tuples(list(cells), names=["Model", "Strategy"])
    frame = pd.DataFrame(list(cells.values()), index=index).reindex(columns=strategies[1:])
    frame = frame.dropna(axis=1, how="all").fillna("")
    return _styler(frame, "rq3_pairwise", results)


def rq3_undecided_sensitivity_table(results: Results) -> Styler:
    """Per model, strategy with undecided replies and reading: precision, recall, specificity, F1, MCC."""
    nums = rq3.undecided_sensitivity(results)
    shown = ("precision", "recall", "specificity", "f1", "mcc")
    rows = [
        {
            "Model": f"{r['model']} ({source_label(results, r['model'])})",
            "Strategy": r["strategy"],
            "Undecided as": r["undecided_as"],
            "Decisions": str(r["decisions"]),
            "Undecided": str(r["undecided"]),
            **{MEASURE_LABELS[m]: share_cell(r, f"{m}_") for m in shown},
        }
        for _, r in nums.iterrows()
    ]
    cols = ["Model", "Strategy", "Undecided as", "Decisions", "Undecided", *(MEASURE_LABELS[m] for m in shown)]
    frame = pd.DataFrame(rows, columns=cols).set_index(["Model", "Strategy", "Undecided as"])
    return _styler(frame, "rq3_undecided_sensitivity", results)


INFERENCE_TABLES: dict[str, Callable[[Results], Styler]] = {
    "rq2_conditional_transitions": rq2_conditional_transitions_table,
    "rq3_pairwise": rq3_pairwise_table,
    "rq3_undecided_sensitivity": rq3_undecided_sensitivity_table,
}
"""Table name (file stem of the ``.tex``) -> function building it."""
