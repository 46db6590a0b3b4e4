"""List every RQ1 label that differs between two runs of the same study: the pairs whose case, reliability, cause
or failure mode changed, with the deciding outcomes' statuses and own times on both sides.

Where ``results_digest.py`` says *whether* two runs agree, this says *where* they do not (a change of the time
rule, say). It reads each run's ``evaluate_code_test_pairs`` records, so the runs need not have finished their
other stages.

Usage: ``uv run python benchmarks/perf/label_changes.py BEFORE_RUN AFTER_RUN``
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.steps.time_limits import limit_clock
from tfr_helpers.records import PairEvaluation, TestOutcome

FIELDS = ("case", "reliability", "cause", "failure_mode")


def pairs_of(run: Path) -> dict[tuple[str, str, int], PairEvaluation]:
    """(model, test id, code index) -> the pair's record."""
    records = [r for e in RunStore(run).read_checkpoint("test_execution_feedback") for r in decode_records(e["data"])]
    return {(p.model, p.test_id, p.code_index): p for p in records if isinstance(p, PairEvaluation)}


def _side(o: TestOutcome) -> str:
    return f"{o.status} {limit_clock(o):.2f} s"


def main() -> None:
    """Print the changed pairs and a count per change."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = pairs_of(args.before), pairs_of(args.after)
    print(
        f"pairs: {len(before)} before, {len(after)} after; only before {len(before.keys() - after.keys())}, "
        f"only after {len(after.keys() - before.keys())}"
    )
    changes: Counter[str] = Counter()
    for key in sorted(before.keys() & after.keys()):
        a, b = before[key], after[key]
        diff = [f"{f} {getattr(a, f)} -> {getattr(b, f)}" for f in FIELDS if getattr(a, f) != getattr(b, f)]
        if not diff:
            continue
        changes[f"{a.case}/{a.reliability} -> {b.case}/{b.reliability}"] += 1
        print(
            f"{key[0]} {key[1]} code {key[2]}: {'; '.join(diff)} (code {_side(a.generated)} -> {_side(b.generated)}, "
            f"reference {_side(a.reference)} -> {_side(b.reference)})"
        )
    print(f"{sum(changes.values())} pairs changed a label" + "".join(f"\n  {n} {c}" for c, n in changes.most_common()))


if __name__ == "__main__":
    main()
