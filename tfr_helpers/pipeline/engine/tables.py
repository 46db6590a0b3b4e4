"""The study's records as tables a researcher loads in one call: ``pd.read_json(run / "pairs.jsonl.gz", lines=True)``.

Written beside ``results.json`` whenever it is (``RunStore.write_results``), from the same :class:`Results`: one
JSON object per line, one line per record, nested records flattened into ``<field>_<subfield>`` columns
(``generated_status``, ``call_usage_cost_usd``; empty where the record has none), no ``$shared``
indirection. The columns are documented in
``docs/records.md``. Each file is gzip-compressed (pandas reads it by its suffix; ``zcat`` shows it): the tables
repeat ``results.json``'s records and compress about 20 times. Each file is written atomically; :data:`TABLES`
names them, and a stage of another arm adds its own with :func:`register_table`.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from tfr_helpers.fsutil import atomic_write_bytes
from tfr_helpers.records import RefinedEvaluation, Results

DROPPED = frozenset({"isolation", "stdout", "stderr", "traceback"})
"""Fields left out of the tables (in ``results.json``): the isolation record, the same for every run, and an
outcome's captured output and traceback."""


def _refinements(results: Results) -> Iterable[dict[str, Any]]:
    """One row per refinement, with its refined evaluation's columns (``after_*``; empty where it has none)."""
    evaluations = {(e.model, e.feedback_id): e for e in results.refined_evaluations}
    for refinement in results.refinements:
        row = flatten(refinement)
        evaluation = evaluations.get((refinement.model, refinement.feedback_id))
        extra = flatten(evaluation, model=RefinedEvaluation)
        row.update({f"after_{k}": v for k, v in extra.items() if k not in ("model", "task_id", "feedback_id")})
        yield row


def _rows(records: Iterable[BaseModel]) -> Iterable[dict[str, Any]]:
    return (flatten(r) for r in records)


TABLES: dict[str, Callable[[Results], Iterable[dict[str, Any]]]] = {
    "pairs": lambda r: _rows(r.pair_evaluations),
    "refinements": _refinements,
    "screening": lambda r: _rows(r.screening),
    "benchmark_verdicts": lambda r: _rows(r.benchmark_verdicts),
}
"""Table name (``<name>.jsonl.gz`` in the run directory) -> its rows from the run's results."""

SUFFIX = ".jsonl.gz"
"""A table's file name is its name and this suffix."""
COMPRESSION = 6
"""gzip level of the tables: level 1 leaves them twice as large for half a second less at the main job's size."""


def register_table(name: str, rows: Callable[[Results], Iterable[dict[str, Any]]]) -> None:
    """Add a table (``<name>.jsonl.gz``) whose rows a function of the results gives (an arm's own records)."""
    TABLES[name] = rows


def _record_type(annotation: Any) -> type[BaseModel] | None:
    """The record class of a field's annotation (``X`` or ``X | None``), or None for any other type."""
    union = get_origin(annotation) in (Union, UnionType)
    for candidate in get_args(annotation) if union else (annotation,):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


@functools.cache
def _plan(cls: type[BaseModel]) -> tuple[tuple[str, type[BaseModel] | None], ...]:
    """A record class's kept fields in order, each with its nested record class (None: a plain column); worked out
    once per class, not once per record."""
    return tuple((name, _record_type(info.annotation)) for name, info in cls.model_fields.items() if name not in DROPPED)


def flatten(record: BaseModel | None, prefix: str = "", model: type[BaseModel] | None = None) -> dict[str, Any]:
    """A record as one flat row: each field of a nested record (absent or not) becomes a ``<field>_<subfield>``
    column, so every row of a table has the same columns; lists are kept as JSON lists; :data:`DROPPED` fields
    are left out. ``model``: the record's class when ``record`` may be None."""
    cls = model or type(record)
    assert cls is not None and issubclass(cls, BaseModel)
    row: dict[str, Any] = {}
    for name, nested in _plan(cls):
        value = getattr(record, name) if record is not None else None
        if nested is not None:
            row.update(flatten(value, f"{prefix}{name}_", nested))
        else:
            row[f"{prefix}{name}"] = _json(value)
    return row


def _json(value: Any) -> Any:
    """A field value in its JSON form (records in lists dumped, without their :data:`DROPPED` fields)."""
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, BaseModel):
        return {k: v for k, v in value.model_dump(mode="json").items() if k not in DROPPED}
    return value


def write_tables(run: Path, results: Results) -> list[str]:
    """Write every table of :data:`TABLES` into ``run``; returns their file names. An empty cell is left out of
    its line (pandas reads it as missing): at 80,000 pairs the column names of empty cells would be most of the
    file."""
    names = []
    for name, rows in TABLES.items():
        lines = [
            json.dumps({k: v for k, v in row.items() if v is not None}, ensure_ascii=False, separators=(",", ":"))
            for row in rows(results)
        ]
        data = gzip.compress("".join(line + "\n" for line in lines).encode("utf-8"), COMPRESSION, mtime=0)
        atomic_write_bytes(Path(run) / f"{name}{SUFFIX}", data)
        (Path(run) / f"{name}.jsonl").unlink(missing_ok=True)  # the former layout's uncompressed table: stale now
        names.append(f"{name}{SUFFIX}")
    return names
