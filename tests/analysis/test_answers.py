"""The answer rows a report leads with: real rows first with intervals and units, a reason row for a real coder
without an answer, simulated rows after; no comparison pairs a simulated with a real row; one registered kind reaches
every view of the headline."""

from __future__ import annotations

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import load_results
from tfr_helpers.analysis.answers import (
    KINDS,
    Answer,
    AnswerKind,
    answers_from_summary,
    register_answer_kind,
    report_answers,
    share_answer,
    summary_section,
)
from tfr_helpers.analysis.headlines import definitions, headline_lines, headline_numbers
from tfr_helpers.analysis.interpret import MixedSourcesError, check_comparable, interpret_rq1, rq1_comparisons
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.analysis.tables import BOOTSTRAP, headline_row
from tfr_helpers.notebooks.answer_table import summary_answer_lines
from tfr_helpers.records import ModelSource, Results, SkippedWork
from tfr_helpers.views import headline_box


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """The synthetic run with ``sim:alt`` presented as a replayed dataset: one simulated, one real coder."""
    res = load_results(make_synthetic_run(tmp_path_factory.mktemp("mixed"), seed=3))
    sources = [
        ModelSource(model="sim:default", source="simulated", label="simulated", note="demo"),
        ModelSource(model="sim:alt", source="replayed", label="replayed (published)", producer="Alt-1", note="real"),
    ]
    return res.model_copy(update={"model_sources": sources, "simulated": True})


def test_real_rows_come_first_with_interval_units_and_a_badge(mixed: Results) -> None:
    rows = report_answers(mixed, "rq1")
    assert [a.real for a in rows] == sorted((a.real for a in rows), reverse=True)
    real = [a for a in rows if a.real]
    assert real and all(a.model == "sim:alt" and a.source == "replayed" for a in real)
    first = real[0]
    assert first.low is not None and first.high is not None and first.low <= first.value <= first.high
    assert first.number().startswith(f"{first.value}% [{first.low}, ")
    assert f"{first.k:,} of {first.n:,} feedback instances" in first.units()
    assert any(not a.real and a.model == "sim:default" for a in rows)


def test_a_real_coder_without_rows_says_why(mixed: Results) -> None:
    skipped = [SkippedWork(model="sim:alt", stage="refine_codes", reason="not run: no refiner")]
    res = mixed.model_copy(
        update={"refinements": [], "refined_evaluations": [r for r in mixed.refined_evaluations if r.model != "sim:alt"]}
    )
    res = res.model_copy(update={"skipped": skipped})
    rows = [a for a in report_answers(res, "rq2") if a.real]
    assert [(a.model, a.value, a.note) for a in rows] == [("sim:alt", None, "refine_codes not run: no refiner")]


def test_a_new_kind_of_row_slots_in_first_and_reaches_summary_json(mixed: Results) -> None:
    def rows(results: Results) -> list[Answer]:
        return [Answer("rq2_new", "sim:alt", "replayed", "replayed", "repair steps that fix", 40.0, 30.0, 50.0, 4, 10)]

    register_answer_kind(AnswerKind("rq2_new", "rq2", "repair steps that fix", "steps", rows, order=0))
    try:
        assert report_answers(mixed, "rq2")[0].kind == "rq2_new"
        section = summary_section(mixed)
        assert answers_from_summary(section, "rq2")[0] == rows(mixed)[0]
    finally:
        del KINDS["rq2_new"]


def test_one_declared_kind_reaches_every_view_of_the_headline(mixed: Results) -> None:
    """One registration: its answer row in the box, summary.json's answers and the terminal table; its number with
    its definition in headline_numbers (what seeds average); its count in summary.json's headline and the recorded
    headline's text. Unregistered, it is in none of them."""

    def rows(results: Results) -> list[Answer]:
        share = {"k": 3, "n": 4, "pct": 75.0, "low": 50.0, "high": 100.0, "clusters": 4, "method": "task bootstrap"}
        return [share_answer(results, KINDS["rq1_new"], "sim:alt", share)]

    def numbers(results: Results) -> list[dict[str, object]]:
        return [headline_row(results, "sim:alt", "new_share", 75.0, 50.0, 100.0, BOOTSTRAP)]

    def counts(results: Results, models: set[str]) -> dict[str, int]:
        return {"new_count": 7 * len(models)}

    kind = AnswerKind(
        "rq1_new", "rq1", "feedback the new measure counts", "feedback instances", rows, order=0,
        numbers=numbers, definitions={"new_share": "The new share."}, counts=counts,
    )  # fmt: skip

    def views() -> tuple[str, dict[str, object], list[str], list[str], list[str]]:
        summary = build_summary(mixed)
        frame = headline_numbers(mixed)
        shown = [f"{r.model} {r.number} {r.value}" for r in frame.itertuples()]
        printed = headline_lines(summary["headline"]["rq1"])
        return str(headline_box(mixed, "rq1").data), summary, shown, printed, summary_answer_lines(summary)

    register_answer_kind(kind)
    try:
        box, summary, shown, printed, terminal = views()
        assert "feedback the new measure counts" in box and "75.0% [50.0, 100.0]" in box
        assert answers_from_summary(summary, "rq1")[0] == rows(mixed)[0]
        assert any("feedback the new measure counts" in line and "75.0%" in line for line in terminal)
        assert "sim:alt new_share 75.0" in shown and definitions()["new_share"] == "The new share."
        by_model = summary["headline"]["rq1"]["by_model"]  # type: ignore[index]
        assert by_model["sim:alt"]["new_count"] == 7 and by_model["sim:default"]["new_count"] == 7
        assert any(line.startswith("sim:alt [") and line.endswith("new_count=7") for line in printed)
    finally:
        del KINDS["rq1_new"]
    box, summary, shown, printed, terminal = views()
    assert "new measure" not in box + "".join(terminal) and not any("new_share" in s for s in shown)
    assert "new_share" not in definitions() and "new_count" not in "".join(printed)


def test_no_comparison_pairs_a_simulated_with_a_real_row(mixed: Results) -> None:
    comparisons = rq1_comparisons(mixed)
    assert comparisons  # each model has two benchmarks: a real range and a simulated range
    for hi, lo, _ in comparisons:
        assert (hi["model"] == "sim:default") == (lo["model"] == "sim:default"), (hi["model"], lo["model"])
    text = interpret_rq1(mixed)
    for sentence in text.split(". "):
        assert not ("sim:alt" in sentence and "sim:default" in sentence), sentence
    assert "never compared with a real row" in text
    with pytest.raises(MixedSourcesError):
        check_comparable(mixed, "sim:default", "sim:alt")


def test_the_browsable_cases_count_the_tasks_their_feedback_is_on(mixed: Results) -> None:
    # the case browser's row and RQ1's row of one model name the same tasks: those with test-fail feedback; a task
    # whose generated tests all passed has pairs but no feedback
    quiet = next(p.task_id for p in mixed.pair_evaluations if p.model == "sim:alt")
    pairs = [
        p.model_copy(update={"feedback": None}) if (p.model, p.task_id) == ("sim:alt", quiet) else p
        for p in mixed.pair_evaluations
    ]
    res = mixed.model_copy(update={"pair_evaluations": pairs})
    (row,) = [a for a in report_answers(res, "cases") if a.kind == "cases_browsable" and a.model == "sim:alt"]
    with_feedback = {p.task_id for p in pairs if p.model == "sim:alt" and p.feedback is not None}
    assert quiet not in with_feedback and row.clusters == len(with_feedback)
    assert row.value == sum(p.model == "sim:alt" and p.feedback is not None for p in pairs)


@pytest.mark.parametrize(
    ("row", "shown"),
    [
        (dict(value=83.8, low=79.8, high=87.4, k=838, n=1000), "83.8% [79.8, 87.4]"),
        (dict(value=100.0, low=97.9, high=100.0, k=172, n=172), "100.0% (all 172; [97.9, 100.0])"),
        (dict(value=0.0, low=None, high=None, k=0, n=12, method="structural"), "0.0% (none of 12; (no interval: st"),
        (dict(value=100.0, low=100.0, high=100.0, k=5, n=5), "100.0% (all 5; (no interval: every resample gives 100"),
        (dict(value=37.5, low=None, high=None, k=3, n=8, method="one task: no interval"), "37.5% (no interval: one t"),
        (dict(value=None, method="one class"), "not defined: one class"),
    ],
)
def test_a_degenerate_interval_is_written_as_what_it_is(row: dict[str, object], shown: str) -> None:
    answer = Answer("k", "m", "replayed", "replayed", "measure", **row)  # type: ignore[arg-type]
    assert answer.number().startswith(shown)
    assert "--" not in answer.number() and "[100.0, 100.0]" not in answer.number()


def test_specificity_counts_the_unreliable_feedback_and_recall_has_its_interval(mixed: Results) -> None:
    from tfr_helpers.analysis import rq3

    frame = rq3.screening_and_downstream(mixed)
    rows = [a for a in report_answers(mixed, "rq3") if a.value is not None]
    assert rows
    for answer in rows:
        strategy = answer.measure.split(":")[0]
        row = frame[(frame["model"] == answer.model) & (frame["strategy"] == strategy)].iloc[0]
        assert (answer.k, answer.n) == (row["unreliable_rejected"], row["unreliable"])
        assert answer.n < row["decisions"] and answer.unit == "unreliable feedback instances"
        assert answer.value == pytest.approx(100 * answer.k / answer.n, abs=0.051)
        assert f"recall): {row['recall_pct']}%" in answer.note and f"of {row['reliable']:,}" in answer.note
        assert row["recall_low"] is None or f"[{row['recall_low']}, {row['recall_high']}]" in answer.note


def test_the_setup_share_has_an_interval_over_tasks(mixed: Results) -> None:
    for answer in report_answers(mixed, "setup"):
        assert answer.value is not None and answer.low is not None and answer.high is not None
        assert answer.low <= answer.value <= answer.high and answer.clusters


def test_placeholder_asserts_are_counted_beside_rq1_and_left_out_in_a_row_of_their_own(mixed: Results) -> None:
    from tfr_helpers.analysis import rq1

    assert rq1.is_placeholder("def test():\n    assert _________ == has_close_elements([1.0], 0.5)\n")
    assert not rq1.is_placeholder("assert f(1) == 2") and not rq1.is_placeholder("x = _____")
    fed = [p for p in mixed.pair_evaluations if p.model == "sim:alt" and p.feedback is not None]
    blank_ids = {p.test_id for p in fed[:3]}
    tests = [
        t.model_copy(update={"source": "assert _____ == f(1)"}) if t.test_id in blank_ids else t
        for t in mixed.generated_tests
    ]
    blanked = mixed.model_copy(update={"generated_tests": tests})
    split = rq1.unreliable_by_test(blanked).set_index(["model", "tests"])
    placeholder, rest = split.loc[("sim:alt", "placeholder")], split.loc[("sim:alt", "no_placeholder")]
    everything = split.loc[("sim:alt", "all")]
    assert placeholder["n"] == sum(p.test_id in blank_ids for p in fed) > 0
    assert placeholder["n"] + rest["n"] == everything["n"] and placeholder["k"] + rest["k"] == everything["k"]
    rows = [a for a in report_answers(blanked, "rq1") if a.model == "sim:alt"]
    without = [a for a in rows if a.measure.endswith("without placeholder asserts")]
    assert len(without) == 1 and (without[0].k, without[0].n) == (rest["k"], rest["n"])
    assert all(f"{int(placeholder['n']):,} feedback instances from placeholder asserts" in a.note for a in rows[:-1])
    assert not any("placeholder" in a.note for a in report_answers(mixed, "rq1"))
