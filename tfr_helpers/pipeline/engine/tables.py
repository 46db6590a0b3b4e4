"""The study's records as tables a researcher loads in one call: ``pd.read_json(run / "pairs.jsonl", lines=True)``.

Written beside ``results.json`` whenever it is (``RunStore.write_results``), from the same :class:`Results`: one
JSON object per line, one line per record, nested records flattened into ``<field>_<subfield>`` columns
(``generated_status``, ``call_usage_cost_usd``), no ``$shared`` indirection. The columns are documented in
``docs/records.md``. Each file is written atomically; :data:`TABLES` names them, and a stage of another arm adds
its own with :func:`register_table`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.records import Results

DROPPED = frozenset({"isolation", "stdout", "stderr", "traceback"})
"""Fields left out of the tables (in ``results.json``): the isolation record, the same for every run, and an
outcome's captured output and traceback."""


def _refinements(results: Results) -> Iterable[dict[str, Any]]:
    """One row per refinement, with its refined evaluation's columns (``after_*``) where it has one."""
    evaluations = {(e.model, e.feedback_id): e for e in results.refined_evaluations}
    for refinement in results.refinements:
        row = flatten(refinement.model_dump(mode="json"))
        evaluation = evaluations.get((refinement.model, refinement.feedback_id))
        if evaluation is not None:
            extra = flatten(evaluation.model_dump(mode="json", exclude={"model", "task_id", "feedback_id"}))
            row.update({f"after_{k}": v for k, v in extra.items()})
        yield row


def _rows(records: Iterable[BaseModel]) -> Iterable[dict[str, Any]]:
    return (flatten(r.model_dump(mode="json")) for r in records)


TABLES: dict[str, Callable[[Results], Iterable[dict[str, Any]]]] = {
    "pairs": lambda r: _rows(r.pair_evaluations),
    "refinements": _refinements,
    "screening": lambda r: _rows(r.screening),
    "benchmark_verdicts": lambda r: _rows(r.benchmark_verdicts),
}
"""Table name (``<name>.jsonl`` in the run directory) -> its rows from the run's results."""


def register_table(name: str, rows: Callable[[Results], Iterable[dict[str, Any]]]) -> None:
    """Add a table (``<name>.jsonl``) whose rows a function of the results gives (an arm's own records)."""
    TABLES[name] = rows


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A record's JSON data as one flat row: a nested record's fields become ``<field>_<subfield>`` columns;
    lists stay lists; :data:`DROPPED` fields are left out."""
    row: dict[str, Any] = {}
    for key, value in record.items():
        if key in DROPPED:
            continue
        if isinstance(value, dict):
            row.update(flatten(value, f"{prefix}{key}_"))
        else:
            row[f"{prefix}{key}"] = value
    return row


def write_tables(run: Path, results: Results) -> list[str]:
    """Write every table of :data:`TABLES` into ``run``; returns their file names."""
    names = []
    for name, rows in TABLES.items():
        lines = [json.dumps(row, ensure_ascii=False, sort_keys=True) for row in rows(results)]
        atomic_write_text(Path(run) / f"{name}.jsonl", "".join(line + "\n" for line in lines))
        names.append(f"{name}.jsonl")
    return names
