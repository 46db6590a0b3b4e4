"""The CPU of the ``screen_feedback`` stage on a finished run's records, and a digest of its decisions.

Copies what the stage reads from a run directory (``config.json``, ``tasks.json`` and the checkpoints of
``generate_codes``, ``generate_tests`` and ``evaluate_code_test_pairs``) into a temporary directory, runs the stage
there with the run's own params (``config.json``), and prints this process's user and system CPU over the stage (the
driver: the strategies; the sandbox workers and their programs are apart, in ``workers``), the wall, and the sha256
of the decisions (strategy, feedback, decision, reasoning, decision file, sorted), which must not change.

Run it under two checkouts, alternating, for an A/B on a shared machine (wall times are noise there, CPU is not):
``for i in 1 2; do PYTHONPATH=OLD uv run python benchmarks/perf/screen_cpu.py RUN; uv run python
benchmarks/perf/screen_cpu.py RUN; done`` (``PYTHONPATH=OLD`` imports the other checkout's ``tfr_helpers``).
The execution cache (``TFR_CACHE_DIR``) should be warm: the programs it runs (the prompts' examples) are then
served from it, except the ones that time out, which are never cached.

Usage: ``uv run python benchmarks/perf/screen_cpu.py RUN_DIR [--keep]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

import tfr_helpers
from tfr_helpers import logfiles
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import checkpoint_entries

READS = ("generated_codes", "generated_tests", "test_execution_feedback")
"""The checkpoints the stage's items and strategies are built from."""


def _copy(run: Path, to: Path) -> None:
    (to / "checkpoints").mkdir(parents=True)
    for name in ("config.json", "tasks.json"):
        shutil.copy2(run / name, to / name)
    for name in READS:  # a finished run's checkpoints are compressed, a running one's plain
        stored = logfiles.stored(run / "checkpoints" / f"{name}.jsonl")
        if stored is None:
            raise SystemExit(f"{run} has no checkpoint {name}: run its first three stages first")
        shutil.copy2(stored, to / "checkpoints" / stored.name)


def decisions_digest(run: Path) -> tuple[int, str]:
    """How many decisions the run's screening checkpoint holds and the sha256 of them, sorted."""
    rows = []
    for entry in checkpoint_entries(run / "checkpoints" / "screening_results.jsonl"):
        for r in decode_records(entry["data"]):
            rows.append([r.strategy, r.feedback_id, r.decision, r.reasoning, r.decision_path])
    rows.sort(key=lambda r: (r[0], r[1]))
    return len(rows), hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run directory whose first three stages are done")
    parser.add_argument("--keep", action="store_true", help="keep the temporary run directory (its path is printed)")
    args = parser.parse_args()
    config = config_from_dict(json.loads((args.run / "config.json").read_text())["config"], source="config.json")
    tmp = Path(tempfile.mkdtemp(prefix="screen-cpu-"))
    try:
        run = tmp / "run"
        _copy(args.run, run)
        before, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        run_stages(config, run, "screen_feedback", progress=False)
        wall = time.monotonic() - t0
        after, children_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        n, digest = decisions_digest(run)
        print(
            f"code {Path(tfr_helpers.__file__).parent.parent}: screen_feedback driver CPU user "
            f"{after.ru_utime - before.ru_utime:.1f} s, system {after.ru_stime - before.ru_stime:.1f} s; workers "
            f"{children_after.ru_utime - children.ru_utime + children_after.ru_stime - children.ru_stime:.1f} s; "
            f"wall {wall:.1f} s; {n} decisions sha256 {digest}",
            flush=True,
        )
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
