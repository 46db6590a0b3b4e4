"""The main job's section study for notebook 03c: which params file, which run directory, when it is left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers.arms.oracle import ARM as ORACLE
from tfr_helpers.arms.rounds import ARM as ROUNDS
from tfr_helpers.errors import ConfigError
from tfr_helpers.notebooks.running import SECTION_NOTEBOOK, _extra_parameters
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.seed_dirs import SEEDS_DIR, shown_run
from tfr_helpers.pipeline.section import resolve_section, section_params_for

ROOT = Path(__file__).resolve().parents[2]
PARAMS = ROOT / "papermill_params"


def test_main_job_and_smoke_have_their_sections() -> None:
    assert section_params_for(PARAMS / "default.yaml") == PARAMS / "default_beyond.yaml"
    assert section_params_for(PARAMS / "smoke.yaml") == PARAMS / "smoke_beyond.yaml"
    assert section_params_for(PARAMS / "anthropic.yaml") is None
    assert section_params_for(PARAMS / "default_beyond.yaml") is None  # a section has no section


@pytest.mark.parametrize("name", ["default_beyond.yaml", "smoke_beyond.yaml"])
def test_section_studies_go_beyond_one_refinement(name: str) -> None:
    config = load_config(PARAMS / name)
    assert config.seeds == [0, 1, 2] and ROUNDS.settings(config).rounds == 3 and ORACLE.settings(config).oracle_repair
    assert all(spec.startswith("sim:") for spec in config.models.all_specs())  # offline


def test_section_runs_in_its_own_directory_under_the_main_run(tmp_path: Path) -> None:
    main = load_config(PARAMS / "default.yaml")
    section = resolve_section(main, tmp_path, "papermill_params/default_beyond.yaml")
    assert section.run_dir == tmp_path / "sections" / "default_beyond" and section.seeds == [0, 1, 2]


def test_a_run_beyond_one_refinement_is_its_own_section(tmp_path: Path) -> None:
    config = config_from_dict({"seeds": [3, 4], "tasks": 2})
    section = resolve_section(config, tmp_path, "papermill_params/default_beyond.yaml")
    assert (section.run_dir, section.origin, section.seeds) == (tmp_path, "this run", [3, 4])


def test_no_section_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="section_params"):
        resolve_section(config_from_dict({"tasks": 2}), tmp_path, "")


def test_tfr_run_passes_the_section_or_leaves_03c_out() -> None:
    section = _extra_parameters(PARAMS / "smoke.yaml")[SECTION_NOTEBOOK]
    assert section == {"section_params": str(PARAMS / "smoke_beyond.yaml")}
    assert _extra_parameters(PARAMS / "anthropic.yaml")[SECTION_NOTEBOOK] is None
    assert _extra_parameters(PARAMS / "smoke_beyond.yaml")[SECTION_NOTEBOOK] == {"section_params": ""}


def test_a_multi_seed_run_shows_its_first_seed(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"config": {"seeds": [2, 0]}}')
    for seed in (0, 2):
        (tmp_path / SEEDS_DIR / str(seed)).mkdir(parents=True)
    assert shown_run(tmp_path) == tmp_path / SEEDS_DIR / "2"
    (tmp_path / "results.json").write_text("{}")  # a single run with a seeds/ folder of its own: itself
    assert shown_run(tmp_path) == tmp_path
