"""Papermill-native parameters: the cells are generated from the config model and read back through it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from papermill.translators import PythonTranslator

from tfr_helpers.errors import ConfigError
from tfr_helpers.notebooks.parameters import (
    NOTEBOOKS_DIR,
    QUICK_STUDY,
    config_from_namespace,
    file_parameters,
    parameter_names,
    parameters_source,
    stale_notebooks,
    write_parameters_cells,
)
from tfr_helpers.pipeline.config.experiment import config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]
PARAMS = sorted((ROOT / "papermill_params").glob("*.yaml"))
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]*_*.ipynb"))


def _cell_namespace(notebook: str = "") -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(parameters_source(notebook), namespace)  # noqa: S102 - our own generated cell
    return namespace


def test_committed_parameters_cells_match_the_config_model() -> None:
    assert NOTEBOOKS and stale_notebooks() == []


def test_a_stale_cell_is_found_and_rewritten_without_touching_other_cells(tmp_path: Path) -> None:
    nb = nbformat.read(str(NOTEBOOKS[0]), as_version=4)
    nb.cells[1].source = 'params_file: str = "old"'
    nbformat.write(nb, str(tmp_path / NOTEBOOKS[0].name))
    assert stale_notebooks(tmp_path) == [NOTEBOOKS[0].name]
    assert write_parameters_cells(tmp_path) == [NOTEBOOKS[0].name]
    again = nbformat.read(str(tmp_path / NOTEBOOKS[0].name), as_version=4)
    assert stale_notebooks(tmp_path) == []
    assert [c.source for c in again.cells[2:]] == [c.source for c in nb.cells[2:]]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: p.name)
def test_papermill_knows_every_key_of_every_params_file(path: Path, params: Path) -> None:
    cell = next(c for c in nbformat.read(str(path), as_version=4).cells if "parameters" in c.metadata.get("tags", []))
    declared = {p.name: p for p in PythonTranslator.inspect(cell)}
    assert set(file_parameters(params)) <= set(declared)
    assert {"run_dir", *parameter_names()} <= set(declared)
    assert all(p.inferred_type_name != "None" and p.help for p in declared.values())  # typed and commented


def test_cell_defaults_are_the_model_defaults_but_a_quick_study() -> None:
    # what a params file holding only the quick-study keys gives (validated the same way as any file)
    assert config_from_namespace(_cell_namespace()) == config_from_dict(dict(QUICK_STUDY))


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: p.name)
def test_a_params_file_injected_over_the_cell_is_what_load_config_reads(params: Path) -> None:
    assert set(QUICK_STUDY) <= set(file_parameters(params)), "shipped files set every quick-study key"
    namespace = {**_cell_namespace(), **file_parameters(params)}
    assert config_from_namespace(namespace) == load_config(params)


def test_p_overrides_one_key_and_a_section_replaces_its_dict() -> None:
    smoke = file_parameters(ROOT / "papermill_params" / "smoke.yaml")
    config = config_from_namespace({**_cell_namespace(), **smoke, "tasks": 5, "sandbox": {"timeout_s": 3}})
    assert config.tasks == 5
    assert config.sandbox.timeout_s == 3 and config.sandbox.hypothesis_max_examples == 50  # model default


def test_a_bad_value_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"tasks: a number of tasks must be positive"):
        config_from_namespace({**_cell_namespace(), "tasks": -1})
    with pytest.raises(ConfigError, match=r"sandbox.timeout_s"):
        config_from_namespace({**_cell_namespace(), "sandbox": {"timeout_s": "slow"}})


def test_an_unknown_injected_parameter_is_an_error_naming_it() -> None:
    injected = '# Parameters\nrun_name = "x"\ntask = 5\n'
    with pytest.raises(ConfigError, match=r"unknown parameter 'task'"):
        config_from_namespace({**_cell_namespace(), "In": ["", "x = 1", injected, "open_run(globals())"]})
    known = '# Parameters\nrun_name = "x"\nrun_dir = "/tmp/r"\n'
    assert config_from_namespace({**_cell_namespace(), "run_name": "x", "In": ["", known]}).run_name == "x"


def test_file_parameters_validates_before_any_notebook_starts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("run_name: x\ntask: 3\n")
    with pytest.raises(ConfigError, match="task: unknown key"):
        file_parameters(bad)


def test_tfr_run_fills_the_quick_study_keys_a_file_leaves_out_with_the_model_defaults(tmp_path: Path) -> None:
    path = tmp_path / "partial.yaml"
    path.write_text("benchmarks: [humaneval]\nebts_per_task: 2\n")
    injected = file_parameters(path)
    assert injected == {"run_name": "default", "tasks": "all", "benchmarks": ["humaneval"], "ebts_per_task": 2}
    assert config_from_namespace({**_cell_namespace(), **injected}) == load_config(path)


def test_open_run_takes_a_relative_run_dir_from_the_project_root() -> None:
    from tfr_helpers.notebooks.running import open_run

    config, run = open_run({**_cell_namespace(), "run_dir": "runs/try"})
    assert run == ROOT / "runs" / "try" and config.run_name == "quick"
    assert open_run(_cell_namespace())[1] == ROOT / "runs" / "quick"
