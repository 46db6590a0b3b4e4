"""Starting Ray nodes on a small, loaded machine: a local Ray on demand, and the environment its processes get.

A node's raylet waits a hard-coded 15 s for its dashboard agent to write its port files and aborts when the
agent is later (ray-project/ray#65983; no setting changes it in Ray 2.60). A node starts five Python
processes that each ``import ray``: 3.1 s of CPU apiece in the development venv, 1.6 s of which is
``jsonschema`` building the ``rfc3987_syntax`` grammar at import, a package only the dev group brings
(jupyterlab -> jupyter-events[format-nongpl]); an install with ``uv sync --extra ray`` alone lacks it.
:func:`node_env` hides it from the node's processes (jsonschema then skips its ``iri`` format check, which Ray
does not use), halving their start-up; the sandbox's workers get their own minimal environment and never see it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tfr_helpers.errors import SandboxError

log = logging.getLogger(__name__)

LOCAL_START_TRIES = 3
"""Attempts at starting a local Ray on demand (``ray_address`` null)."""


@contextlib.contextmanager
def node_env() -> Iterator[None]:
    """``PYTHONPATH`` led by a directory whose ``rfc3987_syntax`` raises ImportError, for the Ray node processes
    started in the block; restored afterwards (this process and later drivers never see it)."""
    shim = Path(tempfile.mkdtemp(prefix="tfr-ray-node-"))
    (shim / "rfc3987_syntax").mkdir()
    (shim / "rfc3987_syntax" / "__init__.py").write_text('raise ImportError("hidden from Ray node processes")\n')
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(shim), before) if p)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before


def start_local_ray(tries: int = LOCAL_START_TRIES) -> None:
    """Start a new single-node Ray in this process (no dashboard), retried when the node times out.

    A node's raylet gives its dashboard agent a hard-coded 15 s to start (ray-project/ray#65983), which a
    loaded small machine can miss; the node's processes start under :func:`node_env`, and a failed start is
    retried ``tries`` times.

    Raises:
        SandboxError: the node did not start in ``tries`` attempts (the message names the alternative).
    """
    ray = import_ray()
    error = ""
    for attempt in range(1, tries + 1):
        try:  # address "local": a new instance, never a stale one named in /tmp/ray
            with node_env():
                ray.init(address="local", include_dashboard=False, log_to_driver=False)
            return
        except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception when its node times out
            error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            log.warning("ray executor: local Ray did not start (attempt %d of %d): %s", attempt, tries, error)
            ray.shutdown()
    raise SandboxError(
        f"a local Ray did not start in {tries} attempts ({error}): start one with `ray start --head "
        "--include-dashboard=false` and set concurrency.ray_address: auto, or use concurrency.executor: local"
    )


class RayNotInstalledError(SandboxError):
    """``concurrency.executor: ray`` without the ``ray`` extra installed."""


def import_ray() -> Any:
    """The ``ray`` module; else :class:`RayNotInstalledError` naming the fix.

    Sets ``RAY_ENABLE_UV_RUN_RUNTIME_ENV=0`` first (Ray reads it at import): a driver started by ``uv run`` would
    otherwise make every Ray worker start through ``uv run`` with the working directory packaged, which on a small
    machine keeps the actors from starting; the workers run the interpreter their node was started with.
    """
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray  # ray: an optional extra
    except ImportError as exc:
        raise RayNotInstalledError(
            "concurrency.executor is 'ray' but Ray is not installed: run `uv sync --extra ray` "
            "(or set concurrency.executor: local)"
        ) from exc
    return ray
