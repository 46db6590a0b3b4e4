"""Run the notebook series with papermill (one process, the project's kernel) and export each to HTML.

Each notebook starts once those whose stages or files it reads are done, two at a time where that allows
(:mod:`tfr_helpers.notebooks.schedule`: the next notebook starts once this one's stages are done).

The HTML export (offline: widget JavaScript in ``<run>/notebooks/_static/``) lives in
:mod:`tfr_helpers.notebooks.html_export`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from tqdm.auto import tqdm

from tfr_helpers.analysis.headlines import headline_lines
from tfr_helpers.errors import ConfigError, TfrError
from tfr_helpers.notebooks.answer_table import summary_answer_lines
from tfr_helpers.notebooks.html_export import export_html
from tfr_helpers.notebooks.parameters import config_from_namespace, file_parameters
from tfr_helpers.notebooks.run_report import run_report_lines
from tfr_helpers.notebooks.schedule import STAGES_TAG, notebooks_at_once, run_in_order, waits_for
from tfr_helpers.pipeline import default_run_dir, load_config
from tfr_helpers.pipeline.engine.faults import RunIncomplete
from tfr_helpers.pipeline.section import goes_beyond_one, section_params_for
from tfr_helpers.sandbox.worker_env import bytecode_dir
from tfr_helpers.views.glue import read_headline

log = logging.getLogger(__name__)

NOTEBOOKS = (
    "00_setup.ipynb",
    "01_rq1_feedback_reliability.ipynb",
    "02_rq2_refinement.ipynb",
    "03_rq3_screening.ipynb",
    "03b_consensus_selection.ipynb",
    "03c_beyond_one_refinement.ipynb",
    "04_case_browser.ipynb",
)
"""The series, in execution order; running 00..03 performs the whole study (03c runs its own small section study:
:mod:`tfr_helpers.pipeline.section`)."""
SECTION_NOTEBOOK = "03c_beyond_one_refinement.ipynb"
"""The notebook of the "beyond one refinement" section: given ``section_params``, left out when there is none."""
NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
"""Where the source notebooks live (the repository's ``notebooks/``)."""
KERNEL_NAME = "python3"
"""Preferred kernel: jupyter_client starts its ``python`` argv with the running interpreter (the venv)."""


class NotebookReport(BaseModel):
    """One executed notebook of a series."""

    model_config = ConfigDict(frozen=True)

    name: str
    notebook: Path
    html: Path
    seconds: float
    headline: dict[str, object]


class NotebookRunSummary(BaseModel):
    """What :func:`run_notebooks` did: the run directory and every executed notebook."""

    model_config = ConfigDict(frozen=True)

    run_dir: Path
    params: Path
    notebooks: list[NotebookReport]
    seconds: float | None = None
    """Wall time of the whole series (notebooks run beside each other where they may: less than their sum)."""

    def lines(self) -> list[str]:
        """A short human summary: each notebook's time and the total, the real answers with their intervals in one
        table (simulated rows after, marked as a demo), then the time per stage, the counts (sandbox runs, model
        calls, cost, excluded items) and the paths of the reports, tables, figures and case files
        (:mod:`tfr_helpers.notebooks.run_report`). Without ``summary.json``'s answers
        (a series stopped before 03), each notebook's recorded headline instead, per model and source."""
        out = [f"run directory: {self.run_dir}"]
        answers = _summary_answer_lines(self.run_dir)
        for report in self.notebooks:  # per model and source: a number never pools a simulated and a real model
            first, *rest = ([] if answers else headline_lines(report.headline)) or [""]
            out.append(f"  {report.name} ({report.seconds:.1f} s){': ' + first if first else ''}")
            out += [f"    {line}" for line in rest]
        own = sum(r.seconds for r in self.notebooks)
        total = self.seconds if self.seconds is not None else own
        beside = f" (their own times add up to {_minutes(own)}: two ran at once)" if own > total + 1 else ""
        out.append(f"  total: {len(self.notebooks)} notebooks in {_minutes(total)}{beside}")
        out += answers
        out += run_report_lines(self.run_dir, [report.html for report in self.notebooks])
        return out


def _minutes(seconds: float) -> str:
    return f"{seconds // 60:.0f} min {seconds % 60:04.1f} s"


def _summary_answer_lines(run_dir: Path) -> list[str]:
    path = run_dir / "analysis" / "summary.json"
    try:
        return summary_answer_lines(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else []
    except (OSError, ValueError, TypeError):  # an older or damaged summary: the per-notebook headlines instead
        return []


def project_kernel() -> str:
    """Name of a kernelspec that starts this interpreter (``python3``, else ``tfr``, installed if needed)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel  # the notebook stack loads only when notebooks run

    here = {"python", f"python{sys.version_info[0]}", "python%i.%i" % sys.version_info[:2], sys.executable}
    manager = KernelSpecManager()
    for name in (KERNEL_NAME, "tfr"):
        try:
            if manager.get_kernel_spec(name).argv[0] in here:
                return name
        except NoSuchKernel:
            continue
    from ipykernel.kernelspec import install  # the notebook stack loads only when notebooks run

    log.info("installing kernelspec 'tfr' for %s into %s", sys.executable, sys.prefix)
    install(kernel_name="tfr", prefix=sys.prefix, display_name="Python (tfr)")
    return "tfr"


def kernel_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment a notebook's kernel starts with: ``env``, but where it forbids writing bytecode
    (``PYTHONDONTWRITEBYTECODE``) and names no ``PYTHONPYCACHEPREFIX``, the kernel keeps its modules' bytecode
    under tfr's cache (:func:`~tfr_helpers.sandbox.worker_env.bytecode_dir`, as the sandbox workers do), never in
    the project's virtual environment. Without it every kernel compiles pandas, scipy, seaborn and the package from
    source: about 3 s of CPU each before its first cell runs."""
    out = dict(env)
    if out.get("PYTHONDONTWRITEBYTECODE") and not out.get("PYTHONPYCACHEPREFIX"):
        del out["PYTHONDONTWRITEBYTECODE"]
        out["PYTHONPYCACHEPREFIX"] = str(bytecode_dir())
    return out


def kernel_manager_class() -> type:
    """The kernel manager papermill starts each notebook's kernel with: IPC transport where the OS has it, no
    SIGINT before a shutdown request, and the environment of :func:`kernel_env`.

    Over IPC (Unix domain sockets in Jupyter's runtime directory, private to this user) the kernel's
    messages never touch a network port, so ipykernel has no cause for its "running over TCP without
    encryption" warning. Windows has no IPC transport: there the default (TCP on localhost) stays.
    """
    from jupyter_client.manager import AsyncKernelManager  # the notebook stack loads only when notebooks run
    from traitlets import default

    if sys.platform == "win32":
        return AsyncKernelManager

    class IpcKernelManager(AsyncKernelManager):  # type: ignore[misc]
        """An ``AsyncKernelManager`` whose transport defaults to ``ipc``, its sockets in Jupyter's runtime directory
        under a name of their own (jupyter_client's default, ``kernel-ipc-<n>``, lands in the kernel's working
        directory, where two kernels started at once would pick the same names)."""

        @default("transport")
        def _transport_default(self) -> str:
            return "ipc"

        @default("ip")
        def _ip_default(self) -> str:
            from jupyter_core.paths import jupyter_runtime_dir  # the notebook stack loads only when notebooks run

            runtime = Path(jupyter_runtime_dir())
            runtime.mkdir(parents=True, exist_ok=True)
            return str(runtime / f"tfr-{uuid.uuid4().hex[:12]}-ipc")

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            kw["env"] = kernel_env(kw.get("env") or os.environ)  # the provisioner's environment, bytecode kept
            await super()._async_launch_kernel(kernel_cmd, **kw)

        async def _async_interrupt_kernel(self) -> None:
            # jupyter_client sends SIGINT before every shutdown request: a kernel caught between two messages then
            # prints "KeyboardInterrupt caught in kernel" on the user's terminal. The shutdown request (control
            # channel), then SIGTERM and SIGKILL after ``shutdown_wait_time``, end it without that interrupt.
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

    return IpcKernelManager


def resolve_run_dir(params: Path, run_dir: Path | None) -> Path:
    """``run_dir`` if given, else the pipeline's default (``runs/<run_name>`` under the current directory)."""
    if run_dir is not None:
        return Path(run_dir).resolve()

    return Path(default_run_dir(load_config(params))).resolve()


def open_run(namespace: Mapping[str, Any], run_dir: str | None = None) -> tuple[Any, Path]:
    """What a notebook's first cell needs: the validated configuration and the absolute run directory.

    Args:
        namespace: The notebook's ``globals()``: its parameters cell declares the experiment's keys (see
            :mod:`tfr_helpers.notebooks.parameters`), papermill may have injected new values after it.
        run_dir: Overrides ``namespace["run_dir"]``; empty means ``runs/<run_name>``; a relative path is taken
            from the project's root (not from the notebook's directory, papermill's ``--cwd``).

    Raises:
        ConfigError: a bad value (the message names the key) or an unknown injected parameter.
    """

    config = config_from_namespace(namespace)
    chosen = str(namespace.get("run_dir", "") if run_dir is None else run_dir)
    run = Path(chosen) if chosen else default_run_dir(config)
    return config, (run if run.is_absolute() else NOTEBOOKS_DIR.parent / run).resolve()


def run_notebooks(
    params: Path,
    run_dir: Path | None = None,
    *,
    names: tuple[str, ...] = NOTEBOOKS,
    notebooks_dir: Path = NOTEBOOKS_DIR,
    kernel_name: str | None = None,
    progress: bool = True,
    running: list[str] | None = None,
) -> NotebookRunSummary:
    """Execute the notebook series on one params file into ``<run_dir>/notebooks/`` and export HTML.

    Each notebook gets the params file's keys injected as papermill parameters (as ``papermill -f params``
    would: see :mod:`tfr_helpers.notebooks.parameters`) and ``run_dir`` (absolute), and runs with the
    notebooks directory as its working directory, on ``kernel_name`` (default: :func:`project_kernel`).
    The stages skip finished work, so a second call resumes. Notebooks start in the series' order, each once the
    stages of those it reads are done (:func:`~tfr_helpers.notebooks.schedule.waits_for`), up to
    ``TFR_NOTEBOOKS_AT_ONCE`` (default 2) at a time.

    ``running``, when given, holds the notebooks being executed, in the order they started (a live display's).

    Raises:
        ConfigError: the params file or a notebook does not exist.
        TfrError: a cell failed; the message names the notebook and the cell, and the executed notebook
            (and its HTML) is kept for inspection.
    """
    import papermill as pm  # the notebook stack loads only when notebooks run
    from papermill.exceptions import PapermillExecutionError

    params = Path(params).resolve()
    if not params.is_file():
        raise ConfigError(f"params file {params} not found: pass an existing YAML, e.g. papermill_params/default.yaml")
    missing = [n for n in names if not (notebooks_dir / n).is_file()]
    if missing:
        raise ConfigError(f"notebooks {missing} not found in {notebooks_dir}: run from a complete checkout.")
    injected = file_parameters(params)
    run_dir = resolve_run_dir(params, run_dir)
    kernel_name = kernel_name or project_kernel()
    out_dir = run_dir / "notebooks"
    out_dir.mkdir(parents=True, exist_ok=True)
    extras = _extra_parameters(params)
    chosen = []
    for name in names:
        if name in extras and extras[name] is None:
            log.info("%s left out: %s has no section study (see tfr_helpers.pipeline.section)", name, params)
        else:
            chosen.append(name)
    section_is_run = (extras.get(SECTION_NOTEBOOK) or {}).get("section_params") == ""
    after = waits_for(chosen, SECTION_NOTEBOOK, section_is_run)

    now = running if running is not None else []

    def execute(name: str, ready: Callable[[], None]) -> NotebookReport:
        now.append(name)
        try:
            return run_one(name, ready)
        finally:
            now.remove(name)

    def run_one(name: str, ready: Callable[[], None]) -> NotebookReport:
        out = out_dir / name
        start = time.perf_counter()
        log.info("executing %s -> %s", name, out)

        def stages_done(cell: Any, execute_reply: Mapping[str, Any], **_: Any) -> None:
            if STAGES_TAG in cell.get("metadata", {}).get("tags", ()) and execute_reply["content"]["status"] == "ok":
                ready()

        try:
            pm.execute_notebook(
                str(notebooks_dir / name),
                str(out),
                parameters={**injected, "run_dir": str(run_dir), **(extras.get(name) or {})},
                kernel_name=kernel_name,
                kernel_manager_class=kernel_manager_class(),
                cwd=str(notebooks_dir),
                progress_bar=False,
                on_cell_executed=stages_done,  # nbclient's hook: the notebooks waiting for this one may start
            )
        except PapermillExecutionError as exc:
            html = _try_export(out)
            if exc.ename == "RunIncomplete":  # failed model calls: not a broken notebook; rerunning continues
                raise RunIncomplete(f"notebook {name}: {exc.evalue}") from None
            first = (exc.source or "").strip().splitlines()[:1]
            kept = f"{out} and {html}" if html else str(out)
            raise TfrError(
                f"notebook {name} failed in cell In [{exc.exec_count}] ({first[0] if first else 'empty'}): "
                f"{exc.ename}: {exc.evalue}. The executed notebook is kept at {kept}; "
                "fix the cause and rerun (finished stages are skipped)."
            ) from None
        except Exception as exc:  # kernel death, timeouts: still one message naming the notebook
            html = _try_export(out)
            raise TfrError(
                f"notebook {name} could not be executed ({type(exc).__name__}: {exc}); partial output "
                f"kept at {out}. Check that the kernel starts: `uv run python -m ipykernel --version`."
            ) from exc
        return NotebookReport(
            name=name,
            notebook=out,
            html=export_html(out),
            seconds=round(time.perf_counter() - start, 2),
            headline=read_headline(out),
        )

    start = time.perf_counter()
    with _inline_figures(), tqdm(total=len(chosen), desc="notebooks", unit="nb", disable=not progress) as bar:
        done = run_in_order(chosen, after, execute, notebooks_at_once(), on_done=lambda _: bar.update(1))
    reports = [done[name] for name in chosen]
    return NotebookRunSummary(
        run_dir=run_dir, params=params, notebooks=reports, seconds=round(time.perf_counter() - start, 2)
    )


def _extra_parameters(params: Path) -> dict[str, dict[str, str] | None]:
    """Notebook -> parameters injected besides the params file's keys (None: the notebook is left out).

    03c gets ``section_params``: the params file's ``<stem>_beyond.yaml`` sibling ("" when the run itself goes
    beyond one refinement); it is left out when there is neither.
    """

    config = load_config(params)
    section = section_params_for(params)
    if goes_beyond_one(config):
        return {SECTION_NOTEBOOK: {"section_params": ""}}
    return {SECTION_NOTEBOOK: {"section_params": str(section)} if section is not None else None}


@contextlib.contextmanager
def _inline_figures() -> Iterator[None]:
    """Hide ``MPLBACKEND`` from the kernel while it starts: with ``Agg`` no figure would be embedded."""
    backend = os.environ.pop("MPLBACKEND", None)
    if backend is not None:
        log.info("MPLBACKEND=%s hidden from the notebook kernel so figures embed inline", backend)
    try:
        yield
    finally:
        if backend is not None:
            os.environ["MPLBACKEND"] = backend


def _try_export(notebook: Path) -> Path | None:
    if not notebook.is_file():
        return None
    try:
        return export_html(notebook)
    except Exception:  # the export is a convenience; the failure being reported matters more
        log.warning("could not export %s to HTML", notebook, exc_info=True)
        return None
