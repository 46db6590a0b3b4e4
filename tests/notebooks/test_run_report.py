"""The end of ``tfr run``'s terminal output: models by their display names, replayed trajectory steps counted and
every step left out of RQ2's judged classes counted per set."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.records import bare_results
from tfr_helpers.arms.trajectories.records.trajectories import (
    TrajectoriesResults,
    TrajectorySetInfo,
    TrajectoryStepEvaluation,
)
from tfr_helpers.notebooks.run_report import count_lines
from tfr_helpers.records.study import ModelSource, SkippedWork
from tfr_helpers.replay.trajectories.logged import UnusableStep

SET = "reflexion-gpt4o-bcb"


def _step(task: str, cls: str) -> TrajectoryStepEvaluation:
    return TrajectoryStepEvaluation(
        dataset=SET, model="GPT-4o", task_id=task, benchmark="bigcodebench", step=0, feedback_format="unittest",
        step_class=cls,  # type: ignore[arg-type]
    )  # fmt: skip


def test_counts_name_models_for_readers_and_count_every_trajectory_step_left_out(tmp_path: Path) -> None:
    codet = "replay:codet-codegen16b-humaneval"
    source = ModelSource(
        model=codet, source="replayed", label="replayed (published)", dataset="codet-codegen16b-humaneval", note="n"
    )
    info = TrajectorySetInfo(
        name=SET, benchmark="bigcodebench", model="GPT-4o", protocol="p", source="s", license="l", tasks=3, steps=4
    )
    steps = [_step("BigCodeBench/1", "reliable"), _step("BigCodeBench/2", "not_reproduced")]
    steps += [_step("BigCodeBench/3", "not_evaluable"), _step("BigCodeBench/4", "not_evaluable")]
    part = TrajectoriesResults(
        sets=[info], steps=steps, unusable=[UnusableStep(dataset=SET, task="BigCodeBench/5", step=1, reason="r")]
    )
    skipped = [SkippedWork(model=codet, stage="refine_codes", reason="not run: no refiner")]
    lines = count_lines(bare_results(model_sources=[source], skipped=skipped, trajectories=part), tmp_path)
    assert "4 replayed trajectory steps (1 set)" in lines[4]
    assert "  CodeGen-Mono-16B (CodeT) refine_codes: not run: no refiner (1 item)" in lines
    assert f"  GPT-4o · {SET} trajectory steps: 1 unusable in the log, 1 not reproduced, 2 not evaluable" in lines
