"""`tfr run --notebook NAME` executes only the named notebooks of the series, in the series' order; without it, the
whole series; an unknown name stops the command with the names to choose from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tfr_helpers.cli import notebooks_cmds
from tfr_helpers.cli.apps import app
from tfr_helpers.cli.notebooks_cmds import chosen_notebooks
from tfr_helpers.errors import ConfigError
from tfr_helpers.notebooks import running
from tfr_helpers.notebooks.running import NOTEBOOKS

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"


def test_the_named_notebooks_run_in_the_series_order_and_none_named_is_the_whole_series() -> None:
    assert chosen_notebooks(None, NOTEBOOKS) == chosen_notebooks([], NOTEBOOKS) == NOTEBOOKS
    assert chosen_notebooks(["00_setup"], NOTEBOOKS) == ("00_setup.ipynb",)
    picked = chosen_notebooks(["02_rq2_refinement.ipynb", "00_setup", "00_setup.ipynb"], NOTEBOOKS)
    assert picked == ("00_setup.ipynb", "02_rq2_refinement.ipynb")


@pytest.mark.parametrize("name", ["00", "05_extra", "00_setup.py", "notebooks/00_setup.ipynb"])
def test_a_name_outside_the_series_is_refused_with_the_choices(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        chosen_notebooks([name], NOTEBOOKS)
    assert str(info.value).startswith(f"--notebook {name}: not a notebook of the series; choose from 00_setup, ")


def test_the_command_hands_the_chosen_notebooks_to_the_runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[tuple[str, ...]] = []

    def fake_run(params: Path, run_dir: Path | None = None, *, names: tuple[str, ...], **_: Any) -> Any:
        calls.append(names)
        raise ConfigError("stop here")  # the runner's own errors reach the user as they are

    monkeypatch.setattr(running, "run_notebooks", fake_run)
    base = ["run", "--params", str(SMOKE), "--run-dir", str(tmp_path / "run"), "--no-progress"]
    for extra, expected in (([], NOTEBOOKS), (["--notebook", "00_setup"], ("00_setup.ipynb",))):
        done = CliRunner().invoke(app, [*base, *extra])
        assert isinstance(done.exception, ConfigError) and str(done.exception) == "stop here"
        assert calls.pop() == expected
    refused = CliRunner().invoke(app, [*base, "--notebook", "99_none"])
    assert isinstance(refused.exception, ConfigError) and "choose from 00_setup" in str(refused.exception)
    assert not calls  # refused before any notebook ran
    assert notebooks_cmds.run.__doc__ is not None
