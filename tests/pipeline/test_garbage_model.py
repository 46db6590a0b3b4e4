"""A model that answers garbage: the run completes and records and counts every failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers.models import ModelRequest, ModelSpec, Provider, ProviderReply, SamplingParams, provider_table
from tfr_helpers.models.base import TaskLookup
from tfr_helpers.pipeline import load_results, run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict


class GarbageProvider(Provider):
    """No code for one task, unparseable PBTs, always-failing EBTs, no refined code, undecidable judging."""

    simulated = True
    needs_reference = True  # it answers with the reference, so it must be granted the full tasks
    tasks: TaskLookup

    def grant_tasks(self, lookup: TaskLookup) -> None:
        self.tasks = lookup

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        task = request.task
        assert task is not None
        if request.template == "codegen":
            if task.task_id == "HumanEval/0":
                return ProviderReply(text="I would rather not write code today.")
            return ProviderReply(text=f"```python\n{self.tasks(task.task_id).reference}\n```")
        if request.template == "ebt":
            return ProviderReply(text="```python\ndef test_nonsense():\n    assert 1 == 2\n```")
        if request.template == "pbt":
            return ProviderReply(text="Here are some properties, in prose: it should work.")
        if request.template == "refine":
            return ProviderReply(text="Sorry, no code.")
        return ProviderReply(text="Hard to say; it might be either.")


@pytest.mark.slow
def test_garbage_answers_are_recorded_and_counted(
    pipeline_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        provider_table._REGISTRY, "sim", provider_table.ProviderEntry("sim", lambda _: GarbageProvider(), True)
    )
    config = config_from_dict(
        {
            "run_name": "garbage",
            "benchmarks": ["humaneval"],
            "tasks": 3,
            "models": {"coders": ["sim:garbage"]},
            "ebts_per_task": 1,
            "pbts_per_task": 1,
            "screening": ["llm_judge", "llm_judge_reasoning"],
            "model_settings": {"cache_mode": "off"},
        }
    )
    summary = run_stages(config, tmp_path / "run", progress=False)
    results = load_results(tmp_path / "run")

    no_code = [c for c in results.generated_codes if c.code is None]
    assert [c.task_id for c in no_code] == ["HumanEval/0"] and no_code[0].parse_error
    assert [v.passed for v in results.benchmark_verdicts] == [False, True, True]
    assert {(f.task_id, f.kind) for f in results.test_generation_failures} == {
        (t, "pbt") for t in ("HumanEval/0", "HumanEval/1", "HumanEval/2")
    }
    # the EBT fails on both the code and the reference: unreliable feedback, wrong expected value
    assert [(p.task_id, p.case, p.cause) for p in results.pair_evaluations] == [
        ("HumanEval/1", "fail_fail", "wrong_expected_value"),
        ("HumanEval/2", "fail_fail", "wrong_expected_value"),
    ]
    judged = [d.decision for d in results.screening if d.strategy != "accept_all"]
    assert judged == ["undecided"] * 4
    assert [e.transition for e in results.refined_evaluations] == ["no_code", "no_code"]
    assert summary.errors == {
        "call_errors": 0,
        "codes_without_code": 1,
        "test_generation_failures": 3,
        "refinements_without_code": 2,
        "undecided_screening": 4,
    }
