"""The control arm's outputs: the ``rq2_controls`` table, the ``controls`` section of summary.json and a figure.

Numbers come from :mod:`.analysis`; every row is one model (simulated and replayed models never pooled).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import seaborn as sns
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.answers import AnswerKind
from tfr_helpers.analysis.arms.arm_comparison import ALPHA
from tfr_helpers.analysis.rq2 import CONDITIONAL
from tfr_helpers.analysis.tables import TRANSITION_LABELS, caption_with, error_bar, share_cell
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.arms.controls.analysis import FEEDBACK, content_effects, present, side_by_side
from tfr_helpers.arms.controls.arm import ARM
from tfr_helpers.records import Results

NAME = ARM.field
"""The arm's section of ``summary.json`` (its key of ``results.json``, ``controls``)."""
HEADLINE_KINDS: tuple[AnswerKind, ...] = ()
"""The arm adds no headline number (its numbers are in its table and section)."""
TABLE = "rq2_controls"
"""File stem of the LaTeX table (written only for runs with ``refinement.controls``)."""
FIGURE = "rq2_controls"
"""Stem of the figure (``analysis/figures/rq2_controls.png``)."""
CONDITIONAL_LABELS = {"pass->fail": "P(Pass->Fail | passed)", "fail->pass": "P(Fail->Pass | failed)"}
CAPTION = (
    "RQ2 with controls: per model and feedback reliability, the feedback arm and each control on the same "
    "feedback instances (same refiner and sampling): P(Pass->Fail | passed before) and P(Fail->Pass | failed before), "
    "percent [95 percent cluster-bootstrap interval]; on control rows, the effect of the feedback's content "
    "(feedback minus control, percentage points [paired cluster-bootstrap interval]) and its task-level permutation "
    "p (the arms swapped within whole tasks), Holm-adjusted across the model's comparisons; 'too few tasks' below "
    "six tasks with a discordant instance."
)
DEFINITIONS = {
    "arms": "feedback: the refinement prompt with the failing test and its failure (RQ2). resample: a fresh "
    "generation from the task alone (the coder's own prompt), one per instance. retry: the task and the code with a "
    "neutral request to check and fix it, no test or failure. placebo: the refinement prompt with its test and "
    "failure replaced by shape-matched filler that carries no information about the task (docs/controls.md).",
    "instances": "The feedback instances every arm evaluated (the common set), one per distinct refinement prompt "
    "in every arm alike: identical feedback prompts share one cached reply, so each keeps its first instance (by "
    "feedback id) in the feedback arm and in every control. A control runs on exactly the instances the feedback "
    "arm refines, with the same refiner, sampling and output budget.",
    "cond_<transition>": "P(Pass->Fail | passed before) and P(Fail->Pass | failed before) among the arm's attempts "
    "(no_code keeps the code: in the denominator, never in the numerator); cluster bootstrap over tasks, then code "
    "samples (see intervals).",
    "diff_pp": "Effect of feedback content: 100 * (rate after feedback - rate after the control) on the same "
    "instances; low/high: paired cluster-bootstrap interval (both rates on the same resamples); p_bootstrap its "
    "two-sided bootstrap p.",
    "feedback_only / control_only": "Discordant pairs: instances with the transition after feedback and not after "
    "the control, and the reverse.",
    "p_mcnemar": "Exact McNemar test: two-sided binomial test of feedback_only among the discordant pairs at 1/2 "
    "(scipy.stats.binomtest); it treats instances as independent, the bootstrap interval does not.",
    "p_task": "Task-level permutation test: the two arms' labels swapped within whole tasks (exact over the 2^m "
    "patterns of the m informative tasks up to 14, else 9,999 random patterns); informative_tasks: tasks with a "
    "discordant instance. Below six informative tasks no p is given (test: 'too few tasks'): even a unanimous "
    "effect over five tasks has p = 0.0625.",
    "p_mcnemar_note": "p_mcnemar is descriptive only: it never decides whether arms differ.",
    "p_holm": f"Holm adjustment of p_task across every tested comparison shown for the model; differs: p_holm < "
    f"{ALPHA} (never without a test).",
}


def _effect_cell(effects: pd.DataFrame, row: pd.Series, control: str, tr: str) -> str:
    hit = effects[
        (effects["model"] == row["model"])
        & (effects["reliability"] == row["reliability"])
        & (effects["control"] == control)
        & (effects["transition"] == tr)
    ]
    if hit.empty or pd.isna(hit.iloc[0]["diff_pp"]):
        return "--"
    e = hit.iloc[0]
    test = f"Holm p={e['p_holm']:.3f}" if pd.notna(e["p_holm"]) else f"{e['test']} ({e['informative_tasks']})"
    return f"{share_cell({'pct': e['diff_pp'], 'low': e['low'], 'high': e['high']})} {test}"


def controls_table(results: Results) -> Styler:
    """The ``rq2_controls`` table: per model, reliability and arm, attempts, the two rates and the effects."""
    arms, effects = side_by_side(results), content_effects(results)
    rows = []
    for _, r in arms.iterrows():
        row = {"Model": r["model"], "Reliability": r["reliability"], "Arm": r["arm"]}
        row |= {"Source": source_label(results, str(r["model"])), "Attempts": str(int(r["attempts"]))}
        row |= {lab: share_cell(r, f"cond_{tr}_", with_count=True) for tr, lab in CONDITIONAL_LABELS.items()}
        for tr in CONDITIONAL:
            label = f"Feedback - arm, {TRANSITION_LABELS[tr]} (pp)"
            row[label] = "" if r["arm"] == FEEDBACK else _effect_cell(effects, r, str(r["arm"]), tr)
        rows.append(row)
    cols = ["Model", "Reliability", "Arm", "Source", "Attempts", *CONDITIONAL_LABELS.values()]
    cols += [f"Feedback - arm, {TRANSITION_LABELS[tr]} (pp)" for tr in CONDITIONAL]
    frame = pd.DataFrame(rows, columns=cols).fillna("--").set_index(["Model", "Reliability", "Arm"])
    return frame.style.set_caption(CAPTION)  # the sources: said once per report (views.sources_table)


def summary_section(results: Results) -> dict[str, Any]:
    """``{"controls": {...}}`` (definitions, the side-by-side rows, the effects), or ``{}`` without the arm."""
    if not present(results):
        return {}
    part = results.part(ARM)
    return {
        NAME: {
            "controls": list(part.controls),
            "refinement_status": part.refinement_status,
            "definitions": DEFINITIONS,
            "side_by_side": {"rows": frame_records(side_by_side(results))},
            "content_effects": {"rows": frame_records(content_effects(results))},
            TABLE: {"caption": caption_with(CAPTION, results)},
        }
    }


def plot_controls(results: Results, ax: Any = None) -> Any:
    """Bars of P(Pass->Fail | passed) and P(Fail->Pass | failed) per arm, one group per model, reliability and
    rate, with the 95% intervals as error bars."""
    import matplotlib.pyplot as plt  # the figure module sets the backend first; a notebook keeps its own

    ax = ax if ax is not None else plt.subplots(figsize=(8, 4))[1]
    arms = side_by_side(results)
    long = []
    for _, r in arms.iterrows():
        for tr, lab in CONDITIONAL_LABELS.items():
            group = f"{r['model']}\n{r['reliability']}\n{lab}"
            long.append({"group": group, "arm": r["arm"], **{k: r[f"cond_{tr}_{k}"] for k in ("pct", "low", "high")}})
    frame = pd.DataFrame(long, columns=["group", "arm", "pct", "low", "high"]).dropna(subset=["pct"])
    order, hue_order = list(dict.fromkeys(frame["group"])), list(dict.fromkeys(frame["arm"]))
    if frame.empty:
        ax.text(0.5, 0.5, "no refined feedback", ha="center", va="center", transform=ax.transAxes)
        return ax
    sns.barplot(data=frame, x="group", y="pct", hue="arm", order=order, hue_order=hue_order, errorbar=None, ax=ax)
    for arm, container in zip(hue_order, ax.containers, strict=False):
        mine = frame[frame["arm"] == arm].set_index("group")
        for group, bar in zip(order, container, strict=False):
            if group in mine.index:
                r = mine.loc[group]
                cx = bar.get_x() + bar.get_width() / 2
                ax.errorbar(cx, r["pct"], yerr=error_bar(r), fmt="none", ecolor="black", capsize=2, lw=0.8)
    ax.set_ylim(0, 100)
    ax.set_xlabel("")
    ax.set_ylabel("percent of attempts")
    note = " (simulated: demo numbers, not evidence)" if results.simulated else ""
    ax.set_title(f"Feedback vs controls{note}", fontsize=9)
    ax.tick_params(axis="x", labelsize=7)
    return ax


def tables(results: Results) -> dict[str, Styler]:
    """The arm's LaTeX table: :data:`TABLE`."""
    return {TABLE: controls_table(results)}


def figures(results: Results) -> dict[str, tuple[Any, tuple[float, float]]]:
    """The arm's figure: the controls beside the feedback (:data:`FIGURE`)."""
    return {FIGURE: (plot_controls, (9.0, 4.5))}
