"""A report's "Run details", collapsed at its end: the configuration tree, the run log, where the outputs are.

The stages a notebook runs print their log while the cells execute; :meth:`RunDetails.capture` keeps it (text and
progress displays) out of the report's first screen and shows it here. Paths are given relative to the project (or
as ``…/<run name>``): no absolute path of the user's machine appears in a report.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml
from IPython.display import HTML

PROJECT_ROOT = Path(__file__).resolve().parents[2]
"""The checkout the notebooks run from (paths under it are shown relative to it)."""
_DETAILS = "margin:4px 0;border:1px solid #ccd;border-radius:4px;padding:4px 8px;max-width:1200px;box-sizing:border-box"
_PRE = "white-space:pre-wrap;overflow-wrap:break-word;font-size:12px;background:#f6f8fa;padding:6px;margin:2px 0"


def shown_path(path: str | Path, run: str | Path | None = None) -> str:
    """``path`` as a report shows it: relative to the project, ``…/<run name>/...`` under the run, ``~/...``."""
    text = str(path)
    for root, name in _roots(run):
        if text == root or text.startswith(root + "/"):
            return name + text[len(root) :]
    return text


def _roots(run: str | Path | None) -> list[tuple[str, str]]:
    roots = []
    if run is not None:
        run_path = Path(run).resolve()
        try:
            roots.append((str(run_path), str(run_path.relative_to(PROJECT_ROOT))))
        except ValueError:
            roots.append((str(run_path), f"…/{run_path.name}"))
    roots.append((str(PROJECT_ROOT), "."))
    home = str(Path.home())
    if home not in ("/", ""):
        roots.append((home, "~"))
    return roots


def mask_paths(text: str, run: str | Path | None = None) -> str:
    """Every absolute path of the run, the project and the home directory in ``text`` replaced as :func:`shown_path`."""
    for root, name in _roots(run):
        text = text.replace(root, name)
    return text


class RunDetails:
    """What a report keeps for its end: the configuration, the run's log lines, its captured outputs."""

    def __init__(self, config: Any, run: str | Path) -> None:
        self.config = config
        self.run = Path(run)
        self.log_lines: list[str] = []

    def log(self, lines: Sequence[str]) -> None:
        """Add report lines (e.g. ``RunSummary.lines()``) to the run log."""
        self.log_lines += [mask_paths(line, self.run) for line in lines]

    @contextlib.contextmanager
    def capture(self) -> Iterator[None]:
        """Run the block with its printed text kept for the run log (not shown where the cell runs)."""
        from IPython.utils.capture import capture_output  # IPython only where a notebook runs the stages

        with capture_output(display=True) as captured:
            yield
        text = "\n".join(t for t in (captured.stdout, captured.stderr) if t.strip())
        if text:
            self.log(text.splitlines()[-200:])

    def html(self) -> str:
        """The collapsed section as HTML."""
        data = self.config.model_dump(mode="json") if hasattr(self.config, "model_dump") else self.config
        config = mask_paths(yaml.safe_dump(data, sort_keys=False, width=100), self.run)
        parts = [
            f"<p>Run directory: <code>{html.escape(shown_path(self.run.resolve(), self.run))}</code></p>",
            _section("Configuration (the parameters after validation)", f"<pre style='{_PRE}'>{html.escape(config)}</pre>"),
            _section("Run log", f"<pre style='{_PRE}'>{html.escape(chr(10).join(self.log_lines) or 'nothing ran')}</pre>"),
        ]
        return (
            f"<details class='tfr-run-details' style='{_DETAILS}'><summary><b>Run details</b> (configuration, run "
            f"log)</summary>{''.join(parts)}</details>"
        )

    def _repr_html_(self) -> str:
        return self.html()

    def show(self) -> HTML:
        """The section as a display object."""
        return HTML(self.html())


def _section(title: str, body: str) -> str:
    return f"<details style='margin:4px 0'><summary>{html.escape(title)}</summary>{body}</details>"


def details_html(title: str, lines: Sequence[str]) -> str:
    """Lines in a collapsed block (the recorded headline, wrapped, never cut mid-word)."""
    body = html.escape("\n".join(lines))
    return f"<details style='{_DETAILS}'><summary>{html.escape(title)}</summary><pre style='{_PRE}'>{body}</pre></details>"


RUN_OUTPUTS = (
    "results.json.gz",
    "results.json",
    "refinement_cases.md",
    "analysis/summary.json",
    "analysis/figures",
    "notebooks",
)
"""A run directory's main outputs (``results.json``: a run of the former layout)."""


def run_outputs(run_dir: str | Path) -> list[str]:
    """The main outputs of a run written so far, one line each, as a report shows paths."""
    run = Path(run_dir)
    return [f"output: {shown_path((run / n).resolve(), run)}" for n in RUN_OUTPUTS if (run / n).exists()]
