"""Append-only JSON lines logs that are gzip-compressed once finished (``<name>.jsonl`` -> ``<name>.jsonl.gz``).

A run directory's logs (artifacts, model calls, checkpoints, sandbox timings) are appended to as plain files while
their stage runs; when a run of stages ends cleanly, :func:`compress` replaces each by its gzip-compressed copy
(these texts compress about 20 times). Readers name the plain path and get the content of whichever file holds
it (:func:`read_bytes`); a writer calls :func:`prepare_append` before its first append, which puts a compressed
log back in plain form, so a resume or a later run appends to it and loses nothing.

The rule, at every step crash-safe: the plain file, when present, is the log (it is complete: it is written
first and the compressed copy removed after, or the compressed copy is written first and the plain file removed
after); a compressed copy beside it is stale and removed at the next compression or append. A torn compressed
file (cut short) reads as far as it decompresses; the logs' own rule then skips its torn last line.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

from tfr_helpers.fsutil import atomic_write_bytes

GZ_SUFFIX = ".gz"
LEVEL = 6
"""gzip level of a finished log: on the main job's logs 17-50 times smaller, about 10 ms of CPU per MB."""


def gz_path(path: Path) -> Path:
    """The compressed copy of the log ``path`` (``x.jsonl`` -> ``x.jsonl.gz``)."""
    return path.with_name(path.name + GZ_SUFFIX)


def plain_path(path: Path) -> Path:
    """The plain log that ``path`` (plain or compressed) holds."""
    return path.with_name(path.name.removesuffix(GZ_SUFFIX))


def stored(path: Path) -> Path | None:
    """The file that holds the log ``path``: itself when it exists, else its compressed copy; None: neither."""
    if path.is_file():
        return path
    gz = gz_path(path)
    return gz if gz.is_file() else None


def exists(path: Path) -> bool:
    """Whether the log ``path`` exists, plain or compressed."""
    return stored(path) is not None


def has_content(path: Path) -> bool:
    """Whether the log ``path`` exists and is not empty."""
    where = stored(path)
    try:
        return where is not None and where.stat().st_size > 0
    except FileNotFoundError:  # compressed or put back in plain form meanwhile
        return exists(path)


def logs_in(folder: Path, suffix: str = ".jsonl") -> list[Path]:
    """The plain paths of every log in ``folder`` (plain or compressed), sorted."""
    if not folder.is_dir():
        return []
    names = {p.name.removesuffix(GZ_SUFFIX) for p in folder.iterdir() if p.name.endswith((suffix, suffix + GZ_SUFFIX))}
    return [folder / name for name in sorted(names)]


def gunzip(data: bytes) -> bytes:
    """The content of gzip ``data`` (every member); a member cut short or corrupt ends it: what decoded is kept."""
    out: list[bytes] = []
    while data:
        inflater = zlib.decompressobj(wbits=31)
        try:
            out.append(inflater.decompress(data))
        except zlib.error:
            break
        if not inflater.eof:
            break
        data = inflater.unused_data
    return b"".join(out)


def read_bytes(path: Path) -> bytes:
    """The content of the log ``path`` (plain or compressed); ``b""`` when it does not exist. Safe while a
    writer compresses it or puts it back in plain form."""
    for _ in range(3):
        where = stored(path)
        if where is None:
            return b""
        try:
            data = where.read_bytes()
        except FileNotFoundError:  # replaced meanwhile: read the other form
            continue
        return gunzip(data) if where.name.endswith(GZ_SUFFIX) else data
    return b""


def read_text(path: Path) -> str:
    """The content of the log ``path`` as text (see :func:`read_bytes`; a character cut by a torn line is
    replaced)."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


def prepare_append(path: Path) -> None:
    """Make ``path`` the plain, appendable log: a compressed copy is put back in plain form (synced before the
    compressed copy is removed), or removed when a plain file exists (stale)."""
    gz = gz_path(path)
    if not gz.exists():
        return
    if not path.exists():
        atomic_write_bytes(path, gunzip(gz.read_bytes()))
    gz.unlink(missing_ok=True)


def compress(path: Path) -> Path | None:
    """Replace the plain log ``path`` by its compressed copy (synced before the plain file is removed); returns
    the compressed file, or None when there is no plain log."""
    if not path.is_file():
        return None
    gz = gz_path(path)
    atomic_write_bytes(gz, gzip.compress(path.read_bytes(), compresslevel=LEVEL, mtime=0))
    os.unlink(path)
    return gz


def compress_all(folder: Path, suffix: str = ".jsonl") -> list[Path]:
    """Compress every plain log in ``folder``; returns the compressed files written."""
    if not folder.is_dir():
        return []
    written = [compress(p) for p in sorted(folder.glob(f"*{suffix}"))]
    return [p for p in written if p is not None]
