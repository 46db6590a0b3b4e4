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


def test_without_axes_real_and_simulated_models_get_panels_of_their_own(tmp_path: Path) -> None:
    from tfr_helpers.records import ModelSource

    res = load_results(make_synthetic_run(tmp_path, n_tasks=4))
    sources = [
        ModelSource(model="sim:default", source="simulated", label="simulated", note="demo"),
        ModelSource(model="sim:alt", source="replayed", label="replayed (published)", producer="Alt", note="real"),
    ]
    res = res.model_copy(update={"model_sources": sources})
    for plot in (plot_four_cases, plot_transitions, plot_screening_pr):
        fig = plot(res)
        try:
            real, demo = fig.axes[:2]
            assert real.get_title() == "Real generations (evidence)", plot.__name__
            assert demo.get_title() == "Simulated model (a demo, not evidence)", plot.__name__
            shown = [t.get_text() for ax in (real, demo) for t in (ax.get_legend().get_texts() if ax.get_legend() else [])]
            assert plot is not plot_screening_pr or not any(": " in s for s in shown)  # one model per panel
            keys = real.get_xlabel(), demo.get_xlabel()
            assert plot is plot_screening_pr or ("sim:alt" in keys[0] and "sim:default" not in keys[0]), keys
        finally:
            plt.close(fig)
