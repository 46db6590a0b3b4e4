"""tfr_helpers.views: the case browser and small display helpers for the notebooks.

Importing the package registers the case-row sources of the base study in ``case_rows.ROW_SOURCES``; each arm
package's view registers its own when the case browsers first ask for rows (``case_rows.row_sources``). An arm
package's notebook section: :func:`show_arm`.
"""

from tfr_helpers.analysis.headlines import headline
from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.views.arm_sections import show_arm, show_arm_screening
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

__all__: list[str] = [
    "show_arm",
    "show_arm_screening",
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
]
