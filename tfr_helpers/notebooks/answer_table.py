"""The answers of a run as one compact terminal table: the real rows with their intervals, then the simulated rows
marked as a demo; a real model without an answer gets its reason instead of a zero."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tfr_helpers.analysis.answers import Answer, answers_from_summary, display_name

REPORT_ORDER = ("rq1", "rq2", "rq3")
"""The reports whose answers the table gives, in order (``setup`` and ``cases`` count records: left out)."""
LEFT_OUT = ("setup", "cases")
MEASURE_WIDTH = 68


def _table(rows: Sequence[tuple[str, Answer]]) -> list[str]:
    def short(text: str) -> str:
        """A long measure without its parenthesis, keeping what follows it (", without placeholder asserts")."""
        if len(text) > MEASURE_WIDTH and " (" in text:
            head, _, rest = text.partition(" (")
            text = head + (rest.rpartition(")")[2] if ")" in rest else "")
        return text if len(text) <= MEASURE_WIDTH else text[: MEASURE_WIDTH - 3] + "..."

    seen = Counter((report, a.model, a.measure) for report, a in rows)

    def model(report: str, a: Answer) -> str:
        """The model by its display name, with the first part of its note (RQ1's: the benchmark) when it has several
        such rows."""
        name = display_name(a.model)
        return f"{name} ({a.note.split(';')[0]})" if seen[(report, a.model, a.measure)] > 1 and a.note else name

    cells = [("", "model", "measure", "answer [95% CI]", "of")]
    cells += [
        (
            report,
            model(report, a),
            short(a.measure) if a.value is not None else f"no answer: {a.note}",
            a.number() if a.value is not None else "",
            a.units(),
        )
        for report, a in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    return [
        "  "
        + "  ".join(c.rjust(w) if i == 3 else c.ljust(w) for i, (c, w) in enumerate(zip(row[:4], widths, strict=True)))
        + "  "
        + row[4]
        for row in cells
    ]


def answer_lines(answers: Mapping[str, Sequence[Answer]]) -> list[str]:
    """The table's lines: ``Real results`` (evidence), then ``Demo`` (simulated), each a fixed-width table."""
    order = (*REPORT_ORDER, *(k for k in answers if k not in (*REPORT_ORDER, *LEFT_OUT)))
    rows = [(r, a) for r in order for a in answers.get(r, [])]
    out = []
    for title, mine in (
        ("Real results (evidence; 95% cluster-bootstrap intervals over tasks):", [x for x in rows if x[1].real]),
        ("Demo: the simulated model (not evidence, never compared with the real rows):", [x for x in rows if not x[1].real]),
    ):
        if mine:
            out.append(title)
            out += [line.rstrip() for line in _table(mine)]
    return out


def summary_answer_lines(summary: Mapping[str, Any]) -> list[str]:
    """:func:`answer_lines` of a ``summary.json`` (empty when it predates answers)."""
    reports = list(summary.get("answers", {}))
    return answer_lines({r: answers_from_summary(summary, r) for r in reports})
