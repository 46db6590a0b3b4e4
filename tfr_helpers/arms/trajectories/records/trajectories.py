"""Records of real refinement trajectories: logged attempts and feedback, and tfr's judgement of every step.

A trajectory is one task's ordered attempts from a published self-repair log (Reflexion's ``programming_runs``, or
the package's own import format, docs/replay.md). A *step* is (attempt k, the feedback shown after it, attempt
k+1). The study judges each step twice: RQ1 (the feedback's failing tests run by tfr's sandbox on attempt k and on
the reference) and RQ2 (the benchmark verdicts of attempt k and attempt k+1: the transition).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.arms.trajectories.records.list_doses import TaskDose
from tfr_helpers.arms.trajectories.records.trajectory_outcomes import TrajectoryOutcome
from tfr_helpers.arms.trajectories.records.trajectory_screening import TrajectoryStepScreening
from tfr_helpers.records.core import BenchmarkName, Cause, Record, Status, Transition
from tfr_helpers.records.study import TierVerdicts
from tfr_helpers.replay.trajectories.logged import FeedbackFormat, UnusableStep

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
