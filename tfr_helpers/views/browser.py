"""The ipywidgets case browser: filter refinement attempts and step through them row by row.

The panes of the matching attempts are precomputed into a ``Stack`` whose ``selected_index`` is linked
to the attempt list both in the browser (``jslink``: works in static nbconvert HTML with no kernel) and
in Python (``link``: what tests and a live kernel see). Filters need a kernel; Previous/Next run in Python with
a kernel and, in an HTML export, in the page's own script (the ``tfr-stepper`` classes, see ``html_export``).
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import get_args

import ipywidgets as W

from tfr_helpers.analysis.tidy.sources import real_note
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.records import Decision, Transition
from tfr_helpers.views.case_rows import attempt_sections
from tfr_helpers.views.cases import ALL, Attempt, Filters, build_attempts, strategies
from tfr_helpers.views.progress import results_so_far
from tfr_helpers.views.render import header_html

log = logging.getLogger(__name__)

FILTER_NAMES = ("model", "source", "benchmark", "reliability", "transition", "strategy", "decision")
"""Names of the filter dropdowns, in display order (keys of :attr:`CaseBrowser.filters`)."""


class CaseBrowser:
    """Browse the refinement attempts of one run directory (reads the run's records and artifacts only).

    A finalized run is read from ``results.json``; a run in progress from its checkpoints.

    Args:
        run_dir: a finished run directory.
        max_panes: most attempts precomputed for one selection; narrow the filters to see others.

    Raises:
        RunDirError: ``run_dir`` is not a started run, or its ``results.json`` is unreadable.
    """

    def __init__(self, run_dir: str | Path, max_panes: int = 100) -> None:
        self.run_dir = shown_run(run_dir)  # a multi-seed run: its first seed's attempts and artifacts (docs/seeds.md)
        self.max_panes = max_panes
        self.results = results_so_far(self.run_dir)
        self.attempts: list[Attempt] = build_attempts(self.results)
        self.matching: list[Attempt] = []
        self._panes: dict[str, W.Widget] = {}
        self.filters: dict[str, W.Dropdown] = self._make_filters()
        self.status = W.HTML()
        self.attempts_list = W.Select(options=[], rows=8, layout=W.Layout(width="100%"), _dom_classes=["tfr-steps"])
        self.prev_button = W.Button(description="Previous", icon="arrow-left", _dom_classes=["tfr-prev"])
        self.next_button = W.Button(description="Next", icon="arrow-right", _dom_classes=["tfr-next"])
        self.stack = W.Stack([])
        self.js_link = W.jslink((self.attempts_list, "index"), (self.stack, "selected_index"))
        self.py_link = W.link((self.attempts_list, "index"), (self.stack, "selected_index"))
        self.prev_button.on_click(lambda _: self.step(-1))
        self.next_button.on_click(lambda _: self.step(+1))
        for dropdown in self.filters.values():
            dropdown.observe(lambda _: self.refresh(), names="value")
        self.widget = W.VBox(
            [
                W.HTML(self._title()),
                W.HBox(list(self.filters.values())[:4]),
                W.HBox(list(self.filters.values())[4:]),
                self.status,
                self.attempts_list,
                W.HBox([self.prev_button, self.next_button]),
                self.stack,
            ]
        )
        self.widget.add_class("tfr-stepper")
        self.refresh()

    def _title(self) -> str:
        warn = " · <span style='color:#b00'>SIMULATED MODEL: a demo, not evidence</span>"
        if self.results.simulated and real_note(self.results):
            warn = " · <span style='color:#b00'>simulated rows: a demo, not evidence</span>"
        sim = warn if self.results.simulated else ""
        real = real_note(self.results)
        note = f"<div style='font-size:90%'>{html.escape(real)} Filter by source to see one kind.</div>" if real else ""
        return f"<h3 style='margin:0'>Case browser: run {html.escape(self.results.run_name)}{sim}</h3>{note}"

    def _make_filters(self) -> dict[str, W.Dropdown]:
        def options(values: list[str]) -> list[str]:
            return [ALL, *dict.fromkeys(values)]

        names = strategies(self.results)
        transitions = [t for t in get_args(Transition) if any(a.transition == t for a in self.attempts)]
        transitions += ["not refined"] if any(a.refined is None for a in self.attempts) else []
        spec = {
            "model": options([a.model for a in self.attempts]),
            "source": options([a.source for a in self.attempts]),
            "benchmark": options([a.benchmark for a in self.attempts]),
            "reliability": options(["reliable", "unreliable"]),
            "transition": options(transitions),
            "strategy": names or [ALL],
            "decision": options([*get_args(Decision), "not screened"]),
        }
        style = {"description_width": "initial"}
        return {
            name: W.Dropdown(options=opts, value=opts[0], description=name.replace("_", " "), style=style)
            for name, opts in spec.items()
        }

    @property
    def selection(self) -> Filters:
        """The filters as currently set."""
        return Filters(**{name: str(dd.value) for name, dd in self.filters.items()})

    @property
    def current(self) -> Attempt | None:
        """The attempt shown, or None when the selection is empty."""
        index = self.attempts_list.index
        return None if index is None or not self.matching else self.matching[index]

    def pane(self, attempt: Attempt) -> W.Widget:
        """The precomputed pane of one attempt: a header and an Accordion of every registered source's rows."""
        if attempt.feedback_id not in self._panes:
            rows = attempt_sections(self.results, attempt, self.run_dir)
            accordion = W.Accordion(
                children=[W.HTML(body) for _, body in rows],
                titles=[t for t, _ in rows],
                layout=W.Layout(width="100%"),
            )
            self._panes[attempt.feedback_id] = W.VBox([W.HTML(header_html(attempt)), accordion])
        return self._panes[attempt.feedback_id]

    def refresh(self) -> None:
        """Recompute the matching attempts for the current filters and rebuild the list and panes."""
        selection = self.selection
        self.matching = [a for a in self.attempts if selection.matches(a)][: self.max_panes]
        total = sum(selection.matches(a) for a in self.attempts)
        self.stack.children = [self.pane(a) for a in self.matching]
        self.attempts_list.options = [(a.label(i + 1), i) for i, a in enumerate(self.matching)]
        if self.matching:
            self.attempts_list.index = 0
            shown = f"{total} matching attempts" + (
                f" (showing the first {self.max_panes}; narrow the filters to see the others)"
                if total > self.max_panes
                else ""
            )
            self.status.value = f"<span class='tfr-status'>{shown} of {len(self.attempts)}</span>"
        else:
            active = ", ".join(f"{k} = {v}" for k, v in vars(selection).items() if v != ALL)
            self.status.value = (
                "<span class='tfr-status' style='color:#b00'>"
                f"No attempt matches these filters ({html.escape(active)})"
                f"{'' if self.attempts else ': the run has no test-fail feedback'}. Widen a filter.</span>"
            )

    def step(self, delta: int) -> None:
        """Move to the previous (-1) or next (+1) matching attempt, stopping at both ends."""
        if not self.matching:
            return
        index = self.attempts_list.index or 0
        self.attempts_list.index = max(0, min(len(self.matching) - 1, index + delta))

    def shown_html(self) -> str:
        """All HTML of the pane on display (header and rows), empty when nothing matches."""
        index = self.stack.selected_index
        if index is None or not self.stack.children:
            return ""
        header, accordion = self.stack.children[index].children
        return header.value + "".join(child.value for child in accordion.children)

    def _ipython_display_(self) -> None:
        from IPython.display import display  # IPython only where a notebook displays it

        display(self.widget)
