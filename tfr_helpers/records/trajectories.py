"""Records of real refinement trajectories: logged attempts and feedback, and tfr's judgement of every step.

A trajectory is one task's ordered attempts from a published self-repair log (Reflexion's ``programming_runs``, or
the package's own import format, docs/replay.md). A *step* is (attempt k, the feedback shown after it, attempt
k+1). The study judges each step twice: RQ1 (the feedback's failing tests run by tfr's sandbox on attempt k and on
the reference) and RQ2 (the benchmark verdicts of attempt k and attempt k+1: the transition).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.core import BenchmarkName, Cause, Record, Status, Transition
from tfr_helpers.records.list_doses import TaskDose
from tfr_helpers.records.study import TierVerdicts
from tfr_helpers.records.trajectory_outcomes import TrajectoryOutcome
from tfr_helpers.records.trajectory_screening import TrajectoryStepScreening

FeedbackFormat = Literal["asserts", "unittest", "harness_fault", "none"]
"""How one feedback text reads: assert lines with ``# output:``, unittest output, a harness fault (the logging harness
never ran the tests: ``'Expr' object has no attribute 'test'``), or no failing test named at all."""

StepClass = Literal["reliable", "unreliable", "mixed", "indeterminate", "not_reproduced", "not_evaluable"]
"""RQ1 class of one step: every reproduced failing test passes the reference (``reliable``), fails it
(``unreliable``), some of each (``mixed``); ``indeterminate``: the class depends on a failing test's verdict that
depends on the machine (a timeout or crash that hit the sandbox's guard or crashed again when run alone, RQ1's
rule, docs/labels.md), on the code before or on the reference; ``not_reproduced``: tfr's run of the logged tests
on the logged code fails none of them, or the feedback is a harness fault; ``not_evaluable``: the task cannot be
judged offline."""

STEP_CLASSES: tuple[StepClass, ...] = (
    "reliable",
    "unreliable",
    "mixed",
    "indeterminate",
    "not_reproduced",
    "not_evaluable",
)
"""The step classes in report order."""


def step_key(dataset: str, task_id: str, step: int) -> str:
    """Checkpoint key of one step: the set, the task and the step's index (its first attempt's)."""
    return f"{dataset}|{task_id}|{step}"


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


class LoggedTestVerdict(Record):
    """One failing test of a step's feedback, run by tfr's sandbox on the code before and on the reference."""

    name: str
    kind: Literal["assert", "unittest"]
    on_code: Status | None
    """tfr's outcome on the code before (None: not run)."""
    on_reference: Status | None
    reproduced: bool
    """The test fails the code before in tfr's run too."""
    after: Status | None = None
    """tfr's outcome on the code after the step."""
    cause: Cause | None = None
    """Why the test is wrong, when the reference fails it (RQ1's causes)."""
    reference_message: str | None = None
    machine_dependent: bool = False
    """A deciding outcome (on the code before, or on the reference of a reproduced test) still depends on the
    machine after its run alone (RQ1's ``indeterminate`` rule): the test is set aside from the step's class."""


class TrajectoryStepEvaluation(Record):
    """One step judged: its RQ1 class from the logged failing tests, its RQ2 transition from the benchmark."""

    dataset: str
    model: str
    task_id: str
    benchmark: BenchmarkName
    step: int
    """Index k of the step's first attempt (step k: attempt k -> attempt k+1); 0 is the first step."""
    feedback_format: FeedbackFormat
    step_class: StepClass
    reason: str = ""
    """Why a step is not reproduced or not evaluable (empty otherwise)."""
    tests: list[LoggedTestVerdict] = Field(default_factory=list)
    benchmark_before: bool | None = None
    benchmark_after: bool | None = None
    transition: Transition | None = None
    tiers_before: TierVerdicts | None = None
    tiers_after: TierVerdicts | None = None
    logged_tests_after: bool | None = None
    """The code after passes every reproduced failing test of the feedback (the generated-test diagnostic)."""
    failure_after: str | None = None
    """The first benchmark test the code after failed, with its message (None when it passed or has no verdict)."""

    @property
    def key(self) -> str:
        """The step's checkpoint key."""
        return step_key(self.dataset, self.task_id, self.step)


class TrajectorySetInfo(Record):
    """What results.json says of one replayed trajectory set."""

    name: str
    benchmark: BenchmarkName
    model: str
    protocol: str
    source: str
    license: str
    tasks: int
    steps: int
    origin: Literal["published", "hand-written"] = "published"
    """As :attr:`TrajectorySet.origin` (runs written before the field: published)."""


class TrajectoriesResults(Record):
    """The trajectory arm of a run (``trajectories``): the sets, every step judged, the steps left out."""

    sets: list[TrajectorySetInfo] = Field(default_factory=list)
    steps: list[TrajectoryStepEvaluation] = Field(default_factory=list)
    unusable: list[UnusableStep] = Field(default_factory=list)
    screening: list[TrajectoryStepScreening] = Field(default_factory=list)
    """RQ3's reference-free screeners on each judged step's reproduced failing tests (``records.trajectory_screening``)."""
    outcomes: list[TrajectoryOutcome] = Field(default_factory=list)
    """Every trajectory's attempts on the benchmark (``records.trajectory_outcomes``): RQ2 per task."""
    doses: list[TaskDose] = Field(default_factory=list)
    """Each task of each fixed test list a set ran on, its tests on the reference (``records.list_doses``)."""
    test_lists: dict[str, str] = Field(default_factory=dict)
    """Set name -> the fixed test list its run refined against (sets that wrote their own tests: absent)."""
    note: str = "real refinement trajectories replayed from published logs; not simulated"
