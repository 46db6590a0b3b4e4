"""Reading and verifying one benchmark data file: sha256 pin, JSON parsing, record shape and count.

Every check runs on the whole file before any record is returned, so a corrupt file is never
loaded partially: it raises one :class:`DataError` that names the file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks.sources import DataSource
from tfr_helpers.errors import DataError


def file_sha256(path: Path) -> str:
    """Return the hex sha256 of a file's bytes.

    Args:
        path: File to hash.

    Returns:
        64 lowercase hex digits.
    """
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_sha256(path: Path, source: DataSource, *, origin: str) -> None:
    """Raise when the file does not match the source's pinned sha256 (no-op when nothing is pinned).

    Args:
        path: The data file.
        source: Its data source (holds the pin).
        origin: Where the file came from, for the message (``override``, ``cache``, a URL).

    Raises:
        DataError: The hash differs from the pin.
    """
    if source.sha256 is None:
        return
    actual = file_sha256(path)
    if actual != source.sha256:
        raise DataError(
            f"{source.benchmark} data file {path} ({origin}) has sha256 {actual}, expected {source.sha256}: "
            "the file is corrupt or a different version; delete it or replace it with the file from "
            f"{source.url}"
        )


def _parse(path: Path, source: DataSource) -> list[Any]:
    """Parse the file into a list of JSON values according to ``source.fmt``."""
    try:
        if source.fmt == "json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, list):
                raise ValueError(f"top-level JSON value is {type(data).__name__}, expected a list")
            return data
        records = []
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if line.strip():
                    try:
                        records.append(json.loads(line))
                    except json.JSONDecodeError as exc:
                        raise ValueError(f"line {lineno}: {exc}") from exc
        return records
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(
            f"{source.benchmark} data file {path} is not valid {source.fmt} ({exc}); "
            f"delete it or replace it with the file from {source.url}"
        ) from exc


def read_records(path: Path, source: DataSource) -> list[dict[str, Any]]:
    """Read and structurally verify every record of a benchmark data file.

    Args:
        path: The data file.
        source: Its data source (format, required keys, exact count).

    Returns:
        The records, in file order.

    Raises:
        DataError: The file cannot be read or parsed, a record is not an object or lacks a required key,
            or the number of records differs from ``source.count``.
    """
    records = _parse(path, source)
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise DataError(f"{source.benchmark} data file {path}: record {index} is not a JSON object")
        missing = [key for key in source.required_keys if key not in record]
        if missing:
            raise DataError(
                f"{source.benchmark} data file {path}: record {index} lacks {', '.join(missing)}; "
                f"replace the file with the one from {source.url}"
            )
    if len(records) != source.count:
        raise DataError(
            f"{source.benchmark} data file {path} holds {len(records)} records, expected {source.count}; "
            f"replace it with the file from {source.url}"
        )
    return records
