"""The oracle-repaired arm: what the same refiner does when the generated test is right.

Every number here uses the reference (a repaired test expects the reference's output): the arm is an upper bound on
refinement with right tests, never a screening strategy; every caption and summary entry says so. The numbers come
from the run's oracle part (``results.part(ARM)``, see docs/oracle_repair.md):

- :func:`repair_report`: per source, model and benchmark, the unreliable EBT feedback, how much of it was repaired,
  why the rest was not, and how often the generated code passes the repaired test (the original feedback was the
  test's fault alone);
- :func:`oracle_comparison`: on the same feedback instances (one per distinct refinement prompt), the benchmark
  transitions of refinement on the original feedback and on the repaired feedback, the net change in benchmark
  pass rate of each arm, and their difference compared by the study's one arm comparison (:mod:`.arm_comparison`:
  paired cluster-bootstrap interval, task-level permutation test Holm-adjusted across the model's scopes), as the
  controls are compared with the feedback arm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.answers import AnswerKind, register_answer_kind
from tfr_helpers.analysis.arms.arm_comparison import adjust, collapse_prompts, paired_effect, task_test_columns
from tfr_helpers.analysis.inference.clustered import N_RESAMPLES, SEED, Resampler, ratio, resampler
from tfr_helpers.analysis.inference.stats import mean_se, pct
from tfr_helpers.analysis.inference.units import clustered_rows, samples_per_task, share_columns
from tfr_helpers.analysis.rq2 import TRANSITIONS
from tfr_helpers.analysis.tables import BOOTSTRAP, TRANSITION_LABELS, caption_with, headline_row, share_cell
from tfr_helpers.analysis.tidy.frames import frame_records, refinements_frame
from tfr_helpers.analysis.tidy.sources import source_label, source_of
from tfr_helpers.arms.oracle.arm import ARM
from tfr_helpers.arms.oracle.records import OracleRepairResults
from tfr_helpers.arms.oracle.stages.rewrite import REASON_KEYS, reason_key
from tfr_helpers.records import RefinedEvaluation, Results

NAME = ARM.field
"""The arm's configuration key (``refinement.oracle_repair``) and its section of ``summary.json``."""
TABLE = "rq2_oracle_repair"
"""File stem of the LaTeX table (written only for runs with ``refinement.oracle_repair``)."""
ARMS = ("original", "oracle-repaired")
SCOPES = ("code fails repaired test", "code passes repaired test")
"""Feedback instances compared: repaired tests the generated code fails (both arms refine) or passes (the oracle
arm has no feedback, the code is kept; only the original arm refines)."""
USES_REFERENCE = (
    "The oracle-repaired arm uses the reference solution (each repaired test expects the reference's output): "
    "an upper bound on refinement with right tests, not a screening strategy."
)
CAPTION = (
    USES_REFERENCE + " Benchmark transitions of refinement on the original and on the oracle-repaired feedback of the "
    "same unreliable EBT feedback instances, per model: count (percent of attempts [95 percent bootstrap over tasks, "
    "then code samples]); net pass-rate change in percentage points per instance [bootstrap over tasks]; oracle - "
    "original: paired difference [paired bootstrap] and its task-level permutation p (the arms swapped within whole "
    "tasks), Holm-adjusted across the model's scopes; 'too few tasks' below six tasks with a discordant instance. "
    "Identical refinement prompts count once."
)
DEFINITIONS = {
    "uses_reference": USES_REFERENCE,
    "unreliable_ebt_feedback": "Test-fail feedback from an example-based test that the reference also fails.",
    "repaired": "Unreliable EBT feedback whose failed `assert <call> == <expected>` was rewritten to expect the "
    "reference's output (a Python literal) and whose repaired test the reference passes in the sandbox.",
    "not_repaired_<reason>": "Unreliable EBT feedback not repaired, by reason: the cause of its unreliability when "
    "that is not a wrong expected value (invalid_input: an input the reference rejects), or why the rewrite failed.",
    "code_passes_repaired": "Repaired tests the generated code passes: the original feedback was the test's fault "
    "alone (percent of repaired, bootstrap interval over tasks).",
    "repaired_feedback": "Repaired tests the generated code fails: the oracle arm's feedback, refined by the same "
    "refiner (its request built as in the original arm: task view, generated code, feedback text).",
    "refinement": "run, or why the coder's feedback is not refined (not run: no refiner, for a replay dataset).",
    "scope": "code fails repaired test: both arms refined the instance; code passes repaired test: only the original "
    "arm did (the oracle arm has no feedback and keeps the generated code).",
    "instances": "Repaired unreliable EBT feedback instances of the scope.",
    "attempts": "Refinement attempts of the arm compared on the scope's feedback instances, one per distinct "
    "refinement prompt: identical original prompts (same task, code sample text and feedback text) share one cached "
    "reply in both arms (the repaired prompt is rewritten from the same test), so each keeps its first instance (by "
    "feedback id) in both arms alike.",
    "duplicate_prompts": "Compared instances left out because their original refinement prompt repeats a kept one.",
    "<transition>_k/n/pct/low/high": "Instances of the arm with that benchmark transition: count, attempts, percent "
    "[95 percent bootstrap interval over tasks, then code samples: instances of a task are not independent].",
    "net_change_pp": "100 * mean over the instances of (benchmark verdict after - before): after is the refined "
    "code's verdict (the generated code's when refinement gave no code or, in the oracle arm on code that passes "
    "its repaired test, when there is no feedback); bootstrap over tasks.",
    "diff_vs_original_pp": "net_change_pp(oracle-repaired) - net_change_pp(original) on the same instances; "
    "diff_low/diff_high: paired cluster-bootstrap interval (both arms on the same resamples).",
    "p_task": "Task-level permutation test of diff_vs_original_pp: each task's per-instance differences flipped in "
    "sign together (exact over the 2^m patterns of the m informative tasks up to 14, else 9,999 random patterns); "
    "informative_tasks: tasks with an instance whose gain differs between the arms. Below six informative tasks no p "
    "is given (test: 'too few tasks').",
    "p_holm": "Holm adjustment of p_task across the model's tested scopes; differs: p_holm < 0.05 (never without a test).",
}
_GAIN = {"fail->pass": 1, "pass->fail": -1}


def present(results: Results) -> bool:
    """Whether the run holds the oracle-repaired arm (``refinement.oracle_repair`` was on)."""
    return results.has(ARM)


def _arm(results: Results) -> OracleRepairResults:
    return results.part(ARM)


def repair_report(results: Results) -> pd.DataFrame:
    """Per source, model and benchmark: unreliable EBT feedback, repaired, not repaired by reason, code passes.

    Returns:
        Columns ``source, model, benchmark, refinement, unreliable_ebt_feedback``, ``repaired_k/n/pct/low/high``
        (share of the unreliable EBT feedback), ``not_repaired`` and ``not_repaired_<reason>`` for every reason of
        :data:`~tfr_helpers.arms.oracle.stages.rewrite.REASON_KEYS`, ``code_passes_k/n/pct/low/high`` (share of the
        repaired) and ``repaired_feedback`` (repaired tests the code fails: the oracle arm's feedback).

    Raises:
        ValueError: The run has no oracle-repaired arm.
    """
    arm = _arm(results)
    rows = []
    units = sorted({(r.model, r.benchmark) for r in arm.repaired_tests})
    for model, bench in units:
        mine = [r for r in arm.repaired_tests if r.model == model and r.benchmark == bench]
        samples = samples_per_task(results, model)
        repaired = [r for r in mine if r.status == "repaired"]
        reasons = [reason_key(r.reason or "") for r in mine if r.status == "not_repaired"]
        rows.append(
            {
                "source": source_of(results, model).source,
                "model": model,
                "benchmark": bench,
                "refinement": arm.refinement_status.get(model, "run"),
                "unreliable_ebt_feedback": len(mine),
                **share_columns(_rs(mine, samples), [r.status == "repaired" for r in mine], prefix="repaired_"),
                "not_repaired": len(reasons),
                **{f"not_repaired_{key}": reasons.count(key) for key in REASON_KEYS},
                **share_columns(_rs(repaired, samples), [_passes(r) for r in repaired], prefix="code_passes_"),
                "repaired_feedback": sum(r.feedback is not None for r in repaired),
            }
        )
    cols = ["source", "model", "benchmark", "refinement", "unreliable_ebt_feedback"]
    cols += [f"repaired_{c}" for c in ("k", "n", "pct", "low", "high")] + ["not_repaired"]
    cols += [f"not_repaired_{key}" for key in REASON_KEYS]
    cols += [f"code_passes_{c}" for c in ("k", "n", "pct", "low", "high")] + ["repaired_feedback"]
    return pd.DataFrame(rows, columns=cols)


REPAIR_CAPTION = (
    "Unreliable EBT feedback whose test the reference repaired (its expected value or exception rewritten from the "
    "reference; the oracle arm, an upper bound), per model and benchmark: k/n and percent [95% cluster bootstrap over "
    "tasks, then code samples]; the feedback not repaired by reason; the repaired tests the code still fails (the "
    "arm's feedback)."
)


def repair_table(results: Results) -> Styler:
    """:func:`repair_report` formatted for a report: one row per model and benchmark, six columns."""
    out = []
    for _, r in repair_report(results).iterrows():
        reasons = ", ".join(
            f"{k.replace('_', ' ')} {int(r[f'not_repaired_{k}'])}" for k in REASON_KEYS if r[f"not_repaired_{k}"]
        )
        out.append(
            {
                "Model": r["model"],
                "Benchmark": r["benchmark"],
                "Source": source_label(results, str(r["model"])),
                "Unreliable EBT feedback": int(r["unreliable_ebt_feedback"]),
                "Repaired": f"{int(r['repaired_k'])}/{int(r['repaired_n'])} {share_cell(r, 'repaired_')}",
                "Not repaired (reasons)": f"{int(r['not_repaired'])}" + (f" ({reasons})" if reasons else ""),
                "Code passes the repaired test": f"{int(r['code_passes_k'])}/{int(r['code_passes_n'])} "
                f"{share_cell(r, 'code_passes_')}",
                "Repaired feedback (refined)": f"{int(r['repaired_feedback'])} ({r['refinement']})",
            }
        )
    frame = pd.DataFrame(out)
    return (frame.set_index(["Model", "Benchmark"]) if len(frame) else frame).style.set_caption(REPAIR_CAPTION)


def _rs(rows: list[Any], samples: dict[str, int]) -> Resampler:
    """The cluster resampler (task, then code sample, over all of the coder's ``samples`` per task) of records with
    ``task_id`` and ``code_index``."""
    return clustered_rows([r.task_id for r in rows], [r.code_index for r in rows], samples)


def _passes(r: Any) -> bool:
    return r.generated is not None and r.generated.status == "passed"


def _row(transitions: list[str], rs: Resampler) -> dict[str, Any]:
    """Attempts, each transition's count and share (clustered by task, then code sample: ``rs``), and the net
    pass-rate change of one arm on one scope."""
    net = ratio(rs, np.array([_GAIN.get(t, 0) for t in transitions], dtype=float), np.ones(len(transitions)), "atanh")
    out: dict[str, Any] = {"attempts": len(transitions)}
    for tr in TRANSITIONS:
        out.update(share_columns(rs, [t == tr for t in transitions], prefix=f"{tr}_"))
    return out | {"net_change_pp": pct(net.value), "net_change_low": pct(net.low), "net_change_high": pct(net.high)}


def oracle_comparison(results: Results, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Refinement on the original vs the oracle-repaired feedback of the same instances, per model.

    Scope ``code fails repaired test``: both arms refined the instance. Scope ``code passes repaired test``: only
    the original arm refined it (the oracle arm keeps the code: every transition is unchanged, net change 0).
    Compared as every refinement arm is (:mod:`.arm_comparison`): one instance per distinct original refinement
    prompt, the paired difference of the per-instance gains (+1 Fail->Pass, -1 Pass->Fail, else 0) with its task-level
    test, Holm-adjusted across the model's scopes.

    Returns:
        One row per (model, scope, arm): ``source, model, scope, arm, refinement, instances, attempts``, for each
        transition ``<transition>_k/n/pct/low/high``, ``net_change_pp/low/high``, ``duplicate_prompts`` and, on
        oracle-repaired rows, ``diff_vs_original_pp/low/high`` (paired over the same instances; every interval is the
        cluster bootstrap over tasks, then code samples) with ``informative_tasks``, ``test``, ``p_task``,
        ``p_holm`` and ``differs`` (NaN / False on original rows).

    Raises:
        ValueError: The run has no oracle-repaired arm.
    """
    arm = _arm(results)
    original = {e.feedback_id: e for e in results.refined_evaluations}
    oracle = {e.feedback_id: e for e in arm.refined_evaluations}
    prompts = refinements_frame(results)[["feedback_id", "prompt_key"]]
    rows = []
    for model in sorted({r.model for r in arm.repaired_tests}):
        status, samples = arm.refinement_status.get(model, "run"), samples_per_task(results, model)
        repaired = [r for r in arm.repaired_tests if r.model == model and r.status == "repaired"]
        code_of = {r.feedback_id: r.code_index for r in repaired}
        scopes = {
            SCOPES[0]: [r.feedback_id for r in repaired if r.feedback is not None],
            SCOPES[1]: [r.feedback_id for r in repaired if r.feedback is None],
        }
        for scope, ids in scopes.items():
            head = {"source": source_of(results, model).source, "model": model, "scope": scope, "refinement": status}
            compared = [i for i in ids if i in original and (scope == SCOPES[1] or i in oracle)]
            first = set(collapse_prompts(prompts[prompts["feedback_id"].isin(compared)])["feedback_id"])
            both = [i for i in compared if i in first]  # one per distinct prompt, in the records' order
            orig: list[RefinedEvaluation] = [original[i] for i in both]
            kept = [f"{'pass' if e.benchmark_before else 'fail'}->{'pass' if e.benchmark_before else 'fail'}" for e in orig]
            mine: list[str] = [oracle[i].transition for i in both] if scope == SCOPES[0] else kept
            tasks = [e.task_id for e in orig]
            codes = [code_of[i] for i in both]
            # one resampler (the cluster bootstrap over tasks, then code samples) for both arms and their difference
            rs = resampler(tasks, codes, samples_per_task=samples, n_resamples=n_resamples, seed=seed)
            o_row, r_row = _row([e.transition for e in orig], rs), _row(mine, rs)
            if scope == SCOPES[1]:
                r_row["attempts"] = 0  # no feedback, no refinement: the generated code is kept
            effect = paired_effect(rs, tasks, [_GAIN.get(t, 0) for t in mine], [_GAIN.get(e.transition, 0) for e in orig])
            diff = effect.interval
            dropped = {"duplicate_prompts": len(compared) - len(both)}
            rows.append(head | {"arm": ARMS[0], "instances": len(ids)} | o_row | dropped)
            rows.append(
                head
                | {"arm": ARMS[1], "instances": len(ids)}
                | r_row
                | dropped
                | {"diff_vs_original_pp": pct(diff.value), "diff_low": pct(diff.low), "diff_high": pct(diff.high)}
                | task_test_columns(effect)
            )
    if not rows:
        return pd.DataFrame(rows)
    out = adjust(pd.DataFrame(rows), ["model"])
    counts = out["informative_tasks"]  # a count on oracle rows, none on original rows (not a float)
    out["informative_tasks"] = pd.Series([None if pd.isna(v) else int(v) for v in counts], index=out.index, dtype=object)
    return out


def oracle_table(results: Results) -> Styler:
    """The ``rq2_oracle_repair`` table: per model, scope and arm, attempts, transitions and net change."""

    nums = oracle_comparison(results)
    rows: list[dict[str, Any]] = []
    for _, r in nums.iterrows():
        row = {"Model": r["model"], "Scope": r["scope"], "Arm": r["arm"], "Source": source_label(results, r["model"])}
        if r["refinement"] != "run":  # one row says why there are no numbers (no refiner: not simulated either)
            if not any(done["Model"] == r["model"] for done in rows):
                row |= {"Scope": "all", "Arm": "both"}
                rows.append(row | dict.fromkeys(["Instances", "Attempts", *TRANSITION_LABELS.values()], r["refinement"]))
            continue
        row |= {"Instances": str(int(r["instances"])), "Attempts": str(int(r["attempts"]))}
        row |= {lab: share_cell(r, f"{tr}_", with_count=True) for tr, lab in TRANSITION_LABELS.items()}
        row["Net change (pp)"] = share_cell(
            {"pct": r["net_change_pp"], "low": r["net_change_low"], "high": r["net_change_high"]}
        )
        if r["arm"] == ARMS[1]:
            diff = share_cell({"pct": r["diff_vs_original_pp"], "low": r["diff_low"], "high": r["diff_high"]})
            test = f"Holm p={r['p_holm']:.3f}" if pd.notna(r["p_holm"]) else f"{r['test']} ({r['informative_tasks']})"
            row["Oracle - original (pp)"] = f"{diff} {test}"
        rows.append(row)
    cols = ["Model", "Scope", "Arm", "Source", "Instances", "Attempts", *TRANSITION_LABELS.values()]
    cols += ["Net change (pp)", "Oracle - original (pp)"]
    frame = pd.DataFrame(rows, columns=cols).fillna("--").set_index(["Model", "Scope", "Arm"])
    return frame.style.set_caption(CAPTION)  # the sources: said once per report (views.sources_table)


def summary_section(results: Results) -> dict[str, Any]:
    """``{"oracle_repair": {...}}`` for ``summary.json``, or ``{}`` when the run has no oracle-repaired arm."""
    if not present(results):
        return {}
    section = {
        "uses_reference": True,
        "note": USES_REFERENCE,
        "definitions": DEFINITIONS,
        "repair_report": {"rows": frame_records(repair_report(results))},
        TABLE: {"caption": caption_with(CAPTION, results), "rows": frame_records(oracle_comparison(results))},
    }
    return {NAME: section}


def tables(results: Results) -> dict[str, Styler]:
    """The arm's LaTeX table: :data:`TABLE`."""
    return {TABLE: oracle_table(results)}


def figures(results: Results) -> dict[str, tuple[Any, tuple[float, float]]]:
    """The arm draws no figure of its own."""
    return {}


def over_seeds(results: Mapping[int, Results]) -> pd.DataFrame:
    """The oracle comparison (:func:`oracle_comparison`) per model, scope and arm, over seeds.

    Returns:
        Columns ``model, scope, arm, seeds, attempts`` (summed over seeds) and ``net_change_pp_mean/_se``,
        ``diff_vs_original_pp_mean/_se``; empty when no seed has the oracle-repaired arm.
    """
    frames = [oracle_comparison(r).assign(seed=s) for s, r in results.items() if present(r)]
    if not frames:
        return pd.DataFrame(columns=["model", "scope", "arm", "seeds", "attempts"])
    pooled = pd.concat(frames, ignore_index=True)
    rows = []
    for (model, scope, arm), g in pooled.groupby(["model", "scope", "arm"], sort=False):
        row: dict[str, Any] = {"model": model, "scope": scope, "arm": arm, "seeds": g["seed"].nunique()}
        row["attempts"] = int(g["attempts"].sum())
        for col in ("net_change_pp", "diff_vs_original_pp"):
            row[f"{col}_mean"], row[f"{col}_se"] = mean_se(g[col].astype(float))
        rows.append(row)
    return pd.DataFrame(rows)


HEADLINE_DEFINITIONS = {
    "oracle_net_change_pp:<scope>": "Oracle-repaired arm (uses the reference: an upper bound): net_change_pp of "
    "refinement on the repaired feedback, per scope of the arm's report (oracle_comparison).",
    "oracle_diff_vs_original_pp:<scope>": "net_change_pp(oracle-repaired) - net_change_pp(original) on the same "
    "instances, per scope.",
}
"""Definitions of :func:`headline_rows`' numbers."""


def headline_rows(results: Results) -> list[dict[str, object]]:
    """The oracle-repaired arm's net change and its difference from the original feedback, per model and scope."""

    rows = []
    frame = oracle_comparison(results)
    for _, r in frame[frame["arm"] != "original"].iterrows():
        model, scope = r["model"], str(r["scope"]).replace(" ", "_")
        net = (r["net_change_pp"], r["net_change_low"], r["net_change_high"])
        rows.append(headline_row(results, model, f"oracle_net_change_pp:{scope}", *net, BOOTSTRAP))
        diff = (r["diff_vs_original_pp"], r["diff_low"], r["diff_high"])
        rows.append(headline_row(results, model, f"oracle_diff_vs_original_pp:{scope}", *diff, BOOTSTRAP))
    return rows


HEADLINE_KINDS: tuple[AnswerKind, ...] = (
    register_answer_kind(
        AnswerKind(
            "oracle_repair_numbers",
            "rq2",
            "the oracle-repaired arm's net change and its difference from the original feedback, per scope",
            "refinement attempts",
            numbers=headline_rows,
            definitions=HEADLINE_DEFINITIONS,
        )
    ),
)
"""The arm's headline numbers (registered; :func:`headline_rows` computes their rows, :data:`HEADLINE_DEFINITIONS`
defines them)."""
