"""The pieces of a report: the headline box, the run details and their paths, the offline case browser's rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import load_results
from tfr_helpers.analysis.answers import Answer
from tfr_helpers.records import Results
from tfr_helpers.views.case_rows import TEXT_CAP, CaseRow, CaseSection, cap, case_rows
from tfr_helpers.views.headline_box import headline_box_html
from tfr_helpers.views.offline_browser import browser_html, encode, unpack
from tfr_helpers.views.run_details import PROJECT_ROOT, mask_paths, shown_path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_synthetic_run(tmp_path_factory.mktemp("parts"), seed=4)


@pytest.fixture(scope="module")
def results(run: Path) -> Results:
    return load_results(run)


def _answer(source: str, model: str) -> Answer:
    return Answer("rq1_unreliable", model, source, source, "unreliable", 83.8, 79.8, 87.4, 6403, 7640, "feedback", 102)


def test_the_box_puts_real_rows_first_and_simulated_rows_under_a_demo_heading() -> None:
    page = headline_box_html("rq1", [_answer("simulated", "sim:default"), _answer("replayed", "replay:codet")])
    real, demo = page.index("REAL · replayed"), page.index("DEMO · simulated")
    assert page.index("Question:") < real < page.index("Demo: the simulated model") < demo
    assert "83.8% [79.8, 87.4]" in page and "6,403 of 7,640 feedback, 102 tasks" in page
    assert "No real answer" in headline_box_html("rq1", [_answer("simulated", "sim:default")])


def test_the_box_shows_its_first_real_rows_open_and_the_rest_collapsed_in_order() -> None:
    from tfr_helpers.views.headline_box import SHOWN

    rows = [_answer("replayed", f"set-{i:02d}") for i in range(SHOWN + 3)]
    page = headline_box_html("rq2", rows)
    more = page.index("<details class='tfr-more'")
    assert page.index(f"set-{SHOWN - 1:02d}") < more < page.index(f"set-{SHOWN:02d}")
    assert "3 more real rows" in page and page.count("<b class='tfr-answer'>") == SHOWN + 3
    assert "tfr-more" not in headline_box_html("rq2", rows[:SHOWN])


def test_paths_of_the_run_project_and_home_are_masked(tmp_path: Path) -> None:
    run = tmp_path / "my-run"
    text = f"wrote {run}/results.json and {PROJECT_ROOT}/notebooks/01.ipynb"
    masked = mask_paths(text, run)
    assert str(tmp_path) not in masked and str(PROJECT_ROOT) not in masked
    assert "…/my-run/results.json" in masked and "./notebooks/01.ipynb" in masked
    assert shown_path(PROJECT_ROOT / "runs" / "default", PROJECT_ROOT / "runs" / "default") == "runs/default"


def test_every_test_fail_feedback_is_a_case_with_its_records(results: Results, run: Path) -> None:
    rows = case_rows(results, run)
    fails = [p for p in results.pair_evaluations if p.feedback is not None]
    assert sorted(r.id for r in rows) == sorted(p.pair_id for p in fails)
    refined = {r.feedback_id for r in results.refinements}
    for row in rows:
        titles = [s.title for s in row.sections]
        assert row.kind == ("refinement attempt" if row.id in refined else "feedback instance")
        assert "Feedback shown to the refiner" in titles and any(t.startswith("Reference verdict") for t in titles)
        assert (row.id in refined) == ("Refined code" in titles)


def test_the_embedded_json_interns_strings_and_cannot_close_its_script() -> None:
    code = "print('</script><b>')\n" * 3
    rows = [
        CaseRow(
            f"id{i}",
            "feedback instance",
            "m",
            "replayed",
            "humaneval",
            "HumanEval/0",
            "s",
            {"reliability": "x"},
            (CaseSection("Generated code", code, "code"),),
        )
        for i in range(3)
    ]
    text = encode(rows)
    assert "</script>" not in text and "<" not in text
    data = json.loads(text)
    assert data["s"].count(code) == 1 and len(data["rows"]) == 3  # the shared code is stored once
    page = browser_html(rows)
    assert len(re.findall(r"<script", page)) == 2
    embedded = re.search(r"<script type='application/gzip\+base64'[^>]*>([A-Za-z0-9+/=]+)</script>", page)
    assert embedded and unpack(embedded.group(1)) == data  # packed for the page, every row intact
    assert cap("x" * (TEXT_CAP + 5)).endswith("(5 more characters)")


def test_the_selection_box_leads_with_the_published_data_and_relates_it_to_the_run(results: Results) -> None:
    from tfr_helpers.consensus.report import SelectionReport, StrategyRow
    from tfr_helpers.views.headline_box import selection_answers

    def report(codet: float, random: float, tasks: int) -> SelectionReport:
        rows = [StrategyRow("codet", {1: codet}), StrategyRow("random", {1: random})]
        return SelectionReport(rows=rows, tasks=tasks, ks=(1,))

    rows = selection_answers(
        results, {"sim:default": report(0.5, 0.4, 6)}, {"codet-codegen16b-humaneval": report(0.3674, 0.2212, 164)}
    )
    assert [(a.model, a.source, a.value, a.n) for a in rows] == [
        ("replay:codet-codegen16b-humaneval", "replayed", 36.74, 164),
        ("sim:default", "simulated", 50.0, 6),
    ]
    assert "random: 22.12%" in rows[0].note and "not the paper's 36.7" in rows[1].note
    assert rows[0].low is None and rows[0].method == "no per-task values to resample"


def test_selection_pass_at_1_has_its_interval_over_tasks() -> None:
    from tfr_helpers.consensus.report import SelectionReport, StrategyRow
    from tfr_helpers.views.headline_box import task_interval

    per_task = (1.0, 0.0, 0.5, 1.0, 0.25, 0.0, 1.0, 0.75)
    row = StrategyRow("codet", {1: sum(per_task) / 8}, per_task={1: per_task})
    report = SelectionReport([row], tasks=8, ks=(1,), task_ids=tuple(f"T/{i}" for i in range(8)))
    found = task_interval(report, row)
    assert found["pct"] == 56.2 and found["method"] == "task bootstrap"  # the mean of the tasks' pass@1
    assert 0 < float(found["low"]) < 56.2 < float(found["high"]) < 100  # type: ignore[arg-type]
    assert task_interval(SelectionReport([row], tasks=8, ks=(1,)), row) == {}  # no task ids: no interval


def test_a_wide_table_is_split_per_model_with_degenerate_rows_and_columns_said_once() -> None:
    import pandas as pd

    from tfr_helpers.views.fit_table import fit

    real = [f"replay:x (replayed): s{i}" for i in range(7)]
    columns = {
        c: [
            "1 (100.0 [100.0, 100.0])" if c.endswith("s6") else "0 (0.0 [0.0, 0.0])",
            "50.0 [40.0, 60.0]",
            "not run: no refiner",
        ]
        for c in real
    }
    columns["sim:default (simulated): accept_all"] = ["0 (0.0 [0.0, 0.0])", "30.0 [20.0, 40.0]", "12"]
    frame = pd.DataFrame(columns, index=["Abstained", "F1", "Fixes lost"])
    page = fit(frame).data
    assert page.count("<table") == 3  # the real model's six strategies in two parts, the simulated model's one
    assert page.index("replay:x (replayed)") < page.index("sim:default (simulated)")
    assert "s6: abstained on every decision" in page and page.count(">s6<") == 0
    assert "Fixes lost: not run: no refiner." in page and page.count(">12<") == 1  # collapsed only where it says so
    degenerate = pd.DataFrame({"a": ["0.0 [0.0, 0.0] p=1.000", ""], "b": ["-2.0 [-4.0, 0.0] p=0.040*", "--"]})
    assert "a: 0.0 [0.0, 0.0] in every cell" in fit(degenerate).data


def test_provenance_gives_repository_commit_and_licence_of_every_replayed_source_once() -> None:
    from tests.helpers.records import bare_results
    from tfr_helpers.arms.trajectories.records.trajectories import TrajectoriesResults, TrajectorySetInfo
    from tfr_helpers.records.study import ModelSource
    from tfr_helpers.views.provenance import provenance_html, provenance_rows

    codet = ModelSource(
        model="replay:codet-codegen16b-humaneval",
        source="replayed",
        label="replayed (published)",
        dataset="codet-codegen16b-humaneval",
        producer="CodeGen-Mono-16B",
        note="n",
    )
    sim = ModelSource(model="sim:default", source="simulated", label="simulated", note="n")
    trajectory = TrajectorySetInfo(
        name="reflexion-gpt4o-bcb", benchmark="bigcodebench", model="GPT-4o", protocol="p",
        source="github.com/owner/repo@abc1234", license="MIT (owner)", tasks=1, steps=1,
    )  # fmt: skip
    results = bare_results(model_sources=[codet, sim], trajectories=TrajectoriesResults(sets=[trajectory]))
    rows = provenance_rows(results)
    assert [(r["data"], r["repository"], r["commit"]) for r in rows] == [
        ("codet-codegen16b-humaneval", "github.com/microsoft/CodeT", "35f54d60b152"),
        ("reflexion-gpt4o-bcb", "github.com/owner/repo", "abc1234"),
    ]
    assert rows[0]["licence"].startswith("MIT") and rows[1]["licence"] == "MIT (owner)"
    assert [r["spec"] for r in rows] == ["replay:codet-codegen16b-humaneval", "replay:reflexion-gpt4o-bcb"]
    page = provenance_html(results)
    assert page.startswith("<details") and "2 replayed sources" in page and "sim:default" not in page
    assert provenance_html(bare_results()) == ""
