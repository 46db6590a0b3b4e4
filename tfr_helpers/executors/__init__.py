"""Where sandbox batches run: the local worker pool, or one actor per node of a Ray cluster.

``concurrency.executor`` picks one (``local`` by default); :func:`make_executor` builds it. Both take the
execution cache's misses from ``RunContext.run_programs`` and return one ``ProgramRun`` per job, in order;
the cache, the checkpoints and the model calls stay in the driver process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from tfr_helpers.executors.local import LocalExecutor
from tfr_helpers.executors.ray_executor import RayExecutor

if TYPE_CHECKING:
    from tfr_helpers.records import ProgramRun
    from tfr_helpers.sandbox.spec import Limits

Job = tuple[str, Sequence[Any]]
"""One ``(program, test specs)`` pair, as ``Sandbox.run_many`` takes it."""


class Executor(Protocol):
    """Runs sandbox batches; results in input order, one per job."""

    def run_many(self, jobs: Sequence[Job], desc: str, limits: Limits) -> list[ProgramRun]:
        """Run ``jobs`` under ``limits`` and return their runs in input order."""
        ...

    def close(self) -> None:
        """Release the workers (and, for Ray, the actors)."""
        ...


def make_executor(
    kind: str, limits: Limits, workers: int | None, preload: tuple[str, ...] | None, address: str | None = None
) -> Executor:
    """The executor named by ``concurrency.executor``.

    Args:
        kind: ``local`` or ``ray``.
        limits: Default limits of the sandboxes.
        workers: ``concurrency.sandbox_workers`` (None: one per core; for Ray, one per CPU of each node).
        preload: Modules the sandbox workers import once (``RunContext.preload``).
        address: ``concurrency.ray_address`` (None: a local Ray started on demand).

    Raises:
        RayNotInstalledError: ``ray`` is asked for but not installed.
    """
    if kind == "ray":
        return RayExecutor(limits, workers=workers, preload=preload, address=address)

    return LocalExecutor(limits, workers=workers, preload=preload)
