"""The synthetic run helper covers every case, cause, transition and decision, and its paths resolve."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from tests.helpers.checkpoints import results_text
from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.pipeline.engine.artifact_log import read_artifact
from tfr_helpers.records import Case, Cause, Results, Transition


@pytest.mark.parametrize("seed", [0, 1])
def test_synthetic_run_covers_every_category(tmp_path: Path, seed: int) -> None:
    run = make_synthetic_run(tmp_path, seed=seed)
    res = Results.model_validate_json(results_text(run))
    assert {p.case for p in res.pair_evaluations} == set(get_args(Case))
    assert {p.cause for p in res.pair_evaluations if p.cause} == set(get_args(Cause))
    assert {r.transition for r in res.refined_evaluations} == set(get_args(Transition))
    judged = {(s.strategy, s.decision) for s in res.screening if s.strategy != "accept_all"}
    assert {d for _, d in judged} == {"accept", "reject", "undecided"}
    assert len({c.model for c in res.generated_codes}) == 2
    assert set(res.task_benchmarks.values()) == {"humaneval", "mbpp"}


def test_synthetic_run_paths_resolve(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path, n_tasks=4)
    res = Results.model_validate_json(results_text(run))
    paths = [p.record_path for p in res.pair_evaluations] + [s.decision_path for s in res.screening]
    paths += [r.call.response_path for r in res.refinements] + [c.code_path for c in res.generated_codes]
    assert all(p and read_artifact(run, p) is not None for p in paths)
    feedback = [p for p in res.pair_evaluations if p.feedback]
    assert len(res.refinements) == len(res.refined_evaluations) == len(feedback)
