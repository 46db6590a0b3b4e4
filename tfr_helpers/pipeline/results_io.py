"""Decoding a run directory's records: checkpoint entries into records, and ``results.json`` into :class:`Results`.

The one reader of both: the runner (resume), the progress view (a run not yet finalized) and the analysis and
views layers (a finished run) all decode through here, so the checks and error messages live in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tfr_helpers.errors import RunDirError
from tfr_helpers.records import (
    BenchmarkVerdict,
    GeneratedCode,
    GeneratedTest,
    PairEvaluation,
    RefinedEvaluation,
    Refinement,
    Results,
    ScreeningDecision,
    TestGenerationFailure,
)

RESULTS_FIELDS: dict[type[BaseModel], str] = {
    GeneratedCode: "generated_codes",
    GeneratedTest: "generated_tests",
    TestGenerationFailure: "test_generation_failures",
    BenchmarkVerdict: "benchmark_verdicts",
    PairEvaluation: "pair_evaluations",
    ScreeningDecision: "screening",
    Refinement: "refinements",
    RefinedEvaluation: "refined_evaluations",
}
"""Every record type a stage checkpoints, and the :class:`Results` list it ends up in."""

RECORD_TYPES: dict[str, type[BaseModel]] = {cls.__name__: cls for cls in RESULTS_FIELDS}
"""Checkpointed record types by the ``type`` name stored beside each record."""


def register_record_type(cls: type[BaseModel]) -> type[BaseModel]:
    """Let a stage outside the study's seven checkpoint records of a new type (usable as a class decorator)."""
    RECORD_TYPES[cls.__name__] = cls
    return cls


def encode_records(records: Iterable[BaseModel]) -> list[dict[str, Any]]:
    """The checkpoint form of records: ``{"type": <class name>, "record": <JSON data>}`` each."""
    return [{"type": type(r).__name__, "record": r.model_dump(mode="json")} for r in records]


def decode_records(data: Sequence[dict[str, Any]]) -> list[Any]:
    """Records from their checkpoint form (:func:`encode_records`).

    Raises:
        RunDirError: An entry names an unknown record type or does not validate (a checkpoint written by an
            incompatible version).
    """
    out = []
    for item in data:
        cls = RECORD_TYPES.get(item.get("type", ""))
        if cls is None:
            raise RunDirError(f"checkpoint entry of unknown type {item.get('type')!r}; start a new --run-dir")
        try:
            out.append(cls.model_validate(item["record"]))
        except (ValidationError, KeyError) as exc:
            raise RunDirError(f"invalid {cls.__name__} in a checkpoint ({exc}); start a new --run-dir") from exc
    return out


def load_results(run_dir: Path | str) -> Results:
    """Load and validate ``<run_dir>/results.json``.

    Args:
        run_dir: A run directory written by the pipeline (``runs/<run>``).

    Returns:
        The consolidated results of the run.

    Raises:
        RunDirError: If the directory or its ``results.json`` is missing or not a valid Results file.
    """
    run = Path(run_dir)
    path = run / "results.json"
    if not run.is_dir():
        raise RunDirError(f"run directory {run} does not exist; pass --run-dir pointing to runs/<run>")
    if not path.is_file():
        raise RunDirError(f"{path} is missing; finish the run first (tfr stage all --params F --run-dir {run})")
    try:
        return Results.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunDirError(
            f"{path} is not a valid results file ({where}: {first['msg']}); rerun finalize_results "
            f"(tfr stage finalize_results --run-dir {run})"
        ) from exc
    except ValueError as exc:
        raise RunDirError(f"{path} is not valid JSON ({exc}); rerun finalize_results") from exc
