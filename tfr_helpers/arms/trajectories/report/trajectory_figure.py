"""RQ2's real figure, notebook 02's first: what a real model's repair step did, by the class of the feedback it was
shown, per replayed trajectory set; and the dose series (a fixed test list's valid share against the outcome).

Panels: P(Pass->Fail | passed before) and P(Fail->Pass | failed before) per set (rows) and step class (reliable,
unreliable, mixed, indeterminate: one colour and marker each), with the arm's task-clustered 95% intervals
(:func:`~.trajectories.rq2_rows`, never computed a second way); then, when the run holds a dose series
(:func:`~.dose.dose_series`), each list's valid share (x, its task-clustered interval) against the share of tasks
whose final code passes and of tasks whose passing code was broken at some step (y, intervals over tasks), with the
GEE slope of the final pass per 10 points of valid tests (:func:`~.dose_response.dose_response`) in the title.
Real data only: published logs replayed, never simulated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.units import clustered_rows, share_columns
from tfr_helpers.arms.trajectories.report import dose, dose_response
from tfr_helpers.arms.trajectories.report.trajectories import rq2_rows
from tfr_helpers.arms.trajectories.report.trajectory_cases import set_label
from tfr_helpers.records import Results

FIGURE = "rq2_real_transitions"
"""File stem of the figure (``analysis/figures/rq2_real_transitions.png``, ``.pdf``, ``.svg``)."""
CLASSES = {
    "reliable": ("#009E73", "o"),
    "unreliable": ("#D55E00", "s"),
    "mixed": ("#0072B2", "^"),
    "indeterminate": ("#999999", "D"),
}
"""Step class -> (Okabe-Ito colour, marker): colour-blind safe, told apart by marker too."""
MEASURES = {
    "pass_fail_": "P(Pass->Fail | passed before)",
    "fail_pass_": "P(Fail->Pass | failed before)",
}
DOSE_OUTCOMES = {
    "final_passed": ("final code passes", "#0072B2", "o"),
    "ever_broken": ("passing code broken at some step", "#D55E00", "s"),
}
"""Dose-series outcome -> (label, colour, marker)."""


def dose_points(results: Results) -> pd.DataFrame:
    """Per set of the dose series: its list, the list's valid share with its interval, and each outcome of
    :data:`DOSE_OUTCOMES` as a share of the set's judged tasks with its interval over tasks (empty without a
    series)."""
    if not dose.present(results):
        return pd.DataFrame()
    frame = dose.outcomes_frame(results)
    series, _ = dose.dose_series(frame)
    lists = {r["test_list"]: r for _, r in dose.dose_table(results).iterrows()}
    rows = []
    for dataset in series:
        mine = frame[frame["dataset"] == dataset]
        listed = lists.get(mine["test_list"].iloc[0])
        if listed is None or not listed.get("valid_n"):
            continue
        row: dict[str, object] = {"dataset": dataset, "test_list": listed["test_list"]}
        row |= {k: listed[f"valid_{k}"] for k in ("pct", "low", "high")}
        for outcome in DOSE_OUTCOMES:
            kept = mine.dropna(subset=[outcome])
            rs = clustered_rows(kept["task_id"].astype(str).tolist())
            row |= share_columns(rs, kept[outcome].astype(bool).to_numpy(), prefix=f"{outcome}_")
        rows.append(row)
    return pd.DataFrame(rows)


def _slope_title(results: Results) -> str:
    """The GEE slope of the final pass on the list's valid share, for the dose panel's title."""
    frame = dose.outcomes_frame(results)
    series, _ = dose.dose_series(frame)
    fits = dose_response.dose_response(frame[frame["dataset"].isin(series)])
    found = fits[(fits["outcome"] == "final_passed") & (fits["dose"] == "dose_list")] if len(fits) else fits
    if found.empty or found.iloc[0]["estimate"] is None or pd.isna(found.iloc[0]["estimate"]):
        return "slope not estimated"
    r = found.iloc[0]
    return (
        f"final pass: {r['estimate']:+.2f} log-odds per {dose_response.PER:g} pts [{r['low']:.2f}, {r['high']:.2f}], "
        f"{int(r['tasks'])} tasks"
    )


def _err(rows: pd.DataFrame, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    value = rows[f"{prefix}pct"].astype(float).to_numpy()
    low = rows[f"{prefix}low"].astype(float).to_numpy()
    high = rows[f"{prefix}high"].astype(float).to_numpy()
    return value, np.vstack([np.nan_to_num(value - low), np.nan_to_num(high - value)])


def _transitions_panel(ax: Any, table: pd.DataFrame, sets: list[tuple[str, str]], prefix: str) -> None:
    offsets = np.linspace(-0.27, 0.27, len(CLASSES))
    for (cls, (color, marker)), offset in zip(CLASSES.items(), offsets, strict=True):
        mine = table[(table["step_class"] == cls) & table[f"{prefix}n"].fillna(0).astype(int).gt(0)]
        y = [next(i for i, (d, _) in enumerate(sets) if d == dataset) + offset for dataset in mine["dataset"]]
        if not y:
            continue
        value, err = _err(mine, prefix)
        ax.errorbar(value, y, xerr=err, fmt=marker, color=color, ms=4, capsize=2, elinewidth=0.8, label=cls)
    ax.set_yticks(range(len(sets)), [label for _, label in sets], fontsize=7)
    ax.set_ylim(len(sets) - 0.5, -0.5)
    ax.set_xlim(-3, 103)
    ax.set_xlabel(f"{MEASURES[prefix]} (%), repair steps", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    for i in range(1, len(sets)):
        ax.axhline(i - 0.5, color="#ddd", lw=0.5)


def _dose_panel(ax: Any, points: pd.DataFrame, title: str) -> None:
    x, xerr = _err(points, "")
    for outcome, (label, color, marker) in DOSE_OUTCOMES.items():
        y, yerr = _err(points, f"{outcome}_")
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt=marker, color=color, ms=4, capsize=2, elinewidth=0.8, label=label)
    for _, r in points.iterrows():
        ax.annotate(
            str(r["test_list"]),
            (float(r["pct"]), float(r["final_passed_pct"])),
            fontsize=6,
            xytext=(3, 3),
            textcoords="offset points",
        )
    left = float(np.nanmin(points["low"].astype(float))) if points["low"].notna().any() else 0.0
    ax.set(xlim=(max(-3.0, left - 8), 103), ylim=(-3, 103))
    ax.set_xlabel("the list's valid tests (%), measured on the reference", fontsize=8)
    ax.set_ylabel("tasks (%)", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.set_title(f"Dose series ({len(points)} lists): {title}", fontsize=8)
    ax.legend(fontsize=7, loc="upper left")


def plot_real_rq2(results: Results, ax: Any = None) -> Any:
    """RQ2 on the replayed trajectories: transitions by step class per set, and the dose series when there is one.

    Args:
        results: A run with replayed trajectories.
        ax: Axes whose figure the panels replace (``save_figures`` passes one); None: a new figure.

    Returns:
        The figure.
    """
    import matplotlib.pyplot as plt  # after analysis.figures picks the backend (Agg outside a notebook)

    table = rq2_rows(results)
    table = table[table["position"] == "all"]
    sets = list(dict.fromkeys(zip(table["dataset"], table["model"], strict=True)))
    labels = [(d, set_label(str(m), str(d))) for d, m in sets]
    points = dose_points(results)
    panels = 3 if len(points) else 2
    height = max(3.0, 0.32 * len(labels) + 1.4)
    if ax is None:
        fig = plt.figure(figsize=(4.2 * panels + 2.0, height))
    else:
        fig = ax.figure
        fig.clear()
        fig.set_size_inches(4.2 * panels + 2.0, height)
    widths = [1.0, 1.0, 1.1][:panels]
    axes = fig.subplots(1, panels, gridspec_kw={"width_ratios": widths})
    _transitions_panel(axes[0], table, labels, "pass_fail_")
    _transitions_panel(axes[1], table, labels, "fail_pass_")
    axes[1].set_yticklabels([])
    found = {n: h for a in axes[:2] for h, n in zip(*a.get_legend_handles_labels(), strict=True)}
    names = [c for c in CLASSES if c in found]
    handles = [found[n] for n in names]
    axes[0].legend(  # under the first panel's axis title: tight_layout (here or a caller's) makes room for it
        handles, names, title="feedback (step class)", fontsize=7, title_fontsize=7, ncol=len(names) or 1,
        loc="upper center", bbox_to_anchor=(0.5, -0.55 / max(1.0, height - 1.3)),  # 0.55 in under the axis
    )  # fmt: skip
    if len(points):
        _dose_panel(axes[2], points, _slope_title(results))
    fig.suptitle(
        "Real self-repair trajectories (published logs, replayed; not simulated): transitions by the feedback's "
        "class, 95% intervals over tasks",
        fontsize=9,
    )
    fig.tight_layout()
    return fig
