"""The test processes keep their modules' bytecode even where the environment forbids writing it.

Imported first by ``tests/conftest.py``, so that it acts before the test modules load and before the pytest-xdist
workers start (they inherit the environment)."""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

BYTECODE = Path(__file__).resolve().parents[2] / ".pytest_cache" / "bytecode"
"""Where the test processes write their bytecode when the environment forbids it (:func:`keep_bytecode`): inside
the checkout, ignored by git, gone with the clone."""


def keep_bytecode(environ: MutableMapping[str, str]) -> bool:
    """Where ``environ`` forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``) and names no ``PYTHONPYCACHEPREFIX``,
    name :data:`BYTECODE` as the prefix instead; returns whether it changed ``environ``.

    Without it every process the suite starts (the workers, the ``tfr`` and papermill commands, the fresh
    interpreters of ``tests/test_imports.py``) compiles pandas, scipy, matplotlib and the package from source: about
    3.5 s of CPU per process that imports the analysis, against 2 s with the bytecode kept. The notebook kernels do
    the same (``tfr_helpers.notebooks.running.kernel_env``). A prefix of the user's own is kept, and without the
    setting Python writes its bytecode where it always does."""
    if not environ.get("PYTHONDONTWRITEBYTECODE") or environ.get("PYTHONPYCACHEPREFIX"):
        return False
    del environ["PYTHONDONTWRITEBYTECODE"]
    environ["PYTHONPYCACHEPREFIX"] = str(BYTECODE)
    return True


if keep_bytecode(os.environ):  # this process too, for the modules it has not loaded yet
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(BYTECODE)
