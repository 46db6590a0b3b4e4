"""Reading a finished run: ``results.json`` through the :class:`~tfr_helpers.records.Results` model."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from tfr_helpers.errors import RunDirError
from tfr_helpers.records import Results


def load_results(run_dir: Path | str) -> Results:
    """Load and validate ``<run_dir>/results.json``.

    Args:
        run_dir: A run directory written by the pipeline (``runs/<run>``).

    Returns:
        The consolidated results of the run.

    Raises:
        RunDirError: If the directory or its ``results.json`` is missing or not a valid Results file.
    """
    run = Path(run_dir)
    path = run / "results.json"
    if not run.is_dir():
        raise RunDirError(f"run directory {run} does not exist; pass --run-dir pointing to runs/<run>")
    if not path.is_file():
        raise RunDirError(f"{path} is missing; finish the run first (tfr stage all --params F --run-dir {run})")
    try:
        return Results.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunDirError(
            f"{path} is not a valid results file ({where}: {first['msg']}); rerun finalize_results "
            f"(tfr stage finalize_results --run-dir {run})"
        ) from exc
    except ValueError as exc:
        raise RunDirError(f"{path} is not valid JSON ({exc}); rerun finalize_results") from exc
