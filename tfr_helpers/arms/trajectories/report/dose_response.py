"""The dose-response of RQ2 on real data: how each intention-to-treat outcome changes with the measured validity of
the test list a run refined against, and the paired contrasts that need no model.

- **Dose-response** (:func:`dose_response`): one generalized estimating equation per outcome and dose (the task's
  own valid share in its list, or the list's pooled share), with the task as the cluster and an exchangeable working
  correlation (the same task in every run of the series is correlated: same prompt, same difficulty). Logit link
  for the 0/1 outcomes; identity link with a Gaussian variance for the steps taken, so the slope is read directly in
  steps (the steps are bounded by the iteration cap, which a Poisson model's unbounded count ignores; the robust
  sandwich errors do not need the variance to be right). The slope is per 10 percentage points of validity; its
  95% interval and p-value are the sandwich's (statsmodels), Holm-adjusted over the outcomes of one dose.
- **Extremes** (:func:`paired_contrasts`): the series' most-valid list against its least-valid one by name
  (``correct`` against ``variable-60``), per task, with the study's task-level sign-flip test.
- **Natural controls** (:data:`JUDGED_PAIRS`): pairs of published runs judged before use (docs/replay.md), analysed
  the same way, paired by task, only when the judgement passes.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm
from statsmodels.stats.multitest import multipletests

from tfr_helpers.analysis.inference.paired_tasks import paired_task_test
from tfr_helpers.arms.trajectories.report.dose import BINARY, OUTCOMES

PER = 10.0
"""The dose's unit in a slope: this many percentage points of valid tests."""
DOSES = {"dose_task": "the task's valid share in its list", "dose_list": "the list's pooled valid share"}
"""The two doses: per task and per list."""
EXTREMES = ("correct", "variable-60")
"""The lists of the extremes' contrast: the most valid by construction against the least valid by upstream's name."""


@dataclass(frozen=True)
class ControlPair:
    """Two published runs of one model on the same tasks, and the judgement of whether they make a control."""

    treated: str
    control: str
    passes: bool
    controls_for: str
    verdict: str


JUDGED_PAIRS: tuple[ControlPair, ...] = (
    ControlPair(
        "reflexion-gpt4o-bcb",
        "reflexion-gpt4o-bcb-no-unit",
        False,
        "nothing on its own: the feedback's content and the loop's stopping both differ",
        "not a control: the same model, tasks, iteration cap and test list, but the no-unit harness ran single assert "
        "lines lifted out of the unittest methods (most feedback a NameError on a name the test's setUp defined, or a "
        "harness fault, whatever the code), and its loop ends otherwise: 110 of 148 rows stop unsolved after exactly "
        "two attempts, where the default run stops when the list's tests pass (92 rows at the first attempt). A "
        "control with content-free feedback would need the same stopping rule",
    ),
    ControlPair(
        "reflexion-gpt4o-bcb",
        "reflexion-gpt4o-bcb-curated",
        True,
        "the test list (a second dose contrast, on GPT-4o): the valtest list against the curated one, each with its "
        "measured validity",
        "a control: the same model, tasks, iteration cap, unittest harness and stopping rule (the loop stops when the "
        "list's tests pass: 92 and 102 rows at the first attempt); only the list differs",
    ),
)
"""The candidate natural controls in the published logs (a pair passes or not), judged by reading each run's
feedback (docs/replay.md)."""


def _fit(frame: pd.DataFrame, outcome: str, dose: str) -> dict[str, object]:
    """One GEE of ``outcome`` on ``dose`` (per :data:`PER` points), clustered by task."""
    data = frame.dropna(subset=[outcome, dose]).sort_values("task_id")
    row: dict[str, object] = {
        "outcome": outcome,
        "dose": dose,
        "rows": len(data),
        "tasks": int(data["task_id"].nunique()),
        "lists": int(data["test_list"].nunique()),
        "family": "binomial (logit)" if outcome in BINARY else "gaussian (identity)",
        "scale": "log-odds" if outcome in BINARY else "steps",
    }
    empty = {"estimate": None, "low": None, "high": None, "p": None}
    if data["task_id"].nunique() < 2 or data[dose].nunique() < 2 or data[outcome].nunique() < 2:
        return row | empty | {"note": "not estimable: the dose or the outcome does not vary"}
    exog = sm.add_constant(data[dose].to_numpy(dtype=float) * 100 / PER)
    family = sm.families.Binomial() if outcome in BINARY else sm.families.Gaussian()
    model = sm.GEE(
        data[outcome].to_numpy(dtype=float),
        exog,
        groups=pd.factorize(data["task_id"])[0],
        family=family,
        cov_struct=sm.cov_struct.Exchangeable(),
    )
    try:
        with warnings.catch_warnings():  # separation, a singular working correlation: judged below by the result
            warnings.simplefilter("ignore")
            fit = model.fit()
            est, se, p = float(fit.params[1]), float(fit.bse[1]), float(fit.pvalues[1])
            low, high = (float(x) for x in fit.conf_int()[1])
    except (np.linalg.LinAlgError, ValueError) as exc:
        return row | empty | {"note": f"not estimable: {exc}"}
    if not all(math.isfinite(x) for x in (est, se, p, low, high)):
        return row | empty | {"note": "not estimable: the fit did not converge (no finite slope or error)"}
    out = {"estimate": round(est, 4), "low": round(low, 4), "high": round(high, 4), "p": p}
    if outcome in BINARY:
        out |= {"odds_ratio": round(math.exp(est), 3)}
    return row | out | {"note": ""}


def dose_response(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dose (:data:`DOSES`) and outcome (:data:`OUTCOMES`): the slope per :data:`PER` points of validity with its
    95% interval and p (GEE, exchangeable, clustered by task), and ``p_holm`` over the outcomes of one dose."""
    rows = pd.DataFrame([_fit(frame, outcome, dose) for dose in DOSES for outcome in OUTCOMES])
    rows["p_holm"] = np.nan
    for _, group in rows.groupby("dose"):
        tested = group["p"].notna()
        if tested.any():
            rows.loc[group.index[tested], "p_holm"] = multipletests(group.loc[tested, "p"].astype(float), method="holm")[1]
    return rows


def paired_contrasts(frame: pd.DataFrame, treated: str, control: str) -> pd.DataFrame:
    """Per outcome: ``treated`` set minus ``control`` set over the tasks judged in both (and, for the first step,
    whose first attempt passed in both), each set's mean, the task-level sign-flip p and ``p_holm`` over the
    outcomes."""
    a = frame[frame["dataset"] == treated].set_index("task_id")
    b = frame[frame["dataset"] == control].set_index("task_id")
    shared = a.index.intersection(b.index)
    rows = []
    for outcome in OUTCOMES:
        both = [t for t in shared if not (pd.isna(a.at[t, outcome]) or pd.isna(b.at[t, outcome]))]
        x, y = a.loc[both, outcome].to_numpy(float), b.loc[both, outcome].to_numpy(float)
        test = paired_task_test(both, x, y)
        rows.append(
            {
                "outcome": outcome,
                "treated": treated,
                "control": control,
                "tasks": len(both),
                "treated_mean": round(float(x.mean()), 4) if len(both) else None,
                "control_mean": round(float(y.mean()), 4) if len(both) else None,
                "difference": round(test.value, 4) if math.isfinite(test.value) else None,
                "informative_tasks": test.informative_tasks,
                "p": test.p_value,
                "method": test.method,
                "status": test.status,
            }
        )
    out = pd.DataFrame(rows)
    out["p_holm"] = np.nan
    tested = out["p"].notna()
    if tested.any():
        out.loc[tested, "p_holm"] = multipletests(out.loc[tested, "p"].astype(float), method="holm")[1]
    return out


def extremes(frame: pd.DataFrame, series: list[str]) -> pd.DataFrame:
    """:func:`paired_contrasts` of the series' sets on the :data:`EXTREMES` lists (empty when either is missing)."""
    on = {r["test_list"]: r["dataset"] for _, r in frame[frame["dataset"].isin(series)].iterrows()}
    high, low = (on.get(name) for name in EXTREMES)
    if high is None or low is None:
        return pd.DataFrame()
    return paired_contrasts(frame, high, low)


def natural_controls(frame: pd.DataFrame) -> list[dict[str, object]]:
    """Every natural control: its judgement, and for a pair that passes with both runs present, its paired
    contrasts (rows of :func:`paired_contrasts`)."""
    present = set(frame["dataset"])
    out = []
    for pair in JUDGED_PAIRS:
        entry: dict[str, object] = {
            "treated": pair.treated,
            "control": pair.control,
            "passes": pair.passes,
            "controls_for": pair.controls_for,
            "verdict": pair.verdict,
            "rows": [],
        }
        if pair.passes and {pair.treated, pair.control} <= present:
            entry["rows"] = paired_contrasts(frame, pair.treated, pair.control).to_dict("records")
        out.append(entry)
    return out
