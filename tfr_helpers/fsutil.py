"""Atomic file writes: a file is either its old content or its complete new content, never half-written.

Every writer in the package (run directory, response cache, benchmark cache and selection, analysis outputs)
goes through :func:`atomic_path` or :func:`atomic_write_text`. The temporary file sits beside the target (same
filesystem, so the final ``os.replace`` is atomic), has a name unique per process, thread and call (concurrent
writers of one path never share it), and gets the umask's usual permissions (``mkstemp`` would make it 0600).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tfr_helpers.errors import DataError
from tfr_helpers.launch import env_path


def path_name(name: str) -> str:
    """``name`` as one file or directory name: each ``/`` becomes ``_`` (``HumanEval/149`` -> ``HumanEval_149``)."""
    return name.replace("/", "_")


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a fresh temporary path beside ``path``; on success rename it over ``path``, on error delete it.

    The caller writes the temporary file (and may verify it) inside the ``with`` block; ``path`` only ever
    becomes visible complete. The parent directory is created when missing.

    Args:
        path: The file to (re)place.

    Yields:
        An empty, already created temporary file in ``path``'s directory.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex[:8]}.tmp")
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (flushed and, unless ``fsync=False``, fsynced before the rename);
    return ``path``. ``fsync=False`` is for files that can be rebuilt (thousands of human-readable artifacts of one
    stage: an fsync each would dominate its time on a busy disk)."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
    return path


def atomic_write_text(path: Path, text: str, *, fsync: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write_bytes`); return ``path``."""
    return atomic_write_bytes(path, text.encode("utf-8"), fsync=fsync)


def override_dir(given: Path | None, env_var: str, what: str, layout: str) -> Path | None:
    """The data override directory: ``given`` if set, else ``$env_var``; None when neither is set.

    Args:
        given: An explicit directory (a function argument), which wins over the environment.
        env_var: The environment variable naming the directory.
        what: What the directory holds, for the error (``benchmark``, ``replay``).
        layout: How the directory is laid out, for the error.

    Raises:
        DataError: The named directory does not exist.
    """
    if given is not None:
        path = Path(given).expanduser()
    else:  # relative to the launching directory, wherever a kernel or worker runs
        env = env_path(env_var)
        if env is None:
            return None
        path = env
    if not path.is_dir():
        arg = "data_dir" if what == "benchmark" else f"{what}_dir"
        raise DataError(
            f"{what} directory {path} ({arg} or {env_var}) does not exist; point it at a directory laid out as {layout}, "
            "or unset it"
        )
    return path
