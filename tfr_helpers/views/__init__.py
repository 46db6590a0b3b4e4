"""tfr_helpers.views: the case browser and small display helpers for the notebooks.

Importing the package registers every case-row source (the base study's, then each arm's: each arm package's view,
loaded through the arms' registry, and the trajectories') in ``case_rows.ROW_SOURCES``, which both case browsers loop
over.
"""

from tfr_helpers.analysis.headlines import headline
from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.records.arm_registry import arms
from tfr_helpers.views.arm_sections import show_arm
from tfr_helpers.views.browser import CaseBrowser
from tfr_helpers.views.cases import ALL, Filters, load_run_results
from tfr_helpers.views.display import (
    config_markdown,
    generation_overview,
    lines,
    models_overview,
    prose,
    run_paths,
    simulated_banner,
    sources,
    sources_table,
    tasks_overview,
)
from tfr_helpers.views.fit_table import fit
from tfr_helpers.views.glue import read_headline, record_headline
from tfr_helpers.views.headline_box import answers_box, headline_box, selection_box
from tfr_helpers.views.offline_browser import OfflineCaseBrowser
from tfr_helpers.views.progress import results_so_far
from tfr_helpers.views.run_details import RunDetails, mask_paths, run_outputs, shown_path
from tfr_helpers.views.trajectories import (
    real_rq2_figure,
    trajectories_report,
    trajectory_html,
    trajectory_results,
    trajectory_rewards_figure,
    trajectory_step_rows,
)

__all__: list[str] = [
    "show_arm",
    "ALL",
    "Attempt",
    "CaseBrowser",
    "RunDetails",
    "answers_box",
    "Filters",
    "OfflineCaseBrowser",
    "build_attempts",
    "config_markdown",
    "fit",
    "generation_overview",
    "headline",
    "headline_box",
    "lines",
    "load_run_results",
    "mask_paths",
    "models_overview",
    "prose",
    "read_headline",
    "record_headline",
    "results_so_far",
    "run_outputs",
    "selection_box",
    "run_paths",
    "shown_path",
    "simulated_banner",
    "sources",
    "sources_table",
    "tasks_overview",
    "real_rq2_figure",
    "trajectories_report",
    "trajectory_html",
    "trajectory_results",
    "trajectory_rewards_figure",
    "trajectory_step_rows",
]

for _arm in arms():  # each arm package's view registers its case-row source when imported
    if _arm.view is not None:
        _arm.load("view")
