"""Figures with 95% intervals (seaborn): four cases, transitions by reliability, screening on the PR plane.

Plot functions called without ``ax`` draw one panel per kind of evidence (real generations first, then the
simulated model: never in one panel) and return the figure; given an ``ax`` (and optionally ``models``) they draw
those models on it and return the axes. Every panel names its models in a key. They never save:
:func:`save_figures` writes PNG, PDF and SVG with the Agg backend when no notebook backend is active.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import matplotlib

if "inline" not in matplotlib.get_backend().lower() and "ipympl" not in matplotlib.get_backend().lower():
    matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from tfr_helpers.analysis import rq1, rq2, rq3  # noqa: E402
from tfr_helpers.analysis.arms import reports  # noqa: E402
from tfr_helpers.analysis.inference.units import rows_resampler, share_columns  # noqa: E402
from tfr_helpers.analysis.interpret import evidence_kind  # noqa: E402
from tfr_helpers.analysis.rq3 import abstained_everywhere  # noqa: E402
from tfr_helpers.analysis.tables import CASE_LABELS, SIMULATED_NOTE, TRANSITION_LABELS, error_bar  # noqa: E402
from tfr_helpers.analysis.tidy.frames import pairs_frame  # noqa: E402
from tfr_helpers.analysis.tidy.sources import model_display, real_note, source_label  # noqa: E402
from tfr_helpers.records import Results  # noqa: E402


def _bars(frame: pd.DataFrame, x: str, hue: str, order: list[str], hue_order: list[str], ax: Axes) -> None:
    """Bar plot of ``pct`` with asymmetric error bars from ``low``/``high`` (percent)."""
    sns.barplot(data=frame, x=x, y="pct", hue=hue, order=order, hue_order=hue_order, errorbar=None, ax=ax)
    indexed = frame.set_index([hue, x])
    for level, container in zip(hue_order, ax.containers, strict=False):
        for cat, bar in zip(order, container, strict=False):
            if (level, cat) not in indexed.index:
                continue
            r = indexed.loc[(level, cat)]
            if pd.isna(r["pct"]):
                continue
            cx = bar.get_x() + bar.get_width() / 2
            ax.errorbar(
                cx,
                r["pct"],
                yerr=error_bar(r),
                fmt="none",
                ecolor="black",
                capsize=2,
                lw=0.8,
            )
    ax.set_ylim(0, 100)


def _title(ax: Axes, text: str, results: Results, models: list[str] | None = None) -> None:
    kinds = {evidence_kind(results, m) for m in models} if models else set()
    if kinds == {"simulated"} or (not kinds and results.simulated and not real_note(results)):
        text = f"{text}\n(simulated model: a demo, not evidence)"
    elif kinds == {"real"} or (not kinds and real_note(results) and not results.simulated):
        text = f"{text}\n(real generations: evidence)"
    elif results.simulated:
        text = f"{text}\n(simulated rows: a demo; {SIMULATED_NOTE.split(';')[0]})"
    ax.set_title(text, fontsize=10, wrap=True)


PANELS = {"real": "Real generations (evidence)", "simulated": "Simulated model (a demo, not evidence)"}
"""Kind of evidence -> the title of its panel."""


def panels(
    results: Results, plot: Callable[..., object], models: list[str], title: str, size: tuple[float, float]
) -> Figure:
    """One panel per kind of evidence among ``models`` (real first), each drawn by ``plot(results, ax=, models=)``."""
    groups = {k: [m for m in models if evidence_kind(results, m) == k] for k in PANELS}
    groups = {k: ms for k, ms in groups.items() if ms} or {"real": []}
    fig, axes = plt.subplots(1, len(groups), figsize=(size[0] * len(groups), size[1]), squeeze=False)
    for ax, (kind, mine) in zip(axes[0], groups.items(), strict=True):
        plot(results, ax=ax, models=mine)
        ax.set_title(PANELS[kind] if mine else "no data", fontsize=10)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def plot_four_cases(results: Results, ax: Axes | None = None, models: list[str] | None = None) -> Axes | Figure:
    """Share of each RQ1 case per model and benchmark, with 95% cluster-bootstrap intervals (tasks, code samples).

    Each bar group is named by its model's display name, its benchmark and its n (pairs); the panel's title says
    whether the rows are real or simulated.
    """
    pairs = pairs_frame(results)
    if ax is None:
        return panels(
            results, plot_four_cases, sorted(pairs["model"].unique()), "Four cases per model and benchmark", (7, 4.5)
        )
    models = sorted(pairs["model"].unique()) if models is None else models
    pairs = pairs[pairs["model"].isin(models)].copy()
    sizes = pairs.groupby(["model", "benchmark"]).size()
    pairs["group"] = [
        f"{model_display(results, m)}\n{b}, n = {sizes[(m, b)]:,}"
        for m, b in zip(pairs["model"], pairs["benchmark"], strict=True)
    ]
    order = list(dict.fromkeys(pairs.sort_values(["model", "benchmark"])["group"]))
    rows = []
    for g, sub in pairs.groupby("group", sort=True):
        rs = rows_resampler(results, sub, str(sub["model"].iloc[0]))
        rows += [{"group": g, "case": CASE_LABELS[c], **share_columns(rs, sub["case"] == c)} for c in rq1.CASES]
    frame = pd.DataFrame(rows, columns=["group", "case", "k", "n", "pct", "low", "high"])
    _bars(frame, "group", "case", order, list(CASE_LABELS.values()), ax)
    ax.set(xlabel="model and benchmark; n = (code sample, generated test) pairs", ylabel="percent of pairs")
    ax.tick_params(axis="x", labelsize=8)
    if ax.get_legend() is not None:
        sns.move_legend(ax, "upper left", bbox_to_anchor=(1.0, 1.0), title="case", frameon=False, fontsize=8)
    _title(ax, "Four cases per model and benchmark", results, models)
    return ax


def _letter(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: a short name for the ``index``-th model of a figure."""
    return (_letter(index // 26 - 1) if index >= 26 else "") + chr(ord("A") + index % 26)


def plot_transitions(results: Results, ax: Axes | None = None, models: list[str] | None = None) -> Axes | Figure:
    """Benchmark transitions after refinement by feedback reliability, per model (never pooled across models: with
    several, the bars are ``A · reliable``, ``B · unreliable``, ... and the key under the axis names each model
    with its source), with the cluster-bootstrap intervals of :func:`~tfr_helpers.analysis.rq2.refinement_outcomes`."""
    nums = rq2.refinement_outcomes(results)
    refined = sorted(nums.loc[nums["n"] > 0, "model"].unique())
    if ax is None:
        return panels(results, plot_transitions, refined, "Refinement outcomes by feedback reliability", (7, 4.5))
    models = refined if models is None else [m for m in models if m in refined]
    letters = {m: _letter(i) for i, m in enumerate(models)}
    several = len(models) > 1
    nums = nums[nums["model"].isin(models)]
    frame = nums.assign(
        reliability=[
            f"{letters[m]} · {r}" if several else r for m, r in zip(nums["model"], nums["reliability"], strict=True)
        ],
        transition=nums["transition"].map(TRANSITION_LABELS),
    )
    present = {(m, r) for m, r, n in zip(nums["model"], nums["reliability"], nums["n"], strict=True) if n > 0}
    kinds = [(m, rel) for m in models for rel in rq2.RELIABILITIES if (m, rel) in present]  # indeterminate: if any
    hues = [f"{letters[m]} · {rel}" if several else rel for m, rel in kinds]
    _bars(frame, "transition", "reliability", list(TRANSITION_LABELS.values()), hues, ax)
    key = "\n".join(f"{letters[m] + ': ' if several else 'model: '}{m} ({source_label(results, m)})" for m in models)
    ax.set(xlabel="benchmark transition" + (f"\n{key}" if key else ""), ylabel="percent of refinement attempts")
    ax.tick_params(axis="x", labelsize=8)
    if ax.get_legend() is not None:
        sns.move_legend(ax, "upper left", bbox_to_anchor=(1.0, 1.0), title="feedback", frameon=False, fontsize=8)
    _title(ax, "Refinement outcomes by feedback reliability", results, models)
    return ax


OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"]
"""Okabe and Ito's colour-blind-safe palette."""
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "p", "h"]
"""One marker per strategy (with the palette's colours, no two strategies look alike up to 24 strategies)."""


def strategy_styles(strategies: list[str]) -> dict[str, tuple[str, str]]:
    """Strategy -> (colour, marker), the same in every panel: colours from :data:`OKABE_ITO`, markers from
    :data:`MARKERS`, so that strategies sharing a colour never share a marker."""
    return {s: (OKABE_ITO[i % len(OKABE_ITO)], MARKERS[i % len(MARKERS)]) for i, s in enumerate(strategies)}


def _pr_panel(nums: pd.DataFrame, styles: dict[str, tuple[str, str]], ax: Axes) -> None:
    """One model's strategies on the precision-recall plane; strategies that abstained everywhere listed under it."""
    gone = abstained_everywhere(nums)
    undefined = [
        str(r["strategy"])
        for _, r in nums.iterrows()
        if r["strategy"] not in gone and (pd.isna(r["precision_pct"]) or pd.isna(r["recall_pct"]))
    ]
    for _, r in nums.iterrows():
        if r["strategy"] in gone or r["strategy"] in undefined:
            continue
        colour, marker = styles[r["strategy"]]
        ax.errorbar(
            r["recall_pct"],
            r["precision_pct"],
            xerr=error_bar(r, "recall_"),
            yerr=error_bar(r, "precision_"),
            fmt=marker,
            color=colour,
            markeredgecolor="black",
            markeredgewidth=0.5,
            markersize=7,
            capsize=3,
            label=r["strategy"],
        )
    ax.set(
        xlim=(0, 105),
        ylim=(0, 105),
        xlabel="recall (percent of reliable feedback accepted)",
        ylabel="precision (percent of accepted feedback reliable)",
    )
    lines = []
    if gone:
        lines.append("abstained on every decision (accepted as accept_all; not plotted): " + ", ".join(gone))
    if undefined:
        lines.append("precision or recall not defined (no accepted or no reliable feedback): " + ", ".join(undefined))
    if lines:
        ax.text(0.0, -0.16, "\n".join(textwrap.fill(x, 90) for x in lines), transform=ax.transAxes, fontsize=7, va="top")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, title="strategy")


def _pr_title(results: Results, model: str, nums: pd.DataFrame) -> str:
    kind = "real generations" if evidence_kind(results, model) == "real" else "a demo, not evidence"
    decisions = int(nums["decisions"].max()) if len(nums) else 0
    tasks = int(nums["f1_clusters"].max()) if "f1_clusters" in nums and len(nums) else 0
    return f"{model_display(results, model)} ({kind})\nn = {decisions:,} test-fail feedback, {tasks} tasks"


def plot_screening_pr(results: Results, ax: Axes | None = None, models: list[str] | None = None) -> Axes | Figure:
    """Screening strategies on the precision-recall plane (reliable = positive), cluster-bootstrap bars: one panel
    per model (real first), titled with its name, source and n; one colour-blind-safe colour and marker per
    strategy, the same in every panel; strategies that abstained on every decision listed under the panel, not
    plotted over ``accept_all``'s point. Given ``ax``, the first of ``models`` is drawn on it."""
    nums = rq3.screening_and_downstream(results)
    if "model" not in nums:  # no test-fail feedback in the run (a trajectories-only study): an empty plane
        nums = pd.DataFrame(columns=["model", "strategy", "precision_pct", "recall_pct", "decisions", "abstained"])
    styles = strategy_styles(list(dict.fromkeys(nums["strategy"])))
    shown = list(dict.fromkeys(nums["model"])) if models is None else models
    shown = sorted(shown, key=lambda m: evidence_kind(results, m) != "real")
    if ax is not None:
        mine = nums[nums["model"] == shown[0]] if shown else nums.iloc[:0]
        _pr_panel(mine, styles, ax)
        ax.set_title(_pr_title(results, shown[0], mine) if shown else "no data", fontsize=9)
        return ax
    fig, axes = plt.subplots(1, max(len(shown), 1), figsize=(6.5 * max(len(shown), 1), 5.5), squeeze=False)
    for panel, model in zip(axes[0], shown, strict=False):
        mine = nums[nums["model"] == model]
        _pr_panel(mine, styles, panel)
        panel.set_title(_pr_title(results, model, mine), fontsize=9)
    if not shown:
        axes[0][0].set_title("no data", fontsize=10)
    fig.suptitle("Screening strategies on the precision-recall plane, per model", fontsize=11)
    fig.tight_layout()
    return fig


FIGSIZES = {
    "rq1_four_cases": (8.0, 4.0),
    "rq2_transitions": (7.0, 4.0),
    "rq3_screening_pr": (5.0, 5.0),
}
PLOTS = {
    "rq1_four_cases": plot_four_cases,
    "rq2_transitions": plot_transitions,
    "rq3_screening_pr": plot_screening_pr,
}
"""Figure file stem -> plot function."""


FORMATS = ("png", "pdf", "svg")
"""Every figure is saved in each: PNG for reports, PDF and SVG for papers and slides."""
METADATA: dict[str, dict[str, None]] = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}
"""No date in a saved PDF or SVG (and the SVG's element ids salted by the figure's name, not random): a figure drawn
again from the same results is the same bytes, in any process (:mod:`tfr_helpers.analysis.processes`)."""


def save_figures(results: Results, out_dir: Path) -> list[Path]:
    """Draw every figure of :data:`PLOTS` and save it as PNG, PDF and SVG under ``out_dir``.

    Returns:
        The written paths (three per figure).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with sns.axes_style("whitegrid"):
        sized = {stem: (plot, FIGSIZES[stem]) for stem, plot in PLOTS.items()}
        for arm in reports():  # each arm's figures, only for runs that hold the arm
            sized |= arm.figures(results) if arm.present(results) else {}
        for stem, (plot, size) in sized.items():
            drawn = plot(results) if stem in PLOTS else None  # the base figures: one panel per kind of evidence
            if isinstance(drawn, Figure):
                fig = drawn
            else:
                fig, ax = plt.subplots(figsize=size)
                plot(results, ax=ax)
                fig.tight_layout()
            for ext in FORMATS:
                path = out_dir / f"{stem}.{ext}"
                with plt.rc_context({"svg.hashsalt": stem}):
                    fig.savefig(path, dpi=150, bbox_inches="tight", metadata=METADATA.get(ext))
                written.append(path)
            plt.close(fig)
    return written
