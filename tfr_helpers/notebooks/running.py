"""Run the notebook series with papermill (one process, the project's kernel) and export each to HTML.

Each notebook starts once those whose stages or files it reads are done, two at a time where that allows
(:mod:`tfr_helpers.notebooks.schedule`: the next notebook starts once this one's stages are done).

The HTML export (offline: widget JavaScript in ``<run>/notebooks/_static/``) lives in
:mod:`tfr_helpers.notebooks.html_export`.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from tqdm.auto import tqdm

from tfr_helpers.errors import ConfigError, TfrError
from tfr_helpers.notebooks.html_export import export_html
from tfr_helpers.notebooks.parameters import config_from_namespace, file_parameters
from tfr_helpers.notebooks.schedule import (
    STAGES_TAG,
    NotStarted,
    notebooks_ahead,
    notebooks_at_once,
    run_in_order,
    waits_for,
    waits_for_end,
)
from tfr_helpers.pipeline import default_run_dir, load_config
from tfr_helpers.pipeline.engine.faults import RunIncomplete
from tfr_helpers.pipeline.section import goes_beyond_one, section_params_for
from tfr_helpers.sandbox.worker_env import bytecode_dir

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
        from tfr_helpers.analysis.headlines import headline_lines  # the analysis stack: see :func:`warm_report`
        from tfr_helpers.notebooks.run_report import run_report_lines

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
    from tfr_helpers.notebooks.answer_table import summary_answer_lines  # the analysis stack: see warm_report

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


PARAMETER_TAGS = frozenset({"parameters", "injected-parameters"})
"""Tags of the cells that only set a notebook's parameters."""
START_TIMEOUT_S = 600
"""How long a kernel may take to start and load its modules (:func:`preload_code`; nbclient's default, 60 s, is
too short for those imports on a loaded machine)."""


def preload_code(notebook: Path) -> str:
    """One line of Python that runs a notebook's own top-level import statements (of every code cell but the
    parameters), each in a namespace of its own that is then dropped: the modules are loaded, the notebook's
    namespace stays as it was. A kernel started ahead of its turn runs it at its start (IPython's ``exec_lines``),
    so the notebook's first cell finds pandas, matplotlib and the package loaded. An import that fails is left to
    the cell that makes it, which then fails as before. Empty when the notebook imports nothing."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return ""
    statements: list[str] = []
    for cell in cells:
        if cell.get("cell_type") != "code" or PARAMETER_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        source = cell.get("source", "")
        try:
            tree = ast.parse(source if isinstance(source, str) else "".join(source))
        except SyntaxError:  # IPython syntax (a magic): its imports load at the cell, as before
            continue
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom) and ast.unparse(node) not in statements:
                statements.append(ast.unparse(node))
    if not statements:
        return ""
    loop = (
        f"for statement in {statements!r}:\n    try:\n        exec(statement, {{}})\n    except Exception:\n        pass\n"
    )
    return f"exec({loop!r}, {{}})"


def kernel_manager_class(preload: str = "") -> type:
    """The kernel manager papermill starts each notebook's kernel with: IPC transport where the OS has it, no
    SIGINT before a shutdown request, the environment of :func:`kernel_env`, and ``preload`` (a line of Python,
    :func:`preload_code`) run as the kernel starts, before it says it is ready.

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
            if preload:  # ipykernel runs its exec_lines after its start-up, before it answers kernel_info
                kernel_cmd = [*kernel_cmd, f"--IPKernelApp.exec_lines={preload}"]
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
    after_end = waits_for_end(chosen, SECTION_NOTEBOOK, section_is_run)

    now = running if running is not None else []

    def execute(name: str, ready: Callable[[], None], begin: Callable[[], None]) -> NotebookReport:
        started: list[float] = []

        def turn() -> None:  # the kernel is up with its modules loaded: wait for this notebook's turn
            begin()
            started.append(time.perf_counter())
            now.append(name)

        try:
            return run_one(name, ready, turn, started)
        finally:
            if name in now:
                now.remove(name)

    def run_one(name: str, ready: Callable[[], None], turn: Callable[[], None], started: list[float]) -> NotebookReport:
        out = out_dir / name
        log.info("executing %s -> %s", name, out)

        def stages_done(cell: Any, execute_reply: Mapping[str, Any], **_: Any) -> None:
            if STAGES_TAG in cell.get("metadata", {}).get("tags", ()) and execute_reply["content"]["status"] == "ok":
                ready()

        async def first_cell(cell: Any, **_: Any) -> None:  # nbclient's hook before each cell: the first waits
            if started:
                return
            await asyncio.get_running_loop().run_in_executor(None, turn)
            # papermill timed the cell from before the wait: its duration counts from its turn
            cell.setdefault("metadata", {}).setdefault("papermill", {})["start_time"] = datetime.now(
                timezone.utc
            ).isoformat()

        try:
            try:
                pm.execute_notebook(
                    str(notebooks_dir / name),
                    str(out),
                    parameters={**injected, "run_dir": str(run_dir), **(extras.get(name) or {})},
                    kernel_name=kernel_name,
                    kernel_manager_class=kernel_manager_class(preload_code(notebooks_dir / name)),
                    start_timeout=START_TIMEOUT_S,
                    cwd=str(notebooks_dir),
                    progress_bar=False,
                    on_cell_start=first_cell,  # nbclient's hooks: this one's turn, then the ones waiting for it
                    on_cell_executed=stages_done,
                )
            finally:  # the export and the headline need the report's modules: loaded by one thread, never two
                modules.join()
        except NotStarted:  # started ahead, its turn never came (a notebook before it failed): no cell ran
            out.unlink(missing_ok=True)
            raise
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
        if not started:  # a notebook without a cell still had its turn
            turn()
        return NotebookReport(
            name=name,
            notebook=out,
            html=export_html(out),
            seconds=round(time.perf_counter() - started[0], 2),
            headline=_read_headline(out),
        )

    results: list[threading.Thread] = []

    def on_done(name: str) -> None:
        bar.update(1)
        if name == RESULTS_NOTEBOOK:  # the results are final: the end's summary reads them
            results.append(warm_report(run_dir))

    start = time.perf_counter()
    kernel_manager_class()  # jupyter_client's kernel manager loaded here, before the threads that load the rest
    modules = warm_report()
    with _inline_figures(), tqdm(total=len(chosen), desc="notebooks", unit="nb", disable=not progress) as bar:
        done = run_in_order(
            chosen, after, execute, notebooks_at_once(), on_done=on_done, ahead=notebooks_ahead(), after_end=after_end
        )
    for thread in results:
        thread.join()
    reports = [done[name] for name in chosen]
    return NotebookRunSummary(
        run_dir=run_dir, params=params, notebooks=reports, seconds=round(time.perf_counter() - start, 2)
    )


def _read_headline(notebook: Path) -> dict[str, object]:
    from tfr_helpers.views.glue import read_headline  # the analysis stack: see warm_report

    return read_headline(notebook)


RESULTS_NOTEBOOK = "03_rq3_screening.ipynb"
"""The notebook whose stages write the run's final ``results.json`` (``finalize_results``)."""


def warm_report(run_dir: Path | None = None) -> threading.Thread:
    """Load what ``tfr run`` needs after a notebook (its headline, its HTML export) and at its end (the summary), the
    analysis stack (pandas, matplotlib, seaborn, statsmodels; several seconds of CPU), in a background thread while
    the first notebooks run rather than when ``tfr`` starts; then, given ``run_dir``, the run's results (the end's
    summary reads them: the same object while the file is unchanged, :func:`~tfr_helpers.pipeline.engine.codec.
    load_results`). The series' kernels do the work; this process mostly waits for them, so the load costs the
    series nothing it waits for. A failure here is left to the code that needs the module or the results."""

    def load() -> None:
        try:
            import nbconvert  # noqa: F401 - loaded here, off the series' path

            import tfr_helpers.analysis.headlines
            import tfr_helpers.notebooks.answer_table
            import tfr_helpers.notebooks.run_report
            import tfr_helpers.views.glue  # noqa: F401

            if run_dir is not None:
                from tfr_helpers.pipeline.engine.codec import load_results

                load_results(run_dir)
        except Exception:  # noqa: BLE001 - the summary loads them again and reports what is wrong
            log.debug("warming the summary failed", exc_info=True)

    thread = threading.Thread(target=load, name="tfr-warm-report", daemon=True)
    thread.start()
    return thread


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
