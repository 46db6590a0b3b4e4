"""``tfr stage all`` with faults: exit code 3 and one readable paragraph; a rerun continues to exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.pipeline.engine.faults import EXIT_INCOMPLETE
from tfr_helpers.results_file import has_results

from .study_server import RIGHT_KEY, WRONG_KEY, Responder, study_tasks, write_params

pytestmark = pytest.mark.slow
TFR = str(Path(sys.executable).parent / "tfr")


@pytest.fixture
def server(shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    with FakeLLMServer(responder=Responder(study_tasks()), api_key=RIGHT_KEY) as srv:
        yield srv


def tfr_stage_all(params: Path, run_dir: Path, key: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "OPENAI_COMPATIBLE_API_KEY": key,
        "TFR_CACHE_DIR": str(run_dir.parent / "cache"),
    }
    env.pop("OPENAI_COMPATIBLE_BASE_URL", None)
    cmd = [TFR, "stage", "all", "--params", str(params), "--run-dir", str(run_dir), "--no-progress"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=run_dir.parent, check=False, timeout=300)


def error_paragraph(stderr: str) -> str:
    """The ``tfr: error:`` message; asserts it is one paragraph (one line) and there is no traceback."""
    assert "Traceback" not in stderr
    (line,) = [x for x in stderr.splitlines() if x.startswith("tfr: error:")]
    return line


def test_wrong_key_exits_non_zero_with_one_paragraph_then_the_right_key_completes(server, tmp_path):
    params = write_params(tmp_path / "params.yaml", server.base_url)
    proc = tfr_stage_all(params, tmp_path / "run", WRONG_KEY)
    assert proc.returncode == EXIT_INCOMPLETE, proc.stderr
    message = error_paragraph(proc.stderr)
    assert "rejected the API key" in message and "OPENAI_COMPATIBLE_API_KEY" in message
    assert "openai-compatible:fake-coder" in message and "rerun the same command" in message
    assert WRONG_KEY not in proc.stdout + proc.stderr
    assert len(server.requests) <= 2

    done = tfr_stage_all(params, tmp_path / "run", RIGHT_KEY)
    assert done.returncode == 0, done.stderr
    assert "tfr: error" not in done.stderr and has_results(tmp_path / "run")
    assert "14 sent (0 failed, 0 retries), 0 from the cache" in done.stdout


def test_server_down_exits_non_zero_naming_undone_items_and_a_rerun_completes(server, tmp_path):
    params = write_params(tmp_path / "params.yaml", server.base_url)
    server.stop_listening()
    proc = tfr_stage_all(params, tmp_path / "run", RIGHT_KEY)
    assert proc.returncode == EXIT_INCOMPLETE, proc.stderr
    message = error_paragraph(proc.stderr)
    assert "10 item(s) are left undone (generate_codes 5, generate_tests 5)" in message
    assert "openai-compatible:fake-coder|HumanEval/0" in message and "connection failed" in message
    assert "this invocation: 10 model calls (10 sent (10 failed, 10 retries)" in proc.stdout

    server.listen_again()
    done = tfr_stage_all(params, tmp_path / "run", RIGHT_KEY)
    assert done.returncode == 0, done.stderr
    assert has_results(tmp_path / "run")


@pytest.mark.notebooks
def test_tfr_run_reports_undone_items_from_a_notebook_as_run_incomplete(tmp_path):
    """A notebook whose stages leave items undone surfaces as RunIncomplete (exit 3), not as a broken notebook."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from tfr_helpers.notebooks.running import run_notebooks
    from tfr_helpers.pipeline.engine.faults import RunIncomplete

    cells = [new_code_cell('params_file: str = ""\nrun_dir: str = ""'), new_code_cell("")]
    cells[0].metadata["tags"] = ["parameters"]
    cells[1].source = (
        "from tfr_helpers.pipeline.engine.faults import RunIncomplete\n"
        "raise RunIncomplete('2 item(s) are left undone (generate_codes 2): a, b. Rerun to continue.')"
    )
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "nbs").mkdir()
    nbformat.write(nb, str(tmp_path / "nbs" / "00.ipynb"))
    (tmp_path / "p.yaml").write_text("run_name: tiny\n")
    with pytest.raises(RunIncomplete) as info:
        run_notebooks(tmp_path / "p.yaml", tmp_path / "run", names=("00.ipynb",), notebooks_dir=tmp_path / "nbs")
    assert str(info.value) == "notebook 00.ipynb: 2 item(s) are left undone (generate_codes 2): a, b. Rerun to continue."


@pytest.mark.notebooks
def test_tfr_run_with_a_wrong_key_exits_3_with_the_key_message(server, tmp_path):
    params = write_params(tmp_path / "params.yaml", server.base_url)
    env = {**os.environ, "OPENAI_COMPATIBLE_API_KEY": WRONG_KEY, "TFR_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("OPENAI_COMPATIBLE_BASE_URL", None)
    cmd = [TFR, "run", "--params", str(params), "--run-dir", str(tmp_path / "run")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, check=False, timeout=600)
    assert proc.returncode == EXIT_INCOMPLETE, proc.stderr[-2000:]
    message = error_paragraph(proc.stderr)
    assert message.startswith("tfr: error: notebook 00_setup.ipynb: The run stopped early: openai-compatible rejected")
    assert "OPENAI_COMPATIBLE_API_KEY" in message and WRONG_KEY not in proc.stdout + proc.stderr
    assert len(server.requests) <= 2 and not has_results(tmp_path / "run")
