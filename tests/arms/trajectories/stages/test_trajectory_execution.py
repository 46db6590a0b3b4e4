"""How the trajectory arm runs its programs: BigCodeBench steps in the heavy workers, and the reference's second runs
of the logged tests as one batch, each distinct (reference, tests) once (no sandbox here)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tfr_helpers.arms.trajectories.stages.evaluate_trajectory_steps import _reference_reruns
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import LIGHT_PRELOAD, RunContext
from tfr_helpers.records import Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.replay.trajectories.sets import clear_trajectory_cache
from tfr_helpers.sandbox import TestSpec

SMOKE = Path(__file__).resolve().parents[4] / "papermill_params" / "smoke.yaml"
LOG = Path(__file__).parents[3] / "replay" / "data" / "reflexion_log"


def _context(tmp_path: Path, trajectories: list[str]) -> RunContext:
    light = {"benchmarks": ["humaneval"], "tasks": {"humaneval": 1}, "trajectories": trajectories}
    return RunContext(config=load_config(SMOKE, light), store=None, tasks={})  # type: ignore[arg-type]


def test_a_set_with_bigcodebench_tasks_runs_in_the_heavy_workers(
    tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    clear_trajectory_cache()
    assert _context(tmp_path, []).preload() == LIGHT_PRELOAD  # HumanEval only: the light workers
    mixed = tmp_path / "mixed"
    shutil.copytree(LOG, mixed)  # the hand-built log holds BigCodeBench/17 beside its HumanEval tasks
    assert _context(tmp_path, [f"replay:{mixed}"]).preload() is None  # the sandbox default: pandas and kin preloaded
    humaneval = tmp_path / "humaneval"
    humaneval.mkdir()
    (log,) = mixed.glob("*.jsonl")
    kept = [line for line in log.read_text(encoding="utf-8").splitlines() if "BigCodeBench" not in line]
    (humaneval / log.name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    assert _context(tmp_path, [f"replay:{humaneval}"]).preload() == LIGHT_PRELOAD


ISOLATION = Isolation(network="none", uid_drop=False)


def _run(status: str) -> ProgramRun:
    return ProgramRun(outcomes=[Outcome(name="t", status=status)], isolation=ISOLATION)  # type: ignore[arg-type]


class _Recorder:
    """Stands in for the run context: records each batch and answers every job with a passing run."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[Any], dict[str, Any]]] = []

    def run_programs(self, jobs: list[Any], **kw: Any) -> list[ProgramRun]:
        self.calls.append((list(jobs), kw))
        return [_run("passed") for _ in jobs]


def test_the_references_second_runs_go_out_once_per_distinct_job_in_one_batch() -> None:
    suite = [TestSpec(name="module_0", source="import unittest\n", kind="unittest")]
    other = [TestSpec(name="logged_1", source="assert f() == 2", kind="snippet")]
    firsts = {
        0: (("def f(): return 1", suite), _run("failed")),  # a fixed suite the reference fails, step after step
        3: (("def f(): return 1", suite), _run("failed")),
        6: (("def f(): return 1", other), _run("passed")),  # passed the first time: no second run
        9: (("def f(): return 1", other), _run("error")),
    }
    ctx = _Recorder()
    again = _reference_reruns(ctx, firsts)  # type: ignore[arg-type]
    ((jobs, kw),) = ctx.calls
    assert jobs == [("def f(): return 1", suite), ("def f(): return 1", other)]
    assert kw["rerun"] is True and kw["generated"] is True  # another seed, the generated tests' budget
    assert again[0] is again[3] and again[6] is None and again[9] is not None and again[9] is not again[0]
