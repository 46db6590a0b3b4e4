"""Acceptance on a synthetic run: the tables compile, their numbers are in summary.json and add up."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from tests.helpers.checkpoints import results_text
from tests.helpers.latex import overfull_boxes
from tfr_helpers.analysis import INFERENCE_TABLES, TABLES, AnalysisOutputs

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


STACKED = re.compile(r"\\begin\{tabular\}\[[tb]\]\{@\{\}[lr]@\{\}\}(.*?)\\end\{tabular\}")


def _flat(tex: str) -> str:
    """``tex`` with every cell's stacked lines (a nested tabular) joined by spaces."""
    return STACKED.sub(lambda m: m.group(1).replace(r"\\", " "), tex)


def _body_rows(tex: str) -> list[str]:
    """The body rows of the first table of ``tex`` (a model's spanning row included)."""
    body = _flat(tex).split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    return [r.strip() for r in body.replace(r"\addlinespace", "").split(r"\\") if r.strip()]


def _data_rows(tex: str) -> list[str]:
    """The body rows of every table of ``tex`` that hold cells (not a model's spanning row)."""
    tables = tex.split(r"\begin{table}")[1:]
    return [r for t in tables for r in _body_rows(t) if "&" in r]


def _numbers(obj: Any) -> set[float]:
    if isinstance(obj, bool):
        return set()
    if isinstance(obj, int | float):
        return {round(float(obj), 1)}
    if isinstance(obj, dict):
        return set().union(*(_numbers(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(_numbers(v) for v in obj)) if obj else set()
    return set()


def _summary(run: Path) -> dict[str, Any]:
    return json.loads((run / "analysis" / "summary.json").read_text())


def test_all_outputs_are_written(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    run, out = analysed_run
    assert set(out.tables) == set(TABLES) | set(INFERENCE_TABLES) and all(p.is_file() for p in out.tables.values())
    stems = {p.name for p in out.figures}
    assert {
        f"{s}.{e}" for s in ("rq1_four_cases", "rq2_transitions", "rq3_screening_pr") for e in ("png", "pdf", "svg")
    } == stems
    assert all(p.stat().st_size > 1000 for p in out.figures)
    summary = _summary(run)
    assert summary["simulated"] is True and set(summary["tables"]) == set(TABLES) | set(INFERENCE_TABLES)


def test_tex_structure_is_booktabs_with_even_rows(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    _, out = analysed_run
    for name, path in out.tables.items():
        tex = path.read_text()
        for token in (r"\begin{tabular}", r"\toprule", r"\midrule", r"\bottomrule", r"\end{tabular}"):
            assert token in tex, f"{name} lacks {token}"
        plain = tex.replace("\\\\", " ")  # a line break, not an escaped brace, before a brace
        assert plain.count("{") - plain.count(r"\{") == plain.count("}") - plain.count(r"\}")
        for table in tex.split(r"\begin{table}")[1:]:
            header = _flat(table).split(r"\toprule", 1)[1].split(r"\\", 1)[0]
            amps = header.count("&")
            rows = [r for r in _body_rows(table) if r"\multicolumn" not in r]
            assert all(r.count("&") - r.count(r"\&") == amps for r in rows), name
        assert "Simulated model: demo numbers, not evidence" in tex


def test_tex_compiles_with_pdflatex(analysed_run: tuple[Path, AnalysisOutputs], tmp_path: Path) -> None:
    """Every table compiles in a 17 cm text width without an overfull box over 1 pt."""
    _, out = analysed_run
    assert not overfull_boxes(out.tables.values(), tmp_path)


def test_every_number_in_the_tables_is_in_summary(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    run, out = analysed_run
    summary = _summary(run)
    for name, path in out.tables.items():
        known = _numbers(summary["tables"][name]["rows"])
        tex = path.read_text()
        labels = re.search(r"\\begin\{tabular\}\{(l*)", tex).group(1).count("l")  # index columns hold labels
        cells = [c for row in _data_rows(tex) for c in row.split("&")[labels:]]
        shown = {round(float(x), 1) for c in cells for x in NUMBER.findall(c)}
        assert shown and shown <= known, f"{name}: {sorted(shown - known)} not in summary.json"


def test_numbers_recomputed_from_results_json(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    run, _ = analysed_run
    raw = json.loads(results_text(run))
    tables = _summary(run)["tables"]
    # RQ1 four cases: count of each case per model and kind
    cases = Counter((p["model"], p["kind"], p["case"]) for p in raw["pair_evaluations"])
    for row in tables["rq1_four_cases"]["rows"]:
        assert row["k"] == cases[(row["model"], row["kind"], row["case"])]
    # RQ1 by benchmark: unreliable share of feedback
    for row in tables["rq1_by_benchmark"]["rows"]:
        fb = [
            p
            for p in raw["pair_evaluations"]
            if p["benchmark"] == row["benchmark"] and p["model"] == row["model"] and p["case"].startswith("fail")
        ]
        unrel = sum(p["reliability"] == "unreliable" for p in fb)
        assert (row["feedback"], row["k"]) == (len(fb), unrel)
        assert row["pct"] == round(100 * unrel / len(fb), 1)
    # RQ3: regressions avoided, fixes lost and net difference for each judge
    # RQ3 per model (models are never pooled): regressions avoided, fixes lost and net difference for each judge
    trans = {e["feedback_id"]: e["transition"] for e in raw["refined_evaluations"]}
    coder = {e["feedback_id"]: e["model"] for e in raw["refined_evaluations"]}
    for row in tables["rq3_screening_and_downstream"]["rows"]:
        rejected = [
            d["feedback_id"]
            for d in raw["screening"]
            if d["strategy"] == row["strategy"] and d["decision"] != "accept" and coder[d["feedback_id"]] == row["model"]
        ]
        avoided = sum(trans[f] == "pass->fail" for f in rejected)
        lost = sum(trans[f] == "fail->pass" for f in rejected)
        attempts = sum(m == row["model"] for m in coder.values())
        assert (row["regressions_avoided"], row["fixes_lost"]) == (avoided, lost)
        assert row["diff_vs_accept_all_pp"] == round(100 * (avoided - lost) / attempts, 1)


def test_counts_add_up(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    run, _ = analysed_run
    raw = json.loads(results_text(run))
    tables = _summary(run)["tables"]
    n_feedback = sum(p["case"].startswith("fail") for p in raw["pair_evaluations"])
    # cases add up to tests, per (model, kind) and overall
    four = tables["rq1_four_cases"]["rows"]
    groups = {(r["model"], r["kind"]): r["n"] for r in four}
    for key, n in groups.items():
        assert sum(r["k"] for r in four if (r["model"], r["kind"]) == key) == n
    # tests of a task whose generated code had no usable code are never evaluated against it
    assert sum(groups.values()) == len(raw["pair_evaluations"]) <= len(raw["generated_tests"])
    causes = [r for r in tables["rq1_unreliable_causes"]["rows"] if r["kind"] == "all"]
    assert sum(r["k"] for r in causes) == sum(p["reliability"] == "unreliable" for p in raw["pair_evaluations"])
    # transitions add up to refinements
    outcomes = tables["rq2_refinement_outcomes"]["rows"]
    per = {(r["model"], r["reliability"]): r["n"] for r in outcomes}
    for key, n in per.items():
        assert sum(r["k"] for r in outcomes if (r["model"], r["reliability"]) == key) == n
    assert sum(per.values()) == len(raw["refined_evaluations"]) == n_feedback
    diag = tables["rq2_generated_test_diagnostic"]["rows"]
    assert sum(r["attempts"] for r in diag) == n_feedback
    for r in diag:
        quads = ("gen_pass_bench_pass", "gen_pass_bench_fail", "gen_fail_bench_pass", "gen_fail_bench_fail")
        assert sum(r[q] for q in quads) == r["usable"]
    # decisions add up to each model's feedback, per strategy
    for r in tables["rq3_screening_and_downstream"]["rows"]:
        mine = sum(p["case"].startswith("fail") and p["model"] == r["model"] for p in raw["pair_evaluations"])
        assert r["decisions"] == mine == r["accepted"] + r["rejected"] + r["undecided"]


def test_every_tex_table_has_a_short_caption_and_no_part_counter(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    from tfr_helpers.analysis.writing.export import sentences

    _, out = analysed_run
    for name, path in out.tables.items():
        tex = path.read_text()
        formats = re.findall(r"\\begin\{tabular\}\{([lr]+)\}", tex)
        captions = re.findall(r"\\caption\{(.*?)\}\n", tex)
        assert formats and len(captions) == len(formats), name
        assert all(len(sentences(c)) <= 2 for c in captions), (name, captions)
        assert "Part " not in tex and "replay:" not in tex.split(r"\begin{table}", 1)[1], name
        if "% " in tex:  # the rest of the caption (definitions, where the data came from) is kept as a comment
            assert tex.startswith("% ")
