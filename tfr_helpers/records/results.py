"""``results.json``: everything a run produced, consolidated (the top record module; no record module imports it)."""

from __future__ import annotations

from typing import get_args, get_origin

from pydantic import Field

from tfr_helpers.records.controls import ControlsResults
from tfr_helpers.records.core import (
    SCHEMA_VERSION,
    BenchmarkName,
    Record,
    Role,
)
from tfr_helpers.records.oracle import (
    OracleRepairResults,
)
from tfr_helpers.records.rounds import RoundsResults
from tfr_helpers.records.study import (
    BenchmarkVerdict,
    GeneratedCode,
    GeneratedTest,
    ModelSource,
    PairEvaluation,
    RefinedEvaluation,
    Refinement,
    ScreeningDecision,
    SkippedWork,
    TestGenerationFailure,
)
from tfr_helpers.records.trajectories import TrajectoriesResults


class CallTotals(Record):
    """Model calls and tokens spent, per model, role and stage."""

    model: str
    role: Role
    stage: str
    calls: int
    cached: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


class Results(Record):
    """Everything a run produced, consolidated (``runs/<run>/results.json``)."""

    version: int = SCHEMA_VERSION
    run_name: str
    simulated: bool
    """True when any model of the run is the simulated model: results are a demo, not evidence."""
    config: dict[str, object]
    """The resolved experiment configuration (no secrets)."""
    tasks: list[str]
    """Task ids used, in order."""
    task_benchmarks: dict[str, BenchmarkName]
    """Task id -> benchmark."""
    generated_codes: list[GeneratedCode]
    generated_tests: list[GeneratedTest]
    test_generation_failures: list[TestGenerationFailure] = Field(default_factory=list)
    benchmark_verdicts: list[BenchmarkVerdict]
    """Generated code on the benchmark tests (the "before" of every transition)."""
    pair_evaluations: list[PairEvaluation]
    screening: list[ScreeningDecision]
    refinements: list[Refinement]
    refined_evaluations: list[RefinedEvaluation]
    model_sources: list[ModelSource] = Field(default_factory=list)
    """Where each model's outputs come from (simulated, replayed with its dataset, or a live provider)."""
    skipped: list[SkippedWork] = Field(default_factory=list)
    """Tasks and stages not run for a coder, with the reason (a task missing from a dataset, no refiner...)."""
    call_totals: list[CallTotals] = Field(default_factory=list)
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    """Wall time per stage of the run that produced this file (timing field)."""
    oracle_repair: OracleRepairResults | None = None
    """The oracle-repaired arm (None unless ``refinement.oracle_repair``): uses the reference."""
    time_limit: str = "time limit: fixed budget per test"
    """The per-test time-limit policy of generated and refined code (``sandbox.time_limit``), in words."""
    rounds: RoundsResults | None = None
    """Multi-round backprompting (None unless ``refinement.rounds`` > 1): ``tfr_helpers.records.rounds``."""
    controls: ControlsResults | None = None
    """The control arm of RQ2 (None unless ``refinement.controls``): ``tfr_helpers.records.controls``."""
    trajectories: TrajectoriesResults | None = None
    """Real refinement trajectories replayed (None unless ``trajectories``): ``tfr_helpers.records.trajectories``."""


COMPUTED_LISTS = ("model_sources", "skipped", "call_totals")
"""The lists of :class:`Results` computed from the configuration and the calls, not checkpointed by a stage."""

RESULTS_FIELDS: dict[type[Record], str] = {
    get_args(field.annotation)[0]: name
    for name, field in Results.model_fields.items()
    if get_origin(field.annotation) is list and name not in COMPUTED_LISTS and name != "tasks"
}
"""Every record type a stage checkpoints -> the :class:`Results` list it ends up in (read off :class:`Results`)."""
