"""The control arm's notebook section (notebook 02) and its case-browser row: the selected attempt's control
siblings (docs/controls.md).

Each control (``resample``, ``retry``, ``placebo``) asked the same refiner again on this feedback instance without
its content; the row shows, per control, its benchmark transition and verdict beside the feedback arm's, its
outcome on the same generated test, its code, the diff against the generated code and its call.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

from IPython.display import Markdown

from tfr_helpers.arms.controls.analysis import present
from tfr_helpers.arms.controls.arm import ARM
from tfr_helpers.arms.controls.records import ControlRefinedEvaluation, ControlRefinement
from tfr_helpers.arms.controls.report import controls_table, plot_controls
from tfr_helpers.records import Results
from tfr_helpers.views.case_rows import RowSource, register_row_source
from tfr_helpers.views.cases import Attempt
from tfr_helpers.views.render import _call, _details, _verdict, code_html, diff_html, outcome_html


def siblings(
    results: Results, attempt: Attempt
) -> list[tuple[str, ControlRefinement | None, ControlRefinedEvaluation | None]]:
    """``(control, attempt, evaluation)`` per listed control for the attempt's feedback (None: not run yet)."""
    if not results.has(ARM):
        return []
    part, fid = results.part(ARM), attempt.feedback_id
    refs = {r.control: r for r in part.refinements if r.feedback_id == fid}
    evs = {e.control: e for e in part.refined_evaluations if e.feedback_id == fid}
    return [(c, refs.get(c), evs.get(c)) for c in part.controls]


def controls_rows(results: Results, attempt: Attempt, run_dir: Path) -> list[tuple[str, str]]:
    """``[("Controls", html)]`` for a run with the control arm, else ``[]``."""
    found = siblings(results, attempt)
    if not found:
        return []
    generated = attempt.code.code if attempt.code else None
    intro = (
        f"<p>feedback arm: transition <b>{html.escape(attempt.transition)}</b> · controls on the same instance, "
        "same refiner, no feedback content:</p>"
    )
    parts = []
    for control, ref, ev in found:
        if ref is None:
            parts.append(_details(f"{control}: not run yet", "<i>run the control stages</i>"))
            continue
        head = (
            f"<p>transition <b>{html.escape(ev.transition if ev else 'not evaluated')}</b> · benchmark after: "
            f"<b>{_verdict(ev.benchmark_after if ev else None)}</b></p>"
        )
        body = (
            head
            + (outcome_html("control's code on the generated test", ev.generated_test_after) if ev else "")
            + _details(f"{control} code", code_html(ref.code), open_=True)
            + _details("diff against the generated code", diff_html(generated, ref.code))
            + _call(run_dir, ref.call, control)
        )
        parts.append(_details(f"{control}: {ev.transition if ev else 'not evaluated'}", body, open_=True))
    return [("Controls (RQ2)", intro + "".join(parts))]


register_row_source(RowSource("controls", sections=controls_rows, order=10))


def section(results: Mapping[int, Results]) -> list[object]:
    """What notebook 02 displays for the first run of ``results`` (by seed): the ``rq2_controls`` table and its
    figure, or how to switch the arm on."""
    first = next(iter(results.values()))
    if not present(first):
        return [Markdown("> This run has no control arm: set `refinement: {controls: [resample, retry, placebo]}`.")]
    import matplotlib.pyplot as plt  # the figure module sets the backend first; a notebook keeps its own

    figure, ax = plt.subplots(figsize=(8, 4))
    plot_controls(first, ax)
    plt.close(figure)
    return [controls_table(first), figure]
