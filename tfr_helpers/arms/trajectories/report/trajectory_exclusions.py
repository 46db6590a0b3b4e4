"""What the steps left out of a set's RQ2 headline could do to it: the judged fraction, bounds on
P(Pass->Fail | passed) with the unknown steps counted each way, and the excluded tasks against the kept ones.

The headline population is the *judged* steps (reliable, unreliable or mixed). The rest are counted, never dropped
silently: ``indeterminate`` and ``not_reproduced`` steps still have a benchmark verdict before and after (their
transition is known, only their feedback's class is not), ``not_evaluable`` steps have none (their task cannot be
judged offline).

- **Bounds**: P(Pass->Fail | passed) over every step of the set, each step with a verdict entering with its own
  transition, each step without one counted each way: as a passing step kept (best case) and as a passing step
  broken (worst case). The judged rate and the rate over the steps with a verdict sit beside them.
- **Excluded against kept tasks**: a task is *kept* when at least one of its steps is judged, *excluded* otherwise.
  The two are compared on what can be observed of every task: its steps, whether its trajectory reached the set's
  iteration cap (its attempts equal the most any task of the set logged), and, where the benchmark can judge it,
  whether its first attempt passed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.stats import pct
from tfr_helpers.arms.trajectories.arm import part_in
from tfr_helpers.arms.trajectories.report.trajectories import JUDGED, present, steps_frame
from tfr_helpers.records import Results

BOUND_COLUMNS = [
    "dataset",
    "model",
    "steps",
    "judged",
    "judged_pct",
    "with_verdict",
    "without_verdict",
    "judged_k",
    "judged_n",
    "judged_rate_pct",
    "verdict_k",
    "verdict_n",
    "verdict_rate_pct",
    "best_pct",
    "worst_pct",
]
GROUP_COLUMNS = ["dataset", "model", "group", "tasks", "steps_per_task", "at_cap_pct", "first_pass_pct", "first_known"]


def _share(k: int, n: int) -> float | None:
    return pct(k / n) if n else None


def bounds(results: Results) -> pd.DataFrame:
    """Per set: steps, judged steps and their fraction, the steps with and without a benchmark verdict,
    P(Pass->Fail | passed) over the judged steps and over the steps with a verdict (``k/n``, percent), and its
    best-case and worst-case values over every step (the steps without a verdict counted each way)."""
    if not present(results):
        return pd.DataFrame(columns=BOUND_COLUMNS)
    frame = steps_frame(results)
    rows = []
    for info in p.sets if (p := part_in(results)) else []:
        mine = frame[frame["dataset"] == info.name]
        known = mine[mine["benchmark_before"].notna() & mine["benchmark_after"].notna()]
        judged = known[known["step_class"].isin(JUDGED)]
        unknown = len(mine) - len(known)

        def rate(sel: pd.DataFrame) -> tuple[int, int]:
            before = sel["benchmark_before"].astype(bool).to_numpy()
            broke = before & ~sel["benchmark_after"].astype(bool).to_numpy()
            return int(broke.sum()), int(before.sum())

        jk, jn = rate(judged)
        vk, vn = rate(known)
        n_judged = int(mine["step_class"].isin(JUDGED).sum())
        rows.append(
            {
                "dataset": info.name,
                "model": info.model,
                "steps": len(mine),
                "judged": n_judged,
                "judged_pct": _share(n_judged, len(mine)),
                "with_verdict": len(known),
                "without_verdict": unknown,
                "judged_k": jk,
                "judged_n": jn,
                "judged_rate_pct": _share(jk, jn),
                "verdict_k": vk,
                "verdict_n": vn,
                "verdict_rate_pct": _share(vk, vn),
                "best_pct": _share(vk, vn + unknown),
                "worst_pct": _share(vk + unknown, vn + unknown),
            }
        )
    return pd.DataFrame(rows, columns=BOUND_COLUMNS).replace({np.nan: None})


def excluded_vs_kept(results: Results) -> pd.DataFrame:
    """Per set and group (``kept``: a task with a judged step; ``excluded``: one without): tasks, mean steps per
    task, the share of tasks at the set's iteration cap, and the share whose first attempt passed the benchmark
    (over ``first_known`` tasks: those whose first step has a verdict)."""
    if not present(results):
        return pd.DataFrame(columns=GROUP_COLUMNS)
    frame = steps_frame(results)
    rows = []
    for info in p.sets if (p := part_in(results)) else []:
        mine = frame[frame["dataset"] == info.name]
        if mine.empty:
            continue
        per_task = mine.groupby("task_id", sort=False).agg(
            steps=("step", "size"),
            attempts=("step", lambda s: int(s.max()) + 2),
            kept=("step_class", lambda c: bool(c.isin(JUDGED).any())),
        )
        first = mine[mine["step"] == 0].set_index("task_id")["benchmark_before"]
        per_task["first_pass"] = first.reindex(per_task.index)
        cap = int(per_task["attempts"].max())
        for group, sel in (("kept", per_task[per_task["kept"]]), ("excluded", per_task[~per_task["kept"]])):
            known = sel["first_pass"].dropna()
            rows.append(
                {
                    "dataset": info.name,
                    "model": info.model,
                    "group": group,
                    "tasks": len(sel),
                    "steps_per_task": round(float(sel["steps"].mean()), 2) if len(sel) else None,
                    "at_cap_pct": _share(int((sel["attempts"] == cap).sum()), len(sel)),
                    "first_pass_pct": _share(int(known.astype(bool).sum()), len(known)),
                    "first_known": len(known),
                }
            )
    return pd.DataFrame(rows, columns=GROUP_COLUMNS).replace({np.nan: None})


def bounds_line(row: dict[str, object]) -> str:
    """One set's judged fraction and bounds in words."""
    judged = f"{row['judged']} of {row['steps']} steps judged ({row['judged_pct']}%)"
    rate = f"{row['judged_rate_pct']}% ({row['judged_k']}/{row['judged_n']})" if row["judged_n"] else "-- (0/0)"
    every = f"{row['verdict_rate_pct']}% ({row['verdict_k']}/{row['verdict_n']})" if row["verdict_n"] else "-- (0/0)"
    return (
        f"{judged}; P(Pass->Fail | passed) judged {rate}, every step with a verdict {every}; bounds over all "
        f"{row['steps']} steps with the {row['without_verdict']} without a verdict counted each way: "
        f"[{row['best_pct']}%, {row['worst_pct']}%]"
    )


def groups_line(rows: list[dict[str, object]]) -> str:
    """One set's excluded and kept tasks compared, in words."""
    parts = []
    for r in rows:
        if not r["tasks"]:
            parts.append(f"{r['group']} 0 tasks")
            continue
        first = f"{r['first_pass_pct']}% of {r['first_known']} judged" if r["first_known"] else "none judged"
        parts.append(
            f"{r['group']} {r['tasks']} tasks: {r['steps_per_task']} steps/task, {r['at_cap_pct']}% at the cap, "
            f"first attempt passes {first}"
        )
    return "; ".join(parts)
