"""The study's inference: cluster bootstrap, single-sample intervals, classifier measures, the common screening set.

The task-level paired test is the public entry point for comparing two arms on the same instances (see
docs/inference.md, "Task-level tests"): :func:`paired_task_test` for rates, :func:`paired_measure_test` for a
classifier measure of two screeners, :func:`swap_test` for any statistic of summed cells, each returning a
:class:`TaskTest` (``status`` ``too few tasks`` and no p below :data:`MIN_INFORMATIVE_TASKS` informative tasks).
"""

from tfr_helpers.analysis.inference.paired_tasks import (
    MIN_INFORMATIVE_TASKS,
    TOO_FEW,
    TaskTest,
    holm,
    paired_measure_test,
    paired_task_test,
    swap_test,
)

__all__ = [
    "MIN_INFORMATIVE_TASKS",
    "TOO_FEW",
    "TaskTest",
    "holm",
    "paired_measure_test",
    "paired_task_test",
    "swap_test",
]
