"""The estimate asks the declarations: a screener's whether it calls a model, an arm's which stages run per feedback."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tfr_helpers.models.jobs import CallJob, task_variables
from tfr_helpers.pipeline import STRATEGIES, Screener, ScreeningItem, Verdict
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.estimate.dry_run import estimate
from tfr_helpers.pipeline.estimate.report import StudyEstimate


def ask_judge(items: Sequence[ScreeningItem], ctx: Any) -> list[Verdict]:
    """A toy screener's decide function: one judge call per item."""
    jobs = [
        CallJob(i.judge, "judge", "judge", {**task_variables(i.task), "code": i.code, "feedback": i.feedback.text}, i.task)
        for i in items
    ]
    return [Verdict("accept", call=result) for result in ctx.call_models(jobs, stage="screen_feedback")]


def _estimate(shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch, **params: Any) -> StudyEstimate:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    base = {"benchmarks": ["humaneval"], "tasks": 2, "models": {"coders": ["sim:default"]}}
    return estimate(config_from_dict(base | params))


def _judge_calls(result: StudyEstimate) -> float:
    return result.calls_by("screen_feedback", "judge")[1]


@pytest.mark.parametrize("calls", ["judge", None])
def test_the_estimate_counts_the_calls_of_a_screener_that_declares_it_calls_a_model(
    calls: str | None, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(STRATEGIES, "toy_judge", Screener("toy_judge", ask_judge, calls=calls))  # type: ignore[arg-type]
    toy = _estimate(shared_benchmarks, monkeypatch, screening=["toy_judge"])
    one_judge = _estimate(shared_benchmarks, monkeypatch, screening=["llm_judge"])
    assert _judge_calls(one_judge) > 0
    # declared: counted as many calls as the built-in judge; undeclared: not asked, nothing counted
    assert _judge_calls(toy) == (_judge_calls(one_judge) if calls else 0)


def test_an_arm_s_feedback_stages_are_those_its_declaration_names_for_the_configuration(
    shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _estimate(shared_benchmarks, monkeypatch, screening=[], refinement={"controls": ["retry"]})
    planned = {line.stage for line in result.lines}
    assert "control_retry" in planned and not {"control_resample", "control_placebo"} & planned
    assert result.modes["control_retry"] == "projected"
    assert result.calls_by("control_retry") == result.calls_by("refine_codes")  # once per refined feedback, each
