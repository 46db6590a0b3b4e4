"""``tfr llm``: one call through the full layer, offline with sim and against the fake server."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tests.models.conftest import FAKE_KEY
from tfr_helpers.cli import app
from tfr_helpers.errors import ConfigError


def test_llm_sim_works_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(app, ["llm", "--model", "sim:default", "--prompt", "hi", "--run-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "simulated model sim:default" in result.output and "[usage] model=sim:default" in result.output
    assert (tmp_path / "calls" / "llm.jsonl").is_file()


def test_llm_openai_against_the_fake_server_uses_the_cache_second_time(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url + "/v1")
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    args = [
        "llm",
        "--model",
        "openai:m1",
        "--prompt",
        "hello",
        "--role",
        "judge",
        "--run-dir",
        str(tmp_path / "r"),
    ]
    first = CliRunner().invoke(app, args)
    second = CliRunner().invoke(app, args)
    assert first.exit_code == 0 and server.default_text in first.output and "input_tokens=11" in first.output
    assert "cached=True" in second.output and len(server.requests) == 1
    assert server.requests[0].body["messages"] == [{"role": "user", "content": "hello"}]
    assert FAKE_KEY not in first.output


def test_llm_bad_role_is_a_config_error():
    result = CliRunner().invoke(app, ["llm", "--model", "sim:default", "--prompt", "x", "--role", "boss"])
    assert isinstance(result.exception, ConfigError)


@pytest.mark.slow  # a fresh interpreter with an empty cache directory imports the whole command line
def test_llm_missing_key_is_one_line_exit_2(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TFR_CACHE_DIR": str(tmp_path / "c")}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tfr_helpers.cli import main; main()",
            "llm",
            "--model",
            "anthropic:x",
            "--prompt",
            "p",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "ANTHROPIC_API_KEY is not set" in proc.stderr


@pytest.mark.parametrize("bad", ["openai", "nope:x"])
def test_llm_bad_model_spec(bad):
    result = CliRunner().invoke(app, ["llm", "--model", bad, "--prompt", "x"])
    assert isinstance(result.exception, ConfigError)
