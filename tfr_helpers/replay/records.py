"""Records of replayed generations: a dataset's tasks, each with its code samples and test samples.

Every adapter (CodeT, Reflexion, the import format) produces these records; the replay provider and the
pipeline read only these. All records are frozen pydantic models (``extra="forbid"``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.benchmarks.registry import benchmark_of_id
from tfr_helpers.errors import DataError
from tfr_helpers.records import BenchmarkName, Record, TestKind

Origin = Literal["published", "imported"]
"""Where a dataset's generations come from: a paper's released files, or a researcher's own files."""


class ReplayCode(Record):
    """One code sample of a task, as the model produced it."""

    index: int
    """Sample index within the task (file order), 0-based."""
    program: str
    """The whole program: the task's prompt joined to the completion when the sample is a completion."""
    completion: str | None = None
    """The part the model wrote, after the adapter's cutting, when it was joined to a prompt; None for a whole
    program (``solution``)."""
    compiles: bool
    """Whether ``program`` compiles; code that does not is kept and counts as code that fails to load."""


class ReplayTest(Record):
    """One test of a test sample, as a self-contained pytest-style unit."""

    name: str
    """The test function's name (unique within its sample)."""
    source: str
    """The unit: one ``def test_*`` function (plus, for imported files, the imports and helpers it uses),
    exactly as :func:`tfr_helpers.models.parse_tests` reads it back from the provider's reply."""
    text: str
    """The test as published or extracted (an assert statement, or the unit itself for imported functions)."""
    compiles: bool = True
    """Whether ``source`` compiles; a unit that does not (e.g. ``from x import *`` inside a function) is left out
    of the provider's reply and named in its note."""


class ReplayTestSample(Record):
    """One test sample of a task: the tests one generation produced."""

    index: int
    """Sample index within the task and kind (file order), 0-based."""
    kind: TestKind
    """``ebt`` (asserts / example-based) or ``pbt`` (property-based)."""
    tests: list[ReplayTest] = Field(default_factory=list)
    """The tests, in the order written; may be empty (the generation held no usable test)."""
    module: str
    """The Python text of the compiling tests, as the provider sends it to the pipeline's parser."""
    note: str | None = None
    """Why tests are missing or were left out (empty sample, units that do not compile, a parse error)."""


class ReplayTask(Record):
    """The generations for one benchmark task."""

    task_id: str
    """The benchmark's own task id (``HumanEval/0``)."""
    entry_point: str
    """The function under test."""
    prompt: str | None = None
    """The prompt the code samples continue, when they are completions (CodeT's own code prompt)."""
    code_samples: list[ReplayCode] = Field(default_factory=list)
    """Code samples in sample order."""
    test_samples: list[ReplayTestSample] = Field(default_factory=list)
    """Test samples in sample order (both kinds; index counts within a kind)."""

    def samples_of_kind(self, kind: TestKind) -> list[ReplayTestSample]:
        """The task's test samples of one kind, in index order."""
        return [s for s in self.test_samples if s.kind == kind]


class ReplayDataset(Record):
    """A whole replay dataset: real generations of one model for tasks of one benchmark."""

    name: str
    """Registry name (``codet-codegen16b-humaneval``) or, for imported files, the directory's name."""
    benchmark: BenchmarkName
    """The benchmark the tasks belong to."""
    model: str
    """The model that produced the generations (``CodeGen-Mono-16B``, ``GPT-4``)."""
    origin: Origin
    """``published`` (a paper's released files) or ``imported`` (a researcher's own files)."""
    real: Literal[True] = True
    """Always True: the generations are real model outputs, never simulated."""
    source: str
    """Where the files came from (upstream repository and commit, or the imported paths)."""
    license: str
    """License of the generations (``unknown`` for imported files unless stated)."""
    note: str
    """One sentence for every output that uses the dataset, e.g. "real generations by GPT-4, published ..."."""
    tasks: dict[str, ReplayTask]
    """Tasks by task id, in benchmark order."""

    def task(self, task_id: str) -> ReplayTask | None:
        """The task with this id, or the same task under the id it has in this dataset's benchmark.

        A benchmark that keeps another's tasks names the other's id prefix among its ``id_aliases`` (HumanEval+'s
        ``HumanEval+/0`` is HumanEval's ``HumanEval/0``: same prompt, same entry point), so a dataset of HumanEval
        generations serves HumanEval+ too; its tasks' reference and benchmark tests are HumanEval+'s.
        """
        found = self.tasks.get(task_id)
        if found is not None:
            return found
        try:
            entry = benchmark_of_id(task_id)
        except DataError:
            return None
        rest = task_id[len(entry.id_prefix) :]
        return next((self.tasks[a + rest] for a in entry.id_aliases if a + rest in self.tasks), None)

    @property
    def kinds(self) -> list[TestKind]:
        """Test kinds that at least one task has samples of (``ebt`` before ``pbt``)."""
        present = {s.kind for t in self.tasks.values() for s in t.test_samples}
        return [k for k in ("ebt", "pbt") if k in present]
