"""The experiment configuration: one validated, frozen record read from a YAML params file.

Roles mapping: every model in ``models.coders`` is studied on its own. For a coder ``M`` the tests are
written by ``models.tester`` (or ``M`` itself when it is null), the refinements by ``models.refiner``
(or ``M``), and the LLM judges by ``models.judge`` (or ``M``). Records are keyed by the coder model, so a
fixed tester shared by two coders gives each coder its own (cached, identical) tests.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from tfr_helpers.benchmarks.registry import benchmark_names
from tfr_helpers.benchmarks.subsets.library_sample import SAMPLE, check_sampled
from tfr_helpers.errors import ConfigError
from tfr_helpers.launch import resolve
from tfr_helpers.models.provider_table import is_replayed, is_simulated
from tfr_helpers.models.settings import ModelSettings, SamplingSettings
from tfr_helpers.pipeline.config.arm_keys import ArmKeys
from tfr_helpers.pipeline.config.coders import as_entry, default_benchmarks
from tfr_helpers.pipeline.config.fingerprint import fingerprint
from tfr_helpers.pipeline.config.sections import (
    Concurrency,
    ModelRoles,
    RefinementSettings,
    ReplayImport,
    SandboxSettings,
    Strict,
)
from tfr_helpers.pipeline.screening.registry import resolve_strategy
from tfr_helpers.replay import register_import

Method = Callable[..., Any]


def reads(*keys: str) -> Callable[[Method], Method]:
    """Declare the top-level configuration keys a method of :class:`ExperimentConfig` reads: a stage that calls it
    through its view of the configuration must declare them too (``engine.settings_view``)."""

    def mark(method: Method) -> Method:
        method.__reads__ = keys  # type: ignore[attr-defined]
        return method

    return mark


BenchmarkChoice = str
"""A registered benchmark name (checked against ``tfr_helpers.benchmarks.registry``)."""
Selection = Literal["all", "sample"] | int | list[str]
"""``all`` tasks, the stratified ``sample`` (one task per library group,
:mod:`tfr_helpers.benchmarks.subsets.library_sample`), the first N tasks of each benchmark, or explicit task ids."""


def _all_benchmarks() -> list[BenchmarkChoice]:
    return list(benchmark_names(default_study=True))


def _check_each(check: Callable[[str], object], names: list[str]) -> None:
    """Run ``check`` on each name; its ConfigError becomes the ValueError pydantic reports against the key."""
    for name in names:
        try:
            check(name)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None


class ExperimentConfig(Strict, ArmKeys):
    """One experiment: benchmarks and tasks, models and roles, sample counts, screening, limits, seed; and the
    top-level keys of the arms declared at the top level (``ArmDeclaration.section == ""``)."""

    SECTION: ClassVar[str] = ""

    run_name: str = Field(default="default", pattern=r"^[A-Za-z0-9_.-]+$")
    """Name of the run; the default run directory is ``runs/<run_name>``."""
    benchmarks: list[BenchmarkChoice] = Field(default_factory=lambda: _all_benchmarks(), min_length=1)
    """Benchmarks of the study (BigCodeBench: the committed selection)."""
    tasks: Selection | dict[BenchmarkChoice, Selection] = "all"
    """``all``, ``sample`` (one task per library group: BigCodeBench), first N per benchmark, explicit ids, or a
    mapping benchmark -> one of those."""
    models: ModelRoles = Field(default_factory=ModelRoles)
    """Models and their roles (coders, tester, refiner, judge)."""
    ebts_per_task: int = Field(default=3, ge=0)
    """Example-based tests asked for per task."""
    pbts_per_task: int = Field(default=1, ge=0)
    """Property-based (Hypothesis) tests asked for per task."""
    code_samples_per_task: int = Field(default=1, ge=1)
    """Code samples per coder and task (sample ``i`` is the coder's ``i``-th answer; a coder entry may set its own)."""
    test_samples_per_task: int = Field(default=1, ge=1)
    """Tester calls (test samples) per coder, task and test kind; each holds up to ``ebts_per_task`` /
    ``pbts_per_task`` tests (a replayed sample holds its tests as published)."""
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    """Sampling of every call (replaces ``model_settings.sampling``; ``seed`` defaults to ``seed``)."""
    screening: list[str] = Field(default_factory=lambda: ["llm_judge", "llm_judge_reasoning"], validate_default=True)
    """Screening strategy names; ``accept_all`` is always added."""
    concurrency: Concurrency = Concurrency()
    """Parallelism: sandbox workers, model calls at once, checkpoint size."""
    sandbox: SandboxSettings = SandboxSettings()
    """Sandbox limits per program run."""
    model_settings: ModelSettings = Field(default_factory=ModelSettings)
    """Model layer options: concurrency per provider, retries, cache, prices, base URLs, sim options."""
    seed: int = 0
    """Seed of sampling (where supported), of the simulated model and of programs in the sandbox."""
    replay_datasets: dict[str, ReplayImport] = Field(default_factory=dict)
    """Import-format files named as datasets: ``{name: {code: path, tests: path, model, license}}``, then
    ``replay:<name>`` in ``models`` (paths relative to the working directory)."""
    plus_tiers: Literal["none", "mini", "full"] = "none"
    """Also judge HumanEval and MBPP code at the base and plus tiers of its EvalPlus twin (``mini``: HumanEval+
    Mini, HumanEval only; ``full``: HumanEval+ and MBPP+) and run every generated test on the twin's corrected
    reference: the study's sensitivity to test strength (docs/evalplus.md). EvalPlus benchmarks always carry
    both tiers."""
    refinement: RefinementSettings = Field(default_factory=RefinementSettings)
    """Multi-round backprompting and the oracle-repaired arm (defaults keep the seed study)."""
    seeds: list[int] | None = Field(default=None, min_length=1)
    """Run the study once per seed in one run directory (null: once, with ``seed``); analysis reports headline
    numbers as mean +- standard error over seeds."""
    budget_usd: float | None = Field(default=None, gt=0)
    """Spending cap of the run in USD (null: none); a call that could pass it is not sent (needs model prices)."""

    @field_validator("tasks")
    @classmethod
    def _positive(cls, value: Any) -> Any:
        for sel in value.values() if isinstance(value, dict) else [value]:
            if isinstance(sel, int) and sel <= 0:
                raise ValueError("a number of tasks must be positive")
        return value

    @field_validator("benchmarks")
    @classmethod
    def _known_benchmarks(cls, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in benchmark_names()]
        if unknown:
            raise ValueError(f"unknown benchmark {unknown[0]!r}; known: {', '.join(benchmark_names())}")
        return value

    @field_validator("screening")
    @classmethod
    def _known_strategies(cls, value: list[str]) -> list[str]:
        _check_each(resolve_strategy, value)
        return ["accept_all"] + [name for name in dict.fromkeys(value) if name != "accept_all"]

    @model_validator(mode="after")
    def _benchmark_keys(self) -> ExperimentConfig:
        if isinstance(self.tasks, dict):
            extra = [b for b in self.tasks if b not in self.benchmarks]
            if extra:
                raise ValueError(f"tasks names benchmark {extra[0]!r} which is not in benchmarks")
        return self

    @model_validator(mode="after")
    def _sampled_benchmarks(self) -> ExperimentConfig:
        for bench in self.benchmarks:
            if self.selection_for(bench) == SAMPLE:
                try:
                    check_sampled(bench)
                except ConfigError as exc:
                    raise ValueError(str(exc)) from None
        return self

    @model_validator(mode="after")
    def _register_replay_imports(self) -> ExperimentConfig:
        for name, entry in self.replay_datasets.items():
            meta = {k: v for k, v in (("model", entry.model), ("license", entry.license)) if v is not None}
            try:
                register_import(name, _path(entry.code), _path(entry.tests), meta)
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return self

    @model_validator(mode="after")
    def _coder_benchmarks(self) -> ExperimentConfig:
        for i, coder in enumerate(self.models.coders):
            extra = [b for b in as_entry(coder).benchmarks or [] if b not in self.benchmarks]
            if extra:
                raise ValueError(
                    f"models.coders.{i}.benchmarks names {extra[0]!r}, which is not in benchmarks; add it there "
                    "or drop it from the coder"
                )
        return self

    @property
    def artifact_only(self) -> ExperimentConfig:
        """The whole configuration, for a read that shapes only how a stage writes its artifacts (file layout,
        compaction), never a record: such a read is outside the stage's declared inputs, since no record goes
        stale when it changes (through a stage's view of the configuration this is the unchecked configuration)."""
        return self

    @reads("models", "benchmarks")
    def benchmarks_for(self, coder: str) -> list[str]:
        """The benchmarks ``coder`` is studied on: its own, else its registered dataset's (within the run's),
        else the run's."""
        own = self.models.entry(coder).benchmarks
        if own is None:
            served = default_benchmarks(coder)
            own = [b for b in served if b in self.benchmarks] if served is not None else None
        return list(own) if own is not None else list(self.benchmarks)

    @reads("models", "code_samples_per_task")
    def code_samples_for(self, coder: str) -> int:
        """Code samples per task of ``coder``."""
        return self.models.entry(coder).code_samples or self.code_samples_per_task

    @reads("models", "test_samples_per_task")
    def test_samples_for(self, coder: str) -> int:
        """Test samples per task and kind for ``coder``'s tests."""
        return self.models.entry(coder).test_samples or self.test_samples_per_task

    @model_validator(mode="after")
    def _budget_needs_prices(self) -> ExperimentConfig:
        if self.budget_usd is not None:
            paid = [s for s in self.models.all_specs() if not is_simulated(s) and not is_replayed(s)]
            unpriced = [s for s in paid if s not in self.model_settings.prices]
            if unpriced:
                raise ValueError(
                    f"budget_usd needs the price of {unpriced[0]!r} in model_settings.prices "
                    "(input_per_mtok, output_per_mtok): without it its calls could not be counted against the cap"
                )
        return self

    @reads("tasks")
    def selection_for(self, benchmark: str) -> Selection:
        """The task selection that applies to one benchmark."""
        if isinstance(self.tasks, dict):
            return self.tasks.get(benchmark, "all")  # type: ignore[call-overload]
        return self.tasks

    @reads("model_settings", "sampling", "seed")
    def resolved_model_settings(self) -> ModelSettings:
        """``model_settings`` with the top-level sampling (and the run seed when sampling has none)."""
        sampling = self.sampling
        if sampling.seed is None:
            sampling = sampling.model_copy(update={"seed": self.seed})
        return self.model_settings.model_copy(update={"sampling": sampling})

    def fingerprint(self) -> dict[str, str]:
        """Every input that changes this run's outputs, by named part (see :mod:`.fingerprint`).

        The result-relevant configuration values (run name, concurrency and transport settings left out),
        the prompt templates' versions and content hashes, the simulated model's version when a role uses
        it, the BigCodeBench selection file's hash when BigCodeBench is in the run, and registered inputs.
        """

        return fingerprint(self)

    def config_hash(self) -> str:
        """Hash of everything that determines the results: the hash of :meth:`fingerprint`."""
        return hashlib.sha256(json.dumps(self.fingerprint(), sort_keys=True).encode()).hexdigest()[:16]


def _path(value: str | None) -> Path | None:
    return resolve(value) if value is not None else None  # relative: from the launching directory


def format_validation_error(exc: ValidationError, source: str = "params") -> str:
    """One readable line per problem, each naming the offending key."""
    problems = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("function-", "literal[")))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling against papermill_params/default.yaml)"
        problems.append(f"{key or '<top level>'}: {msg}")
    problems = list(dict.fromkeys(problems))
    return f"invalid configuration in {source}: " + "; ".join(problems)


def config_from_dict(data: dict[str, Any], source: str = "params") -> ExperimentConfig:
    """Validate a mapping into an :class:`ExperimentConfig`.

    Raises:
        ConfigError: naming every bad or unknown key.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must be a YAML mapping of keys to values, got {type(data).__name__}")
    try:
        return ExperimentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, source)) from None


def _set_dotted(data: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {key!r}: {part!r} is not a mapping")
    node[parts[-1]] = value


def load_config(path: Path | str, overrides: dict[str, Any] | None = None) -> ExperimentConfig:
    """Read a params YAML file, apply overrides (dotted keys allowed) and validate.

    Args:
        path: A YAML file such as ``papermill_params/smoke.yaml``.
        overrides: Keys to replace, e.g. ``{"tasks": 2, "sandbox.timeout_s": 5}``.

    Returns:
        The validated configuration.

    Raises:
        ConfigError: the file is missing or not YAML, or a key is unknown or has a bad value.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"params file {path} does not exist; pass one of papermill_params/*.yaml")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"params file {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"params file {path} must be a mapping of keys to values")
    data = json.loads(json.dumps(data, default=str))
    for key, value in (overrides or {}).items():
        _set_dotted(data, key, value)
    return config_from_dict(data, source=str(path))
