"""The Ray actor that owns one node's sandbox worker pool (imported only where ``ray`` is installed).

It is the same :class:`~tfr_helpers.sandbox.Sandbox` as the local executor's, created inside the actor
process on its node, so programs get the same isolation (namespaces, uid drop, limits) and the same seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ray

from tfr_helpers.sandbox import Sandbox

if TYPE_CHECKING:
    from tfr_helpers.records import ProgramRun
    from tfr_helpers.sandbox.spec import Limits


@ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0)
class SandboxActor:
    """One node's sandbox pool; batches run with ``Sandbox.run_many`` (results in input order).

    Args:
        limits: Default limits of the sandbox.
        workers: Workers per kind on this node.
        preload: Modules the workers import once (None: the sandbox's light/heavy default).
    """

    def __init__(self, limits: Limits, workers: int, preload: tuple[str, ...] | None) -> None:
        self.sandbox = Sandbox(limits, workers=workers, preload=preload)

    def ready(self) -> dict[str, Any]:
        """The node this actor runs on and its sandbox's isolation (the actor is up when this returns)."""
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "workers": self.sandbox.n_workers,
            "isolation": self.sandbox.isolation,
        }

    def run_many(self, jobs: Sequence[tuple[str, Sequence[Any]]], limits: Limits) -> list[ProgramRun]:
        """Run a share of a batch on this node; results in the share's order."""
        return list(self.sandbox.run_many(jobs, progress=False, limits=limits))

    def close(self) -> None:
        """Stop this node's workers."""
        self.sandbox.close()
