"""Print the sha256 of a run's results.json in canonical form: shared values inlined, timing removed, keys sorted.

Two runs of the same params file give the same digest when their results agree in everything but time, so this
checks that a change of code kept behaviour: run the study before and after, compare the digests.

``--anywhere`` also leaves out the paths an isolation record names (``hidden``, ``read_only_binds``: the checkout's
and its virtual environment's), so that two checkouts in different directories (the code before and after a
change) compare.

Usage: ``uv run python benchmarks/perf/results_digest.py [--anywhere] RUN_DIR_OR_RESULTS_JSON [...]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from tfr_helpers.results_file import RESULTS_FILE, read_results_bytes, results_file

SHARED_KEY = "shared_values"
# Fields that hold wall-clock, CPU-time and CPU-wait measurements; all else in results.json follows from the inputs.
TIMING_FIELDS = frozenset({"stage_seconds", "duration_s", "latency_s", "cpu_s", "wait_s"})
LOCATION_FIELDS = frozenset({"hidden", "read_only_binds"})
"""Fields of an isolation record naming where the checkout lives (left out with ``--anywhere``)."""


def strip_timing(value: Any, drop: frozenset[str] = TIMING_FIELDS) -> Any:
    """The value with every timing field (every field in ``drop``) removed, at any depth."""
    if isinstance(value, dict):
        return {k: strip_timing(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [strip_timing(v, drop) for v in value]
    return value


def inline_shared(value: Any, table: list[Any]) -> Any:
    """The value with every ``{"$shared": i}`` reference replaced by ``table[i]``.

    The file writes a value used by many records once; which index it gets depends on the order records came
    in (and on timing fields inside the value), so the canonical form compares the values, not the indices.
    """
    if isinstance(value, dict):
        if set(value) == {"$shared"}:
            return inline_shared(table[value["$shared"]], table)
        return {k: inline_shared(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [inline_shared(v, table) for v in value]
    return value


def canonical(results: Any, anywhere: bool = False) -> bytes:
    """The canonical bytes of a parsed results.json: shared values inlined, timing removed, keys sorted
    (``anywhere``: the isolation records' paths removed too)."""
    table = results.pop(SHARED_KEY, None) or []
    drop = TIMING_FIELDS | LOCATION_FIELDS if anywhere else TIMING_FIELDS
    text = json.dumps(
        strip_timing(inline_shared(results, table), drop), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return text.encode("utf-8")


def digest(path: Path, anywhere: bool = False) -> str:
    """The sha256 of the canonical form of the results at path (a run directory, its ``results.json.gz`` or a
    former layout's ``results.json``)."""
    file = (results_file(path) or path / RESULTS_FILE) if path.is_dir() else path
    return hashlib.sha256(canonical(json.loads(read_results_bytes(file).decode("utf-8")), anywhere)).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="run directories or results files")
    parser.add_argument("--anywhere", action="store_true", help="leave out the isolation records' paths")
    args = parser.parse_args()
    for path in args.paths:
        print(f"{digest(path, args.anywhere)}  {path}")


if __name__ == "__main__":
    main()
