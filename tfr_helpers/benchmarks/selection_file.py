"""The committed BigCodeBench selection file: where it is, its format, reading it (built by :mod:`.subsets.selection`)."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from tfr_helpers.errors import DataError

SELECTION_VERSION = 1


class Selection(BaseModel):
    """The committed BigCodeBench selection file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = SELECTION_VERSION
    """File format version."""
    rule: str
    """The selection rule in words."""
    benchmark_version: str
    """BigCodeBench release the ids refer to (``v0.1.0``)."""
    selected: list[str]
    """Selected task ids, in benchmark order."""
    excluded: dict[str, str]
    """Excluded task id -> reason (``library: ...``, ``network: ...``, ``sample: ...`` or a stage-2 one)."""


def selection_path() -> Path:
    """Return the selection file path.

    ``$TFR_SELECTION_FILE`` or ``<repo>/benchmarks/bigcodebench_selection.json``.

    Returns:
        The path (it may not exist).
    """
    override = os.environ.get("TFR_SELECTION_FILE")
    if override:
        return Path(override).expanduser()
    return Path(__file__).resolve().parents[2] / "benchmarks" / "bigcodebench_selection.json"


def load_selection(path: Path | None = None) -> Selection:
    """Read and validate the selection file.

    Args:
        path: The file (default :func:`selection_path`).

    Returns:
        The selection.

    Raises:
        DataError: The file is missing or invalid.
    """
    path = path or selection_path()
    try:
        selection = Selection.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(
            f"BigCodeBench selection file {path} is missing; regenerate it with "
            "`python -m tfr_helpers.benchmarks.subsets.selection` or load with selected=False"
        ) from exc
    except (OSError, ValidationError, ValueError) as exc:
        raise DataError(f"BigCodeBench selection file {path} is invalid ({exc}); regenerate it") from exc
    if selection.version != SELECTION_VERSION or selection.benchmark_version != "v0.1.0":
        raise DataError(
            f"BigCodeBench selection file {path} has version {selection.version}/"
            f"{selection.benchmark_version}, expected {SELECTION_VERSION}/v0.1.0; regenerate it"
        )
    return selection
