"""Paper-ready LaTeX tables: every table fits the text width of a 17 cm page, its cells and headers escaped.

A table's width is measured before it is written, from Computer Modern's own glyph widths (the ``cmr10`` metrics
matplotlib ships), at the tables' ``\\footnotesize``: the row labels, every column's widest cell and header line, and
the column separation. A table too wide on one line stacks its intervals under their values (``12.3`` over
``[10.1, 14.5]``) and wraps its headers; still too wide, its columns are split into tables by the column groups the
table declares (its column MultiIndex: "Decisions", "Downstream per attempt (pp)"...), each caption naming its group,
never a part counter. With two or more row-label levels the first (the model) becomes a row spanning the table
above its rows, so it costs no column.

Documents need only ``booktabs``; ``->``, ``|``, ``<``, ``>`` and the like are written as math symbols, so no font
encoding is assumed.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import pandas as pd

TEXTWIDTH_PT = 17 / 2.54 * 72.27
"""A 17 cm text width in TeX points (483.7 pt)."""
FONT_SIZE = r"\footnotesize"
"""Size of every table's text (8 pt in a 10 pt document)."""
FONT_SCALE = 0.85
"""Glyph widths at :data:`FONT_SIZE` over ``cmr10``'s: ``cmr8``'s digit is 4.25 pt against ``cmr10``'s 5 pt."""
TABCOLSEP_PT = 4.0
"""Space on either side of a column (``\\tabcolsep``; LaTeX's default is 6 pt)."""
MARGIN = 0.97
"""Share of the text width a table may fill: room for kerning and rounding the measure leaves out."""
MIN_HEADER_PT = 36.0
"""Width a header may wrap to even when its column's cells are narrower."""

_SYMBOLS: dict[str, tuple[str, float]] = {
    "->": (r"$\rightarrow$", 10.0),
    "|": (r"$\mid$", 2.8),
    "<": (r"$<$", 7.8),
    ">": (r"$>$", 7.8),
    "\\": (r"\textbackslash{}", 5.0),
    "&": (r"\&", 7.8),
    "%": (r"\%", 8.3),
    "$": (r"\$", 5.0),
    "#": (r"\#", 8.3),
    "_": (r"\_", 5.0),
    "{": (r"\{", 5.0),
    "}": (r"\}", 5.0),
    "~": (r"\textasciitilde{}", 5.0),
    "^": (r"\textasciicircum{}", 5.0),
    '"': ("''", 5.0),
    "·": (r"$\cdot$", 2.8),
    "×": (r"$\times$", 7.8),
    "±": (r"$\pm$", 7.8),
    "≥": (r"$\geq$", 7.8),
    "≤": (r"$\leq$", 7.8),
    "≈": (r"$\approx$", 7.8),
    "→": (r"$\rightarrow$", 10.0),
    "—": ("---", 10.0),
    "–": ("--", 5.0),
    "…": (r"\ldots{}", 10.0),
    "[": ("{[}", 2.8),
}
"""Plain-text piece -> (LaTeX, width in pt at 10 pt); ``[`` braced, so that no ``\\`` before it reads it as a
length."""
_TOKEN = re.compile("|".join(re.escape(k) for k in sorted(_SYMBOLS, key=len, reverse=True)) + "|.", re.DOTALL)


@cache
def _glyph_width(ch: str) -> float:
    """Advance width of one character of ``cmr10`` at 10 pt (10 pt for a character the font lacks)."""
    from matplotlib import get_data_path

    font = _font(os.path.join(get_data_path(), "fonts", "ttf", "cmr10.ttf"))
    if not ch.isascii() or not font.get_char_index(ord(ch)):
        return 10.0
    return float(font.load_char(ord(ch)).linearHoriAdvance) / 65536


@cache
def _font(path: str):  # type: ignore[no-untyped-def]
    from matplotlib import ft2font

    font = ft2font.FT2Font(path)
    font.set_size(10, 72)
    return font


def escape(text: str) -> str:
    """Plain text as LaTeX that compiles in any font encoding (``->`` as an arrow, ``_`` as ``\\_``...)."""
    return "".join(_SYMBOLS[t][0] if t in _SYMBOLS else t for t in _TOKEN.findall(text))


def width(text: str) -> float:
    """Width in pt of ``text`` set at :data:`FONT_SIZE`."""
    total = sum(_SYMBOLS[t][1] if t in _SYMBOLS else _glyph_width(t) for t in _TOKEN.findall(text))
    return total * FONT_SCALE


def stacked(cell: str) -> list[str]:
    """A cell's lines when intervals go under their values: ``12 (3.4 [1.0, 5.6]) p=0.2`` -> ``12 (3.4``,
    ``[1.0, 5.6])``, ``p=0.2``."""
    lines = re.split(r" (?=\[)|(?<=\]\)) |(?<=\]) ", cell)
    return [x for x in lines if x] or [""]


def wrapped(header: str, limit: float) -> list[str]:
    """A header broken at spaces, ``_`` and ``/`` into lines no wider than ``limit`` where a word allows."""
    words = [w for w in re.split(r"(?<=[ _/])", header) if w]
    lines: list[str] = []
    for word in words:
        if lines and width((lines[-1] + word).rstrip()) <= limit:
            lines[-1] += word
        else:
            lines.append(word)
    return [x.strip() for x in lines] or [""]


@dataclass(frozen=True)
class _Layout:
    labels: list[list[str]]
    """Row-label columns' cells (one list per column)."""
    groups: list[str]
    """The spanning rows' labels (the first index level when there are two or more), one per row ("" for none)."""
    columns: list[str]
    cells: list[list[list[str]]]
    """Per row, per data column: the cell's lines."""
    headers: list[list[str]]
    """Per column (labels first): the header's lines."""
    spans: list[str]
    """Per row: the one text of a row whose every cell says the same thing (``not run: no refiner``), written once
    across the data columns ("" for a row of numbers)."""
    total: float


def _cell(value: object) -> str:
    return "--" if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)  # type: ignore[arg-type]


def _layout(frame: pd.DataFrame, columns: Sequence[object], stack: bool) -> _Layout:
    levels = list(frame.index.names)
    rows = [tuple(i) if isinstance(i, tuple) else (i,) for i in frame.index]
    grouped = len(levels) >= 2
    groups = [str(r[0]) for r in rows] if grouped else [""] * len(rows)
    label_levels = levels[1:] if grouped else levels
    labels = [[str(r[j + (1 if grouped else 0)]) for r in rows] for j in range(len(label_levels))]
    keys = [tuple(str(x) for x in r) for r in rows]
    for j, column in enumerate(labels):  # a label repeated under the same outer labels is written once
        depth = j + (2 if grouped else 1)
        for i in range(len(column) - 1, 0, -1):
            if keys[i][:depth] == keys[i - 1][:depth]:
                column[i] = ""
    names = [str(c[-1]) if isinstance(c, tuple) else str(c) for c in columns]
    raw = [[_cell(frame.iloc[i][c]) for c in columns] for i in range(len(rows))]
    spans = [row[0] if _uniform(row) else "" for row in raw]
    cells = [[stacked(x) if stack else [x] for x in row] for row in raw]
    widths = [max([width(x) for x in col] + [0.0]) for col in labels]
    widths += [
        max([width(line) for row, span in zip(cells, spans, strict=True) if not span for line in row[j]] + [0.0])
        for j in range(len(columns))
    ]
    heads = [str(n) if n else "" for n in label_levels] + names
    headers = [wrapped(h, max(w, MIN_HEADER_PT)) for h, w in zip(heads, widths, strict=True)]
    widths = [max([w, *(width(x) for x in h)]) for w, h in zip(widths, headers, strict=True)]
    total = sum(widths) + 2 * TABCOLSEP_PT * len(widths)
    total = max([total, *(width(g) + 2 * TABCOLSEP_PT for g in groups)])
    label_width = sum(widths[: len(labels)]) + 2 * TABCOLSEP_PT * len(labels)
    total = max([total, *(label_width + width(x) + 2 * TABCOLSEP_PT for x in spans if x)])
    return _Layout(labels, groups, [str(c) for c in columns], cells, headers, spans, total)


def _uniform(row: list[str]) -> bool:
    """Whether a row's cells all say one same thing in words (``not run: no refiner``), not a number."""
    return len(row) >= 2 and len(set(row)) == 1 and any(ch.isalpha() for ch in row[0])


def fits(total: float) -> bool:
    """Whether a table ``total`` pt wide fits the text width (with :data:`MARGIN`)."""
    return total <= TEXTWIDTH_PT * MARGIN


def _best(frame: pd.DataFrame, columns: Sequence[object]) -> _Layout:
    """One line per cell when that fits, else intervals stacked under their values."""
    flat = _layout(frame, columns, stack=False)
    return flat if fits(flat.total) else _layout(frame, columns, stack=True)


def _meanings(frame: pd.DataFrame) -> list[tuple[str, list[object]]]:
    """The table's column groups: its column MultiIndex's first level, else one group of every column."""
    if isinstance(frame.columns, pd.MultiIndex):
        out: dict[str, list[object]] = {}
        for column in frame.columns:
            out.setdefault(str(column[0]), []).append(column)
        return list(out.items())
    return [("", list(frame.columns))]


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def split(frame: pd.DataFrame) -> list[tuple[str, _Layout]]:
    """The table as tables that fit, each with what its columns are ("" when the whole table fits): the declared
    column groups packed in order; a group too wide alone is split by its columns, named in the caption."""
    whole = _best(frame, list(frame.columns))
    if fits(whole.total) or frame.shape[1] <= 1:
        return [("", whole)]
    items: list[tuple[str, list[object]]] = []
    for name, columns in _meanings(frame):
        if fits(_best(frame, columns).total) or len(columns) == 1:
            items.append((name, columns))
        else:
            items += [(name, [c]) for c in columns]
    parts: list[tuple[list[tuple[str, list[object]]], list[object]]] = []
    for name, columns in items:
        if parts and fits(_best(frame, parts[-1][1] + columns).total):
            parts[-1][0].append((name, columns))
            parts[-1][1].extend(columns)
        else:
            parts.append(([(name, columns)], list(columns)))
    return [(_named(named, _meanings(frame)), _best(frame, columns)) for named, columns in parts]


def _named(named: list[tuple[str, list[object]]], meanings: list[tuple[str, list[object]]]) -> str:
    """What a split table's columns are: its whole groups by name, a group's share by its columns
    (``Downstream per attempt (pp): Fixes lost and Net change``), ungrouped columns by name."""
    whole = {name: len(columns) for name, columns in meanings}
    held: dict[str, list[object]] = {}
    for name, columns in named:
        held.setdefault(name, []).extend(columns)
    out = []
    for name, columns in held.items():
        listed = _listed([str(c[-1]) if isinstance(c, tuple) else str(c) for c in columns])
        if not name:
            out.append(listed)
        else:
            out.append(name if len(columns) == whole[name] else f"{name}: {listed}")
    return "; ".join(out)


def _lines(lines: list[str], align: str, pos: str) -> str:
    if len(lines) == 1:
        return escape(lines[0])
    return rf"\begin{{tabular}}[{pos}]{{@{{}}{align}@{{}}}}" + r"\\".join(escape(x) for x in lines) + r"\end{tabular}"


def render(layout: _Layout, caption: str, label: str) -> str:
    """One ``table`` environment (booktabs) of a layout."""
    n_labels = len(layout.labels)
    spec = "l" * n_labels + "r" * len(layout.columns)
    aligns = spec
    head = " & ".join(_lines(h, a, "b") for h, a in zip(layout.headers, aligns, strict=True)) + r" \\"
    body: list[str] = []
    for i, row in enumerate(layout.cells):
        if layout.groups[i] and (i == 0 or layout.groups[i] != layout.groups[i - 1]):
            if i:
                body.append(r"\addlinespace")
            body.append(rf"\multicolumn{{{len(spec)}}}{{@{{}}l}}{{\textit{{{escape(layout.groups[i])}}}}} \\")
        cells = [escape(col[i]) for col in layout.labels]
        if layout.spans[i]:
            cells.append(rf"\multicolumn{{{len(layout.columns)}}}{{l}}{{{escape(layout.spans[i])}}}")
        else:
            cells += [_lines(c, "r", "t") for c in row]
        body.append(" & ".join(cells) + r" \\")
    if not layout.cells:
        body.append(rf"\multicolumn{{{len(spec)}}}{{l}}{{no rows}} \\")
    return "\n".join(
        [
            r"\begin{table}[htbp]",
            r"\centering",
            FONT_SIZE,
            rf"\setlength{{\tabcolsep}}{{{TABCOLSEP_PT:g}pt}}",
            rf"\caption{{{escape(caption)}}}",
            rf"\label{{{label}}}",
            rf"\begin{{tabular}}{{{spec}}}",
            r"\toprule",
            head,
            r"\midrule",
            *body,
            r"\bottomrule",
            r"\end{tabular}",
            r"\end{table}",
            "",
        ]
    )


def slug(text: str) -> str:
    """A label suffix from a group's name (``Downstream per attempt (pp)`` -> ``downstream-per-attempt-pp``)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def tables(frame: pd.DataFrame, caption: str, label: str) -> str:
    """``frame`` as LaTeX tables that fit :data:`TEXTWIDTH_PT`: one table, or one per column group (each
    labelled ``<label>-<group>``, its caption's last sentence ending ``; here: <group>.``)."""
    parts = split(frame)
    out = []
    for name, layout in parts:
        if not name:
            out.append(render(layout, caption, label))
        else:
            here = f"{caption.rstrip().rstrip('.')}; here: {name}."
            out.append(render(layout, here, f"{label}-{slug(name)[:40]}"))
    return "\n".join(out)


def comment(text: str) -> str:
    """``text`` as ``%`` comment lines."""
    return "\n".join("% " + line for line in textwrap.wrap(text, 110)) + "\n" if text else ""
