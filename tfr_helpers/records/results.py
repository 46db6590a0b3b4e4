"""``results.json``: everything a run produced, consolidated (the top record module; no record module imports it)."""

from __future__ import annotations

from typing import Any, TypeVar, get_args, get_origin

from pydantic import (
    Field,
    SerializationInfo,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from tfr_helpers.records.arm_registry import ArmDeclaration, arm_of_field, arms
from tfr_helpers.records.core import (
    SCHEMA_VERSION,
    BenchmarkName,
    Record,
    Role,
)
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

PartT = TypeVar("PartT", bound=Record)


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
    time_limit: str = "time limit: fixed budget per test"
    """The per-test time-limit policy of generated and refined code (``sandbox.time_limit``), in words."""
    arm_parts: dict[str, SerializeAsAny[Record]] = Field(default_factory=dict)
    """Each arm package's part (``tfr_helpers.records.arm_registry``), by arm name, for the arms the run turned on.
    ``results.json`` holds each under the arm's own top-level key (``ArmDeclaration.field``: ``oracle_repair``), as
    a field of its own; read one with :meth:`part`."""

    @model_validator(mode="before")
    @classmethod
    def _arm_fields(cls, data: Any) -> Any:
        """Each arm's top-level key (``oracle_repair``) into :attr:`arm_parts`, validated as the arm's part type."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        parts = dict(data.pop("arm_parts", None) or {})
        for key in [key for key in data if key not in cls.model_fields]:
            arm = arm_of_field(key)
            if arm is None:
                continue
            value = data.pop(key)
            if value is not None:
                parts[arm.name] = value if isinstance(value, arm.part) else arm.part.model_validate(value)
        data["arm_parts"] = parts
        return data

    @model_serializer(mode="wrap")
    def _arm_fields_out(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        """:attr:`arm_parts` written back as one top-level key per arm (``null`` for a known arm the run left off)."""
        data = handler(self)
        if not isinstance(data, dict):
            return data
        parts = data.pop("arm_parts", {})
        for arm in arms():
            data[arm.field] = parts.pop(arm.name, None)
        data.update({name: part for name, part in parts.items()})  # an arm no longer registered keeps its part
        return data

    def part(self, arm: ArmDeclaration[PartT, Any]) -> PartT:
        """The part of ``arm`` in this run.

        Raises:
            ValueError: The run did not turn the arm on (the error names the key that does).
        """
        found = self.arm_parts.get(arm.name)
        if found is None:
            raise ValueError(f"this run has no {arm.name} arm; rerun with `{arm.switch or arm.field}`")
        if not isinstance(found, arm.part):
            raise TypeError(f"the {arm.name} part of this run is a {type(found).__name__}, not a {arm.part.__name__}")
        return found

    def has(self, arm: ArmDeclaration[Any, Any]) -> bool:
        """Whether the run holds ``arm``'s part (the configuration turned it on)."""
        return arm.name in self.arm_parts


def present_arms(results: Results) -> list[ArmDeclaration[Any, Any]]:
    """The arms whose part ``results`` holds, in the registry's order."""
    return [arm for arm in arms() if results.has(arm)]


COMPUTED_LISTS = ("model_sources", "skipped", "call_totals")
"""The lists of :class:`Results` computed from the configuration and the calls, not checkpointed by a stage."""

RESULTS_FIELDS: dict[type[Record], str] = {
    get_args(field.annotation)[0]: name
    for name, field in Results.model_fields.items()
    if get_origin(field.annotation) is list and name not in COMPUTED_LISTS and name != "tasks"
}
"""Every record type a stage checkpoints -> the :class:`Results` list it ends up in (read off :class:`Results`)."""
