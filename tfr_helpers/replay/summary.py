"""What a replay dataset holds, in numbers: tasks, samples per task, tests (for ``tfr replay list``)."""

from __future__ import annotations

from dataclasses import dataclass

from tfr_helpers.replay.records import ReplayDataset


@dataclass(frozen=True)
class DatasetSummary:
    """Counts of one dataset.

    Attributes:
        name: The dataset's name.
        model: The model that produced it.
        tasks: Number of tasks.
        code_per_task: ``(min, max)`` code samples per task.
        tests_per_task: ``(min, max)`` test samples per task (all kinds).
        tests: Total tests over all test samples.
        empty_test_samples: Test samples without any test.
        code_not_compiling: Code samples whose program does not compile.
    """

    name: str
    model: str
    tasks: int
    code_per_task: tuple[int, int]
    tests_per_task: tuple[int, int]
    tests: int
    empty_test_samples: int
    code_not_compiling: int

    @staticmethod
    def _span(lo_hi: tuple[int, int]) -> str:
        return str(lo_hi[0]) if lo_hi[0] == lo_hi[1] else f"{lo_hi[0]}-{lo_hi[1]}"

    def line(self) -> str:
        """One line: ``<tasks> tasks, <n> code + <m> test samples per task (<tests> tests)``."""
        return (
            f"{self.tasks} tasks, {self._span(self.code_per_task)} code + {self._span(self.tests_per_task)} test "
            f"samples per task ({self.tests} tests; {self.empty_test_samples} test samples hold none; "
            f"{self.code_not_compiling} programs do not compile)"
        )


def summarize(dataset: ReplayDataset) -> DatasetSummary:
    """Count a dataset's tasks, samples and tests.

    Args:
        dataset: A loaded dataset.

    Returns:
        The counts (zeros for a dataset without tasks).
    """
    tasks = list(dataset.tasks.values())
    codes = [len(t.code_samples) for t in tasks] or [0]
    tests = [len(t.test_samples) for t in tasks] or [0]
    samples = [s for t in tasks for s in t.test_samples]
    return DatasetSummary(
        name=dataset.name,
        model=dataset.model,
        tasks=len(tasks),
        code_per_task=(min(codes), max(codes)),
        tests_per_task=(min(tests), max(tests)),
        tests=sum(len(s.tests) for s in samples),
        empty_test_samples=sum(not s.tests for s in samples),
        code_not_compiling=sum(not c.compiles for t in tasks for c in t.code_samples),
    )
