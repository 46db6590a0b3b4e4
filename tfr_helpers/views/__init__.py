"""tfr_helpers.views: the case browser and small display helpers for the notebooks."""

from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.views.browser import CaseBrowser
from tfr_helpers.views.cases import ALL, Filters, load_run_results
from tfr_helpers.views.controls import controls_report
from tfr_helpers.views.display import (
    config_markdown,
    generation_overview,
    headline,
    lines,
    models_overview,
    prose,
    run_paths,
    simulated_banner,
    sources,
    sources_table,
    tasks_overview,
)
from tfr_helpers.views.glue import read_headline, record_headline
from tfr_helpers.views.progress import results_so_far
from tfr_helpers.views.trajectories import trajectories_report, trajectory_browser, trajectory_html

__all__: list[str] = [
    "ALL",
    "Attempt",
    "CaseBrowser",
    "Filters",
    "build_attempts",
    "config_markdown",
    "controls_report",
    "generation_overview",
    "headline",
    "lines",
    "load_run_results",
    "models_overview",
    "prose",
    "read_headline",
    "record_headline",
    "results_so_far",
    "run_paths",
    "simulated_banner",
    "sources",
    "sources_table",
    "tasks_overview",
    "trajectories_report",
    "trajectory_browser",
    "trajectory_html",
]
