"""Wide tables made to fit a report's pane: columns grouped (per model) and split into parts of a few columns, each
part keeping the row labels; rows that only say a stage did not run, and strategies that abstained on every
decision, collapsed into one explanatory line each."""

from __future__ import annotations

import html
from collections.abc import Iterator

import pandas as pd
from IPython.display import HTML
from pandas.io.formats.style import Styler

MAX_COLUMNS = 5
"""Columns of one part (besides the row labels)."""
ABSTAINED_ALL = "(100.0 ["
"""The ``Abstained`` cell of a strategy that abstained on every decision (a consensus screener without consensus)."""


def _groups(columns: list[str]) -> dict[str, list[str]]:
    """Columns grouped by their prefix before ``": "`` (a model), in order; no prefix: one group."""
    out: dict[str, list[str]] = {}
    for column in columns:
        head, sep, _ = column.rpartition(": ")
        out.setdefault(head if sep else "", []).append(column)
    return out


def _chunks(columns: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(columns), size):
        yield columns[start : start + size]


def _not_run_rows(part: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``part`` without the rows whose every cell says the same ``not run...``, and one line for them."""
    same = [str(i) for i, row in part.iterrows() if row.nunique() == 1 and str(row.iloc[0]).startswith("not run")]
    if not same:
        return part, []
    reason = str(part.loc[same[0]].iloc[0])
    return part.drop(index=same), [f"{', '.join(same)}: {reason}."]


def _abstaining(part: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``part`` without the strategies that abstained on every decision, and one line naming them."""
    if "Abstained" not in part.index:
        return part, []
    gone = [str(c) for c in part.columns if ABSTAINED_ALL in str(part.loc["Abstained", c])]
    if not gone:
        return part, []
    line = (
        f"{', '.join(gone)}: abstained on every decision (no consensus: one code sample per task), so they accept as "
        "accept_all does; their measures are accept_all's."
    )
    return part.drop(columns=gone), [line]


DEGENERATE = "0.0 [0.0, 0.0]"
"""A difference or share with no spread at all: a comparison of strategies that decided alike on every feedback."""


def _degenerate(part: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``part`` without the columns whose every filled cell is a :data:`DEGENERATE` number, and one line for them."""
    gone = []
    for column in part.columns:
        filled = {str(v) for v in part[column] if str(v).strip() not in ("", "nan", "--")}
        if filled and all(v.lstrip("+-").startswith(DEGENERATE) for v in filled):
            gone.append(str(column))
    if not gone or len(gone) == len(part.columns):
        return part, []
    line = f"{', '.join(gone)}: {DEGENERATE} in every cell (they decided alike on every feedback: nothing to compare)."
    return part.drop(columns=gone), [line]


def fit(table: Styler | pd.DataFrame, max_columns: int = MAX_COLUMNS) -> HTML:
    """The table as HTML parts of at most ``max_columns`` columns, grouped by the columns' ``<group>: `` prefix,
    with collapsed rows and columns said in a line under their part; the caption once, on top."""
    frame = (table.data if isinstance(table, Styler) else table).astype(object)
    frame = frame.where(frame.notna(), "--")  # an undefined number reads as --, as in the paper tables
    caption = str(table.caption or "") if isinstance(table, Styler) else ""
    out = [f"<p style='font-size:90%'>{html.escape(caption)}</p>"] if caption else []
    for group, columns in _groups([str(c) for c in frame.columns]).items():
        sub = frame.copy()
        sub.columns = [str(c) for c in sub.columns]
        sub, notes = _abstaining(sub[columns])
        sub, more = _degenerate(sub)
        notes += more
        if group:
            out.append(f"<h4 style='margin:8px 0 2px 0'>{html.escape(group)}</h4>")
        for part_columns in _chunks([str(c) for c in sub.columns], max_columns):
            part, lines = _not_run_rows(sub[part_columns])
            part.columns = [c.rpartition(": ")[2] if group else c for c in part.columns]
            out.append(part.to_html(border=0))
            notes += [x for x in lines if x not in notes]
        out += [f"<p style='font-size:90%;margin:2px 0 8px 0'>{html.escape(n)}</p>" for n in notes]
    return HTML("".join(out))
