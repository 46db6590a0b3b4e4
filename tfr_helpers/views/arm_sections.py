"""An arm package's notebook section, shown by the arm's name: its view module's ``section(results_by_seed)``."""

from __future__ import annotations

from collections.abc import Mapping

from IPython.display import display

from tfr_helpers.records import Results, present_arms
from tfr_helpers.records.arm_registry import arm


def show_arm_screening(results: Results) -> None:
    """Display, for every arm of the run whose view screens its own feedback (``screening_tables(results)``: the
    replayed trajectory steps), its screening tables (notebook 03)."""
    for found in present_arms(results):
        view = found.load("view") if found.view is not None else None
        for item in getattr(view, "screening_tables", _none)(results):
            display(item)


def _none(results: Results) -> list[object]:
    return []


def show_arm(name: str, results: Mapping[int, Results]) -> None:
    """Display the notebook section of the arm ``name`` for a study's results by seed (one entry: one run).

    Raises:
        KeyError: No arm has that name.
        LookupError: The arm declares no view.
    """
    for item in arm(name).load("view").section(results):
        display(item)
