"""Plot functions draw on a given axes, with one interval bar per bar or point."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import load_results, plot_four_cases, plot_screening_pr, plot_transitions


def test_plots_use_the_given_axes_and_draw_intervals(tmp_path: Path) -> None:
    res = load_results(make_synthetic_run(tmp_path, n_tasks=4))
    fig, axes = plt.subplots(1, 3)
    try:
        for plot, ax in zip((plot_four_cases, plot_transitions, plot_screening_pr), axes, strict=True):
            assert plot(res, ax=ax) is ax
            assert ax.containers, plot.__name__
            assert "simulated" in ax.get_title()
        # three strategies per model (two models, never pooled) on the PR plane, each an errorbar container
        assert len([c for c in axes[2].containers if c.has_xerr and c.has_yerr]) == 3 * 2
    finally:
        plt.close(fig)
