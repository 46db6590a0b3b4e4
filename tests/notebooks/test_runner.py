"""run_notebooks on tiny throwaway notebooks: injection, HTML export, headline numbers, failure message."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tfr_helpers.errors import ConfigError, TfrError
from tfr_helpers.notebooks.running import kernel_env, project_kernel, run_notebooks

pytestmark = pytest.mark.notebooks


def _write(path: Path, *sources: str) -> None:
    cells = [new_code_cell('run_name: str = "quick"  # run name\nrun_dir: str = ""  # run directory')]
    cells[0].metadata["tags"] = ["parameters"]
    cells += [new_code_cell(s) for s in sources]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def _run_one_cell(tmp_path: Path, params: Path, source: str) -> Path:
    """Run a notebook of one cell (``nbs/a.ipynb``, after the parameters) into ``run``; that run directory."""
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    _write(nbs / "a.ipynb", source)
    run = tmp_path / "run"
    run_notebooks(params, run, names=("a.ipynb",), notebooks_dir=nbs, progress=False)
    return run


@pytest.fixture()
def params(tmp_path: Path) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text("run_name: tiny\n")
    return path


@pytest.mark.slow
def test_series_runs_injects_exports_and_reads_headlines(
    tmp_path: Path, params: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")  # must not reach the kernel: figures would not embed
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    _write(
        nbs / "a.ipynb",
        "import pathlib, sys\npathlib.Path(run_dir, 'seen.json').write_text("
        "__import__('json').dumps([run_name, sys.executable, str(pathlib.Path.cwd())]))",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])",
        "from tfr_helpers.views.glue import record_headline\nrecord_headline({'answer': 42})",
    )
    run = tmp_path / "run"
    summary = run_notebooks(params, run, names=("a.ipynb",), notebooks_dir=nbs)
    seen_name, executable, cwd = json.loads((run / "seen.json").read_text())
    assert seen_name == "tiny"  # the params file's keys are injected as papermill parameters
    assert Path(cwd) == nbs
    assert ".venv" in executable  # the project's kernel, not a system Python
    report = summary.notebooks[0]
    assert report.notebook == run / "notebooks" / "a.ipynb" and report.html.is_file()
    assert "record_headline" in report.html.read_text()
    assert report.headline == {"answer": 42}
    executed = nbformat.read(str(report.notebook), as_version=4)
    assert any("image/png" in o.get("data", {}) for c in executed.cells for o in c.get("outputs", []))
    assert os.environ["MPLBACKEND"] == "Agg"  # restored for the caller
    assert any("answer=42" in line for line in summary.lines())


def test_failing_cell_stops_the_series_naming_notebook_and_cell(tmp_path: Path, params: Path) -> None:
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    _write(nbs / "bad.ipynb", "x = 1", "raise ValueError('boom here')")
    _write(nbs / "after.ipynb", "y = 2")
    run = tmp_path / "run"
    expected = r"notebook bad.ipynb failed in cell In \[4\] \(raise ValueError.*ValueError: boom here"
    with pytest.raises(TfrError, match=expected):
        run_notebooks(params, run, names=("bad.ipynb", "after.ipynb"), notebooks_dir=nbs)
    kept = nbformat.read(str(run / "notebooks" / "bad.ipynb"), as_version=4)
    assert kept.metadata.papermill.exception is True
    assert (run / "notebooks" / "bad.html").is_file()
    assert not (run / "notebooks" / "after.ipynb").exists()


def test_bad_inputs_are_config_errors(tmp_path: Path, params: Path) -> None:
    with pytest.raises(ConfigError, match="params file"):
        run_notebooks(tmp_path / "missing.yaml", tmp_path / "run")
    with pytest.raises(ConfigError, match="not found in"):
        run_notebooks(params, tmp_path / "run", names=("nope.ipynb",), notebooks_dir=tmp_path)


def test_a_kernel_keeps_its_bytecode_in_the_cache_where_the_environment_forbids_writing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    env = kernel_env({"PATH": "/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    assert env == {"PATH": "/bin", "PYTHONPYCACHEPREFIX": str(tmp_path / "cache" / "bytecode")}
    assert kernel_env({"PATH": "/bin"}) == {"PATH": "/bin"}  # bytecode already written where Python writes it
    chosen = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    assert kernel_env(chosen) == chosen  # a prefix of the user's own is kept, and so is their setting


@pytest.mark.slow  # a kernel's start (over 10 s on a loaded machine)
@pytest.mark.skipif(sys.platform == "win32", reason="no IPC transport on Windows")
def test_a_notebooks_kernel_starts_with_that_environment(
    tmp_path: Path, params: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    run = _run_one_cell(
        tmp_path,
        params,
        "import pathlib, sys\n"
        "pathlib.Path(run_dir, 'bytecode.txt').write_text(f'{sys.dont_write_bytecode} {sys.pycache_prefix}')",
    )
    assert (run / "bytecode.txt").read_text() == f"False {tmp_path / 'cache' / 'bytecode'}"
    assert any((tmp_path / "cache" / "bytecode").rglob("*.pyc"))  # the kernel's imports were kept there


def test_project_kernel_starts_this_interpreter() -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    argv0 = KernelSpecManager().get_kernel_spec(project_kernel()).argv[0]
    assert argv0 in {"python", "python3", sys.executable}


@pytest.mark.skipif(sys.platform == "win32", reason="no IPC transport on Windows")
def test_kernels_start_over_ipc_so_nothing_warns_about_tcp(
    tmp_path: Path, params: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    run = _run_one_cell(
        tmp_path,
        params,
        "import pathlib\nfrom ipykernel.kernelapp import IPKernelApp\n"
        "pathlib.Path(run_dir, 'transport.txt').write_text(IPKernelApp.instance().transport)",
    )
    assert (run / "transport.txt").read_text() == "ipc"
    assert not list((tmp_path / "nbs").glob("*ipc*")), "sockets belong in Jupyter's runtime directory, removed at shutdown"
    out, err = capfd.readouterr()
    assert "without encryption" not in out + err  # the warning has no cause: no TCP port is opened


@pytest.mark.slow
def test_the_next_notebook_starts_once_the_stages_cell_is_done_beside_the_analysis(tmp_path: Path, params: Path) -> None:
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    stamp = "import pathlib, time\npathlib.Path(run_dir, '{}').write_text(repr(time.time()))"
    _write(nbs / "00_setup.ipynb", stamp.format("00_stages"), "import time\ntime.sleep(6)\n" + stamp.format("00_end"))
    nb = nbformat.read(str(nbs / "00_setup.ipynb"), as_version=4)
    nb.cells[1].metadata["tags"] = ["stages"]  # as in the series: the cell that runs the notebook's stages
    nbformat.write(nb, str(nbs / "00_setup.ipynb"))
    # 01 runs 2 s, all beside 00's 6 s last cell, so the two overlap by more than the summary's 1 s threshold
    _write(nbs / "01_rq1_feedback_reliability.ipynb", stamp.format("01_start"), "import time\ntime.sleep(2)")
    _write(nbs / "later.ipynb", stamp.format("later_start"))  # outside the series: waits for both
    run = tmp_path / "run"
    running: list[str] = []
    names = ("00_setup.ipynb", "01_rq1_feedback_reliability.ipynb", "later.ipynb")
    summary = run_notebooks(params, run, names=names, notebooks_dir=nbs, running=running)
    assert running == []  # each was listed while it ran (the live display's prefix), then taken off
    seen = {name: float((run / name).read_text()) for name in ("00_stages", "00_end", "01_start", "later_start")}
    assert seen["00_stages"] < seen["01_start"] < seen["00_end"]  # 01 ran beside 00's last cell
    assert seen["later_start"] > seen["01_start"]  # 01 has no stages cell: it was waited for to its end
    assert [r.name for r in summary.notebooks] == ["00_setup.ipynb", "01_rq1_feedback_reliability.ipynb", "later.ipynb"]
    assert summary.seconds is not None and summary.seconds < sum(r.seconds for r in summary.notebooks)
    assert any("total: 3 notebooks in" in line and "two ran at once" in line for line in summary.lines())


@pytest.mark.skipif(sys.platform == "win32", reason="no IPC transport on Windows")
def test_the_kernel_manager_interrupts_a_kernel_but_not_at_its_shutdown(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from jupyter_client.manager import AsyncKernelManager

    from tfr_helpers.notebooks.running import kernel_manager_class

    sent: list[bool] = []

    async def interrupt(self: AsyncKernelManager) -> None:
        sent.append(self.shutting_down)

    monkeypatch.setattr(AsyncKernelManager, "_async_interrupt_kernel", interrupt)
    manager = kernel_manager_class()()
    asyncio.run(manager._async_interrupt_kernel())  # an interrupt asked for (a timeout, Ctrl-C in Jupyter): sent
    manager.shutting_down = True  # as jupyter_client sets it first thing in a shutdown
    asyncio.run(manager._async_interrupt_kernel())  # the SIGINT it sends before the shutdown request: not sent
    assert sent == [False]


def test_the_preload_runs_a_notebooks_own_imports_and_leaves_its_namespace_as_it_was(tmp_path: Path) -> None:
    from tfr_helpers.notebooks.running import preload_code

    nb = new_notebook(
        cells=[
            new_code_cell("import wave  # declared parameters: not preloaded", metadata={"tags": ["parameters"]}),
            new_code_cell("import colorsys\nfrom json import dumps\nx = 1\ndef f():\n    import sndhdr_never_here"),
            new_code_cell("%matplotlib inline\nimport xdrlib_never_here"),  # IPython syntax: left to its cell
            new_code_cell("import colorsys\nimport no_such_module_anywhere"),  # a failing import is left to its cell
        ]
    )
    path = tmp_path / "a.ipynb"
    nbformat.write(nb, str(path))
    code = preload_code(path)
    assert "\n" not in code  # one line, as IPython's exec_lines takes it
    for name in ("colorsys", "wave"):
        sys.modules.pop(name, None)
    namespace: dict[str, object] = {}
    exec(code, namespace)  # noqa: S102 - the line a kernel runs at its start
    assert set(namespace) == {"__builtins__"}  # nothing bound where the notebook's cells run
    assert "colorsys" in sys.modules and "wave" not in sys.modules
    assert code.count("colorsys") == 1 and "sndhdr" not in code and "xdrlib" not in code
    assert preload_code(tmp_path / "missing.ipynb") == ""


@pytest.mark.slow
def test_a_kernel_has_the_notebooks_modules_loaded_before_its_first_cell(tmp_path: Path, params: Path) -> None:
    run = _run_one_cell(
        tmp_path,
        params,
        "import pathlib, sys\npathlib.Path(run_dir, 'pre.json').write_text(__import__('json').dumps("
        "['colorsys' in sys.modules, 'colorsys' in globals()]))\nimport colorsys",
    )
    assert json.loads((run / "pre.json").read_text()) == [True, False]  # loaded at the start, bound by its cell
