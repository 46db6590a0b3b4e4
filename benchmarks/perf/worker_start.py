"""How long the sandbox takes to start each kind of worker pool, from a pool's first job to all its workers ready.

A pool starts its workers on first use (``tfr_helpers.sandbox.pool._Pool``): the light ones with the standard
library's preloads, the hypothesis ones with Hypothesis too, the heavy ones with numpy, pandas, scipy, sklearn,
seaborn, matplotlib and Hypothesis. Every stage that runs programs in a fresh process (each notebook's kernel in
``tfr run``) pays these start-ups before its first program of that kind runs.

Run it under two checkouts, alternating, for an A/B (``PYTHONPATH=OLD`` imports the other checkout's
``tfr_helpers``): ``for i in 1 2; do PYTHONPATH=OLD uv run python benchmarks/perf/worker_start.py; uv run python
benchmarks/perf/worker_start.py; done``.

Usage: ``uv run python benchmarks/perf/worker_start.py [--workers N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import tfr_helpers
from tfr_helpers.sandbox import Sandbox

KINDS = ("light", "hypothesis", "heavy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="workers per pool (default: cores)")
    parser.add_argument("--rounds", type=int, default=2, help="sandboxes started one after the other")
    args = parser.parse_args()
    print(f"code {Path(tfr_helpers.__file__).parent.parent}, {args.workers} workers per pool")
    for round_ in range(1, args.rounds + 1):
        t0 = time.perf_counter()
        with Sandbox(workers=args.workers) as sandbox:  # starts the light workers (its self-test runs there)
            parts = [f"light with the self-test {time.perf_counter() - t0:.2f} s"]
            for kind in KINDS[1:]:
                pool = sandbox._pools[kind]
                t0 = time.perf_counter()
                pool.get()  # starts the pool's workers
                parts.append(f"{kind} {time.perf_counter() - t0:.2f} s")
            print(f"round {round_}: " + ", ".join(parts), flush=True)


if __name__ == "__main__":
    main()
