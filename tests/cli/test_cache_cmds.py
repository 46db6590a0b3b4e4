"""tfr cache info / clear on a real store (entries written by the execution cache itself)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfr_helpers.cli import app
from tfr_helpers.records import Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import Limits, TestSpec
from tfr_helpers.sandbox.cache import ExecutionCache, job_key

runner = CliRunner()


def test_info_counts_entries_and_clear_removes_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path))
    responses = tmp_path / "ab" / "reply.json"  # the model response cache shares the directory: left alone
    responses.parent.mkdir()
    responses.write_text("{}")
    cache = ExecutionCache()
    run = ProgramRun(outcomes=[Outcome(name="t", status="passed")], isolation=Isolation(network="none", uid_drop=False))
    for program in ("x = 1", "x = 2"):
        assert cache.put(job_key(program, [TestSpec("t", "assert x")], Limits()), run)
    bytecode, tables = tmp_path / "bytecode" / "numpy", tmp_path / "hypothesis" / "unicode_data"  # warm workers' files
    for path in (bytecode, tables):
        path.mkdir(parents=True)
        (path / "x.bin").write_bytes(b"0" * 2_000_000)
    out = runner.invoke(app, ["cache", "info"])
    assert out.exit_code == 0 and f"{tmp_path / 'executions'} (on)" in out.output and "entries: 2" in out.output
    assert f"preload bytecode: {tmp_path / 'bytecode'}, 2.0 MB" in out.output
    assert f"Hypothesis tables: {tmp_path / 'hypothesis'}, 2.0 MB" in out.output
    out = runner.invoke(app, ["cache", "clear"])
    assert out.exit_code == 0 and "removed 2 entries" in out.output
    assert "removed the preload bytecode (2.0 MB)" in out.output and "removed the Hypothesis tables (2.0 MB)" in out.output
    assert not (tmp_path / "bytecode").exists() and not (tmp_path / "hypothesis").exists()
    assert "entries: 0" in runner.invoke(app, ["cache", "info"]).output and responses.is_file()
    monkeypatch.setenv("TFR_EXEC_CACHE", "off")
    assert "(off (TFR_EXEC_CACHE))" in runner.invoke(app, ["cache", "info"]).output
