"""Reading a finished ``tfr select`` run back without executing anything (for notebooks)."""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.consensus.execute import matrix_root
from tfr_helpers.consensus.matrix import Semantics, StaleMatrixError, TaskMatrix, TaskTruth, load_task
from tfr_helpers.consensus.report import SelectionReport, selection_report

PROJECT = Path(__file__).resolve().parents[2]
"""The project directory (its ``runs/`` is the default place of ``tfr select`` run directories)."""


def stored_selection(
    dataset: str, semantics: Semantics = "packed", select_dir: Path | None = None, expected_tasks: int | None = None
) -> SelectionReport | None:
    """The selection report of a dataset's stored matrices, or None when they were not built (completely).

    Matrices stored by an older ``tfr`` (another format version, e.g. without the outputs matrix) count as not
    built: ``tfr select`` rebuilds them.

    Args:
        dataset: The replay dataset's name.
        semantics: Which execution semantics' matrices to read.
        select_dir: The ``tfr select`` run directory (default ``runs/select_<dataset>`` of the working
            directory, else of the project).
        expected_tasks: When given, fewer stored tasks than this count as not built.
    """
    if select_dir is None:  # `tfr select` writes under the working directory; notebooks run in notebooks/
        here = Path("runs") / f"select_{dataset}"
        select_dir = here if here.is_dir() else PROJECT / "runs" / f"select_{dataset}"
    root = matrix_root(select_dir, dataset, semantics)
    if not root.is_dir():
        return None
    matrices: list[TaskMatrix] = []
    truths: dict[str, TaskTruth] = {}
    for path in sorted(root.glob("*.json")):
        task_id = path.stem.replace("_", "/", 1)
        try:
            stored = load_task(root, task_id)
        except StaleMatrixError:
            return None
        if stored is None or stored[1] is None:
            return None
        matrices.append(stored[0])
        truths[task_id] = stored[1]
    if not matrices or (expected_tasks is not None and len(matrices) < expected_tasks):
        return None
    return selection_report(matrices, truths)
