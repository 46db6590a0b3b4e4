"""Step-level RQ2 on real trajectories, reported: every set of the run in one table, the conditional contrast, the
not-evaluable bounds, the excluded tasks against the kept ones, and the observed against the true reward per
iteration. Its part of summary.json's ``trajectories`` section, the lines ``tfr analyze`` prints per set and the
notebook's tables; the numbers come from :mod:`.trajectories`, :mod:`.trajectory_contrast`,
:mod:`.trajectory_exclusions` and :mod:`.trajectory_rewards`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.tables import share_cell
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.arms.trajectories.records.trajectories import STEP_CLASSES
from tfr_helpers.arms.trajectories.report.trajectories import headline
from tfr_helpers.arms.trajectories.report.trajectory_contrast import contrast, contrast_line
from tfr_helpers.arms.trajectories.report.trajectory_exclusions import bounds, bounds_line, excluded_vs_kept, groups_line
from tfr_helpers.arms.trajectories.report.trajectory_rewards import reward_lines, rewards
from tfr_helpers.records import Results

ALL_SETS_CAPTION = (
    "Every trajectory set of the run (real, replayed from published logs; none left out): steps, the judged steps "
    "(reliable, unreliable or mixed) and their share, each step class, and over the judged steps P(Pass->Fail | "
    "passed) and P(Fail->Pass | failed), k/n and percent [95% cluster bootstrap over tasks]."
)


def summary_parts(results: Results) -> dict[str, Any]:
    """The step-level keys of summary.json's ``trajectories`` section."""
    return {
        "contrast": {"rows": frame_records(contrast(results))},
        "bounds": {"rows": frame_records(bounds(results))},
        "excluded_vs_kept": {"rows": frame_records(excluded_vs_kept(results))},
        "rewards": {"rows": frame_records(rewards(results))},
    }


def set_lines(section: dict[str, Any], dataset: str) -> list[str]:
    """The step-level lines ``tfr analyze`` prints for one set, from its summary section."""

    def rows(key: str) -> list[dict[str, Any]]:
        return [r for r in section.get(key, {}).get("rows", []) if r["dataset"] == dataset]

    lines = [f"  judged fraction and bounds: {bounds_line(r)}" for r in rows("bounds")]
    lines += [f"  conditional contrast: {contrast_line(r)}" for r in rows("contrast")]
    groups = rows("excluded_vs_kept")
    if groups:
        lines.append(f"  excluded vs kept tasks: {groups_line(groups)}")
    found = rows("rewards")
    if found:
        lines.append("  own tests (r_obs) vs benchmark (r) per iteration:")
        lines += reward_lines(found)
    return lines


def _cell(r: pd.Series, prefix: str) -> str:
    n = r[f"{prefix}n"]
    if n is None or not int(n):
        return "--"
    return f"{int(r[f'{prefix}k'])}/{int(n)} {share_cell(r, prefix)}"


def all_sets_table(results: Results) -> Styler:
    """Notebook 02's table of every set of the run (:func:`.trajectories.headline`)."""
    out = [
        {
            "Set": r["dataset"],
            "Model": r["model"],
            "Steps": int(r["steps"]),
            "Judged": f"{int(r['judged'])} ({r['judged_pct']}%)",
            **{c: int(r[c]) for c in STEP_CLASSES},
            "Unusable in the log": int(r["unusable"]),
            "P(Pass->Fail | passed)": _cell(r, "pass_fail_"),
            "P(Fail->Pass | failed)": _cell(r, "fail_pass_"),
        }
        for _, r in headline(results).iterrows()
    ]
    return pd.DataFrame(out).style.set_caption(ALL_SETS_CAPTION)


def contrast_table(results: Results) -> Styler:
    """Notebook 02's conditional contrast, one row per set."""
    rows = [
        {"Set": r["dataset"], "Model": r["model"], "Contrast": contrast_line(r)} for r in frame_records(contrast(results))
    ]
    return pd.DataFrame(rows).style.set_caption(
        "Among steps whose code passed before: P(Pass->Fail) after unreliable vs after reliable feedback, pooled over "
        "steps [95% cluster bootstrap over tasks] and per task (each task weighs 1); real trajectories, not simulated."
    )


def bounds_table(results: Results) -> Styler:
    """Notebook 02's judged fractions, bounds and excluded-against-kept tasks, one row per set."""
    groups = frame_records(excluded_vs_kept(results))
    rows = [
        {
            "Set": r["dataset"],
            "Model": r["model"],
            "Judged fraction and bounds": bounds_line(r),
            "Excluded vs kept tasks": groups_line([g for g in groups if g["dataset"] == r["dataset"]]),
        }
        for r in frame_records(bounds(results))
    ]
    return pd.DataFrame(rows).style.set_caption(
        "Steps left out of the headline, bounded: P(Pass->Fail | passed) over every step with the steps without a "
        "benchmark verdict counted as kept (best case) and as broken (worst case); tasks with no judged step "
        "(excluded) against the others (kept). Real trajectories, not simulated."
    )
