"""A report's headline box, its first output: the question, the real answers per source with their intervals and
units, a source badge on every row, one sentence of what they mean; the simulated rows after, under a demo heading.

The rows are :class:`tfr_helpers.analysis.answers.Answer` (declared per report in that module: a new kind of row
slots in by registering it there).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
from IPython.display import HTML

from tfr_helpers.analysis.answers import QUESTIONS, Answer, display_name, meaning, report_answers
from tfr_helpers.analysis.inference.clustered import ratio
from tfr_helpers.analysis.inference.units import clustered_rows, interval_columns
from tfr_helpers.analysis.tidy.sources import source_label, source_of
from tfr_helpers.consensus.report import SelectionReport, StrategyRow
from tfr_helpers.records import Results

BOX_STYLE = (
    "border:2px solid #1f4e79;border-radius:6px;padding:10px 14px;margin:6px 0 12px 0;max-width:1200px;"
    "background:#f7fafd;font-size:14px;line-height:1.4;box-sizing:border-box"
)
BADGES = {
    "replayed": ("REAL · replayed", "#e8f6e8", "#070"),
    "live": ("REAL · live", "#e8f6e8", "#070"),
    "simulated": ("DEMO · simulated", "#fde8e8", "#b00"),
}
"""Source -> (badge text, background, border colour)."""
_CELL = "padding:3px 8px;text-align:left;vertical-align:top;border-bottom:1px solid #dde"
SHOWN = 8
"""Real rows the box shows open; the rest (every row is there, in order) under a collapsed ``more`` line, so that
the report's first figure stays near the first screen."""


def badge(source: str) -> str:
    """A small coloured label naming a row's source (real replayed / live, or simulated demo)."""
    text, bg, fg = BADGES.get(source, (source, "#eee", "#444"))
    return (
        f"<span class='tfr-badge tfr-badge-{html.escape(source)}' style='background:{bg};border:1px solid {fg};"
        f"color:{fg};font-weight:bold;font-size:11px;padding:1px 5px;border-radius:3px;white-space:nowrap'>"
        f"{html.escape(text)}</span>"
    )


def _table(rows: Sequence[Answer]) -> str:
    answer = "answer [95% CI]" if any(a.low is not None for a in rows) else "answer"
    head = "".join(f"<th style='{_CELL}'>{h}</th>" for h in ("source", "model", "measure", answer, "of how many"))
    body = "".join(
        "<tr>"
        f"<td style='{_CELL}'>{badge(a.source)}</td>"
        f"<td style='{_CELL}'>{html.escape(display_name(a.model))}<br><small>{html.escape(a.source_label)}</small></td>"
        f"<td style='{_CELL}'>{html.escape(a.measure)}"
        + (f"<br><small>{html.escape(a.note)}</small>" if a.note else "")
        + f"</td><td style='{_CELL};min-width:11em'><b class='tfr-answer'>{html.escape(a.number())}</b></td>"
        f"<td style='{_CELL}'>{html.escape(a.units())}</td></tr>"
        for a in rows
    )
    widths = "".join(f"<col style='width:{w}%'>" for w in (11, 22, 35, 14, 18))
    table = "<table class='tfr-answers' style='border-collapse:collapse;width:100%;table-layout:fixed'>"
    return f"{table}<colgroup>{widths}</colgroup><tr>{head}</tr>{body}</table>"


def headline_box_html(report: str, answers: Sequence[Answer], question: str | None = None) -> str:
    """The box as HTML: question, real rows, their meaning, then the simulated rows under a demo heading."""
    real = [a for a in answers if a.real]
    demo = [a for a in answers if not a.real]
    parts = [
        f"<div class='tfr-headline' style='{BOX_STYLE}'>",
        f"<div style='font-size:16px;font-weight:bold;margin-bottom:6px'>Question: "
        f"{html.escape(question or QUESTIONS.get(report, report))}</div>",
    ]
    if real:
        parts.append("<div style='font-weight:bold;margin:4px 0'>Answer on real generations (evidence)</div>")
        parts.append(_table(real[:SHOWN]))
        if len(real) > SHOWN:
            parts.append(
                f"<details class='tfr-more' style='margin:4px 0'><summary>{len(real) - SHOWN} more real rows (the "
                f"box shows {SHOWN} of {len(real)}; summary.json holds every row)</summary>{_table(real[SHOWN:])}</details>"
            )
        sentences = list(dict.fromkeys(s for a in real if (s := meaning(a))))
        if sentences:
            parts.append(
                f"<p class='tfr-meaning' style='margin:6px 0'><b>What it means.</b> {html.escape(' '.join(sentences))}</p>"
            )
    else:
        parts.append(
            "<p style='margin:4px 0'><b>No real answer in this run:</b> every model is simulated. The numbers below "
            "show the pipeline works; they are not evidence about real LLMs.</p>"
        )
    if demo:
        parts.append(
            "<div class='tfr-demo' style='margin-top:8px;border-top:1px dashed #b00;padding-top:4px'>"
            "<div style='font-weight:bold;color:#b00'>Demo: the simulated model (not evidence, never compared with "
            "the real rows)</div>" + _table(demo) + "</div>"
        )
    parts.append(
        "<p style='font-size:12px;color:#555;margin:6px 0 0 0'>Intervals: 95% cluster bootstrap over tasks (then code "
        "samples). Each model is its own population; no number pools two sources. Parameters, configuration and run "
        "log: <i>Run details</i> at the end.</p></div>"
    )
    return "".join(parts)


def headline_box(results: Results, report: str, question: str | None = None) -> HTML:
    """The box for one report (``setup``, ``rq1``, ``rq2``, ``rq3``, ``cases``) of a run's records."""
    return HTML(headline_box_html(report, report_answers(results, report), question))


def answers_box(report: str, answers: Sequence[Answer], question: str | None = None) -> HTML:
    """The box for rows computed elsewhere (e.g. ``summary.json``'s ``answers`` or a section study)."""
    return HTML(headline_box_html(report, answers, question))


RUN_NOTE = (
    "this run's own code and test samples (the main job: 10 x 10 per task, not CodeT's 100 x 100), so its pass@1 is "
    "not the paper's 36.7, which the published row reproduces"
)
SELECTION_QUESTION = "Does selecting a program by execution consensus (no reference) beat picking one at random?"
PUBLISHED_NOTE = (
    "CodeT's full release: 100 code x 100 test samples per task, CodeT's packed protocol (the paper: 36.7); the "
    "run's own row below uses the run's samples only, so its pass@1 differs"
)


def selection_answers(
    results: Results, reports: Mapping[str, SelectionReport], published: Mapping[str, SelectionReport]
) -> list[Answer]:
    """pass@1 of CodeT's selection against random, for the published data and for each coder's own samples."""
    rows = []
    for model, report, note in [
        *((f"replay:{name}", rep, PUBLISHED_NOTE) for name, rep in published.items()),
        *((coder, rep, RUN_NOTE) for coder, rep in reports.items()),
    ]:
        src = source_of(results, model)
        strategies = {r.strategy: r for r in report.rows if 1 in r.pass_at}
        chosen = strategies.get("codet") or next(iter(strategies.values()), None)
        if chosen is None:
            continue
        baseline = strategies.get("random")
        versus = f"; random: {100 * baseline.pass_at[1]:.2f}%" if baseline else ""
        interval = task_interval(report, chosen)
        rows.append(
            Answer(
                kind="selection",
                model=model,
                source=src.source,
                source_label=source_label(results, model) if src.producer or src.source != "replayed" else src.label,
                measure=f"pass@1 of the program {chosen.strategy} selects",
                value=round(100 * chosen.pass_at[1], 2),
                low=interval.get("low"),  # type: ignore[arg-type]
                high=interval.get("high"),  # type: ignore[arg-type]
                n=report.tasks,
                unit="tasks",
                note=note + versus,
                method=str(interval.get("method") or "no per-task values to resample"),
            )
        )
    return sorted(rows, key=lambda a: not a.real)


def task_interval(report: SelectionReport, row: StrategyRow) -> dict[str, object]:
    """pass@1's 95% cluster-bootstrap interval over the report's tasks (each task's exact expected pass@1 one
    row), as ``pct, low, high, method``; ``{}`` when the report holds no per-task values."""
    values = row.per_task.get(1, ())
    if not values or len(values) != len(report.task_ids):
        return {}
    rs = clustered_rows(list(report.task_ids))
    return interval_columns(ratio(rs, np.asarray(values, dtype=float), np.ones(len(values))))


def selection_box(
    results: Results, reports: Mapping[str, SelectionReport], published: Mapping[str, SelectionReport]
) -> HTML:
    """03b's headline box: consensus selection's pass@1 per source, the published data first."""
    return HTML(headline_box_html("selection", selection_answers(results, reports, published), SELECTION_QUESTION))
