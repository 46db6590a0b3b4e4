"""The replayed trajectories arm's labelled screening examples for the learned screener: each reproduced failing
test of a screened step, as the same :class:`~tfr_helpers.pipeline.screening.registry.ScreeningItem` the stage
``screen_trajectory_steps`` screens, labelled by RQ1 (source ``trajectories:<set>``, one per trajectory set, so two
runs of one model are two sources); and the sets' file hashes, for the screener's data provenance."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tfr_helpers.arms.trajectories.records.trajectory_screening import TrajectoryStepScreening
from tfr_helpers.arms.trajectories.stages.screen_trajectory_steps import SCREENING_CHECKPOINT
from tfr_helpers.arms.trajectories.stages.screening_items import current_screening, screening_item
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import TaskView
from tfr_helpers.replay.trajectories.feedback import failing
from tfr_helpers.replay.trajectories.sets import load_trajectories, set_name, trajectory_hashes
from tfr_helpers.screener.dataset import Example, checkpoint_records, examples_from_items
from tfr_helpers.screener.features import Execute


def examples(run_dir: Path, execute: Execute) -> list[Example]:
    """The labelled failing tests of a run directory's screened trajectory steps (checkpoint
    ``trajectory_screening``; the code and the tests come from the sets the run names, their outcomes from the
    checkpoint). Empty when the run screened no step."""
    store = RunStore(run_dir)
    config = store.read_json("config.json")["config"]
    records = checkpoint_records(store, SCREENING_CHECKPOINT, TrajectoryStepScreening)
    screened = current_screening(records, config.get("screening") or [])
    if not screened:
        return []
    entries = config.get("trajectories") or []
    found = {(t.task_id, s.name): t for s in map(load_trajectories, entries) for t in s.trajectories}
    views: dict[str, TaskView] = {}
    items, labels, sets = [], [], []
    for step in screened:
        trajectory = found[(step.task_id, step.dataset)]
        logged = {t.name: (i, t) for i, t in enumerate(failing(trajectory.attempts[step.step].tests))}
        for test in step.tests:
            index, source = logged[test.name]
            items.append(screening_item(trajectory, step.model, step.step, index, source, test.outcome, views))
            labels.append(int(test.unreliable))
            sets.append(step.dataset)
    made = examples_from_items(items, labels, {}, execute)
    return [
        replace(e, source=f"trajectories:{name}", feedback_id=f"{name}|{e.feedback_id}")
        for e, name in zip(made, sets, strict=True)
    ]


def data_hashes(config: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Each trajectory set a run's configuration (``config.json``'s) names, by source name, with the sha256
    prefixes of its files (never a local path)."""
    return {f"trajectories:{set_name(entry)}": trajectory_hashes(entry) for entry in config.get("trajectories") or []}
