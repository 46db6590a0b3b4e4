"""Bytes the case browser embeds per replayed trajectory step (docs/reports.md's size budget).

    uv run python benchmarks/perf/trajectory_case_size.py [RUN_DIR]

With a run directory: its trajectory steps as the page embeds them. Without: every usable step of every shipped set
(from $TFR_REPLAY_DIR), each as an unjudged step record (no failing-test verdicts, no transition: those sections are
a few hundred bytes), so that the code, the diff and the feedback, the bulk of a step, are measured on all the real
logs without running the study. Prints steps, bytes of the encoded rows and bytes per step, per set and in all.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.arms.trajectories.records.trajectories import TrajectoriesResults, TrajectoryStepEvaluation
from tfr_helpers.arms.trajectories.report.trajectory_cases import logged_sets
from tfr_helpers.arms.trajectories.view import step_row, with_trajectories
from tfr_helpers.records import Results
from tfr_helpers.replay.trajectories.sets import TRAJECTORY_SETS, load_trajectories
from tfr_helpers.views.offline_browser import encode
from tfr_helpers.views.progress import results_so_far


def _shipped() -> Results:
    steps = []
    for name in TRAJECTORY_SETS:
        found = load_trajectories(name)
        for t in found.trajectories:
            steps += [
                TrajectoryStepEvaluation(
                    dataset=found.name,
                    model=found.model,
                    task_id=t.task_id,
                    benchmark=t.benchmark,
                    step=k,
                    feedback_format=t.attempts[k].feedback_format,
                    step_class="not_reproduced",
                    reason="unjudged: size measurement only",
                )
                for k in t.usable_steps
            ]
    return Results.model_construct(
        run_name="shipped sets",
        config={"trajectories": list(TRAJECTORY_SETS)},
        trajectories=TrajectoriesResults(steps=steps),
    )


def main() -> None:
    start = time.perf_counter()
    results = with_trajectories(results_so_far(sys.argv[1]), Path(sys.argv[1])) if len(sys.argv) > 1 else _shipped()
    assert results.has(TRAJECTORIES), "the run replays no trajectory"
    part = results.part(TRAJECTORIES)
    logs = logged_sets(results)
    rows = [step_row(s, logs) for s in part.steps]
    for dataset in dict.fromkeys(s.dataset for s in part.steps):
        mine = [r for r in rows if r.facets["set"] == dataset]
        size = len(encode(mine).encode())
        print(f"{dataset}: {len(mine)} steps, {size:,} bytes, {size / len(mine):,.0f} bytes per step")
    size = len(encode(rows).encode())
    print(f"all: {len(rows)} steps, {size:,} bytes, {size / max(len(rows), 1):,.0f} bytes per step")
    print(f"built in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
