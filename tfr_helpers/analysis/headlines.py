"""The views of a run's headline numbers over the one registry of them (:data:`~.answers.KINDS`, each an
:class:`~.answers.AnswerKind`), and the base study's own kinds: its recorded counts and its numbers with intervals.

- :func:`headline`: one notebook's headline counts per model and source (the ``counts`` of the report's kinds):
  what notebooks record, ``tfr run`` prints and summary.json leads with (``headline``); :func:`headline_lines`
  writes one as text, the one text form every printer uses;
- :func:`headline_numbers`: one row per (model, number) with its own 95% interval over tasks (the ``numbers`` of the
  base study's kinds, then of each arm's ``HEADLINE_KINDS`` when the run holds the arm): what repeated seeds average
  (:mod:`tfr_helpers.analysis.seeds.over_seeds`). The numbers come from the same functions as the paper tables
  (:mod:`rq1`, :mod:`rq2`, :mod:`rq3`), so a seed's row equals the cell of that seed's own table;
  :func:`definitions` defines each.

The third view, the answer rows of the reports' headline boxes, is :func:`tfr_helpers.analysis.answers.report_answers`.

A number never pools a simulated and a real model: every headline is given per coder, labelled with its source
(``simulated``, ``replayed (published): GPT-4``, ``live provider``). Only when every coder of the run has the same
source label is a ``pooled`` figure added, and it names the models it pools and their one source.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, get_args

import pandas as pd

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.answers import KINDS, QUESTIONS, AnswerKind, register_answer_kind
from tfr_helpers.analysis.arms import reports
from tfr_helpers.analysis.inference.units import clustered_rows, samples_per_task, share_columns
from tfr_helpers.analysis.tables import BOOTSTRAP, HEADLINE_COLUMNS, PER_ATTEMPT, PER_CODE, headline_row, share_row
from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.records import Case, Results

CASES: tuple[str, ...] = get_args(Case)
"""RQ1's four cases (generated code verdict _ reference verdict on a generated test)."""


def coders(results: Results) -> list[str]:
    """The run's coders in order of appearance (generated code first, then pair records)."""
    seen = [c.model for c in results.generated_codes] + [p.model for p in results.pair_evaluations]
    return list(dict.fromkeys(seen))


def _setup(results: Results, models: set[str]) -> dict[str, Any]:
    return {
        "codes": sum(c.model in models for c in results.generated_codes),
        "tests": sum(t.model in models for t in results.generated_tests),
    }


def _rq1(results: Results, models: set[str]) -> dict[str, Any]:
    mine = [p for p in results.pair_evaluations if p.model in models]
    fails = [p for p in mine if p.feedback is not None]
    unreliable = sum(p.reliability == "unreliable" for p in fails)
    cases: Counter[str] = Counter(p.case for p in mine)
    return {
        "pairs": len(mine),
        **{case: cases[case] for case in CASES},
        "test_fail_feedback": len(fails),
        "unreliable": unreliable,
        "unreliable_pct": round(100 * unreliable / len(fails), 1) if fails else None,
    }


def _rq2(results: Results, models: set[str]) -> dict[str, Any]:
    refined = [r for r in results.refined_evaluations if r.model in models]
    return {"refinements": len(refined), **dict(sorted(Counter(r.transition for r in refined).items()))}


def _rq3(results: Results, models: set[str]) -> dict[str, Any]:
    feedback = {p.pair_id: p.model for p in results.pair_evaluations if p.feedback is not None}
    decided = [d for d in results.screening if feedback.get(d.feedback_id) in models]
    out: dict[str, Any] = {}
    for strategy in dict.fromkeys(d.strategy for d in decided):
        mine = [d for d in decided if d.strategy == strategy]
        out[f"{strategy}_accept_pct"] = round(100 * sum(d.decision == "accept" for d in mine) / len(mine), 1)
    return out


def per_model_counts(results: Results, name: str, models: list[str]) -> dict[str, Any]:
    """A count per coder with its source (e.g. the case browser's attempts: ``models`` holds one entry per item)."""
    counts = Counter(models)
    by_model = {m: {"source": source_label(results, m), name: counts[m]} for m in dict.fromkeys(models)}
    return {"simulated": results.simulated, "by_model": by_model}


def headline_lines(values: dict[str, Any]) -> list[str]:
    """A recorded headline as text: its run-wide values on the first line, then one line per model (and the
    pooled figure, said to be pooled). Values without ``by_model`` (other notebooks' headlines) are one line."""

    def pairs(numbers: dict[str, Any]) -> str:
        return ", ".join(f"{k}={v}" for k, v in numbers.items() if k not in ("source", "models"))

    flat = {k: v for k, v in values.items() if k not in ("by_model", "pooled")}
    lines = [pairs(flat)] if flat else []
    for model, numbers in values.get("by_model", {}).items():
        lines.append(f"{model} [{numbers.get('source', '?')}]: {pairs(numbers)}")
    if pooled := values.get("pooled"):
        lines.append(f"pooled over {', '.join(pooled['models'])} (all {pooled['source']}): {pairs(pooled)}")
    return lines


def generation_numbers(results: Results) -> list[dict[str, object]]:
    """Code pass@1 and the unreliable share of test-fail feedback, per model."""
    rows = []
    verdicts = [v for v in results.benchmark_verdicts if v.subject == "generated"]
    for model in sorted({v.model for v in verdicts}):
        mine = [v for v in verdicts if v.model == model]
        rs = clustered_rows([v.task_id for v in mine], [v.code_index for v in mine], samples_per_task(results, model))
        passed = share_columns(rs, [v.passed for v in mine])
        rows.append(share_row(results, model, "code_pass_at_1", passed, "code samples"))
        unreliable = rq1.unreliable_share(results, model)
        rows.append(share_row(results, model, "unreliable_feedback", unreliable, "test-fail feedback"))
    return rows


def refinement_numbers(results: Results) -> list[dict[str, object]]:
    """Fail->Pass on reliable and Pass->Fail on unreliable feedback, per model (rq2's refinement outcomes)."""
    out = rq2.refinement_outcomes(results)
    rows = []
    for name, rel, tr in (
        ("fail_to_pass_reliable", "reliable", "fail->pass"),
        ("pass_to_fail_unreliable", "unreliable", "pass->fail"),
    ):
        for _, r in out[(out["reliability"] == rel) & (out["transition"] == tr)].iterrows():
            rows.append(share_row(results, r["model"], name, r.to_dict(), "refinement attempts"))
    return rows


def screening_numbers(results: Results) -> list[dict[str, object]]:
    """accept_all's net change, and each other strategy's F1 and difference vs accept_all (rq3's table)."""
    rows = []
    for _, r in rq3.screening_and_downstream(results).iterrows():
        model, strategy = r["model"], r["strategy"]
        if strategy == rq3.BASELINE:
            per_code = (r["net_change_per_code_pct"], r["net_change_per_code_low"], r["net_change_per_code_high"])
            rows.append(headline_row(results, model, "net_change_per_code_accept_all_pp", *per_code, PER_CODE))
            net = (r["net_change_pp"], r["net_change_low"], r["net_change_high"])
            rows.append(headline_row(results, model, "net_change_accept_all_pp", *net, PER_ATTEMPT))
            continue
        rows.append(headline_row(results, model, f"f1:{strategy}", r["f1_pct"], r["f1_low"], r["f1_high"], BOOTSTRAP))
        per_code = (r["diff_per_code_pct"], r["diff_per_code_low"], r["diff_per_code_high"])
        rows.append(headline_row(results, model, f"diff_per_code_pp:{strategy}", *per_code, PER_CODE))
        diff = (r["diff_vs_accept_all_pp"], r["diff_low"], r["diff_high"])
        rows.append(headline_row(results, model, f"diff_vs_accept_all_pp:{strategy}", *diff, PER_ATTEMPT))
    return rows


for _kind in (
    AnswerKind("setup_counts", "setup", "code and test samples generated", "samples", counts=_setup),
    AnswerKind("rq1_counts", "rq1", "code-test pairs, RQ1's four cases and test-fail feedback", "pairs", counts=_rq1),
    AnswerKind("rq2_counts", "rq2", "refinement attempts per benchmark transition", "attempts", counts=_rq2),
    AnswerKind("rq3_counts", "rq3", "feedback each screening strategy accepts", "feedback decisions", counts=_rq3),
    AnswerKind(
        "generation_numbers",
        "rq1",
        "code pass@1 and the unreliable share of test-fail feedback",
        "code samples, test-fail feedback",
        numbers=generation_numbers,
        definitions={
            "code_pass_at_1": "Percent of generated code samples passing all benchmark tests (pass@1 of one sample).",
            "unreliable_feedback": "Percent of test-fail feedback that is unreliable (the reference fails the test too).",
        },
    ),
    AnswerKind(
        "refinement_numbers",
        "rq2",
        "Fail->Pass on reliable and Pass->Fail on unreliable feedback",
        "refinement attempts",
        numbers=refinement_numbers,
        definitions={
            "fail_to_pass_reliable": "Percent of refinement attempts on reliable feedback whose transition is Fail->Pass.",
            "pass_to_fail_unreliable": "Percent of refinement attempts on unreliable feedback whose transition is "
            "Pass->Fail.",
        },
    ),
    AnswerKind(
        "screening_numbers",
        "rq3",
        "accept_all's net change; each other strategy's F1 and difference from accept_all",
        "code samples, refinement attempts",
        numbers=screening_numbers,
        definitions={
            "net_change_per_code_accept_all_pp": "net_change_per_code_pp of accept_all: the expected change in "
            "benchmark pass rate over all the model's code samples when each is refined once with a feedback "
            "accepted by accept_all (percentage points; the headline downstream number, rq3).",
            "net_change_accept_all_pp": "net_change_pp of accept_all: change in benchmark pass rate per refinement "
            "attempt when every feedback is used (percentage points; per attempt, beside the per-code-sample number).",
            "f1:<strategy>": "F1 x 100 of the screening strategy as a classifier of reliable feedback.",
            "diff_per_code_pp:<strategy>": "net_change_per_code_pp(strategy) - net_change_per_code_pp(accept_all), "
            "percentage points, paired over the same resamples.",
            "diff_vs_accept_all_pp:<strategy>": "net_change_pp(strategy) - net_change_pp(accept_all), percentage "
            "points, per attempt.",
        },
    ),
):
    register_answer_kind(_kind)


def sections() -> list[str]:
    """The reports whose kinds record counts (:func:`headline`), in notebook order: summary.json's ``headline``."""
    reports = [k.report for k in KINDS.values() if k.counts is not None]
    return sorted(dict.fromkeys(reports), key=lambda r: list(QUESTIONS).index(r) if r in QUESTIONS else len(QUESTIONS))


def headline(results: Results, section: str) -> dict[str, Any]:
    """One notebook's headline numbers: ``simulated``, ``by_model`` (each coder with its ``source``) and, only
    when every coder has the same source label, ``pooled`` (with the ``models`` it pools and that ``source``).
    The numbers are the ``counts`` of the report's kinds, in the order they were registered.

    Raises:
        ValueError: ``section`` is not one of :func:`sections`.
    """
    kinds = [k.counts for k in KINDS.values() if k.report == section and k.counts is not None]
    if not kinds:
        raise ValueError(f"unknown section {section!r}; use {', '.join(sections())}")

    def numbers(models: set[str]) -> dict[str, Any]:
        return {key: value for counts in kinds for key, value in counts(results, models).items()}

    models = coders(results)
    out: dict[str, Any] = {"simulated": results.simulated}
    if section == "setup":
        out["tasks"] = len(results.tasks)
    out["by_model"] = {m: {"source": source_label(results, m), **numbers({m})} for m in models}
    labels = {source_label(results, m) for m in models}
    if len(models) > 1 and len(labels) == 1:
        out["pooled"] = {"models": models, "source": labels.pop(), **numbers(set(models))}
    return out


def _arm_kinds(results: Results | None) -> list[AnswerKind]:
    """Each arm's headline kinds, in the arms' order (only the arms the run holds; every arm without ``results``)."""
    return [k for arm in reports() if results is None or arm.present(results) for k in arm.HEADLINE_KINDS]


def _base_kinds() -> list[AnswerKind]:
    arms = {k.name for k in _arm_kinds(None)}
    return [k for k in KINDS.values() if k.numbers is not None and k.name not in arms]


def definitions() -> dict[str, str]:
    """Headline number -> definition, for every number :func:`headline_numbers` can give (``<strategy>``: every
    screening strategy but accept_all; ``<scope>``, ``<k>``: an arm's scopes and rounds)."""
    return {number: text for kind in (*_base_kinds(), *_arm_kinds(None)) for number, text in kind.definitions.items()}


def headline_numbers(results: Results) -> pd.DataFrame:
    """Every headline number of one run: the base study's kinds', then each arm's (columns
    :data:`~tfr_helpers.analysis.tables.HEADLINE_COLUMNS`; undefined values are NaN)."""
    kinds = [*_base_kinds(), *_arm_kinds(results)]
    rows = [row for kind in kinds if kind.numbers is not None for row in kind.numbers(results)]
    frame = pd.DataFrame(rows, columns=HEADLINE_COLUMNS)
    for col in ("value", "low", "high"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    return frame
