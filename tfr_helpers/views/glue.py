"""Headline numbers recorded by a notebook's last cell and read back from the executed notebook.

A tiny ``glue()``-style helper: the values are displayed as a custom
JSON mime bundle, so they live in the executed ``.ipynb`` and need no extra file or package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tfr_helpers.analysis.headlines import headline_lines
from tfr_helpers.views.run_details import details_html

HEADLINE_MIME = "application/vnd.tfr.headline+json"
"""Mime type of the bundle holding a notebook's headline numbers."""


def record_headline(values: dict[str, Any]) -> None:
    """Display ``values`` (JSON-serialisable) as this notebook's headline numbers.

    Raises:
        TypeError: a value is not JSON-serialisable.
    """
    from IPython.display import display  # IPython only where a notebook displays it

    lines = headline_lines(values)  # per model and source, one line each
    html = details_html("Recorded headline (what tfr run prints; the box at the top gives the intervals)", lines)
    bundle = {HEADLINE_MIME: json.loads(json.dumps(values)), "text/html": html, "text/plain": "\n".join(lines)}
    display(bundle, raw=True)


def read_headline(notebook: Path) -> dict[str, Any]:
    """The headline numbers recorded in an executed notebook (merged, later cells win; empty if none)."""
    import nbformat  # here, not at import: reading a notebook is the CLI's business, and nbformat costs a kernel ~1 s

    nb = nbformat.read(str(notebook), as_version=4)
    found: dict[str, Any] = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if HEADLINE_MIME in data:
                found.update(data[HEADLINE_MIME])
    return found
