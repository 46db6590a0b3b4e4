"""Records of the oracle-repaired arm: each unreliable EBT repaired from the reference, and its refinement."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.core import (
    BenchmarkName,
    Cause,
    Record,
    TestOutcome,
)
from tfr_helpers.records.study import (
    Feedback,
    RefinedEvaluation,
    Refinement,
)

RepairStatus = Literal["repaired", "not_repaired"]
"""Oracle repair of one unreliable EBT : its expected value replaced by the reference's output, or not."""


class RepairedTest(Record):
    """One unreliable EBT feedback instance and its oracle repair (the reference's output as expected value).

    Uses the reference: the oracle-repaired arm is an upper bound, never a screening strategy
    (docs/oracle_repair.md, :mod:`tfr_helpers.arms.oracle.stages.oracle_repair_tests`).
    """

    feedback_id: str
    """The original feedback (pair id) this repair stands beside."""
    test_id: str
    code_index: int = 0
    model: str
    """The coder."""
    task_id: str
    benchmark: BenchmarkName
    cause: Cause
    """Cause of the original feedback's unreliability."""
    status: RepairStatus
    reason: str | None = None
    """Why the test was not repaired (``invalid input: ...``, ``not an equality assert``, ...); None if repaired."""
    source: str | None = None
    """The repaired test's source (only when repaired)."""
    reference: TestOutcome | None = None
    """The reference's outcome on the repaired test (the verification; ``passed`` when repaired)."""
    generated: TestOutcome | None = None
    """The generated code's outcome on the repaired test (only when repaired)."""
    feedback: Feedback | None = None
    """Repaired feedback, built like the original; None when not repaired or the code passes the repaired test."""


class OracleRefinement(Refinement):
    """A refinement of the oracle-repaired arm: the same refiner on the repaired feedback (same fields)."""


class OracleRefinedEvaluation(RefinedEvaluation):
    """An oracle-repaired refinement on the benchmark tests and on the repaired test (same fields)."""


class OracleRepairResults(Record):
    """The oracle-repaired arm of a run (``refinement.oracle_repair``): repairs, refinements, evaluations."""

    repaired_tests: list[RepairedTest] = Field(default_factory=list)
    refinements: list[OracleRefinement] = Field(default_factory=list)
    refined_evaluations: list[OracleRefinedEvaluation] = Field(default_factory=list)
    refinement_status: dict[str, str] = Field(default_factory=dict)
    """Coder -> ``run`` or why its repaired feedback was not refined (``not run: no refiner``): the coders of
    ``Results.skipped``'s ``refine_codes`` entries, one source (``pipeline.config.scope.not_refined``)."""
