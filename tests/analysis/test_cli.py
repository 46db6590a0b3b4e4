"""tfr analyze / tfr cases write their outputs; a bad run directory gives one readable error."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.cli import app, main
from tfr_helpers.errors import RunDirError


@pytest.mark.slow
def test_analyze_and_cases_commands_write_files(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path, n_tasks=4)
    runner = CliRunner()
    res = runner.invoke(app, ["analyze", "--run-dir", str(run)])
    assert res.exit_code == 0, res.output
    assert (run / "analysis" / "summary.json").is_file() and "rq3_screening_and_downstream.tex" in res.output
    res = runner.invoke(app, ["cases", "--run-dir", str(run), "--out", str(tmp_path / "c.md")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "c.md").is_file()


def test_missing_run_dir_is_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    res = CliRunner().invoke(app, ["analyze", "--run-dir", str(tmp_path / "none")])
    assert isinstance(res.exception, RunDirError)
    monkeypatch.setattr("sys.argv", ["tfr", "cases", "--run-dir", str(tmp_path)])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tfr: error:") and "results.json.gz is missing" in err and "\n" not in err
