"""Figures of the selection: pass@k per strategy against the random baseline."""

from __future__ import annotations

from typing import Any

from tfr_helpers.consensus.report import RANDOM, SelectionReport


def plot_selection(report: SelectionReport, k: int = 1, ax: Any = None, title: str | None = None) -> Any:
    """Bar chart of pass@k (%) per strategy, the random baseline as a dashed line.

    Args:
        report: A selection report holding ``k``.
        k: Which pass@k to plot.
        ax: Matplotlib axes to draw on (a new figure when None).
        title: Axes title (default: ``pass@k per strategy``).

    Returns:
        The axes.
    """
    import matplotlib.pyplot as plt  # pyplot and its backend load only when a figure is drawn

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5))
    rows = [r for r in report.rows if r.strategy != RANDOM]
    values = [100 * r.pass_at[k] for r in rows]
    bars = ax.bar([r.strategy for r in rows], values, color="tab:blue")
    ax.bar_label(bars, fmt="%.1f", fontsize=8)
    baseline = 100 * report.row(RANDOM).pass_at[k]
    ax.axhline(baseline, color="tab:red", linestyle="--", label=f"random (unbiased estimator) {baseline:.1f}")
    ax.set_ylabel(f"pass@{k} (%)")
    ax.set_ylim(0, max(values + [baseline]) * 1.15 + 1)
    ax.set_title(title or f"pass@{k} per strategy ({report.tasks} tasks)")
    ax.tick_params(axis="x", rotation=45)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
    ax.legend(loc="lower right", fontsize=8)
    return ax


def plot_selections(reports: dict[str, SelectionReport], k: int = 1) -> Any:
    """One :func:`plot_selection` panel per report (e.g. per coder); a note when there is none.

    Returns:
        The figure.
    """
    import matplotlib.pyplot as plt  # pyplot and its backend load only when a figure is drawn

    fig, axes = plt.subplots(max(1, len(reports)), 1, figsize=(8, 3.8 * max(1, len(reports))), squeeze=False)
    if not reports:
        axes[0][0].text(0.5, 0.5, "no coder has two or more code samples per task: nothing to select", ha="center")
        axes[0][0].set_axis_off()
    for ax, (name, report) in zip(axes[:, 0], reports.items(), strict=False):
        plot_selection(report, k, ax, title=f"{name}: pass@{k} per strategy ({report.tasks} tasks)")
    fig.tight_layout()
    return fig
