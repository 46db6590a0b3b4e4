"""Decoding a run directory's records: checkpoint entries into records, and ``results.json`` into :class:`Results`.

The one reader of both: the runner (resume), the progress view (a run not yet finalized) and the analysis and
views layers (a finished run) all decode through here, so the checks and error messages live in one place.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.pipeline.engine.stage import final_stage
from tfr_helpers.records import RESULTS_FIELDS, Results
from tfr_helpers.results_file import RESULTS_FILE, read_results_bytes, results_file

RECORD_TYPES: dict[str, type[BaseModel]] = {cls.__name__: cls for cls in RESULTS_FIELDS}
"""Checkpointed record types by the ``type`` name stored beside each record."""


def register_record_type(cls: type[BaseModel]) -> type[BaseModel]:
    """Let a stage outside the study's seven checkpoint records of a new type (usable as a class decorator)."""
    RECORD_TYPES[cls.__name__] = cls
    return cls


def encode_records(records: Iterable[BaseModel]) -> list[dict[str, Any]]:
    """The checkpoint form of records: ``{"type": <class name>, "record": <JSON data>}`` each.

    Outcomes, program runs and isolation records that several of the records repeat are stored once, in a
    leading ``{"type": "$shared", "values": [...]}`` entry (see :func:`encode_results`).
    """
    entries: list[dict[str, Any]] = [{"type": type(r).__name__, "record": r.model_dump(mode="json")} for r in records]
    table = _share([(_TYPE_FIELDS.get(e["type"], ()), e["record"]) for e in entries])
    return ([{"type": "$shared", "values": table}] if table else []) + entries


def decode_records(data: Sequence[dict[str, Any]]) -> list[Any]:
    """Records from their checkpoint form (:func:`encode_records`).

    Raises:
        RunDirError: An entry names an unknown record type or does not validate (a checkpoint written by an
            incompatible version).
    """
    out = []
    table = data[0]["values"] if data and data[0].get("type") == "$shared" else None
    for item in data[1:] if table is not None else data:
        cls = RECORD_TYPES.get(item.get("type", ""))
        if cls is None:
            raise RunDirError(f"checkpoint entry of unknown type {item.get('type')!r}; start a new --run-dir")
        try:
            record = item["record"]
            if table is not None:
                _unshare([(_TYPE_FIELDS.get(item["type"], ()), record)], table)
            out.append(cls.model_validate(record))
        except (ValidationError, KeyError, IndexError, TypeError) as exc:
            raise RunDirError(f"invalid {cls.__name__} in a checkpoint ({exc}); start a new --run-dir") from exc
    return out


SHARED_KEY = "shared_values"
"""Top-level key of ``results.json`` holding values that many records share (see :func:`encode_results`)."""
_SHARED_FIELDS: dict[str, tuple[str, ...]] = {
    "pair_evaluations": (
        "generated",
        "reference",
        "reference_rerun",
        "generated_first",
        "reference_first",
        "reference_harder",
        "isolation",
    ),
    "benchmark_verdicts": ("run",),
}
_TYPE_FIELDS: dict[str, tuple[str, ...]] = {
    "PairEvaluation": _SHARED_FIELDS["pair_evaluations"],
    "BenchmarkVerdict": _SHARED_FIELDS["benchmark_verdicts"],
}


def _share(records: list[tuple[Sequence[str], dict[str, Any]]]) -> list[Any]:
    """Replace each listed field's value by ``{"$shared": i}`` (in place); returns the table of values."""
    table: list[Any] = []
    index: dict[str, int] = {}
    for fields, record in records:
        for name in fields:
            value = record.get(name)
            if value is None:
                continue
            key = json.dumps(value, sort_keys=True)
            if key not in index:
                index[key] = len(table)
                table.append(value)
            record[name] = {"$shared": index[key]}
    return table


def _unshare(records: list[tuple[Sequence[str], dict[str, Any]]], table: list[Any]) -> None:
    """Put the shared values back (in place): the inverse of :func:`_share`."""
    for fields, record in records:
        for name in fields:
            ref = record.get(name)
            if isinstance(ref, dict) and set(ref) == {"$shared"}:
                record[name] = table[ref["$shared"]]


def encode_results(results: Results) -> str:
    """The text of ``results.json``: the :class:`Results` dump with repeated values stored once.

    Identical programs and tests run once, so at scale (CodeT: 164 tasks x 10 code samples x its tests) many pairs
    carry the same outcome records, and every pair the same isolation record. Each such value (an outcome,
    a program run, an isolation record) is written once under ``shared_values`` and a record holds
    ``{"$shared": i}`` in its place; :func:`load_results` puts the values back before validating, so the file
    is still read through :class:`Results`.

    Args:
        results: The run's results.

    Returns:
        Compact JSON text (no indentation, which was a seventh of the file; ``python -m json.tool`` shows it
        indented), ``version`` first.
    """
    data = results.model_dump(mode="json")
    data[SHARED_KEY] = _share([(f, r) for name, f in _SHARED_FIELDS.items() for r in data[name]])
    return json.dumps(data, separators=(",", ":"))


def resolve_shared(data: Any) -> Any:
    """A loaded ``results.json`` with its shared values put back in place (in place; returns it)."""
    table = data.pop(SHARED_KEY, None) if isinstance(data, dict) else None
    if table is not None:
        _unshare([(f, r) for name, f in _SHARED_FIELDS.items() for r in data.get(name, [])], table)
    return data


_LOADED: dict[str, tuple[bytes, Results]] = {}
"""The last ``results.json`` loaded in this process (its path -> its SHA-256 and its records): a
notebook loads the results and then analyses the run, which loads them again; with the same object the
analysis's per-results memos (``analysis.inference.screening_set.last_of``) serve the notebook's tables."""


def load_results(run_dir: Path | str) -> Results:
    """Load and validate ``<run_dir>/results.json.gz`` (or a former layout's ``results.json``; the same
    :class:`Results` object again while the file's content is unchanged: records are frozen).

    Args:
        run_dir: A run directory written by the pipeline (``runs/<run>``).

    Returns:
        The consolidated results of the run.

    Raises:
        RunDirError: If the directory or its ``results.json`` is missing or not a valid Results file.
    """

    run = shown_run(run_dir)  # a multi-seed run: its first seed's results (every seed: analysis.seeds)
    if not run.is_dir():
        raise RunDirError(f"run directory {run} does not exist; pass --run-dir pointing to runs/<run>")
    path = results_file(run)
    if path is None:
        raise RunDirError(
            f"{run / RESULTS_FILE} is missing; finish the run first (tfr stage all --params F --run-dir {run})"
        )
    data = path.read_bytes()
    where, digest = str(path.resolve()), hashlib.sha256(data).digest()  # 73 MB: 0.04 s, validating 2.7 s
    hit = _LOADED.get(where)
    if hit is not None and hit[0] == digest:
        return hit[1]
    results = _validated(path, run, read_results_bytes(path, data))
    _LOADED.clear()  # one run's records at a time: they can be large
    _LOADED[where] = (digest, results)
    return results


def _validated(path: Path, run: Path, data: bytes) -> Results:
    try:
        return Results.model_validate(resolve_shared(json.loads(data.decode("utf-8"))))
    except (IndexError, TypeError, KeyError) as exc:
        raise RunDirError(f"{path} has a broken shared value reference ({exc}); rerun {final_stage()}") from exc
    except ValidationError as exc:
        final = final_stage()
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunDirError(
            f"{path} is not a valid results file ({where}: {first['msg']}); rerun {final} "
            f"(tfr stage {final} --run-dir {run})"
        ) from exc
    except ValueError as exc:
        raise RunDirError(f"{path} is not valid JSON ({exc}); rerun {final_stage()}") from exc
