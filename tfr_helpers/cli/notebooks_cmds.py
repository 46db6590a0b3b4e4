"""CLI commands for the notebooks layer (registered on import): ``tfr run``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.cli.live import live_progress
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import default_run_dir, load_config
from tfr_helpers.pipeline.engine.faults import EXIT_INCOMPLETE, RunIncomplete

ParamsOption = Annotated[Path, typer.Option("--params", help="Experiment params YAML (papermill_params/).")]
RunDirOption = Annotated[
    Path | None, typer.Option("--run-dir", help="Run directory (default: runs/<run_name> of the params).")
]
NotebookOption = Annotated[
    list[str] | None,
    typer.Option(
        "--notebook",
        help="Execute only this notebook of the series (repeatable; in the series' order; default: all). A notebook "
        "reads the stages of those before it: run them first (e.g. --notebook 00_setup: generation only).",
    ),
]


def chosen_notebooks(given: list[str] | None, series: tuple[str, ...]) -> tuple[str, ...]:
    """The notebooks of ``series`` named in ``given`` (a file name or its stem, ``00_setup``), in the series' order;
    all of them when none is given.

    Raises:
        ConfigError: a name is not a notebook of the series (the message lists them).
    """
    if not given:
        return series
    stems = {Path(name).stem: name for name in series}
    unknown = [n for n in given if Path(n).stem not in stems or n not in (Path(n).stem, Path(n).stem + ".ipynb")]
    if unknown:
        raise ConfigError(f"--notebook {unknown[0]}: not a notebook of the series; choose from {', '.join(stems)}")
    wanted = {Path(name).stem for name in given}
    return tuple(name for name in series if Path(name).stem in wanted)


def _notebook(running: list[str]) -> Callable[[], str]:
    """``[01_rq1] ``: the notebook being executed, ``[01_rq1+02_rq2] `` when two are (the last started runs the
    stages shown; the first shows its analysis)."""

    def prefix() -> str:
        names = ["_".join(Path(name).stem.split("_")[:2]) for name in list(running)]
        return f"[{'+'.join(names)}] " if names else ""

    return prefix


@app.command("run")
def run(
    params: ParamsOption = Path("papermill_params/default.yaml"),
    run_dir: RunDirOption = None,
    notebook: NotebookOption = None,
    progress: Annotated[
        bool, typer.Option(help="Show live progress (notebook, stage, done/total, calls and runs per second, cost, ETA).")
    ] = True,
) -> None:
    """Run the study: the notebook series with papermill, HTML exports, and a short summary.

    Exit codes: 0 done; 2 a user error or a failed notebook; 3 items left undone because their model calls
    failed (or a wrong key, unknown model or exhausted quota stopped the run): rerun to continue.
    """

    # the notebook stack (papermill, nbformat and jsonschema's grammar: most of the CLI's start-up) loads only
    # in the command that runs notebooks, not at every ``tfr`` start
    from tfr_helpers.notebooks.running import NOTEBOOKS, run_notebooks

    names = chosen_notebooks(notebook, NOTEBOOKS)
    resolved = None
    if params.is_file():
        resolved = Path(run_dir if run_dir is not None else default_run_dir(load_config(params))).resolve()
    try:
        running: list[str] = []
        with live_progress(resolved or Path("."), enabled=progress and resolved is not None, prefix=_notebook(running)):
            summary = run_notebooks(params, run_dir, names=names, progress=not progress, running=running)
    except RunIncomplete as exc:
        typer.echo(f"tfr: error: {exc}", err=True)
        raise typer.Exit(EXIT_INCOMPLETE) from None
    for line in summary.lines():
        typer.echo(line)
