"""`tfr replay list` through typer's CliRunner."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tfr_helpers.cli import app

FIXTURE = Path(__file__).parent / "data" / "import3"


def test_list_prints_datasets_counts_and_sources(replay_env: Path) -> None:
    result = CliRunner().invoke(app, ["replay", "list", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        "codet-codegen16b-humaneval: CodeGen-Mono-16B on humaneval, 164 tasks, 100 code + 100 test samples per "
        "task (9124 tests; 14309 test samples hold none; 791 programs do not compile)"
    )
    assert lines[1].startswith("  license MIT (Copyright (c) Microsoft Corporation); source github.com/microsoft/CodeT@")
    assert lines[1].endswith(f"files: override {replay_env / 'codet'}")
    assert lines[2].startswith("reflexion-gpt4-humaneval: GPT-4 on humaneval, 164 tasks, 1 code + 1 test samples")
    assert lines[4] == (
        "import3: hand-written fixture on humaneval, 3 tasks, 1-2 code + 1-2 test samples per task "
        "(6 tests; 0 test samples hold none; 1 programs do not compile)"
    )


def test_list_without_data_fails_with_the_fix(isolated_replay: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_REPLAY_MIRROR", "http://127.0.0.1:9")
    result = CliRunner().invoke(app, ["replay", "list"])
    assert result.exit_code != 0
    assert "TFR_REPLAY_DIR" in str(result.exception)
