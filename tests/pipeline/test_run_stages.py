"""End to end with the simulated model: acceptance counts, resume without work, determinism, garbage model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.smoke import SmokeStudy
from tfr_helpers.errors import ConfigError, RunDirError
from tfr_helpers.pipeline import load_config, load_results, run_stages
from tfr_helpers.pipeline.engine.artifact_log import read_artifact

from .conftest import results_json

PARAMS = Path(__file__).resolve().parents[2] / "papermill_params"


@pytest.mark.slow
def test_smoke_run_has_every_outcome_and_a_rerun_does_no_work(
    pipeline_env: Path, tmp_path: Path, smoke_study: SmokeStudy
) -> None:
    config, first = load_config(PARAMS / "smoke.yaml"), smoke_study.summary
    shutil.copytree(smoke_study.run_dir, tmp_path / "run")  # the shared study, copied: the rerun below resumes it
    results = load_results(tmp_path / "run")
    assert results.simulated
    assert {p.case for p in results.pair_evaluations} == {"pass_pass", "pass_fail", "fail_pass", "fail_fail"}
    assert len({p.cause for p in results.pair_evaluations if p.cause}) >= 2
    assert {"pass->pass", "pass->fail", "fail->pass", "fail->fail"} <= {r.transition for r in results.refined_evaluations}
    assert {d.decision for d in results.screening if d.strategy != "accept_all"} >= {"accept", "reject"}
    # one refinement and one evaluation per feedback; every strategy decided every feedback
    feedback = {p.feedback.feedback_id for p in results.pair_evaluations if p.feedback}
    assert [r.feedback_id for r in results.refinements] == [e.feedback_id for e in results.refined_evaluations]
    assert set(r.feedback_id for r in results.refinements) == feedback and len(results.refinements) == len(feedback)
    assert len(results.screening) == len(feedback) * len(config.screening)
    # artifacts the records point to exist: lines of the stages' artifact logs, not files of their own
    for rel in [results.generated_codes[0].code_path, results.pair_evaluations[0].record_path]:
        assert rel and read_artifact(tmp_path / "run", rel) and not (tmp_path / "run" / rel).exists()
    assert first.model_calls > 0 and first.sandbox_runs > 0

    before = results_json(tmp_path / "run")
    assert before == smoke_study.results
    again = run_stages(config, tmp_path / "run", progress=False)
    assert (again.model_calls, again.sandbox_runs) == (0, 0)
    assert results_json(tmp_path / "run") == before


def test_other_config_in_the_same_run_dir_is_refused(pipeline_env: Path, tmp_path: Path) -> None:
    config = load_config(PARAMS / "smoke.yaml", {"tasks": 1, "benchmarks": ["humaneval"]})
    run_stages(config, tmp_path / "run", stages="generate_codes", progress=False)
    with pytest.raises(RunDirError, match="new --run-dir or change run_name"):
        run_stages(config.model_copy(update={"seed": 5}), tmp_path / "run", stages="generate_codes", progress=False)


def test_a_stage_whose_inputs_are_missing_says_what_to_run(pipeline_env: Path, tmp_path: Path) -> None:
    config = load_config(PARAMS / "smoke.yaml", {"tasks": 1, "benchmarks": ["humaneval"]})
    with pytest.raises(RunDirError, match="tfr stage generate_codes"):
        run_stages(config, tmp_path / "run", stages="refine_codes", progress=False)


def test_unknown_stage_and_unknown_task_id_are_config_errors(pipeline_env: Path, tmp_path: Path) -> None:
    config = load_config(PARAMS / "smoke.yaml", {"tasks": 1, "benchmarks": ["humaneval"]})
    with pytest.raises(ConfigError, match="unknown stage 'refine'"):
        run_stages(config, tmp_path / "run", stages="refine", progress=False)
    bad = load_config(PARAMS / "smoke.yaml", {"tasks": ["HumanEval/99999"], "benchmarks": ["humaneval"]})
    with pytest.raises(ConfigError, match="unknown task id 'HumanEval/99999'"):
        run_stages(bad, tmp_path / "run2", progress=False)
