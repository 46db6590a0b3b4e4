"""The Ray executor: sandbox batches go to one actor per node, which owns that node's worker pool.

The driver (the process running the stages) keeps the execution cache, the checkpoints and the model calls;
only cache misses come here. A batch is split across the live actors in proportion to their nodes' CPUs
(interleaved, so expensive neighbours spread) and reassembled in input order. When an actor dies (its node
removed, its processes killed) the jobs of its unfinished share are sent again to the surviving actors; with
none left :class:`RayClusterLostError` is raised, so the stage leaves those items undone and a rerun with the
same run directory resumes from the checkpoints. Nothing is scheduled by hand beyond that split: Ray places
the actors (node affinity), moves the objects and reports deaths (``ray.get``/``ray.wait``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfr_helpers.errors import SandboxError
from tfr_helpers.executors.ray_start import import_ray, start_local_ray

if TYPE_CHECKING:
    from tfr_helpers.executors import Job
    from tfr_helpers.records import ProgramRun
    from tfr_helpers.sandbox.spec import Limits

log = logging.getLogger(__name__)

ACTOR_START_TIMEOUT_S = float(os.environ.get("TFR_RAY_ACTOR_START_TIMEOUT_S", "180"))
"""How long a new node actor may take to start its sandbox (worker preload included) before it is given up."""


class RayClusterLostError(SandboxError):
    """No live node actor is left to run a batch (every node died or none has a CPU)."""


def split(indices: Sequence[int], cpus: Sequence[int]) -> list[list[int]]:
    """Deal ``indices`` to actors in proportion to their CPUs, interleaved; each share keeps input order.

    >>> split(range(6), [2, 1])
    [[0, 1, 3, 4], [2, 5]]
    """
    slots = [a for a, n in enumerate(cpus) for _ in range(max(1, n))]
    shares: list[list[int]] = [[] for _ in cpus]
    for k, index in enumerate(indices):
        shares[slots[k % len(slots)]].append(index)
    return shares


class RayExecutor:
    """Runs sandbox batches on a Ray cluster, one :class:`SandboxActor` per node with CPUs.

    Args:
        limits: Default limits of the node sandboxes.
        workers: Workers per kind on every node (None: the node's CPU count).
        preload: Modules the workers import once.
        address: A cluster to join (``auto``, ``host:port``, ``ray://host:10001``); None: the cluster this
            process is already connected to, else a local Ray started on demand.

    Raises:
        RayNotInstalledError: ``ray`` is not installed.
    """

    def __init__(
        self,
        limits: Limits,
        workers: int | None = None,
        preload: tuple[str, ...] | None = None,
        address: str | None = None,
    ) -> None:
        self._ray = import_ray()
        self._limits, self._workers, self._preload = limits, workers, preload
        self._actors: dict[str, tuple[Any, int]] = {}
        """Node id -> (actor handle, the node's CPUs)."""
        self._started_ray = False
        self._address = address

    # cluster ------------------------------------------------------------------------------------
    def _connect(self) -> None:
        if self._ray.is_initialized():
            return
        if self._address is None:
            start_local_ray()
        else:
            self._ray.init(address=self._address, log_to_driver=False)
        self._started_ray = True

    def _refresh(self) -> None:
        """Forget actors of dead nodes; start one actor on every live node with CPUs that has none."""
        self._connect()
        ray = self._ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # ray: an optional extra

        from tfr_helpers.executors.ray_actor import SandboxActor  # deferred: it imports ray, an optional extra

        nodes = {
            n["NodeID"]: int(n["Resources"].get("CPU", 0))
            for n in ray.nodes()
            if n.get("Alive") and n["Resources"].get("CPU", 0) >= 1
        }
        for node in set(self._actors) - set(nodes):
            self._forget(node, "its node is gone")
        new = {}
        for node, cpus in nodes.items():
            if node in self._actors:
                continue
            actor = SandboxActor.options(  # type: ignore[attr-defined]
                scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)
            ).remote(self._limits, self._workers or cpus, self._preload)
            new[node] = (actor, cpus, actor.ready.remote())
        for node, (actor, cpus, ready) in new.items():
            try:
                info = ray.get(ready, timeout=ACTOR_START_TIMEOUT_S)
            except (ray.exceptions.RayError, TimeoutError) as exc:  # GetTimeoutError is a TimeoutError
                log.warning("ray executor: no sandbox actor on node %s: %s", node[:12], str(exc).splitlines()[0])
                ray.kill(actor, no_restart=True)
                continue
            for warning in info["isolation"].warnings:
                log.warning("ray executor: node %s: sandbox: %s", node[:12], warning)
            self._actors[node] = (actor, cpus)

    def _forget(self, node: str, why: str) -> None:
        actor, _ = self._actors.pop(node)
        log.warning("ray executor: node %s left the pool (%s)", node[:12], why)
        try:
            self._ray.kill(actor, no_restart=True)
        except Exception:  # noqa: BLE001 - the actor may already be gone with its node
            pass

    # batches ------------------------------------------------------------------------------------
    def run_many(self, jobs: Sequence[Job], desc: str, limits: Limits) -> list[ProgramRun]:
        """Run ``jobs`` across the node actors; results in input order.

        Raises:
            RayClusterLostError: every actor died before the batch finished (nothing of it is returned).
        """
        ray = self._ray
        results: list[ProgramRun | None] = [None] * len(jobs)
        pending = list(range(len(jobs)))
        while pending:
            self._refresh()
            if not self._actors:
                raise RayClusterLostError(
                    f"the Ray cluster has no live node with a CPU left ({len(pending)} of {len(jobs)} sandbox "
                    f"jobs of {desc or 'a batch'} not run): restart the cluster (or set concurrency.executor: "
                    "local) and rerun the same command with the same --run-dir to continue"
                )
            nodes = list(self._actors)
            shares = split(pending, [self._actors[n][1] for n in nodes])
            refs = {
                self._actors[n][0].run_many.remote([jobs[i] for i in share], limits): (n, share)
                for n, share in zip(nodes, shares, strict=True)
                if share
            }
            failed: list[int] = []
            for ref, (node, share) in refs.items():
                try:
                    runs = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as exc:
                    self._forget(node, type(exc).__name__)
                    failed.extend(share)
                    continue
                for i, run in zip(share, runs, strict=True):
                    results[i] = run
            if failed:
                log.warning("ray executor: %d jobs of %s sent again to the surviving nodes", len(failed), desc)
            pending = sorted(failed)
        return [r for r in results if r is not None]

    def close(self) -> None:
        """Stop the node actors (and the local Ray, when this executor started it)."""
        ray = self._ray
        for node in list(self._actors):
            actor, _ = self._actors.pop(node)
            try:
                ray.get(actor.close.remote(), timeout=30)
            except Exception:  # noqa: BLE001 - closing a dead or slow actor: kill it below
                pass
            try:
                ray.kill(actor, no_restart=True)
            except Exception:  # noqa: BLE001
                pass
        if self._started_ray and ray.is_initialized():
            ray.shutdown()
        self._started_ray = False
