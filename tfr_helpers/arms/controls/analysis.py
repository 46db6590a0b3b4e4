"""The control arm of RQ2: is it the feedback's content that fixes or breaks the code, or just asking again?

Every control (``resample``, ``retry``, ``placebo``: docs/controls.md) ran on exactly the feedback instances the
feedback arm refined, with the same refiner. On the instances every arm has (the common set), per model and
feedback reliability:

- :func:`side_by_side`: each arm's transitions, P(Pass->Fail | passed before) and P(Fail->Pass | failed before),
  with the cluster-bootstrap intervals of every RQ2 share (:mod:`tfr_helpers.analysis.inference.units`);
- :func:`content_effects`: the effect of the feedback's content = the feedback arm's rate minus each control's on
  the same instances, compared by the study's one arm comparison (``analysis/arms/arm_comparison.py``: one
  instance per distinct prompt, a paired cluster-bootstrap interval, the task-level permutation test Holm-adjusted
  across the comparisons shown for one model), with an exact McNemar test on the discordant pairs
  (:func:`mcnemar_exact`) as a descriptive column. Models are never pooled: simulated and replayed rows stay apart.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from scipy.stats import binomtest

from tfr_helpers.analysis.arms.arm_comparison import (
    PairedEffect,
    adjust,
    bootstrap_p,
    collapse_prompts,
    paired_effect,
    task_test_columns,
)
from tfr_helpers.analysis.inference.stats import pct
from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, interval_columns, rows_resampler, share_columns
from tfr_helpers.analysis.rq2 import CONDITIONAL, RELIABILITIES, TRANSITIONS
from tfr_helpers.analysis.tidy.frames import refinements_frame
from tfr_helpers.analysis.tidy.sources import source_of
from tfr_helpers.arms.controls.arm import ARM
from tfr_helpers.arms.controls.records import Control, ControlsResults
from tfr_helpers.records import Results

FEEDBACK = "feedback"
"""The feedback arm's name beside the controls'."""
EFFECT_COLUMNS = ["model", "source", "reliability", "control", "transition", "instances", "feedback_pct"]
EFFECT_COLUMNS += ["control_pct", "diff_pp", "low", "high", "p_bootstrap", "feedback_only", "control_only"]
EFFECT_COLUMNS += ["p_mcnemar", "informative_tasks", "test", "p_task", "p_holm", "differs"]
EFFECT_COLUMNS += ["method", "resamples", "clusters", "deff"]


def present(results: Results) -> bool:
    """Whether the run holds the control arm (``refinement.controls`` listed a control)."""
    return results.has(ARM) and bool(results.part(ARM).controls)


def _part(results: Results) -> ControlsResults:
    """The run's control arm (empty when the run has none)."""
    return results.part(ARM) if results.has(ARM) else ControlsResults()


def arms_frame(results: Results) -> pd.DataFrame:
    """One row per (distinct refinement prompt of the common set, arm): the refinements frame's columns plus ``arm``.

    The common set: instances the feedback arm and every listed control evaluated (normally all of them).
    Identical prompts are collapsed in every arm alike: the feedback arm's identical refinement prompts (same task,
    code sample text and feedback text) share one cached reply, while each control instance has a draw of its own,
    so keeping every instance would weigh one feedback reply several times against as many independent control
    draws. Each distinct prompt keeps its first instance (by feedback id) in every arm
    (:func:`tfr_helpers.analysis.arms.arm_comparison.collapse_prompts`, docs/controls.md).
    """
    fb = refinements_frame(results)
    if not results.has(ARM) or fb.empty:
        return fb.assign(arm=pd.Series(dtype=str))
    part = results.part(ARM)
    evals = part.refined_evaluations
    have = [{e.feedback_id for e in evals if e.control == c} for c in part.controls]
    common = set(fb["feedback_id"]).intersection(*have)
    fb = collapse_prompts(fb[fb["feedback_id"].isin(common)])
    frames = [fb.assign(arm=FEEDBACK)]
    for control in part.controls:
        after = {e.feedback_id: e for e in evals if e.control == control}
        rows = fb.copy()
        rows["transition"] = [after[i].transition for i in rows["feedback_id"]]
        rows["benchmark_after"] = [after[i].benchmark_after for i in rows["feedback_id"]]
        rows["usable_code"] = rows["transition"] != "no_code"
        frames.append(rows.assign(arm=control))
    return pd.concat(frames, ignore_index=True)


def _arms(results: Results) -> list[str]:
    return [FEEDBACK, *_part(results).controls]


def side_by_side(results: Results) -> pd.DataFrame:
    """Per model, feedback reliability and arm: attempts, each transition's share, and the two conditional rates.

    Returns:
        Columns ``model, source, reliability, arm, attempts``, ``<transition>_`` + the share columns for every
        transition (share of attempts), and ``pass->fail_`` / ``fail->pass_`` prefixed ``cond_`` for
        P(Pass->Fail | passed before) and P(Fail->Pass | failed before).
    """
    frame = arms_frame(results)
    rows = []
    for model in sorted(frame["model"].unique()) if not frame.empty else []:
        for rel in RELIABILITIES:
            for arm in _arms(results):
                mine = frame[(frame["model"] == model) & (frame["reliability"] == rel) & (frame["arm"] == arm)]
                if mine.empty:
                    continue
                rs = rows_resampler(results, mine, str(model))
                row: dict[str, Any] = {"model": model, "source": source_of(results, str(model)).source}
                row |= {"reliability": rel, "arm": arm, "attempts": len(mine)}
                for tr in TRANSITIONS:
                    row |= share_columns(rs, mine["transition"] == tr, prefix=f"{tr}_")
                for tr, before in CONDITIONAL.items():
                    row |= share_columns(rs, mine["transition"] == tr, mine["benchmark_before"] == before, f"cond_{tr}_")
                rows.append(row)
    cols = ["model", "source", "reliability", "arm", "attempts"]
    cols += [f"{p}{c}" for p in [f"{t}_" for t in TRANSITIONS] + [f"cond_{t}_" for t in CONDITIONAL] for c in SHARE_COLUMNS]
    return pd.DataFrame(rows, columns=cols)


def mcnemar_exact(feedback_only: int, control_only: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs as a Binomial(b + c, 1/2) count (1 without any).

    >>> round(mcnemar_exact(1, 9), 6), mcnemar_exact(0, 0)
    (0.021484, 1.0)
    """
    n = feedback_only + control_only
    return 1.0 if n == 0 else float(binomtest(feedback_only, n, 0.5).pvalue)


def content_effects(results: Results) -> pd.DataFrame:
    """Feedback arm minus each control, per model, reliability and conditional transition, on the same instances.

    Returns:
        Columns :data:`EFFECT_COLUMNS`: ``instances`` (common-set instances that passed, for ``pass->fail``, or
        failed, for ``fail->pass``, before refinement), both arms' rates, ``diff_pp`` (feedback - control, percentage
        points) with ``low``/``high`` (paired cluster bootstrap) and ``p_bootstrap``, the discordant pairs
        ``feedback_only`` (the transition after feedback, not after the control) and ``control_only``,
        ``p_mcnemar`` (exact, descriptive only), ``informative_tasks`` (tasks with a discordant instance), ``test``
        (the permutation's method, or ``too few tasks``), ``p_task`` (its p; NaN without a test), ``p_holm`` (Holm
        of ``p_task`` across the model's tested rows) and ``differs`` (``p_holm < 0.05``; never without a test).
    """
    frame = arms_frame(results)
    rows: list[dict[str, Any]] = []
    controls: list[Control] = _part(results).controls
    for model in sorted(frame["model"].unique()) if not frame.empty else []:
        mine = frame[frame["model"] == model]
        for rel in RELIABILITIES:
            fb = mine[(mine["reliability"] == rel) & (mine["arm"] == FEEDBACK)].set_index("feedback_id")
            for control in controls:
                ctl = mine[(mine["reliability"] == rel) & (mine["arm"] == control)].set_index("feedback_id")
                for tr, before in CONDITIONAL.items():
                    among = fb[fb["benchmark_before"] == before]
                    if among.empty:
                        continue
                    a = (among["transition"] == tr).to_numpy()
                    b = (ctl.loc[among.index, "transition"] == tr).to_numpy()
                    rs = rows_resampler(results, among.reset_index(), str(model))
                    effect = paired_effect(rs, among["task_id"].tolist(), a, b)
                    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
                    rows.append(
                        {
                            "model": model,
                            "source": source_of(results, str(model)).source,
                            "reliability": rel,
                            "control": control,
                            "transition": tr,
                            "instances": len(among),
                            "feedback_pct": pct(a.mean()),
                            "control_pct": pct(b.mean()),
                            **_diff_columns(effect),
                            "feedback_only": only_a,
                            "control_only": only_b,
                            "p_mcnemar": mcnemar_exact(only_a, only_b),
                            **task_test_columns(effect),
                        }
                    )
    out = adjust(pd.DataFrame(rows, columns=[c for c in EFFECT_COLUMNS if c not in ("p_holm", "differs")]), ["model"])
    out["p_mcnemar"] = out["p_mcnemar"].astype(float).round(4)
    return out[EFFECT_COLUMNS]


def _diff_columns(effect: PairedEffect) -> dict[str, Any]:
    shown = interval_columns(effect.interval)
    return {
        "diff_pp": shown["pct"],
        "low": shown["low"],
        "high": shown["high"],
        "p_bootstrap": bootstrap_p(effect),
        "method": shown["method"],
        "resamples": shown["resamples"],
        "clusters": shown["clusters"],
        "deff": shown["deff"],
    }
