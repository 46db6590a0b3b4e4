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
        # one model per PR panel (never pooled): its three strategies, each an errorbar container
        assert len([c for c in axes[2].containers if c.has_xerr and c.has_yerr]) == 3
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
    for plot in (plot_four_cases, plot_transitions):
        fig = plot(res)
        try:
            real, demo = fig.axes[:2]
            assert real.get_title() == "Real generations (evidence)", plot.__name__
            assert demo.get_title() == "Simulated model (a demo, not evidence)", plot.__name__
        finally:
            plt.close(fig)
    fig = plot_four_cases(res)
    try:  # bar groups named by model, benchmark and n, no letters and key
        ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        assert ticks and all(t.startswith("Alt\n") and ", n = " in t for t in ticks), ticks
        assert not any(t.startswith("A ·") for ax in fig.axes for t in (x.get_text() for x in ax.get_xticklabels()))
    finally:
        plt.close(fig)


def test_the_pr_figure_has_a_panel_per_model_named_with_n_and_lists_abstaining_strategies(tmp_path: Path) -> None:
    from tfr_helpers.analysis import figures, rq3
    from tfr_helpers.records import ModelSource

    res = load_results(make_synthetic_run(tmp_path, n_tasks=4))
    sources = [
        ModelSource(model="sim:default", source="simulated", label="simulated", note="demo"),
        ModelSource(model="sim:alt", source="replayed", label="replayed (published)", producer="Alt", note="real"),
    ]
    res = res.model_copy(update={"model_sources": sources})
    nums = rq3.screening_and_downstream(res)
    fig = plot_screening_pr(res)
    try:
        titles = [ax.get_title() for ax in fig.axes]
        assert len(titles) == 2 and titles[0].startswith("Alt (real generations)") and "real generations" in titles[0]
        assert titles[1].startswith("sim:default (simulated)") and "a demo, not evidence" in titles[1]
        for title, model in zip(titles, ("sim:alt", "sim:default"), strict=True):
            assert f"n = {int(nums[nums['model'] == model]['decisions'].max()):,} test-fail feedback" in title
        for ax in fig.axes:
            assert [t.get_text() for t in ax.get_legend().get_texts()] == sorted(set(nums["strategy"]))
    finally:
        plt.close(fig)
    styles = figures.strategy_styles([f"s{i}" for i in range(12)])
    assert len(set(styles.values())) == 12 and set(c for c, _ in styles.values()) <= set(figures.OKABE_ITO)
    abstaining = nums.assign(abstained=nums["decisions"].where(nums["strategy"] == "accept_all", 0))
    assert figures.abstained_everywhere(abstaining) == ["accept_all"] * nums["model"].nunique()
    fig, ax = plt.subplots()
    try:
        figures._pr_panel(
            abstaining[abstaining["model"] == "sim:default"], figures.strategy_styles(list(nums["strategy"].unique())), ax
        )
        assert "accept_all" not in [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("abstained on every decision" in t.get_text() and "accept_all" in t.get_text() for t in ax.texts)
    finally:
        plt.close(fig)


def test_a_figure_saved_twice_is_the_same_bytes_in_every_format(tmp_path: Path) -> None:
    from tfr_helpers.analysis import save_figures

    res = load_results(make_synthetic_run(tmp_path / "run", n_tasks=4))
    first = save_figures(res, tmp_path / "first")
    second = save_figures(res, tmp_path / "second")
    assert {p.suffix for p in first} == {".png", ".pdf", ".svg"}
    for a, b in zip(first, second, strict=True):  # no date in a PDF or SVG, no random id in an SVG
        assert a.name == b.name and a.read_bytes() == b.read_bytes(), a.name
