"""``benchmarks/readme_headlines.py`` on the replay smoke study: the README's headline rows with their populations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfr_helpers import analysis
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.pipeline import load_config, run_stages

ROOT = Path(__file__).resolve().parents[2]
PARAMS = ROOT / "papermill_params" / "replay_smoke.yaml"
pytestmark = pytest.mark.slow  # one replay study run (real generations, executed in the sandbox)


@pytest.fixture(scope="module")
def replay_run(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> Path:
    """``replay_smoke.yaml`` (CodeT and Reflexion, real) on its first 3 tasks, with its summary.json."""
    run = tmp_path_factory.mktemp("readme") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_CACHE_DIR", str(run.parent / "cache"))
        run_stages(load_config(PARAMS, {"tasks": {"humaneval": 3}}), run, progress=False)
    (run / "analysis").mkdir()  # the summary only: what `tfr analyze` writes there, without tables and figures
    summary = build_summary(analysis.load_results(run))
    (run / "analysis" / "summary.json").write_text(json.dumps(summary, default=str))
    return run


def test_the_script_prints_every_replayed_model_with_its_population(replay_run: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "readme_headlines.py"), "--run-dir", str(replay_run)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    summary = json.loads((replay_run / "analysis" / "summary.json").read_text())
    rows = {r["model"]: r for r in summary["populations"]["tasks"]["rows"]}
    assert out[0].startswith("| model (replayed) |") and len(out) >= 4
    for model, producer in (
        ("replay:codet-codegen16b-humaneval", "CodeGen-Mono-16B"),
        ("replay:reflexion-gpt4-humaneval", "GPT-4"),
    ):
        line = next(x for x in out if x.startswith(f"| {producer}, all solutions |"))
        whole = next(
            r for r in summary["populations"]["rq1_by_solution"]["rows"] if r["model"] == model and r["solution"] == "all"
        )
        assert f"{whole['k']:,} of {whole['n']:,} feedback instances" in line and f"from {whole['clusters']} tasks" in line
        assert f"{rows[model]['tasks_with_tests']} of the run's 3 tasks have any generated test" in line
    # the split by solution adds up, and the table has a row for each part present
    parts = [r for r in summary["populations"]["rq1_by_solution"]["rows"] if r["solution"] != "all"]
    for model in rows:
        mine = {r["solution"]: r for r in parts if r["model"] == model}
        whole = next(
            r for r in summary["populations"]["rq1_by_solution"]["rows"] if r["model"] == model and r["solution"] == "all"
        )
        assert mine["empty"]["n"] + mine["non_empty"]["n"] == whole["n"]
        assert mine["empty"]["k"] + mine["non_empty"]["k"] == whole["k"]


def test_a_run_without_analysis_is_refused(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "readme_headlines.py"), "--run-dir", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0 and "tfr analyze" in out.stderr
