"""The observed reward against the true reward per iteration on real trajectories (Menet et al.'s Figure 3).

Menet et al. plot, per round of backprompting, the share of attempts that pass the model's own tests (the observed
reward ``r_obs``) against the share that pass the benchmark (the true reward ``r``). Here both come from published
self-repair logs: for each set and iteration k, over the logged attempts k whose benchmark verdict tfr has (attempt k
is the code before of step k, or the code after of step k - 1, on an evaluable task):

- ``r_obs``: the attempt passes its own logged tests (its logged feedback names no failing test); an attempt whose
  feedback was not logged or is a harness fault has no ``r_obs`` and is counted apart (``r_obs_unknown``);
- ``r``: the attempt passes the benchmark tests in tfr's sandbox.

Each share has a 95% cluster-bootstrap interval over tasks (one attempt per task and iteration, so the task is the
unit). A trajectory stops once its own tests pass, so later iterations hold only the tasks still failing them: the
rows describe the attempts made at each iteration, not a fixed panel of tasks. A trajectory with a single attempt
has no step and no benchmark verdict here, and is not in the rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, clustered_rows, share_columns
from tfr_helpers.arms.trajectories.arm import part_in
from tfr_helpers.arms.trajectories.report.trajectories import present
from tfr_helpers.arms.trajectories.report.trajectory_cases import logged_sets
from tfr_helpers.records import Results
from tfr_helpers.replay.trajectories.feedback import failing
from tfr_helpers.replay.trajectories.logged import Trajectory, TrajectoryAttempt

FIGURE = "rq2_trajectory_rewards"
"""File stem of the figure (``analysis/figures/<stem>.png``)."""
COLUMNS = ["dataset", "model", "iteration", "attempts", "r_obs_unknown"]
COLUMNS += [f"{p}{c}" for p in ("r_obs_", "r_") for c in SHARE_COLUMNS]


def passes_own_tests(attempt: TrajectoryAttempt) -> bool | None:
    """Whether an attempt passed its own logged tests (None: no feedback logged, or a harness fault)."""
    if attempt.feedback is None or attempt.feedback_format in ("harness_fault",):
        return None
    return not failing(attempt.tests)


def attempts_frame(results: Results, logged: Mapping[tuple[str, str], Trajectory] | None = None) -> pd.DataFrame:
    """One row per logged attempt with a benchmark verdict: set, model, task, iteration, ``r_obs`` (None when
    unknown) and ``r``. ``logged``: (set, task id) -> its trajectory (None: read back from the run's logs)."""
    part = part_in(results)
    columns = ["dataset", "model", "task_id", "iteration", "r_obs", "r"]
    if part is None:
        return pd.DataFrame(columns=columns)
    verdict: dict[tuple[str, str, int], bool] = {}
    for s in part.steps:
        if s.benchmark_before is not None:
            verdict[(s.dataset, s.task_id, s.step)] = s.benchmark_before
        if s.benchmark_after is not None:
            verdict.setdefault((s.dataset, s.task_id, s.step + 1), s.benchmark_after)
    models = {s.name: s.model for s in part.sets}
    logged = logged_sets(results).trajectories if logged is None else logged
    rows = [
        {
            "dataset": dataset,
            "model": models.get(dataset, ""),
            "task_id": task_id,
            "iteration": attempt.index,
            "r_obs": passes_own_tests(attempt),
            "r": verdict[(dataset, task_id, attempt.index)],
        }
        for (dataset, task_id), trajectory in logged.items()
        for attempt in trajectory.attempts
        if (dataset, task_id, attempt.index) in verdict
    ]
    return pd.DataFrame(rows, columns=columns)


def rewards(results: Results, logged: Mapping[tuple[str, str], Trajectory] | None = None) -> pd.DataFrame:
    """Per set and iteration: the attempts, ``r_obs`` and ``r`` (``k/n``, percent, 95% interval over tasks, per-task
    mean), and the attempts without an ``r_obs`` (``logged``: as :func:`attempts_frame`'s)."""
    if not present(results):
        return pd.DataFrame(columns=COLUMNS)
    frame = attempts_frame(results, logged)
    rows = []
    for info in p.sets if (p := part_in(results)) else []:
        mine = frame[frame["dataset"] == info.name]
        for iteration, sel in mine.groupby("iteration", sort=True):
            rs = clustered_rows(sel["task_id"].astype(str).tolist())
            known = sel["r_obs"].notna().to_numpy()
            rows.append(
                {
                    "dataset": info.name,
                    "model": info.model,
                    "iteration": int(iteration),  # type: ignore[call-overload]
                    "attempts": len(sel),
                    "r_obs_unknown": int((~known).sum()),
                    **share_columns(rs, sel["r_obs"].fillna(False).astype(bool).to_numpy(), known, "r_obs_"),
                    **share_columns(rs, sel["r"].astype(bool).to_numpy(), None, "r_"),
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS).replace({np.nan: None})


def _draw(ax: Any, rows: pd.DataFrame, color: Any, label: str) -> None:
    """r_obs (dashed) and r (solid) of one set; ``color`` None: a colour per measure (one set per panel)."""
    from matplotlib.ticker import MaxNLocator

    x = rows["iteration"].astype(int).to_numpy()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for prefix, style, name, own in (
        ("r_obs_", "--", "r_obs (own logged tests)", "tab:orange"),
        ("r_", "-", "r (benchmark)", "tab:blue"),
    ):
        y = rows[f"{prefix}pct"].astype(float).to_numpy()
        low = rows[f"{prefix}low"].astype(float).to_numpy()
        high = rows[f"{prefix}high"].astype(float).to_numpy()
        err = np.vstack([np.nan_to_num(y - low), np.nan_to_num(high - y)])
        ax.errorbar(x, y, yerr=err, fmt=style, marker="o", color=color or own, capsize=3, label=f"{label}{name}")


def plot_rewards(results: Results, ax: Any = None) -> Any:
    """``r_obs`` (dashed) and ``r`` (solid) per iteration with their 95% intervals over tasks.

    Args:
        results: A run with replayed trajectories.
        ax: Axes to draw every set on (one colour per set); None: one panel per set, returned as a figure.

    Returns:
        The axes drawn on, or the figure with one panel per set.
    """
    import matplotlib.pyplot as plt  # after analysis.figures picks the backend (Agg outside a notebook)

    table = rewards(results)
    sets = list(dict.fromkeys(table["dataset"]))
    colors = plt.get_cmap("tab10")
    if ax is not None:
        for i, dataset in enumerate(sets):
            _draw(ax, table[table["dataset"] == dataset], colors(i % 10), f"{dataset}: ")
        ax.set(xlabel="iteration (attempt index)", ylabel="attempts passing (%)", ylim=(-2, 102))
        ax.set_title("Real trajectories: own tests (r_obs) vs benchmark (r)", fontsize=9)
        ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
        return ax
    cols = min(4, max(1, len(sets)))
    rows_n = max(1, -(-len(sets) // cols))
    fig, axes = plt.subplots(rows_n, cols, figsize=(3.2 * cols, 2.8 * rows_n), squeeze=False, sharey=True)
    for i, dataset in enumerate(sets):
        a = axes[i // cols][i % cols]
        mine = table[table["dataset"] == dataset]
        _draw(a, mine, None, "")
        a.set_title(f"{mine['model'].iloc[0]} · {dataset}", fontsize=7)
        a.set(xlabel="iteration", ylim=(-2, 102))
    for j in range(len(sets), rows_n * cols):
        axes[j // cols][j % cols].axis("off")
    axes[0][0].set_ylabel("attempts passing (%)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Real trajectories (replayed, not simulated): r_obs (own logged tests) vs r (benchmark)", fontsize=9)
    fig.tight_layout()
    return fig


def reward_lines(rows: list[dict[str, Any]]) -> list[str]:
    """``tfr analyze``'s lines for one set: r_obs and r per iteration."""

    def share(r: dict[str, Any], prefix: str) -> str:
        if not r[f"{prefix}n"]:
            return "--"
        interval = f" [{r[f'{prefix}low']}, {r[f'{prefix}high']}]" if r[f"{prefix}low"] is not None else ""
        return f"{r[f'{prefix}pct']}%{interval} ({r[f'{prefix}k']}/{r[f'{prefix}n']})"

    return [
        f"  iteration {r['iteration']}: {r['attempts']} attempts; r_obs {share(r, 'r_obs_')}"
        + (f" ({r['r_obs_unknown']} without own-test verdict)" if r["r_obs_unknown"] else "")
        + f"; r {share(r, 'r_')}"
        for r in rows
    ]
