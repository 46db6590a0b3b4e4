"""The learned screener's trajectory data: a run's screened steps become labelled examples, sourced by model, and the
artefact's provenance names the data sets by name and hash, never a local path."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tfr_helpers.arms.trajectories.examples import examples as examples_from_trajectories
from tfr_helpers.arms.trajectories.records.trajectory_screening import ScreenedFailingTest, TrajectoryStepScreening
from tfr_helpers.pipeline.engine.codec import encode_records
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.screener.dataset import data_provenance, examples_of_runs
from tfr_helpers.screener.features import FEATURES

LOG_DIR = Path(__file__).parents[1] / "replay" / "data" / "reflexion_log"


def _run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    config = {"run_name": "tiny", "models": {"coders": []}, "trajectories": [f"replay:{LOG_DIR}"]}
    (run / "config.json").write_text(json.dumps({"config": config}))
    tests = [
        ("HumanEval/45", "assert triangle_area(5, 3) == 7.5", False),
        ("HumanEval/45", "assert triangle_area(2, 2) == 3", True),
        ("HumanEval/53", "assert add(2, 3) == 6", True),
    ]
    store = RunStore(run)
    for task in ("HumanEval/45", "HumanEval/53"):
        screened = [
            ScreenedFailingTest(
                name=name,
                outcome=Outcome(name=name, status="failed", exc_type="AssertionError", expected="1", actual="2"),
                unreliable=unreliable,
                decisions={"accept_all": "accept"},
            )
            for t, name, unreliable in tests
            if t == task
        ]
        step = TrajectoryStepScreening(dataset="reflexion_log", model="M", task_id=task, step=0, tests=screened)
        store.append("trajectory_screening", f"reflexion_log|{task}|0", encode_records([step]))
    store.close()
    return run


def _passing(jobs: Sequence[tuple[str, Sequence[object]]]) -> list[ProgramRun]:
    isolation = Isolation(network="none", uid_drop=False)
    return [
        ProgramRun(outcomes=[Outcome(name=s.name, status="passed") for s in specs], isolation=isolation)  # type: ignore[attr-defined]
        for _, specs in jobs
    ]


def test_screened_steps_become_labelled_examples_of_their_set(tmp_path: Path, benchmark_data: Path) -> None:
    run = _run_dir(tmp_path)
    examples = examples_from_trajectories(run, _passing)
    assert [(e.task, e.label, e.source) for e in examples] == [
        ("HumanEval/45", 0, "trajectories:reflexion_log"),
        ("HumanEval/45", 1, "trajectories:reflexion_log"),
        ("HumanEval/53", 1, "trajectories:reflexion_log"),
    ]
    assert all(len(e.features) == len(FEATURES) for e in examples)
    assert examples_of_runs([run, run], _passing) == examples  # a run given twice counts once


def test_the_provenance_names_the_sets_by_name_and_hash(tmp_path: Path) -> None:
    provenance = data_provenance([_run_dir(tmp_path)])
    (name,) = provenance
    assert name.startswith("trajectories:") and all(len(h) <= 16 for h in provenance[name].values())
    assert str(tmp_path) not in json.dumps(provenance)
