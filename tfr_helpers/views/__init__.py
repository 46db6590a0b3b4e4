"""tfr_helpers.views: the case browser and small display helpers for the notebooks."""

from tfr_helpers.views.browser import CaseBrowser
from tfr_helpers.views.cases import ALL, Attempt, Filters, build_attempts, load_run_results

__all__: list[str] = ["ALL", "Attempt", "CaseBrowser", "Filters", "build_attempts", "load_run_results"]
