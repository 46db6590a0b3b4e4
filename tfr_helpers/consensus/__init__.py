"""tfr_helpers.consensus: execution consensus over the matrix of generated programs x generated tests.

Reference-free rankers from the literature (CodeT, MBR-Exec, MaxPass, CodeT hard/soft, B4, GenX dual-critic,
Dawid-Skene), built once over one record (:class:`TaskMatrix`) and used two ways: to select a program
(:func:`selection_report`: expected pass@k over tie levels against the random baseline; ``tfr select``) and to
screen test-fail feedback in RQ3 (:mod:`tfr_helpers.consensus.screening`). See ``docs/consensus.md``.
"""

from tfr_helpers.consensus.matrix import Semantics, TaskMatrix, TaskTruth, load_task, save_task
from tfr_helpers.consensus.ranking import Ranking, register_selector, resolve_selector, selector_names
from tfr_helpers.consensus.report import RANDOM, SelectionReport, StrategyRow, selection_report
from tfr_helpers.consensus.selection import random_pass_at_k, ranked_pass_at_k, task_pass_at_k

__all__ = [
    "RANDOM",
    "Ranking",
    "SelectionReport",
    "Semantics",
    "StrategyRow",
    "TaskMatrix",
    "TaskTruth",
    "load_task",
    "random_pass_at_k",
    "ranked_pass_at_k",
    "register_selector",
    "resolve_selector",
    "save_task",
    "selection_report",
    "selector_names",
    "task_pass_at_k",
]
