"""Real refinement trajectories as records: a published self-repair log's attempts and the feedback logged after
each, as the readers of this folder load them (a set, its trajectories, the steps they could not use).

A trajectory is one task's ordered attempts from a published self-repair log (Reflexion's ``programming_runs``, or
the package's own import format, docs/replay.md). A *step* is (attempt k, the feedback shown after it, attempt
k+1).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.core import BenchmarkName, Record

FeedbackFormat = Literal["asserts", "unittest", "harness_fault", "none"]
"""How one feedback text reads: assert lines with ``# output:``, unittest output, a harness fault (the logging harness
never ran the tests: ``'Expr' object has no attribute 'test'``), or no failing test named at all."""


class LoggedTest(Record):
    """One test the feedback names, as it can be run again.

    ``kind`` ``assert``: ``source`` is the assert statement; ``unittest``: ``source`` is the test module of the row's
    ``test_cases`` defining ``name`` (``TestClass.test_method``)."""

    name: str
    kind: Literal["assert", "unittest"]
    source: str
    logged_status: Literal["passed", "failed"]
    """What the feedback said of it."""
    logged_output: str | None = None
    """The logged output of a failing test (an assert's ``# output:`` value, a unittest failure's last line)."""


class TrajectoryAttempt(Record):
    """One attempt: its code and the feedback shown after it (None for the last attempt, or when not logged)."""

    index: int
    code: str
    feedback: str | None = None
    feedback_format: FeedbackFormat = "none"
    tests: list[LoggedTest] = Field(default_factory=list)
    """The tests the feedback names (passing and failing), where known."""


class UnusableStep(Record):
    """A step the adapter could not use, with the reason (the rest of the log still loads)."""

    dataset: str
    task: str
    """The task id, or the row's name when it has no id."""
    step: int
    reason: str


class Trajectory(Record):
    """One task's attempts in order, joined to a benchmark task by id (checked by entry-point name)."""

    dataset: str
    task_id: str
    benchmark: BenchmarkName
    entry_point: str
    attempts: list[TrajectoryAttempt]
    usable_steps: list[int] = Field(default_factory=list)
    """Indices k of the steps (attempt k -> k+1) that can be judged."""
    preamble: str = ""
    """Import lines of the prompts: the benchmark task's and the one the model was given (a log's ``prompt``,
    e.g. MultiPL-E's ``from typing import List``). A benchmark runs its prompt and the completion together, so a
    logged whole function may rely on them; every attempt runs after them (:meth:`program`)."""

    def program(self, k: int) -> str:
        """Attempt ``k`` as it runs: the preamble, then its code (a ``from __future__`` import of the code kept
        first, where Python requires it)."""
        code = self.attempts[k].code
        if not self.preamble:
            return code
        lines = code.split("\n")
        future = [line for line in lines if line.startswith("from __future__ import")]
        rest = [line for line in lines if not line.startswith("from __future__ import")]
        return "\n".join([*future, self.preamble, *rest])


class TrajectorySet(Record):
    """A loaded trajectory set: its identity and protocol, its trajectories and the steps it could not use."""

    name: str
    benchmark: BenchmarkName
    model: str
    protocol: str
    """How the next attempt was made (Reflexion: feedback -> verbal self-reflection -> new code)."""
    source: str
    license: str
    origin: Literal["published", "hand-written"] = "published"
    """Where the steps come from: a published run's log (evidence), or steps written by hand to illustrate the
    study (a worked example with a known answer: never evidence); a directory says so in its ``meta.json``."""
    trajectories: list[Trajectory] = Field(default_factory=list)
    unusable: list[UnusableStep] = Field(default_factory=list)

    @property
    def steps(self) -> int:
        """Number of usable steps."""
        return sum(len(t.usable_steps) for t in self.trajectories)
