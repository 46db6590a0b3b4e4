"""The stage registry: the runner follows it, so a new stage is one module that registers itself."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.checkpoints import log_lines
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import STAGES, run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import RECORD_TYPES
from tfr_helpers.pipeline.engine.stage import (
    _REGISTRY,
    Stage,
    UndeclaredInput,
    register_stage,
    registered_stages,
    stale_stages,
)
from tfr_helpers.pipeline.study import CHECKPOINTS

_MODULE = """
from dataclasses import dataclass

from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.stage import Stage, records_of, register_stage
from tfr_helpers.records import GeneratedCode, Record

CALLS = []


@register_record_type
class CodeSize(Record):
    model: str
    task_id: str
    lines: int


@dataclass(frozen=True)
class SizeJob:
    code: GeneratedCode

    @property
    def key(self) -> str:
        return f"{self.code.model}|{self.code.task_id}"


def measure_codes(items, ctx):
    CALLS.append(len(items))
    return [CodeSize(model=i.code.model, task_id=i.code.task_id, lines=len((i.code.code or "").splitlines())) for i in items]


register_stage(
    Stage(
        "measure_codes",
        measure_codes,
        lambda ctx, recs: [SizeJob(c) for c in records_of(recs, "generate_codes", GeneratedCode)],
        "code_sizes",
        lambda r: f"{r.model}|{r.task_id}",
        order=15,
    )
)
"""


_TYPED_MODULE = """
from dataclasses import dataclass

from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.stage import Inputs, Stage, register_stage
from tfr_helpers.records import GeneratedCode, Record

CALLS = []
READ_UNDECLARED = []


@register_record_type
class CodeLength(Record):
    model: str
    task_id: str
    chars: int


@dataclass(frozen=True)
class LengthJob:
    code: GeneratedCode

    @property
    def key(self) -> str:
        return f"{self.code.model}|{self.code.task_id}"

    @property
    def unit(self) -> tuple[str, str]:
        return self.code.model, self.code.task_id


def length_items(ctx, inputs):
    if READ_UNDECLARED:
        ctx.config.sandbox
    return [LengthJob(c) for c in inputs.of(GeneratedCode)]


def measure_lengths(items, ctx):
    CALLS.append(len(items))
    return [CodeLength(model=i.code.model, task_id=i.code.task_id, chars=len(i.code.code or "")) for i in items]


register_stage(
    Stage(
        "measure_lengths",
        measure_lengths,
        length_items,
        "code_lengths",
        lambda r: f"{r.model}|{r.task_id}",
        inputs=Inputs(records=(GeneratedCode,), settings=("benchmarks",)),
        produces=(CodeLength,),
        order=15,
    )
)
"""


def test_the_seven_stages_come_from_their_modules_in_order() -> None:
    assert STAGES == [s.name for s in registered_stages()][: len(STAGES)]
    assert STAGES[0] == "generate_codes" and STAGES[-1] == "finalize_results"
    study = ["generate_codes", "generate_tests", "evaluate_code_test_pairs", "screen_feedback", "refine_codes"]
    study += ["evaluate_refined_codes", "finalize_results"]  # the base study in order; the arms' stages in between
    assert [s for s in STAGES if s in study] == study
    assert CHECKPOINTS["evaluate_code_test_pairs"] == "test_execution_feedback" and "finalize_results" not in CHECKPOINTS


def test_clashing_stages_are_refused() -> None:
    with pytest.raises(ConfigError, match="clashes with stage 'generate_codes'"):
        register_stage(Stage("other", lambda items, ctx: [], lambda ctx, recs: [], "x", order=10))
    with pytest.raises(ConfigError, match="clashes with stage 'refine_codes'"):
        register_stage(Stage("other", lambda items, ctx: [], lambda ctx, recs: [], "refined_codes", order=55))
    assert "other" not in _REGISTRY


@pytest.fixture
def measure_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "tfr_test_stage.py").write_text(textwrap.dedent(_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    module = __import__("tfr_test_stage")
    yield module
    _REGISTRY.pop("measure_codes", None)
    RECORD_TYPES.pop("CodeSize", None)
    sys.modules.pop("tfr_test_stage", None)


@pytest.fixture
def typed_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "tfr_test_typed_stage.py").write_text(textwrap.dedent(_TYPED_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    module = __import__("tfr_test_typed_stage")
    yield module
    _REGISTRY.pop("measure_lengths", None)
    RECORD_TYPES.pop("CodeLength", None)
    sys.modules.pop("tfr_test_typed_stage", None)


@pytest.mark.slow
def test_a_stage_outside_the_package_declaring_its_inputs_gets_them_and_only_its_settings(
    typed_stage: object, pipeline_env: Path, tmp_path: Path
) -> None:
    config = config_from_dict(
        {"run_name": "lengths", "benchmarks": ["humaneval"], "tasks": {"humaneval": 2}, "screening": []}
    )
    run = tmp_path / "run"
    names = [s.name for s in registered_stages()]
    assert names.index("generate_codes") < names.index("measure_lengths") < names.index("generate_tests")
    run_stages(config, run, ["generate_codes", "measure_lengths"], progress=False)
    entries = [json.loads(line) for line in log_lines(run / "checkpoints" / "code_lengths.jsonl")]
    assert [e["key"] for e in entries] == ["sim:default|HumanEval/0", "sim:default|HumanEval/1"]
    assert all(e["data"][0]["type"] == "CodeLength" and e["data"][0]["record"]["chars"] > 0 for e in entries)
    assert typed_stage.CALLS == [2]  # type: ignore[attr-defined]
    # its records depend on what it declares: generate_codes' settings and its own, not the sandbox's
    stale = stale_stages(["sandbox.timeout_s", "code_samples_per_task", "benchmarks"], registered_stages())
    assert "measure_lengths" not in stale["sandbox.timeout_s"]
    assert "measure_lengths" in stale["code_samples_per_task"] and "measure_lengths" in stale["benchmarks"]
    typed_stage.READ_UNDECLARED.append(True)  # type: ignore[attr-defined]
    with pytest.raises(UndeclaredInput, match="'measure_lengths' read the configuration key 'sandbox'"):
        run_stages(config, run, "measure_lengths", progress=False)


@pytest.mark.slow
def test_a_stage_module_outside_the_package_runs_checkpoints_and_resumes(
    measure_stage: object, pipeline_env: Path, tmp_path: Path
) -> None:
    config = config_from_dict(
        {"run_name": "measure", "benchmarks": ["humaneval"], "tasks": {"humaneval": 2}, "screening": []}
    )
    run = tmp_path / "run"
    run_stages(config, run, ["generate_codes", "measure_codes"], progress=False)
    lines = log_lines(run / "checkpoints" / "code_sizes.jsonl")
    entries = [json.loads(line) for line in lines]
    assert [e["key"] for e in entries] == ["sim:default|HumanEval/0", "sim:default|HumanEval/1"]
    assert all(e["data"][0]["type"] == "CodeSize" and e["data"][0]["record"]["lines"] > 0 for e in entries)
    run_stages(config, run, "measure_codes", progress=False)  # resumed: nothing left to do
    assert measure_stage.CALLS == [2]  # type: ignore[attr-defined]
