"""RQ2's step-level contrast on real trajectories: does a regression follow unreliable feedback more often than
reliable feedback, among steps whose code already passed?

A step can go Pass->Fail only from passing code, and a generated test that passing code fails is nearly always
wrong, so "most Pass->Fail steps followed unreliable feedback" holds almost by construction. The contrast that can
fail is conditional on the code passing: P(Pass->Fail | passed, unreliable) against P(Pass->Fail | passed,
reliable), per set (one model under one published run, never pooled), each with its counts, its task-clustered
interval, and the mean of per-task shares beside the pooled one (each task weighs 1: one long trajectory does not
carry a set). The difference (unreliable minus reliable) has a cluster-bootstrap interval that resamples whole tasks
for both sides at once. Where one side has no passed-before step the row says so and gives no difference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import draws_interval, ratio_draws
from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, clustered_rows, interval_columns, share_columns
from tfr_helpers.arms.trajectories.arm import part_in
from tfr_helpers.arms.trajectories.report.trajectories import present, steps_frame
from tfr_helpers.records import Results

SIDES = ("unreliable", "reliable")
"""The two step classes compared (the first minus the second)."""
COLUMNS = ["dataset", "model", "passed_steps", "passed_tasks", "status"]
COLUMNS += [f"{side}_{c}" for side in SIDES for c in SHARE_COLUMNS]
COLUMNS += ["diff_pct", "diff_low", "diff_high", "diff_clusters"]
BOTH = "both sides"
"""Status of a row with passed-before steps on both sides (the only rows with a difference)."""


def contrast(results: Results) -> pd.DataFrame:
    """Per set: among steps whose code passed the benchmark before, P(Pass->Fail) after unreliable and after
    reliable feedback (``<side>_k/n``, pooled ``pct`` with its interval, ``task_mean_pct``), and their difference
    in percentage points with its task-clustered interval; ``status`` says which side is empty."""
    if not present(results):
        return pd.DataFrame(columns=COLUMNS)
    frame = steps_frame(results)
    passed = frame[(frame["benchmark_before"] == True) & frame["benchmark_after"].notna()]  # noqa: E712
    rows = []
    for info in p.sets if (p := part_in(results)) else []:
        mine = passed[passed["dataset"] == info.name]
        rs = clustered_rows(mine["task_id"].astype(str).tolist())
        broke = ~mine["benchmark_after"].astype(bool).to_numpy()
        row: dict[str, object] = {
            "dataset": info.name,
            "model": info.model,
            "passed_steps": len(mine),
            "passed_tasks": int(mine["task_id"].nunique()),
        }
        sides = {side: (mine["step_class"] == side).to_numpy() for side in SIDES}
        for side, among in sides.items():
            row |= share_columns(rs, broke, among, f"{side}_") if len(mine) else {f"{side}_k": 0, f"{side}_n": 0}
        empty = [side for side, among in sides.items() if not among.any()]
        row["status"] = BOTH if not empty else f"no passed-before {' or '.join(empty)} step"
        if not empty:
            a = ratio_draws(rs, broke & sides["unreliable"], sides["unreliable"])
            b = ratio_draws(rs, broke & sides["reliable"], sides["reliable"])
            iv = draws_interval(a[0] - b[0], a[1] - b[1], a[2] + b[2], rs)
            cols = interval_columns(iv, "diff_")
            row |= {k: cols[k] for k in ("diff_pct", "diff_clusters")}
            flat = not np.nanstd(a[1] - b[1]) > 0  # e.g. no Pass->Fail on either side: no interval to give
            for k in ("diff_low", "diff_high"):  # a difference of shares lies in [-100, 100]
                bound = None if flat else cols[k]
                row[k] = None if bound is None else min(max(float(bound), -100.0), 100.0)  # type: ignore[arg-type]
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS).replace({np.nan: None})


def _side(row: dict[str, Any], side: str) -> str:
    k, n = row.get(f"{side}_k") or 0, row.get(f"{side}_n") or 0
    if not n:
        return "none passed before"
    interval = f" [{row[f'{side}_low']}, {row[f'{side}_high']}]" if row.get(f"{side}_low") is not None else ""
    mean = row.get(f"{side}_task_mean_pct")
    return f"{row[f'{side}_pct']}%{interval} ({k}/{n}; per task {mean}%)"


def contrast_line(row: dict[str, Any]) -> str:
    """One set's contrast in words (for ``tfr analyze`` and the README)."""
    text = (
        f"P(Pass->Fail | passed, unreliable) {_side(row, 'unreliable')} vs P(Pass->Fail | passed, reliable) "
        f"{_side(row, 'reliable')}"
    )
    others = int(row.get("passed_steps") or 0) - int(row.get("unreliable_n") or 0) - int(row.get("reliable_n") or 0)
    text += f" (of {row.get('passed_steps')} passed-before steps; {others} mixed, indeterminate or not reproduced)"
    if row.get("status") != BOTH:
        return f"{text}; {row.get('status')}: no contrast"
    interval = f" [{row['diff_low']}, {row['diff_high']}]" if row.get("diff_low") is not None else ""
    return f"{text}; difference {row['diff_pct']} pp{interval}"
