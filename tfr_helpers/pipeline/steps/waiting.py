"""Which of a stage's work items wait rather than compute: a program, a test or the task's reference or benchmark
tests sleeps, starts a process or opens a socket (:data:`tfr_helpers.sandbox.routing.WAITS`).

A stage with chunks in flight starts such items early (:attr:`tfr_helpers.pipeline.engine.stage.Stage.waits`), so
their waits overlap with the rest of the stage's work. Scheduling only: no record depends on it.
"""

from __future__ import annotations

from tfr_helpers.benchmarks import benchmark_tests
from tfr_helpers.pipeline.steps.evaluate_refined import RefinedJob
from tfr_helpers.pipeline.steps.pair_runs import PairJob
from tfr_helpers.records import Refinement, Task
from tfr_helpers.sandbox.routing import WAITS, waits

_TASKS: dict[tuple[str, ...], bool] = {}


def task_waits(task: Task) -> bool:
    """Whether the task's reference or one of its benchmark tests waits: then every program's benchmark run on
    it may (BigCodeBench has tasks whose tests sleep seconds each). Remembered per task (its benchmark, id,
    reference and tests)."""
    key = (task.benchmark, task.task_id, task.reference, task.tests, *task.test_imports)
    if key not in _TASKS:
        _TASKS[key] = waits(task.reference, benchmark_tests(task))
    return _TASKS[key]


def pair_job_waits(job: PairJob) -> bool:
    """RQ1's unit (one coder's code samples and generated tests on one task): the task, a code or a test waits."""
    return (
        task_waits(job.task)
        or any(WAITS.search(code.code or "") for code in job.codes)
        or any(WAITS.search(test.source) for test in job.tests)
    )


def refined_job_waits(job: RefinedJob[Refinement]) -> bool:
    """One refinement to evaluate, in any arm: the task, the refined program or the generated test waits."""
    return task_waits(job.task) or bool(WAITS.search(job.refinement.code or "") or WAITS.search(job.test.source))
