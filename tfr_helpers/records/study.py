"""Records of the base study: generated code and tests, their pair evaluations, screening and refinement."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from tfr_helpers.records.core import (
    BenchmarkName,
    Case,
    Cause,
    Decision,
    FailureMode,
    Isolation,
    ModelCallRecord,
    ProgramRun,
    Record,
    Reliability,
    Source,
    TestKind,
    TestOutcome,
    Transition,
    pair_id,
)
from tfr_helpers.records.screening_legacy import legacy_fields


class GeneratedCode(Record):
    """The coder model's solution for one task, and its verdict on the benchmark tests."""

    model: str
    task_id: str
    sample_index: int = 0
    """Which code sample of the task this is (``code_samples_per_task`` > 1), 0-based."""
    code: str | None
    """Extracted program; None when the response held no usable code."""
    parse_error: str | None = None
    call: ModelCallRecord
    code_path: str | None = None
    """Run-relative path of the extracted code."""


class GeneratedTest(Record):
    """One independently runnable generated test (a response may hold several)."""

    test_id: str
    """Unique id: ``<model>|<task_id>|<kind>|<index>``."""
    model: str
    task_id: str
    kind: TestKind
    index: int
    """Position of this test among the task's tests of this kind (numbered on across test samples)."""
    sample_index: int = 0
    """Which test sample (tester call) of the task and kind held this test, 0-based."""
    name: str
    """Test function name."""
    source: str
    """Self-contained test source (imports + one test function)."""
    call: ModelCallRecord
    """The call whose response held this test (shared by the tests of one response)."""
    test_path: str | None = None
    dropped_tests: list[str] = Field(default_factory=list)
    """Tests of the same response that were not kept, as ``name: reason`` (beyond the requested count, or
    code that does not compile); shared by the tests of one response, like :attr:`call`."""


class TestGenerationFailure(Record):
    """A test-generation response from which no test could be parsed (kept and counted)."""

    model: str
    task_id: str
    kind: TestKind
    parse_error: str
    call: ModelCallRecord
    sample_index: int = 0
    """Which test sample (tester call) of the task and kind this was."""
    dropped_tests: list[str] = Field(default_factory=list)
    """Tests the response held that could not be kept, as ``name: reason``."""


class LeftOutInput(Record):
    """A plus input of an EvalPlus task that its corrected reference gave no expected output for, so it is left out
    of the task's plus tier (docs/evalplus.md)."""

    task_id: str
    """The EvalPlus task (``Mbpp/255``)."""
    index: int
    """The input's index among the task's plus inputs (EvalPlus's ``plus_input``)."""
    reason: str
    """What the reference did instead (``error: MemoryError()``)."""


class TierVerdicts(Record):
    """A program's verdicts at EvalPlus's two tiers of benchmark tests (docs/evalplus.md)."""

    benchmark: BenchmarkName
    """Whose tests: the task's own EvalPlus benchmark, or the EvalPlus twin of a HumanEval or MBPP task."""
    base: bool
    """Every base input passed (the original tests' inputs, judged against the corrected reference)."""
    plus: bool
    """Every base and plus input passed (EvalPlus's "base + extra")."""
    left_out: list[LeftOutInput] = Field(default_factory=list)
    """Plus inputs not judged: the corrected reference gave no expected output for them."""


class BenchmarkVerdict(Record):
    """A program's verdict on the task's benchmark tests."""

    model: str
    task_id: str
    subject: Literal["generated", "refined"]
    code_index: int = 0
    """Which code sample was run (generated code)."""
    feedback_id: str | None = None
    """For refined code: which feedback produced it."""
    passed: bool
    run: ProgramRun
    run_path: str | None = None
    tiers: TierVerdicts | None = None
    """The verdicts at EvalPlus's base and plus tiers (an EvalPlus benchmark, or ``plus_tiers`` set)."""


class Feedback(Record):
    """Test-fail feedback: what the refiner (and the judges) see about one failed generated test."""

    feedback_id: str
    """Same as the test id it comes from (one feedback per failed generated test)."""
    test_id: str
    text: str
    """Built from the generated code's outcome record only: test source + failure."""


class PairEvaluation(Record):
    """RQ1: one generated test run against one generated code sample and against the reference.

    Identical programs and identical tests are executed once; every pair they stand for still has its record.
    """

    test_id: str
    code_index: int = 0
    """Which code sample of the task the test ran against."""
    model: str
    task_id: str
    benchmark: BenchmarkName
    kind: TestKind
    generated: TestOutcome
    """Outcome on the generated code."""
    reference: TestOutcome
    """Outcome on the reference solution (first run)."""
    reference_rerun: TestOutcome | None = None
    """Second run on the reference, made when the first one did not pass."""
    generated_first: TestOutcome | None = None
    """The code's first outcome when it was a timeout or crash: the test then ran again alone with 3x the time
    budget and :attr:`generated` is that run's outcome (load never decides a label)."""
    reference_first: TestOutcome | None = None
    """The same for the reference (:attr:`reference` is then the outcome of the run alone with 3x the budget)."""
    reference_harder: TestOutcome | None = None
    """A PBT the reference passed, run on it again with 10x the examples and another seed; when that run found a
    falsifying example, :attr:`reference` is its outcome (the code's verdict keeps the study's settings)."""
    failure_mode: FailureMode | None = None
    """How the generated code failed the test (set for test-fail feedback)."""
    case: Case
    reliability: Reliability | None = None
    """Set for test-fail feedback (generated code failed)."""
    cause: Cause | None = None
    """Set for unreliable feedback."""
    feedback: Feedback | None = None
    """Set when the generated code failed the test."""
    isolation: Isolation
    record_path: str | None = None
    reference_corrected: TestOutcome | None = None
    """The test's outcome on the EvalPlus twin's corrected reference (``plus_tiers`` set): RQ1 with the
    corrected oracle."""

    @property
    def pair_id(self) -> str:
        """Id of this pair (and of its feedback): see :func:`pair_id`."""
        return pair_id(self.test_id, self.code_index)


class ModelSource(Record):
    """Where one model's outputs in a run come from, as every output states it."""

    model: str
    """The ``provider:model`` spec as configured (``replay:codet-codegen16b-humaneval``)."""
    source: Source
    label: str
    """``simulated``, ``replayed (published)``, ``replayed (imported)`` or ``live provider``."""
    dataset: str | None = None
    """The replay dataset's name."""
    producer: str | None = None
    """The model that produced replayed generations (``CodeGen-Mono-16B``, ``GPT-4``)."""
    license: str | None = None
    note: str
    """One sentence for captions and headings, e.g. "real generations by GPT-4, published by ..."."""


class SkippedWork(Record):
    """Work the run did not do for a model, and why (never filled in by another model)."""

    model: str
    """The coder."""
    task_id: str | None = None
    """The task, or None when the whole stage is skipped for the coder."""
    stage: str
    reason: str
    """e.g. ``not run: no refiner``, ``task not in replay dataset ...``."""


class ScreeningDecision(Record):
    """RQ3: one strategy's decision on one test-fail feedback."""

    feedback_id: str
    strategy: str
    """``accept_all``, ``llm_judge``, ``llm_judge_reasoning``, ..."""
    decision: Decision
    score: float | None = Field(default=None, allow_inf_nan=False)
    """How likely the strategy rates the feedback unreliable (higher: more likely; any scale, not necessarily a
    probability), None when it states none (a rule, a judge). AUROC ranks the feedback by it."""
    abstained: bool = False
    """The strategy found no evidence and decided by default (a consensus screener with fewer than two programs
    accepts as ``accept_all`` would)."""
    reasoning: str | None = None
    """For people: why, in words (never parsed)."""
    call: ModelCallRecord | None = None
    """None for strategies that call no model (``accept_all``)."""
    decision_path: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _earlier_runs(cls, data: object) -> object:
        """A decision of an earlier run, stored without ``score`` and ``abstained``, gets them from its reasoning."""
        return legacy_fields(data)


class Refinement(Record):
    """RQ2: one independent refinement attempt for one test-fail feedback."""

    feedback_id: str
    model: str
    task_id: str
    code: str | None
    """Refined program; None when the response held no usable code."""
    parse_error: str | None = None
    call: ModelCallRecord
    code_path: str | None = None

    @property
    def attempt_key(self) -> str:
        """Checkpoint key of this attempt (and of its evaluation): the feedback instance it refines."""
        return self.feedback_id


class RefinedEvaluation(Record):
    """RQ2: the refined program on the benchmark tests and on the same generated test."""

    feedback_id: str
    model: str
    task_id: str
    benchmark_before: bool
    """Benchmark verdict of the generated code."""
    benchmark_after: bool | None
    """Benchmark verdict of the refined code (None when there was no usable code)."""
    generated_test_after: TestOutcome | None
    """The refined code's outcome on the generated test behind the feedback."""
    transition: Transition
    benchmark_run_path: str | None = None
    tiers_after: TierVerdicts | None = None
    """The refined code's verdicts at EvalPlus's base and plus tiers (an EvalPlus benchmark, or ``plus_tiers``
    set); the "before" is the generated code's :attr:`BenchmarkVerdict.tiers`."""
