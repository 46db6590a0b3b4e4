"""The configuration's sections: models and their roles, imported datasets, the sandbox and its time-limit policy,
refinement beyond one attempt, and concurrency; each a validated, frozen record of its own, gathered by
:class:`~tfr_helpers.pipeline.config.experiment.ExperimentConfig`."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tfr_helpers.pipeline.config.arm_keys import ArmKeys
from tfr_helpers.pipeline.config.coders import Coder, CoderEntry, as_entry, check_spec, coder_item


class Strict(BaseModel):
    """A record of the configuration: unknown keys are errors, and it never changes once validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelRoles(Strict):
    """Which models play which role (null = the coder itself); a coder may set its own (see :mod:`.coders`)."""

    coders: list[Coder] = Field(default_factory=lambda: list[Coder](["sim:default"]), min_length=1)
    """``provider:model`` specs or :class:`~tfr_helpers.pipeline.config.coders.CoderEntry` mappings; each coder is
    studied on its own."""
    tester: str | None = None
    """Writes the EBTs and PBTs for every coder (null: the coder writes its own tests)."""
    refiner: str | None = None
    """Refines every coder's code (null: the coder refines its own code)."""
    judge: str | None = None
    """Answers the LLM screening strategies (null: the coder judges)."""

    @field_validator("tester", "refiner", "judge")
    @classmethod
    def _spec_form(cls, value: Any) -> Any:
        return check_spec(value)

    @field_validator("coders", mode="before")
    @classmethod
    def _coder_form(cls, value: Any) -> Any:
        return [coder_item(i, item) for i, item in enumerate(value)] if isinstance(value, list) else value

    @field_validator("coders")
    @classmethod
    def _distinct(cls, value: list[Coder]) -> list[Coder]:
        names = [as_entry(c).model for c in value]
        twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
        if twice:
            raise ValueError(f"coder {twice[0]!r} is listed twice; list each coder once")
        return value

    @property
    def coder_names(self) -> list[str]:
        """The coders' ``provider:model`` specs, in order (records are keyed by these)."""
        return [as_entry(c).model for c in self.coders]

    def entry(self, coder: str) -> CoderEntry:
        """The settings of one coder (its mapping form)."""
        return next(as_entry(c) for c in self.coders if as_entry(c).model == coder)

    def tester_for(self, coder: str) -> str:
        """The model that writes ``coder``'s tests."""
        return self.entry(coder).tester or self.tester or coder

    def refiner_for(self, coder: str) -> str:
        """The model that refines ``coder``'s code."""
        return self.entry(coder).refiner or self.refiner or coder

    def judge_for(self, coder: str) -> str:
        """The model that judges feedback on ``coder``'s code."""
        return self.entry(coder).judge or self.judge or coder

    def all_specs(self) -> list[str]:
        """Every distinct model spec the run uses, in first-use order."""
        specs: list[str] = []
        for coder in self.coder_names:
            for spec in (coder, self.tester_for(coder), self.refiner_for(coder), self.judge_for(coder)):
                if spec not in specs:
                    specs.append(spec)
        return specs


class ReplayImport(Strict):
    """Your own generations in the import format, named for ``replay:<name>`` (see docs/replay.md)."""

    code: str | None = None
    """A code JSONL (human-eval / evalplus samples: ``task_id`` and ``completion`` or ``solution``)."""
    tests: str | None = None
    """A tests JSONL (``task_id``, ``test``, optional ``kind``)."""
    model: str | None = None
    """The model that produced the generations (every output names it)."""
    license: str | None = None
    """Their license."""


class TimeLimitPolicy(Strict):
    """How long a generated or refined program may take on one test (see docs/evalplus.md, "Time limits").

    ``fixed``: every test gets the study's budget (``timeout_s``, ``generated_test_timeout_s``). ``evalplus``:
    EvalPlus's rule, ``max(min_limit, factor x the reference's own time on the same test)`` (wall time less
    its waits for a CPU, at least its CPU time), at most the budget,
    for generated and refined code on the benchmark tests and for generated code on the generated tests; the
    reference keeps the full budget, and a test it did not pass (on a generated test: did not finish, a pass or a
    failure in its own time) gives the code the full budget too. On a generated
    test the budget (``generated_test_timeout_s``) is the cap of the code's limit and the reference's own limit,
    and ``margin`` sets aside a verdict whose own time lies near its limit (docs/labels.md, "Time limits").
    """

    policy: Literal["fixed", "evalplus"] = "fixed"
    min_limit: float = Field(default=1.0, gt=0)
    """Shortest limit, seconds (EvalPlus's ``DEFAULT_MIN_TIME_LIMIT``)."""
    factor: float = Field(default=4.0, gt=0)
    """Times the reference's time (EvalPlus's ``DEFAULT_GT_TIME_LIMIT_FACTOR``)."""
    margin: float = Field(default=0.0, ge=0, lt=1)
    """Under ``evalplus``, on a generated test: a program (code or reference) that finished with its own time
    within ``margin`` of its limit ``L`` (between ``L x (1 - margin)`` and ``L x (1 + margin)``, the sandbox's kill)
    leaves an ``indeterminate`` label: a faster or slower machine could decide it the other way. 0: no band."""

    def describe(self) -> str:
        """One phrase naming the policy (results.json and the tables' captions)."""
        if self.policy == "fixed":
            return "time limit: fixed budget per test"
        band = f"; within {self.margin:.0%} of it on a generated test: indeterminate" if self.margin else ""
        return f"time limit: max({self.min_limit:g} s, {self.factor:g} x the reference's own time) per test{band}"


class SandboxSettings(Strict):
    """Sandbox limits (see ``tfr_helpers.sandbox.Limits``)."""

    timeout_s: float = Field(default=10.0, gt=0)
    """Wall-clock budget of one benchmark test."""
    generated_test_timeout_s: float = Field(default=10.0, gt=0)
    """Wall-clock budget of one generated test (generous: a timeout on a loaded machine must not become feedback)."""
    memory_mb: int = Field(default=2048, gt=0)
    nproc: int = Field(default=64, gt=0)
    fsize_mb: int = Field(default=16, gt=0)
    nofile: int = Field(default=256, gt=0)
    output_cap: int = Field(default=4096, gt=0)
    hypothesis_max_examples: int = Field(default=50, gt=0)
    hypothesis_derandomize: bool = True
    time_limit: TimeLimitPolicy = TimeLimitPolicy()
    """The per-test time limit of generated and refined code: ``fixed`` budgets or EvalPlus's rule."""


class RefinementSettings(ArmKeys):
    """Refinement beyond one attempt per feedback: the keys of the arms declared in this section, each owned and
    validated by its arm's settings model (``refinement.oracle_repair``: ``tfr_helpers.arms.oracle.settings``)."""

    SECTION: ClassVar[str] = "refinement"


class Concurrency(Strict):
    """Parallelism of the run."""

    sandbox_workers: int | None = Field(default=None, gt=0)
    """Sandbox worker processes (null: one per core)."""
    model_calls: int = Field(default=8, gt=0)
    """Model calls handed to the model layer at once (its per-provider limits still apply)."""
    checkpoint_every: int | None = Field(default=None, gt=0)
    """Work items per checkpoint flush (null: 4 x model_calls, or 64 x workers for sandbox stages)."""
    executor: Literal["local", "ray"] = "local"
    """Where sandbox batches run: ``local`` (this machine's worker pool) or ``ray`` (one actor per node of a Ray
    cluster, which owns that node's pool; needs ``uv sync --extra ray``). Not part of the run fingerprint."""
    ray_address: str | None = None
    """The Ray cluster for ``executor: ray`` (``auto``, ``host:6379``, ``ray://host:10001``); null: a local Ray
    started on demand."""
