"""The simulated judge's ground truth in a study is RQ1's own verdict on the reference: no test runs again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pipeline.conftest import results_json
from tfr_helpers.models.sim import provider as sim_provider
from tfr_helpers.pipeline import load_config, run_stages

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"


@pytest.mark.slow
def test_the_simulated_judge_is_granted_rq1_verdicts_and_runs_no_oracle(
    pipeline_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    oracle_runs: list[Any] = []
    monkeypatch.setattr(sim_provider, "reference_passes", lambda *a: oracle_runs.append(a) or True)
    config = load_config(SMOKE, {"benchmarks": ["humaneval", "mbpp"], "tasks": 6})
    run_stages(config, tmp_path / "run", progress=False)
    results = results_json(tmp_path / "run")
    judged = [d for d in results["screening"] if d["strategy"] in ("llm_judge", "llm_judge_reasoning")]
    assert judged and oracle_runs == []  # every judged feedback's test was one RQ1 ran on the reference


def test_a_granted_verdict_wins_and_an_unknown_test_falls_back_to_the_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from tfr_helpers.records import Task

    runs: list[str] = []
    monkeypatch.setattr(sim_provider, "reference_passes", lambda reference, test: runs.append(test) or True)
    sim = sim_provider.SimProvider()
    known = "def test_a():\n    assert f(1) == 3"
    sim.grant_verdicts(lambda reference, test: False if test.strip() == known else None)
    task = Task.model_construct(reference="def f(x):\n    return x + 1\n")
    feedback = "```python\n{}\n```\nThe test failed: assert 2 == 3"
    assert asyncio.run(sim._reliable(task, feedback.format(known))) is False and runs == []
    other = "def test_b():\n    assert f(1) == 2"
    assert asyncio.run(sim._reliable(task, feedback.format(other))) is True and [r.strip() for r in runs] == [other]
