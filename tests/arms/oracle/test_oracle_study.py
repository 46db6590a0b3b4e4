"""A small offline study with the oracle-repaired arm: end to end through ``tfr stage all`` and the analysis, and a
SIGKILL inside the arm's sandboxed stage, whose rerun equals the uninterrupted run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.analysis.writing import test_export
from tests.pipeline.conftest import results_json
from tests.pipeline.test_resume import finished_run, kill_then_rerun, shrunk
from tfr_helpers.analysis import analyze, load_results
from tfr_helpers.arms.oracle import ARM
from tfr_helpers.arms.oracle.report import TABLE, oracle_comparison, repair_report
from tfr_helpers.views.progress import results_so_far

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "oracle_smoke.yaml"

pytestmark = pytest.mark.slow


def params() -> dict[str, object]:
    """oracle_smoke.yaml, smaller, one item per checkpoint flush (a kill lands between items), no response cache."""
    return shrunk(SMOKE, "oracle_resume", {"humaneval": 6, "mbpp": 6})


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, Path]:
    """An uninterrupted run (its params file and run directory)."""
    return finished_run(params(), tmp_path_factory.mktemp("oracle_baseline"), shared_benchmarks)


def test_study_runs_both_arms_and_writes_the_comparison(baseline: tuple[Path, Path], tmp_path: Path) -> None:
    _, run = baseline
    results = load_results(run)
    arm = results.part(ARM)
    assert arm is not None
    assert arm.refinement_status == {"sim:weak": "run", "replay:reflexion-gpt4-humaneval": "not run: no refiner"}
    fed = {r.feedback_id for r in arm.repaired_tests if r.feedback is not None and r.model == "sim:weak"}
    assert fed and {e.feedback_id for e in arm.refined_evaluations} == fed  # every repaired feedback refined, once
    assert not any(r.model.startswith("replay:") for r in arm.refinements)  # no refiner: never simulated
    report = repair_report(results)
    assert (report["repaired_k"] + report["not_repaired"] == report["unreliable_ebt_feedback"]).all()
    comparison = oracle_comparison(results)
    both = comparison[(comparison["model"] == "sim:weak") & (comparison["scope"] == "code fails repaired test")]
    assert list(both["arm"]) == ["original", "oracle-repaired"] and set(both["attempts"]) == {len(fed)}

    out = analyze(run)
    tex = " ".join(line.removeprefix("% ") for line in out.tables[TABLE].read_text().splitlines())  # comments unwrapped
    assert "uses the reference solution" in tex and "not a screening strategy" in tex
    test_export.test_tex_compiles_with_pdflatex((run, out), tmp_path)
    summary = json.loads(out.summary.read_text())["oracle_repair"]
    assert summary["uses_reference"] is True and "net_change_pp" in summary["definitions"]
    known = test_export._numbers(summary[TABLE]["rows"])
    # every table of the file (the replayed coder's rows and the simulated model's stand in tables of their own)
    shown = {round(float(x), 1) for row in test_export._data_rows(tex) for x in re.findall(r"-?\d+\.\d+", row)}
    assert shown and shown <= known


@pytest.mark.parametrize("checkpoint", ["oracle_repaired_tests"])
def test_sigkill_in_the_oracle_stage_then_rerun_equals_uninterrupted(
    baseline: tuple[Path, Path], tmp_path: Path, checkpoint: str
) -> None:
    params_path, expected_run = baseline
    run_dir = tmp_path / "run"

    def provisional(run: Path) -> None:  # a run in progress with the arm's records still has its provisional view
        assert results_so_far(run).refinements

    kill_then_rerun(params_path, run_dir, checkpoint, after_kill=provisional)
    assert results_json(run_dir) == results_json(expected_run)
