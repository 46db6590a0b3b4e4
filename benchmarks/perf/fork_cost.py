"""What a fork and the child's exit cost a process that preloaded a given set of modules (a sandbox worker's).

Imports the modules, freezes the collected objects (as a worker does), then forks ``-n`` children that exit at
once, reaping each, and prints the resident memory, the wall time per fork and exit, the ``fork`` call alone, and
the CPU of the parent and of the reaped children per fork. Run once per worker kind:

``uv run python benchmarks/perf/fork_cost.py light|hypothesis|heavy|numpy-pandas [-n 100] [--huge]``

``--huge`` backs the process's anonymous memory with huge pages first, as a worker does
(``preload.collapse_huge_pages``), and prints how much of it is; ``--work`` makes each child (of a heavy process)
build a small DataFrame and a figure before it exits, as a BigCodeBench test might, and the parent collapse again
after each child, as a worker does.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import resource
import time

from tfr_helpers.sandbox.preload import (
    LIGHT_PRELOAD,
    PRELOAD,
    collapse_huge_pages,
)  # what a worker imports itself (not the pool's records)

KINDS = {
    "light": LIGHT_PRELOAD,
    "hypothesis": (*LIGHT_PRELOAD, "hypothesis"),
    "heavy": PRELOAD,
    "numpy-pandas": (*LIGHT_PRELOAD, "numpy", "pandas"),
}
"""The preloads of each kind of worker (``routing.HYPOTHESIS_PRELOAD`` for the hypothesis workers), and of a
candidate one (``numpy-pandas``: no worker preloads exactly these yet)."""


def _cpu() -> tuple[float, float]:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def _work() -> None:
    """What a child of a heavy worker might do: a small DataFrame, a group-by, a figure."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"a": np.arange(1000), "b": np.arange(1000) * 2.0})
    frame.groupby(frame.a % 7).b.sum().to_dict()
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("-n", type=int, default=100)
    parser.add_argument("--huge", action="store_true", help="collapse into huge pages first, as a worker does")
    parser.add_argument("--work", action="store_true", help="each child builds a DataFrame and a figure (heavy only)")
    args = parser.parse_args()
    for name in KINDS[args.kind]:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    huge = collapse_huge_pages() if args.huge else []
    with open("/proc/self/statm") as fh:
        rss_mb = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    with open("/proc/self/smaps_rollup") as fh:
        kib = {f[0]: int(f[1]) for f in (line.split() for line in fh) if len(f) == 3}
    (me0, ch0), t0, in_fork = _cpu(), time.perf_counter(), 0.0
    for _ in range(args.n):
        f0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            if args.work:
                _work()
            os._exit(0)
        in_fork += time.perf_counter() - f0
        os.waitpid(pid, 0)
        if huge and args.work:
            collapse_huge_pages(huge)
    (me1, ch1), wall = _cpu(), time.perf_counter() - t0
    n = args.n
    print(
        f"{args.kind:<10} RSS {rss_mb:5.0f} MiB (anonymous {kib['Anonymous:'] // 1024}, in huge pages "
        f"{kib.get('AnonHugePages:', 0) // 1024}): per fork and exit {1000 * wall / n:6.2f} ms wall "
        f"(the fork call {1000 * in_fork / n:.2f}), CPU parent {1000 * (me1 - me0) / n:.2f} ms, "
        f"child {1000 * (ch1 - ch0) / n:.2f} ms; load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
