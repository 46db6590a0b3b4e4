"""Reference verification: every reference solution must pass its own benchmark tests, run after run.

Used by ``tfr benchmarks verify`` and by stage 2 of the BigCodeBench selection; a reference that fails any run
(a broken task, a flaky test, an environment gap) is reported with its first failing outcome. For an EvalPlus
benchmark the expected outputs are computed first (in the same sandbox): a reference that fails one of its base
inputs there is that task's failure, and a plus input it gives no output for is left out of the task's plus tier
and listed (:attr:`ReferenceCheck.left_out`), not a failure.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tfr_helpers.benchmarks.evalplus import ReferenceInputError, expected_outputs, is_evalplus, left_out
from tfr_helpers.benchmarks.load import load_tasks
from tfr_helpers.benchmarks.registry import get_benchmark
from tfr_helpers.benchmarks.specs import benchmark_tests
from tfr_helpers.errors import ConfigError
from tfr_helpers.records import LeftOutInput, Task
from tfr_helpers.sandbox.evaluate import describe, first_problem

if TYPE_CHECKING:
    from tfr_helpers.sandbox import Sandbox


@dataclass(frozen=True)
class ReferenceFailure:
    """The first failing run of one reference: ``run`` is 1-based, ``problem`` one line (test, status, error)."""

    run: int
    problem: str


@dataclass(frozen=True)
class ReferenceCheck:
    """Verification of one benchmark's references (BigCodeBench: its selection)."""

    benchmark: str
    total: int
    failures: dict[str, ReferenceFailure] = field(default_factory=dict)
    left_out: list[LeftOutInput] = field(default_factory=list)
    """EvalPlus: plus inputs the reference gave no expected output for, left out of their tasks' plus tiers."""
    seconds: float = 0.0
    """Wall time of the whole check (the expected outputs included)."""
    expected_seconds: float | None = None
    """EvalPlus: wall time of computing (or reading from the cache) the expected outputs; None otherwise."""

    @property
    def passed(self) -> int:
        """References that passed every run."""
        return self.total - len(self.failures)


def reference_failures(
    tasks: Sequence[Task], sandbox: Sandbox, *, runs: int = 1, progress: bool = False, desc: str = "references"
) -> dict[str, ReferenceFailure]:
    """Run each task's reference against its benchmark tests ``runs`` times.

    A task that fails a run is not run again (its first failure is what is reported).

    Args:
        tasks: The tasks to check.
        sandbox: A started sandbox (its limits decide the per-test timeout).
        runs: How many runs each reference must pass (at least 1).
        progress: Show a progress bar per run.
        desc: Progress bar label.

    Returns:
        Task id -> its first failure, in task order, for every reference that failed a run.

    Raises:
        ConfigError: ``runs`` is below 1.
    """
    if runs < 1:
        raise ConfigError("--runs must be at least 1")
    found: dict[str, ReferenceFailure] = {}
    for r in range(1, runs + 1):
        todo = [t for t in tasks if t.task_id not in found]
        results = sandbox.run_many(
            [(t.reference, benchmark_tests(t)) for t in todo], progress=progress, desc=f"{desc} run {r}/{runs}"
        )
        for task, run in zip(todo, results, strict=True):
            problem = first_problem(run)
            if problem is not None:
                found[task.task_id] = ReferenceFailure(r, describe(problem))
    order = {t.task_id: i for i, t in enumerate(tasks)}
    return dict(sorted(found.items(), key=lambda kv: order[kv[0]]))


def verify_references(
    benchmarks: Sequence[str], sandbox: Sandbox, *, runs: int = 1, progress: bool = False
) -> list[ReferenceCheck]:
    """Verify the references of whole benchmarks (BigCodeBench: the selected tasks).

    Raises:
        DataError: An unknown benchmark (checked for all before any work) or missing data.
        ConfigError: ``runs`` is below 1.
    """
    if runs < 1:
        raise ConfigError("--runs must be at least 1")
    for name in benchmarks:
        get_benchmark(name)
    return [check_benchmark(name, sandbox, runs=runs, progress=progress) for name in benchmarks]


def check_benchmark(name: str, sandbox: Sandbox, *, runs: int = 1, progress: bool = False) -> ReferenceCheck:
    """Verify one benchmark's references (an EvalPlus benchmark: its expected outputs computed first)."""
    start = time.monotonic()
    tasks = load_tasks(name)
    failures: dict[str, ReferenceFailure] = {}
    left: list[LeftOutInput] = []
    expected_s = None
    if is_evalplus(name):
        try:
            expected_outputs(name, sandbox)
        except ReferenceInputError as exc:  # those tasks fail; every other one is computed and checked
            failures = {task_id: ReferenceFailure(1, problem) for task_id, problem in exc.failures.items()}
        expected_s = time.monotonic() - start
        left = [x for t in tasks if t.task_id not in failures for x in left_out(t.task_id)]
    todo = [t for t in tasks if t.task_id not in failures]
    failures |= reference_failures(todo, sandbox, runs=runs, progress=progress, desc=name)
    order = {t.task_id: i for i, t in enumerate(tasks)}
    failures = dict(sorted(failures.items(), key=lambda kv: order[kv[0]]))
    return ReferenceCheck(name, len(tasks), failures, left, time.monotonic() - start, expected_s)
