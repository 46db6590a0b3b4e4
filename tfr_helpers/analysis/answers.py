"""The one declaration of a headline number: :class:`AnswerKind`, registered with :func:`register_answer_kind` in
:data:`KINDS`. Every place a run's headline shows reads this registry:

- a report's headline box (:func:`tfr_helpers.views.headline_box`), ``summary.json``'s ``answers`` and the
  ``tfr run`` terminal table: the kind's answer rows (``compute``: :class:`Answer`, a number with its interval and
  units, per model and source; :func:`report_answers`, :func:`summary_section`). Real (replayed or live) rows come
  first; simulated rows are a demo, kept apart;
- the per-run numbers repeated seeds average (``numbers``: rows of
  :func:`tfr_helpers.analysis.headlines.headline_numbers`, each defined in ``definitions``);
- the counts a notebook records, ``tfr run`` prints per notebook and ``summary.json`` leads with (``counts``:
  :func:`tfr_helpers.analysis.headlines.headline`, per model and source).

A kind fills the views it belongs in (each of the three is optional). Adding a headline number takes one call::

    register_answer_kind(AnswerKind(
        name="rq2_trajectories", report="rq2", order=0,  # order 0: before the kinds already declared (10, 20...)
        measure="P(Fail->Pass | failed) over a published trajectory's repair steps",
        unit="repair steps", compute=my_rows,           # my_rows(results) -> list[Answer]
        numbers=my_numbers,                             # my_numbers(results) -> rows of tables.HEADLINE_COLUMNS
        definitions={"my_number": "What my_number is."},
        counts=my_counts,                               # my_counts(results, models) -> {"name": count}
    ))

``compute`` builds :class:`Answer` rows from a finished run's records (with :func:`share_answer` when the
numbers are share columns). The box, ``summary.json``, the terminal summary and the average over seeds then show
them with no other change. An arm declares its kinds in its report's ``HEADLINE_KINDS`` (their ``numbers`` are
taken only when the run holds the arm).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import pandas as pd

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.inference.units import clustered_rows, samples_per_task, share_columns
from tfr_helpers.analysis.tables import TRANSITION_LABELS
from tfr_helpers.analysis.tidy.sources import source_label, source_of
from tfr_helpers.records import Results
from tfr_helpers.records.arm_registry import arms
from tfr_helpers.replay.datasets import DATASETS

REAL_SOURCES = ("replayed", "live")
"""Sources whose rows are evidence (a ``simulated`` row is a demo)."""


@dataclass(frozen=True)
class Answer:
    """One row of a report's headline: a share (or a value) of one model, with its interval and units."""

    kind: str
    model: str
    source: str
    """``replayed``, ``live`` or ``simulated``."""
    source_label: str
    measure: str
    value: float | None
    """Percent for a share; None when the run has no such number (``note`` says why)."""
    low: float | None = None
    high: float | None = None
    k: int | None = None
    n: int | None = None
    unit: str = ""
    """What ``n`` counts (``feedback instances``, ``attempts``)."""
    clusters: int | None = None
    """Tasks the interval resamples."""
    note: str = ""
    percent: bool = True
    method: str = ""
    """How the interval was made (``bootstrap``, ``wilson over tasks``) or why there is none."""

    @property
    def real(self) -> bool:
        """Whether the row is evidence (replayed or live), not a simulated demo."""
        return self.source in REAL_SOURCES

    def number(self) -> str:
        """``83.8% [79.8, 87.4]``; a degenerate interval says what it is: ``100.0% (all 172)``, ``0.0% (none of
        12)``, ``37.5% (no interval: one task)``, ``not defined: no reliable feedback``."""
        if self.value is None:
            return f"not defined: {self.method}" if self.method else "not defined"
        if not self.percent:
            return f"{self.value:,.0f}" if float(self.value).is_integer() else f"{self.value:,}"
        if self.n and self.k is not None and self.k in (0, self.n):
            whole = f"all {self.n:,}" if self.k == self.n else f"none of {self.n:,}"
            interval = self.interval()
            return f"{self.value}% ({whole}{'; ' + interval if interval else ''})"
        interval = self.interval()
        return f"{self.value}% {interval}" if interval else f"{self.value}%"

    def interval(self) -> str:
        """``[79.8, 87.4]`` (``95% over 12 tasks: [73.5, 100]`` at a boundary), ``no interval: <why>`` without
        one, ``""`` when a count has no interval to give."""
        if self.low is None or self.high is None:
            return f"(no interval: {self.method})" if self.method else "(no interval)"
        if self.low == self.high:
            return f"(no interval: every resample gives {self.low})"
        return f"[{self.low}, {self.high}]"

    def units(self) -> str:
        """``6,403 of 7,640 feedback instances, 102 tasks``."""
        parts = []
        if self.n is not None:
            count = f"{self.k:,} of {self.n:,}" if self.k is not None else f"{self.n:,}"
            parts.append(f"{count} {self.unit}".strip())
        if self.clusters is not None:
            parts.append(f"{self.clusters:,} task" + ("" if self.clusters == 1 else "s"))
        return ", ".join(parts)


@dataclass(frozen=True)
class AnswerKind:
    """A headline number, declared once: which report it belongs to, what it measures, and how each view's rows
    are computed (``compute``: the box; ``numbers``: the rows over seeds; ``counts``: the recorded counts)."""

    name: str
    report: str
    """The report (and notebook) it belongs to: ``setup``, ``rq1``, ``rq2``, ``rq3`` or ``cases``."""
    measure: str
    unit: str
    compute: Callable[[Results], list[Answer]] | None = None
    """The answer rows of the report's headline box (None: the kind shows none)."""
    order: int = 50
    stages: tuple[str, ...] = ()
    """Stages the rows need: a real coder without rows is shown with the reason these were skipped."""
    meaning: Callable[[Answer], str] | None = None
    """One sentence on what a real row means (None: no sentence)."""
    numbers: Callable[[Results], list[dict[str, object]]] | None = None
    """Rows of :func:`~tfr_helpers.analysis.headlines.headline_numbers` (columns ``tables.HEADLINE_COLUMNS``): one
    number of one model with its 95% interval, what repeated seeds average (None: the kind adds none)."""
    definitions: Mapping[str, str] = field(default_factory=dict)
    """Number -> definition, for the numbers of ``numbers`` (``<strategy>``, ``<scope>``, ``<k>``: one number
    each)."""
    counts: Callable[[Results, set[str]], dict[str, Any]] | None = None
    """The report's recorded counts over the given coders (one coder, or every coder when pooled):
    :func:`~tfr_helpers.analysis.headlines.headline` (None: the kind adds none)."""


@dataclass(frozen=True)
class ReportQuestion:
    """A report's question and the headline the box gives when no kind has a real row."""

    report: str
    question: str
    kinds: list[str] = field(default_factory=list)


QUESTIONS: dict[str, str] = {
    "setup": "What did the models generate: code and tests per task?",
    "rq1": "How reliable is test-fail feedback from generated tests?",
    "rq2": "What does refinement on test-fail feedback do to the code?",
    "rq3": "Can screening keep the harmful (unreliable) feedback out?",
    "cases": "What does each refinement attempt and feedback instance look like?",
}
"""Report -> the question its headline box answers."""

KINDS: dict[str, AnswerKind] = {}
"""Every registered answer-row kind by name."""


def register_answer_kind(kind: AnswerKind) -> AnswerKind:
    """Add (or replace) a kind of answer row; its report then leads with its rows (by ``order``)."""
    KINDS[kind.name] = kind
    return kind


def kinds_for(report: str) -> list[AnswerKind]:
    """The kinds whose answer rows a report's box shows, in order (each arm's report loaded first: importing it
    registers its kinds)."""
    for arm in arms():
        if arm.report is not None:
            arm.load("report")
    mine = (k for k in KINDS.values() if k.report == report and k.compute is not None)
    return sorted(mine, key=lambda k: (k.order, k.name))


def share_answer(
    results: Results, kind: AnswerKind, model: str, row: Mapping[str, Any], prefix: str = "", **extra: Any
) -> Answer:
    """An :class:`Answer` from share columns (``k, n, pct, low, high, clusters``; :mod:`inference.units`)."""

    def num(key: str) -> Any:
        value = row.get(f"{prefix}{key}")
        return None if value is None or pd.isna(value) else value

    n = num("n")
    return Answer(
        kind=kind.name,
        model=model,
        source=source_of(results, model).source,
        source_label=source_label(results, model),
        measure=extra.pop("measure", kind.measure),
        value=num("pct") if n else None,
        low=num("low") if n else None,
        high=num("high") if n else None,
        k=None if num("k") is None else int(num("k")),
        n=None if n is None else int(n),
        unit=kind.unit,
        clusters=None if num("clusters") is None else int(num("clusters")),
        method=extra.pop("method", None) or (str(num("method")) if num("method") is not None else ""),
        **extra,
    )


def model_tasks(results: Results, model: str) -> int:
    """Tasks a coder has generated code for (its denominator of tasks)."""
    return len({c.task_id for c in results.generated_codes if c.model == model})


def _rq1_rows(results: Results) -> list[Answer]:
    """Per model and benchmark, the unreliable share with its causes beside it (the model's unusable test samples,
    its placeholder asserts); then, per model with placeholder asserts, the share without them."""
    kind = KINDS["rq1_unreliable"]
    by_test = rq1.unreliable_by_test(results)
    placeholders = {str(r["model"]): r for _, r in by_test[by_test["tests"] == "placeholder"].iterrows() if r["n"]}
    out = []
    for _, row in rq1.by_benchmark(results).iterrows():
        model = str(row["model"])
        tasks, with_feedback = model_tasks(results, model), row.get("clusters")
        note = f"{row['benchmark']}"
        if with_feedback is not None and not pd.isna(with_feedback) and int(with_feedback) < tasks:
            note += (
                f"; {int(with_feedback)} of the model's {tasks} tasks gave test-fail feedback (the others: every "
                "generated test passed, or no usable test)"
            )
        note += unusable_test_samples(results, model)
        if model in placeholders:
            blank = placeholders[model]
            note += (
                f"; counted here: {int(blank['n']):,} feedback instances from placeholder asserts (assert _____ == "
                f"f(...), a blank no code fills), {int(blank['k']):,} of them unreliable"
            )
        out.append(share_answer(results, kind, model, row, note=note))
    for model in placeholders:
        rest = by_test[(by_test["model"] == model) & (by_test["tests"] == "no_placeholder")].iloc[0].to_dict()
        measure = f"{kind.measure}, without placeholder asserts"
        note = "every benchmark of the model; the same feedback with the placeholder asserts left out"
        last = max(i for i, a in enumerate(out) if a.model == model)  # right after the model's own rows
        out.insert(last + 1, share_answer(results, kind, model, rest, measure=measure, note=note))
    return out


def unusable_test_samples(results: Results, model: str) -> str:
    """``; 1,433 of 1,640 test samples unusable (...)`` for a model with test samples that gave no test."""
    failures = sum(f.model == model for f in results.test_generation_failures)
    if not failures:
        return ""
    usable = len({(t.task_id, t.sample_index) for t in results.generated_tests if t.model == model})
    return (
        f"; {failures:,} of its {failures + usable:,} test samples unusable (no assert calling the entry point, or "
        "none parses), so they give no feedback"
    )


def _rq2_rows(results: Results) -> list[Answer]:
    kind = KINDS["rq2_transitions"]
    cond = rq2.conditional_transitions(results)
    out = []
    for _, row in cond.iterrows():
        if not row.get("attempts"):
            continue
        given = "passed" if row["transition"] == "pass->fail" else "failed"
        measure = f"P({TRANSITION_LABELS[row['transition']]} | {given} before), {row['reliability']} feedback"
        out.append(share_answer(results, kind, str(row["model"]), row, measure=measure))
    return out


def _rq3_rows(results: Results) -> list[Answer]:
    """Specificity over the unreliable feedback (its denominator), recall with its interval in the note."""
    kind = KINDS["rq3_screening"]
    out = []
    for _, row in rq3.screening_and_downstream(results).iterrows():
        if row["strategy"] == rq3.BASELINE or row.get("abstained"):
            continue
        spec = {"k": row["unreliable_rejected"], "n": row["unreliable"], "clusters": row.get("specificity_clusters")}
        spec |= {key: row.get(f"specificity_{key}") for key in ("pct", "low", "high", "method")}
        measure = f"{row['strategy']}: unreliable feedback rejected (specificity)"
        recall = Answer(
            kind.name,
            "",
            "",
            "",
            "",
            _num(row.get("recall_pct")),
            _num(row.get("recall_low")),
            _num(row.get("recall_high")),
            int(row["reliable_kept"]),
            int(row["reliable"]),
            method=str(row.get("recall_method") or ""),
        )
        note = (
            f"reliable feedback kept (recall): {recall.number()}, {recall.k:,} of {recall.n:,}; "
            f"{int(row['decisions']):,} feedback decided in all"
        )
        out.append(share_answer(results, kind, str(row["model"]), spec, measure=measure, note=note))
    return out


def _num(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _setup_rows(results: Results) -> list[Answer]:
    kind = KINDS["setup_generation"]
    out = []
    for model in dict.fromkeys(c.model for c in results.generated_codes):
        codes = [c for c in results.generated_codes if c.model == model]
        failures = sum(f.model == model for f in results.test_generation_failures)
        what = (
            "published test samples had no usable assert (none calls the entry point, or none parses)"
            if source_of(results, model).source == "replayed"
            else "tester replies gave no usable test (no parseable test function or assert)"
        )
        note = f"{failures:,} {what}" if failures else ""
        rs = clustered_rows([c.task_id for c in codes], [c.sample_index for c in codes], samples_per_task(results, model))
        row = share_columns(rs, [c.code is not None for c in codes])
        out.append(share_answer(results, kind, model, row, note=note))
    return out


def _cases_rows(results: Results) -> list[Answer]:
    kind = KINDS["cases_browsable"]
    out = []
    for model in dict.fromkeys(c.model for c in results.generated_codes):
        feedback = sum(p.model == model and p.feedback is not None for p in results.pair_evaluations)
        attempts = sum(r.model == model for r in results.refinements)
        note = f"{attempts:,} refinement attempts" if attempts else "no refinement attempt: feedback, code and test shown"
        tasks = {p.task_id for p in results.pair_evaluations if p.model == model and p.feedback is not None}
        row = {"n": feedback, "clusters": len(tasks)}  # the tasks the browsable feedback is on, as in RQ1's rows
        answer = share_answer(results, kind, model, row, note=note)
        out.append(replace(answer, value=float(feedback), percent=False, n=None))
    return out


def _more_than_half(what: str) -> Callable[[Answer], str]:
    def meaning(answer: Answer) -> str:
        if answer.value is None or answer.low is None or answer.high is None:
            return ""
        who = answer.source_label.split(": ")[-1]
        if answer.low > 50:
            return f"For {who}, most {what} (the whole 95% interval is above half)."
        if answer.high < 50:
            return f"For {who}, less than half of the {what} (the whole 95% interval is below half)."
        return f"For {who}, the interval includes half: this run cannot say whether most {what}."

    return meaning


def _screening_meaning(answer: Answer) -> str:
    if answer.value is None:
        return ""
    who = answer.source_label.split(": ")[-1]
    strategy = answer.measure.split(":")[0]
    return f"For {who}, {strategy} keeps out {answer.value}% of the unreliable feedback (its note: the reliable it keeps)."


for _kind in (
    AnswerKind(
        "rq1_unreliable",
        "rq1",
        "test-fail feedback that is unreliable (the reference fails the test too)",
        "feedback instances",
        _rq1_rows,
        order=10,
        stages=("evaluate_code_test_pairs",),
        meaning=_more_than_half("test-fail feedback blames the code for a wrong test"),
    ),
    AnswerKind(
        "rq2_transitions",
        "rq2",
        "benchmark transition after one refinement",
        "attempts",
        _rq2_rows,
        order=20,
        stages=("refine_codes", "evaluate_refined_codes"),
    ),
    AnswerKind(
        "rq3_screening",
        "rq3",
        "",
        "unreliable feedback instances",
        _rq3_rows,
        order=20,
        stages=("screen_feedback",),
        meaning=_screening_meaning,
    ),
    AnswerKind(
        "setup_generation",
        "setup",
        "code samples with usable code",
        "code samples",
        _setup_rows,
        order=10,
        stages=("generate_codes",),
    ),
    AnswerKind(
        "cases_browsable",
        "cases",
        "test-fail feedback instances, each browsable below",
        "feedback instances",
        _cases_rows,
        order=10,
    ),
):
    register_answer_kind(_kind)


def _absent(results: Results, report: str, rows: Sequence[Answer]) -> list[Answer]:
    """A row per real coder with no answer in ``report``, saying why (its skipped stages, or no data)."""
    have = {a.model for a in rows}
    stages = {s for k in kinds_for(report) for s in k.stages}
    out = []
    for model in dict.fromkeys(c.model for c in results.generated_codes):
        src = source_of(results, model)
        if model in have or src.source not in REAL_SOURCES:
            continue
        reasons = sorted({f"{s.stage} {s.reason}" for s in results.skipped if s.model == model and s.stage in stages})
        note = "; ".join(reasons) or "no such records in this run"
        kinds = kinds_for(report)  # the first kind of the run's own coders (one with stages), else the first
        kind = next((k.name for k in kinds if k.stages), kinds[0].name if kinds else report)
        out.append(Answer(kind, model, src.source, source_label(results, model), "no real answer", None, note=note))
    return out


def report_answers(results: Results, report: str) -> list[Answer]:
    """Every answer row of one report, real rows first (the reason rows of real coders without an answer after the
    real answers), then the simulated demo rows."""
    rows = [a for kind in kinds_for(report) if kind.compute for a in kind.compute(results)]
    rows += _absent(results, report, rows)
    return sorted(rows, key=lambda a: (not a.real, a.real and a.value is None))


def display_name(model: str) -> str:
    """A registered replay dataset's display name (``replay:codet-codegen16b-humaneval`` -> ``CodeGen-Mono-16B
    (CodeT)``), as the paper tables, the terminal and the headline boxes name it; any other model as given."""
    spec = DATASETS.get(model.removeprefix("replay:")) if model.startswith("replay:") else None
    return spec.display if spec is not None else model


def meaning(answer: Answer) -> str:
    """The one-sentence meaning its kind gives a real row ("" for none)."""
    kind = KINDS.get(answer.kind)
    return kind.meaning(answer) if kind and kind.meaning and answer.real else ""


def summary_section(results: Results) -> dict[str, Any]:
    """``{"answers": {report: [row, ...]}}`` for ``summary.json``: every report's rows (real first)."""
    reports = dict.fromkeys(k.report for k in KINDS.values() if k.compute is not None)
    return {"answers": {r: [asdict(a) for a in report_answers(results, r)] for r in reports}}


def answers_from_summary(summary: Mapping[str, Any], report: str) -> list[Answer]:
    """A report's rows as ``summary.json`` holds them (empty for a summary written before answers existed)."""
    return [Answer(**row) for row in summary.get("answers", {}).get(report, [])]


def with_note(answer: Answer, note: str) -> Answer:
    """The row with ``note`` appended."""
    return replace(answer, note="; ".join(p for p in (answer.note, note) if p))
