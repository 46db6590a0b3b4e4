"""A two-node Ray test cluster on this one machine (``ray.cluster_utils.Cluster``), started robustly on 2 cores.

Each node's raylet waits a hard-coded 15 s for its dashboard agent to write its port files and aborts if the
agent is later (ray-project/ray#65983); on two shared cores the agent's ``import ray`` alone can take
that long, and a node starts five such Python processes. So: the nodes start under
``tfr_helpers.executors.ray_start.node_env`` (which hides from them a dev-only package that costs half of
``import ray``), without the dashboard, with a small object store and one CPU each, one at a time, with the Ray
processes at a raised CPU priority *only while a node starts* (root only; put back to normal right after, so the
tests' work competes like any other), and a failed start is retried.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any

NODE_ARGS: dict[str, Any] = {"num_cpus": 1, "object_store_memory": 80 * 1024 * 1024}
"""Every node: one CPU (two in all), an 80 MiB object store (the batches are small)."""
HEAD_ARGS: dict[str, Any] = {**NODE_ARGS, "include_dashboard": False}
START_TRIES = 3
BOOST = -5
"""Niceness of this process while a node starts (its Ray processes inherit it); 0 afterwards."""


@contextlib.contextmanager
def raised_priority() -> Iterator[None]:
    """Run the block at niceness :data:`BOOST` when allowed (root); afterwards, every process started meanwhile
    (the node's GCS, raylet, agents) is put back to niceness 0, and so is this process."""
    before = set(_children())
    try:
        os.setpriority(os.PRIO_PROCESS, 0, BOOST)
        boosted = True
    except PermissionError:
        boosted = False
    try:
        yield
    finally:
        if boosted:
            for pid in set(_children()) - before:
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, pid, 0)
            os.setpriority(os.PRIO_PROCESS, 0, 0)


def _children() -> list[int]:
    """Every live process descended from this one (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = open(f"/proc/{entry}/stat").read()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    me, found, frontier = os.getpid(), [], [os.getpid()]
    while frontier:
        parent = frontier.pop()
        kids = [pid for pid, ppid in parents.items() if ppid == parent and pid != me]
        found.extend(kids)
        frontier.extend(kids)
    return found


def start_cluster() -> Any:
    """A ``Cluster`` with a head and a second node (1 CPU each), both up; retried :data:`START_TRIES` times."""
    from tfr_helpers.executors.ray_start import import_ray, node_env

    import_ray()  # sets RAY_ENABLE_UV_RUN_RUNTIME_ENV=0 for the nodes and the drivers started from here
    from ray.cluster_utils import Cluster

    error: Exception | None = None
    for _ in range(START_TRIES):
        cluster = None
        try:
            with node_env(), raised_priority():
                cluster = Cluster(initialize_head=True, head_node_args=HEAD_ARGS)
            with node_env(), raised_priority():
                cluster.add_node(**NODE_ARGS)
            cluster.wait_for_nodes(timeout=60)
            return cluster
        except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception when a node times out
            error = exc
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.shutdown()
            time.sleep(2)
    raise RuntimeError(f"the two-node Ray test cluster did not start in {START_TRIES} tries: {error}")
