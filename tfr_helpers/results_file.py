"""Where a run directory's consolidated results are: ``results.json.gz`` (``results.json`` in the former layout).

``RunStore.write_results`` writes the compressed file; :func:`results_file` finds either, and
:func:`read_results_text` gives the JSON text of either, so every reader (``codec.load_results``, the progress
view, the multi-seed readers, the results digest) reads both layouts.
"""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.logfiles import gunzip

RESULTS_FILE = "results.json.gz"
"""The run directory's results, gzip-compressed JSON (``results.json``'s text)."""
FORMER_RESULTS_FILE = "results.json"
"""The results of a run directory of the former layout (and of hand-written fixtures): plain JSON."""


def results_file(run_dir: Path | str) -> Path | None:
    """The results file of ``run_dir``, or None when the run is not finalized. A plain ``results.json`` comes
    first: ``write_results`` removes it, so one beside ``results.json.gz`` was written after it (by hand)."""
    for name in (FORMER_RESULTS_FILE, RESULTS_FILE):
        path = Path(run_dir) / name
        if path.is_file():
            return path
    return None


def has_results(run_dir: Path | str) -> bool:
    """Whether ``run_dir`` holds its consolidated results (``finalize_results`` ran)."""
    return results_file(run_dir) is not None


def read_results_bytes(path: Path, data: bytes | None = None) -> bytes:
    """The JSON bytes of a results file (``path`` compressed or plain, by its name; ``data``: its bytes, when
    already read)."""
    data = path.read_bytes() if data is None else data
    return gunzip(data) if path.name.endswith(".gz") else data
