"""Repeated seeds: one full run per seed in <run>/seeds/<k>/, each the single-seed run of that seed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tfr_helpers.errors import ConfigError, RunDirError
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.seed_dirs import is_multi_seed, live_run, seed_dir
from tfr_helpers.pipeline.seeds import check_seeds, seed_config

from .conftest import results_json

PARAMS: dict[str, Any] = {
    "run_name": "seeds",
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 2, "mbpp": 2},
    "models": {"coders": ["sim:default"]},
    "ebts_per_task": 2,
    "pbts_per_task": 1,
    "screening": ["reject_test_code_errors"],
    "sandbox": {"hypothesis_max_examples": 5},
    "seeds": [0, 1],
}


def _without_name(data: Any) -> Any:
    """Results without the run name (``<run>_seed<k>`` for a seed's run), which is not part of the fingerprint."""
    data = {k: v for k, v in data.items() if k != "run_name"}
    data["config"] = {k: v for k, v in data["config"].items() if k != "run_name"}
    return data


def test_seed_config_is_the_single_seed_run_of_that_seed() -> None:
    multi = config_from_dict(PARAMS)
    single = config_from_dict({**PARAMS, "seeds": None, "seed": 1})
    one = seed_config(multi, 1)
    assert (one.seed, one.seeds, one.run_name) == (1, None, "seeds_seed1")
    assert one.fingerprint() == single.fingerprint()
    assert one.resolved_model_settings().sampling.seed == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seeds": [0, 0]}, "seed 0 twice"),
        ({"seeds": [-1]}, "non-negative"),
        ({"sampling": {"seed": 4}}, "drop sampling.seed"),
    ],
)
def test_bad_seeds_are_one_clear_error(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_seeds(config_from_dict({**PARAMS, **change}))


@pytest.mark.slow
def test_multi_seed_study_runs_each_seed_as_its_single_seed_run(pipeline_env: Path, tmp_path: Path) -> None:
    multi = config_from_dict(PARAMS)
    summary = run_stages(multi, tmp_path / "multi", progress=False)
    assert summary.run_dir == tmp_path / "multi" and is_multi_seed(tmp_path / "multi")
    assert [p.name for p in sorted((tmp_path / "multi" / "seeds").iterdir())] == ["0", "1"]
    single = run_stages(config_from_dict({**PARAMS, "seeds": None, "seed": 1}), tmp_path / "single", progress=False)
    assert _without_name(results_json(seed_dir(tmp_path / "multi", 1))) == _without_name(results_json(single.run_dir))
    seed0 = results_json(seed_dir(tmp_path / "multi", 0))
    codes = [[c["code"] for c in results_json(seed_dir(tmp_path / "multi", s))["generated_codes"]] for s in (0, 1)]
    assert codes[0] != codes[1], "the seeds drew the same simulated code"
    assert seed0["config"]["seed"] == 0
    again = run_stages(multi, tmp_path / "multi", progress=False)  # finished: reloaded, nothing recomputed
    assert (again.model_calls, again.sandbox_runs) == (0, 0)


def test_more_seeds_keep_the_finished_ones_and_a_changed_study_is_refused(
    pipeline_env: Path, tmp_path: Path, write_params: Any
) -> None:
    run = tmp_path / "multi"
    run_stages(config_from_dict(PARAMS), run, "generate_codes", progress=False)
    more = run_stages(load_config(write_params({**PARAMS, "seeds": [0, 1, 2]})), run, "generate_codes", progress=False)
    assert more.model_calls == 4  # seed 2's 4 tasks only
    changed = load_config(write_params({**PARAMS, "seeds": [0, 1, 2], "tasks": 3}, "changed.yaml"))
    with pytest.raises(RunDirError, match=r"tasks.*generate_codes \(seed 0\)"):
        run_stages(changed, run, "generate_codes", progress=False)
    assert json.loads((run / "config.json").read_text())["config"]["tasks"] == {"humaneval": 2, "mbpp": 2}


def test_live_progress_follows_the_seed_working_now(tmp_path: Path) -> None:
    assert live_run(tmp_path) == (tmp_path, "")
    for seed, mtime in ((0, 1_000), (1, 2_000)):
        path = seed_dir(tmp_path, seed) / "progress.json"
        path.parent.mkdir(parents=True)
        path.write_text("{}")
        os.utime(path, (mtime, mtime))
    assert live_run(tmp_path) == (seed_dir(tmp_path, 1), "[seed 1] ")
