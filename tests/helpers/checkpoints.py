"""Reading checkpoints and logs the way the product does, safe while a run still appends to them (plain files)
and after it ended (compressed: ``<name>.jsonl.gz``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tfr_helpers import logfiles
from tfr_helpers.pipeline.engine.store import checkpoint_entries


def checkpoint_keys(paths: Iterable[Path]) -> list[str]:
    """The keys of every complete line of these checkpoint files, in order (a line still being written, or torn
    by a kill, is skipped as the run's own reader skips it; a key written twice is listed twice)."""
    return [entry["key"] for path in paths for entry in checkpoint_entries(path)]


def log_lines(path: Path) -> list[str]:
    """The lines of a run's log (``path`` names the plain file: read compressed once the run ended)."""
    return logfiles.read_text(path).splitlines()


def log_paths(root: Path, pattern: str, recursive: bool = False) -> list[Path]:
    """The plain paths of the logs under ``root`` matching ``pattern`` (``*.jsonl``), plain or compressed, sorted."""
    found = (
        [*root.rglob(pattern), *root.rglob(pattern + ".gz")]
        if recursive
        else [*root.glob(pattern), *root.glob(pattern + ".gz")]
    )
    return sorted({logfiles.plain_path(p) for p in found})


def results_text(run: Path) -> str:
    """The text of a run's results as written (``results.json.gz``, or a former or hand-written ``results.json``)."""
    from tfr_helpers.results_file import read_results_bytes, results_file

    path = results_file(run)
    assert path is not None, f"{run} holds no results"
    return read_results_bytes(path).decode()
