"""The study's sensitivity to test strength: RQ1 with EvalPlus's corrected reference, code verdicts base vs plus.

Present when the run's records carry EvalPlus's tiers (an EvalPlus benchmark, or ``plus_tiers``; see
docs/evalplus.md). Per source and coder:

- **RQ1, original vs corrected reference** (pairs whose test also ran on the corrected reference): the share of
  (code sample, test) pairs whose RQ1 case changes, and the share of test-fail feedback whose reliability flips
  (reliable <-> unreliable), with the tasks that cause the changes. A pair whose corrected-reference outcome is a
  timeout or crash is left out (``left_out``).
- **Code verdicts, base vs plus**: the share of generated programs passing the base tests (the original
  benchmark's for a twinned task, EvalPlus's base tier for an EvalPlus task) that fail the plus tier; and of
  refinements, the share whose RQ2 transition changes at the plus tier, and the Pass->Pass under base that are
  Fail->Fail under plus.

Every share has a cluster-bootstrap interval over tasks (code samples within a task): :mod:`..clustered`.
Plus inputs left out of a task's plus tier (its corrected reference gave no expected output for them) are listed
in the caption and in the summary's ``left_out_inputs``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.inference.clustered import Interval, resampler, share
from tfr_helpers.analysis.tables import caption_with
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.records import BenchmarkVerdict, PairEvaluation, RefinedEvaluation, Results, split_pair_id

TABLE = "sensitivity_test_strength"
CAPTION = (
    "Sensitivity to test strength. RQ1: (code sample, test) pairs whose case changes, and test-fail feedback "
    "whose reliability flips, when the oracle is EvalPlus's corrected reference instead of the original one. "
    "Code verdicts: generated programs passing the base tests that fail EvalPlus's plus tier; refinements whose "
    "RQ2 transition changes at the plus tier, and Pass->Pass under base that are Fail->Fail under plus. "
    "Percent [95% cluster-bootstrap interval over tasks]; Tasks: the tasks behind most changes."
)
MEASURES = {
    "rq1_case_changed": "RQ1 case changes with the corrected reference",
    "rq1_reliability_flipped": "reliability flips (test-fail feedback)",
    "base_pass_plus_fail": "passes base, fails plus (generated code)",
    "rq2_transition_changed": "RQ2 transition changes at plus",
    "rq2_pass_pass_to_fail_fail": "Pass->Pass under base, Fail->Fail under plus",
}
LOST = frozenset({"timeout", "crashed", "not_run"})
TOP_TASKS = 5


def present(results: Results) -> bool:
    """Whether the run's records carry EvalPlus's tiers or the corrected reference's outcomes."""
    return any(v.tiers is not None for v in results.benchmark_verdicts) or any(
        p.reference_corrected is not None for p in results.pair_evaluations
    )


def _corrected_case(pair: PairEvaluation) -> str:
    corrected = pair.reference_corrected
    assert corrected is not None
    return f"{'pass' if pair.generated.status == 'passed' else 'fail'}_{'pass' if corrected.status == 'passed' else 'fail'}"


def _row(measure: str, cells: list[tuple[str, int, bool, bool]], left_out: int = 0) -> dict[str, Any]:
    """One measure from rows ``(task, code sample, hit, among)`` with its clustered interval."""
    among = [c for c in cells if c[3]]
    tasks = Counter(c[0] for c in among if c[2])
    out: dict[str, Any] = {"measure": measure, "k": sum(1 for c in among if c[2]), "n": len(among)}
    if among:
        rs = resampler([c[0] for c in among], [c[1] for c in among])
        iv: Interval = share(rs, [c[2] for c in among])
        out |= {"pct": 100 * iv.value, "low": 100 * iv.low, "high": 100 * iv.high, "method": iv.method}
        out |= {"clusters": iv.clusters}
    else:
        out |= {"pct": None, "low": None, "high": None, "method": None, "clusters": 0}
    out["left_out"] = left_out
    out["tasks"] = [{"task_id": t, "changes": n} for t, n in tasks.most_common()]
    return out


def _rq1_rows(pairs: list[PairEvaluation]) -> Iterable[dict[str, Any]]:
    kept = [p for p in pairs if p.reference_corrected is not None and p.reference_corrected.status not in LOST]
    lost = sum(1 for p in pairs if p.reference_corrected is not None) - len(kept)
    if not kept and not lost:
        return
    yield _row("rq1_case_changed", [(p.task_id, p.code_index, _corrected_case(p) != p.case, True) for p in kept], lost)
    flips = []
    for p in kept:
        if p.reliability in ("reliable", "unreliable"):
            corrected = "reliable" if _corrected_case(p) == "fail_pass" else "unreliable"
            flips.append((p.task_id, p.code_index, corrected != p.reliability, True))
    yield _row("rq1_reliability_flipped", flips, lost)


def _base_of(verdict: BenchmarkVerdict, own: bool) -> bool:
    """The base verdict: EvalPlus's base tier for an EvalPlus task (``own``), else the original tests'."""
    assert verdict.tiers is not None
    return verdict.tiers.base if own else verdict.passed


def _code_rows(
    verdicts: list[BenchmarkVerdict], refined: list[RefinedEvaluation], benchmarks: dict[str, str]
) -> Iterable[dict[str, Any]]:
    tiered = [v for v in verdicts if v.tiers is not None and v.subject == "generated"]
    if not tiered:
        return
    own = {v.task_id: v.tiers is not None and v.tiers.benchmark == benchmarks.get(v.task_id) for v in tiered}
    yield _row(
        "base_pass_plus_fail",
        [(v.task_id, v.code_index, not v.tiers.plus, _base_of(v, own[v.task_id])) for v in tiered if v.tiers is not None],
    )
    before = {(v.task_id, v.code_index): v for v in tiered}
    changed, pp_ff = [], []
    for r in refined:
        index = split_pair_id(r.feedback_id)[1]
        v = before.get((r.task_id, index))
        if v is None or v.tiers is None or r.tiers_after is None:
            continue
        base = (_base_of(v, own[r.task_id]), _base_of_after(r, own[r.task_id]))
        plus = (v.tiers.plus, r.tiers_after.plus)
        changed.append((r.task_id, index, base != plus, True))
        pp_ff.append((r.task_id, index, plus == (False, False), base == (True, True)))
    if changed:
        yield _row("rq2_transition_changed", changed)
        yield _row("rq2_pass_pass_to_fail_fail", pp_ff)


def _base_of_after(refined: RefinedEvaluation, own: bool) -> bool:
    assert refined.tiers_after is not None
    return refined.tiers_after.base if own else bool(refined.benchmark_after)


def strength_rows(results: Results) -> list[dict[str, Any]]:
    """One row per source, coder and measure (see the module doc)."""
    models = sorted({v.model for v in results.benchmark_verdicts} | {p.model for p in results.pair_evaluations})
    rows = []
    for model in models:
        pairs = [p for p in results.pair_evaluations if p.model == model]
        verdicts = [v for v in results.benchmark_verdicts if v.model == model]
        refined = [r for r in results.refined_evaluations if r.model == model]
        for row in [*_rq1_rows(pairs), *_code_rows(verdicts, refined, results.task_benchmarks)]:
            rows.append({"source": source_label(results, model), "model": model, **row})
    return rows


def left_out_inputs(results: Results) -> list[dict[str, Any]]:
    """The plus inputs left out of the plus tiers behind the records (task, input index, reason), once each."""
    tiers = [v.tiers for v in results.benchmark_verdicts] + [r.tiers_after for r in results.refined_evaluations]
    found = {(t.benchmark, x.task_id, x.index): x.reason for t in tiers if t is not None for x in t.left_out}
    return [{"benchmark": b, "task_id": t, "index": i, "reason": r} for (b, t, i), r in sorted(found.items())]


def _caption(results: Results) -> str:
    """The table's caption, naming the plus inputs left out when there are any."""
    left = left_out_inputs(results)
    if not left:
        return CAPTION
    named = "; ".join(f"{x['task_id']} #{x['index']} ({x['reason']})" for x in left)
    note = f" Plus inputs left out (the corrected reference gave no expected output): {named}."
    return CAPTION + note


def strength_table(results: Results) -> Styler:
    """The rows of :func:`strength_rows` as a table (``--`` when a share is undefined)."""

    def cell(r: dict[str, Any]) -> str:
        return "--" if r["pct"] is None else f"{r['k']}/{r['n']} ({r['pct']:.1f} [{r['low']:.1f}, {r['high']:.1f}])"

    frame = pd.DataFrame(
        [
            {
                "Source": r["source"],
                "Model": r["model"],
                "Measure": MEASURES[r["measure"]],
                "Share": cell(r),
                "Tasks": ", ".join(t["task_id"] for t in r["tasks"][:TOP_TASKS]) or "--",
            }
            for r in strength_rows(results)
        ],
        columns=["Source", "Model", "Measure", "Share", "Tasks"],
    )
    return frame.set_index(["Source", "Model", "Measure"]).style.set_caption(_caption(results))


def summary_section(results: Results) -> dict[str, Any]:
    """``{"sensitivity_test_strength": {...}}`` for ``summary.json``, or ``{}`` when the run has no tiers."""
    if not present(results):
        return {}
    return {
        TABLE: {
            "caption": caption_with(_caption(results), results),
            "time_limit": results.time_limit,
            "rows": frame_records(pd.DataFrame(strength_rows(results))),
            "left_out_inputs": left_out_inputs(results),
        }
    }
