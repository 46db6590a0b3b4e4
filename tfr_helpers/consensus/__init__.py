"""tfr_helpers.consensus: execution consensus over the matrix of generated programs x generated tests.

Reference-free rankers from the literature (CodeT, MBR-Exec, MaxPass, CodeT hard/soft, B4, GenX dual-critic,
Dawid-Skene), built once over one record (:class:`TaskMatrix`) and used two ways: to select a program
(:func:`selection_report`: expected pass@k over tie levels against the random baseline; ``tfr select``) and to
screen test-fail feedback in RQ3 (:mod:`tfr_helpers.consensus.screening`). See ``docs/consensus.md``.
"""

from tfr_helpers.consensus.figures import plot_selection, plot_selections
from tfr_helpers.consensus.from_run import matrices_from_records, selection_by_coder
from tfr_helpers.consensus.matrix import Semantics, TaskMatrix, TaskTruth, load_task, save_task
from tfr_helpers.consensus.ranked_pass_at_k import random_pass_at_k, ranked_pass_at_k, task_pass_at_k
from tfr_helpers.consensus.rankers.builtin import resolve_selector, selector_names
from tfr_helpers.consensus.ranking import Ranking, register_selector
from tfr_helpers.consensus.report import (
    RANDOM,
    SelectionReport,
    StrategyRow,
    pass_at_1_by_strategy,
    reports_frame,
    selection_report,
)
from tfr_helpers.consensus.stored import stored_selection

__all__ = [
    "RANDOM",
    "Ranking",
    "SelectionReport",
    "Semantics",
    "StrategyRow",
    "TaskMatrix",
    "TaskTruth",
    "load_task",
    "matrices_from_records",
    "pass_at_1_by_strategy",
    "plot_selection",
    "plot_selections",
    "random_pass_at_k",
    "ranked_pass_at_k",
    "register_selector",
    "resolve_selector",
    "reports_frame",
    "save_task",
    "selection_by_coder",
    "selection_report",
    "selector_names",
    "stored_selection",
    "task_pass_at_k",
]
