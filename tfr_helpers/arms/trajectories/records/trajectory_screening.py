"""Records of RQ3's reference-free screeners run on the real trajectory steps (stage ``screen_trajectory_steps``).

Each judged step (class ``reliable``, ``unreliable`` or ``mixed``) has reproduced failing tests: test-fail feedback
the model really received, with tfr's reference verdict as its label. A strategy decides each failing test on its
own (the same :class:`~tfr_helpers.pipeline.screening.registry.ScreeningItem` as the base study's feedback); the
refiner saw all of a step's failing tests together, so a step is **screened out** when the strategy rejects every
one of its reproduced failing tests (nothing is left to show: the refinement would not have been made and the code
before is kept). A step with some tests rejected and some kept is **partly screened**: it is still refined, on
less feedback, and its logged transition (made with all of it) is not a counterfactual anyone measured.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from tfr_helpers.records.core import Decision, Record, TestOutcome
from tfr_helpers.records.screening_legacy import legacy_test_fields


class ScreenedFailingTest(Record):
    """One reproduced failing test of a step: what the code before did on it, its label and each strategy's decision."""

    name: str
    outcome: TestOutcome
    """tfr's outcome of the test on the code before (what the feedback showed, as the sandbox ran it)."""
    unreliable: bool
    """The reference fails the test too (RQ1's label; never shown to a strategy)."""
    decisions: dict[str, Decision] = Field(default_factory=dict)
    """Strategy -> its decision on this test."""
    scores: dict[str, float] = Field(default_factory=dict)
    """Strategy -> its score (higher: more likely unreliable), where it gave one."""
    abstained: dict[str, bool] = Field(default_factory=dict)
    """Strategy -> whether it found no evidence and decided by default."""
    reasons: dict[str, str] = Field(default_factory=dict)
    """Strategy -> its reasoning, where it gave one (for people; never parsed)."""

    @model_validator(mode="before")
    @classmethod
    def _earlier_runs(cls, data: object) -> object:
        """A test of an earlier run, stored without ``scores`` and ``abstained``, gets them from its reasons."""
        return legacy_test_fields(data)


class TrajectoryStepScreening(Record):
    """The screeners' decisions on one judged step's reproduced failing tests."""

    dataset: str
    model: str
    task_id: str
    step: int
    tests: list[ScreenedFailingTest] = Field(default_factory=list)
    strategies: list[str] = Field(default_factory=list)
    """The strategies that decided the step: the run's list when it was screened (part of its checkpoint key, so
    that another ``screening`` list screens the steps again instead of reusing these decisions)."""

    @property
    def key(self) -> str:
        """Checkpoint key: the step's and the strategies'."""
        return f"{self.dataset}|{self.task_id}|{self.step}|{'+'.join(self.strategies)}"

    def screened_out(self, strategy: str) -> bool:
        """The strategy rejects every reproduced failing test of the step (the refinement would not be made)."""
        return bool(self.tests) and all(t.decisions.get(strategy) == "reject" for t in self.tests)

    def partly_screened(self, strategy: str) -> bool:
        """The strategy rejects some, not all, of the step's reproduced failing tests."""
        rejected = [t.decisions.get(strategy) == "reject" for t in self.tests]
        return any(rejected) and not all(rejected)
