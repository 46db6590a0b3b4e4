"""refinement_cases.md lists every attempt, in the worked-example order, and every link resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from tests.helpers.checkpoints import results_text
from tfr_helpers.analysis import AnalysisOutputs, write_refinement_cases

LINK = re.compile(r"\]\(([^)]+)\)")
REF = re.compile(r"^\[([^\]]+)\]: (\S+)$", re.M)
USE = re.compile(r"\]\[([^\]]+)\]")
TASK = re.compile(r"^#{2,3} (\S+) · (\S+) · .* \((\d+)\)$")
CELL = re.compile(r"(?<!\\)\|")


def case_rows(text: str) -> list[tuple[str, str, int, str, str, list[str]]]:
    """Every case row of a case file: (model, task, number, test name, reliability, the row's other cells)."""
    rows, model, task = [], "", ""
    for line in text.splitlines():
        if heading := TASK.match(line):
            model, task = heading.group(1), heading.group(2)
        elif line.startswith("| #"):
            cells = [c.strip() for c in CELL.split(line)[1:-1]]
            reliability = re.findall(r"\((\w+)\)", cells[3])[0]  # "Fail/Fail (unreliable), test code error"
            rows.append((model, task, int(cells[0][1:]), cells[2].split("`")[1], reliability, cells[3:]))
    return rows


def _links_resolve(md: Path) -> int:
    """Every inline link and every reference link's definition resolves; the number of links."""
    text = md.read_text()
    links, refs, uses = LINK.findall(text), dict(REF.findall(text)), USE.findall(text)
    assert set(uses) <= set(refs), set(uses) - set(refs)
    missing = [t for t in links + list(refs.values()) if not (md.parent / unquote(t)).is_file()]
    assert not missing, missing[:5]
    return len(links) + len(uses)


def test_every_attempt_is_listed_once(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    run, _ = analysed_run
    raw = json.loads(results_text(run))
    text = (run / "refinement_cases.md").read_text()
    rows = case_rows(text)
    assert len(rows) == len(raw["refined_evaluations"])
    assert [r[2] for r in rows] == list(range(1, len(rows) + 1))  # numbered on across groups and tasks
    tests = {t["test_id"]: t for t in raw["generated_tests"]}
    listed = sorted((m, task, name) for m, task, _, name, _, _ in rows)
    expected = sorted((e["model"], e["task_id"], tests[e["feedback_id"]]["name"]) for e in raw["refined_evaluations"])
    assert listed == expected
    assert sum("llm_judge: [" in r[-1][-1] for r in rows) == len(raw["refined_evaluations"])  # its calls, linked


def test_attempts_are_grouped_regressions_then_fixes(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    run, _ = analysed_run
    rows = case_rows((run / "refinement_cases.md").read_text())
    keys = [(rel, cells[4].split(";")[0]) for *_, rel, cells in rows]
    rank = [0 if k == ("unreliable", "Pass->Fail") else 1 if k == ("reliable", "Fail->Pass") else 2 for k in keys]
    assert rank == sorted(rank) and rank[0] == 0 and 1 in rank and 2 in rank


def test_every_link_resolves_at_run_root_and_elsewhere(analysed_run: tuple[Path, AnalysisOutputs], tmp_path: Path) -> None:
    run, _ = analysed_run
    assert _links_resolve(run / "refinement_cases.md") > 100
    other = write_refinement_cases(run, tmp_path / "sub" / "cases.md")
    assert other == (tmp_path / "sub" / "cases.md").resolve()
    assert _links_resolve(other) > 100


def test_missing_artifact_is_named_not_linked(analysed_run: tuple[Path, AnalysisOutputs], tmp_path: Path) -> None:
    run, _ = analysed_run
    victim = next((run / "sim_default").rglob("code.py"))
    saved = victim.read_text()
    victim.unlink()
    try:
        out = write_refinement_cases(run, tmp_path / "cases.md")
        assert "(missing)" in out.read_text()
        _links_resolve(out)
    finally:
        victim.write_text(saved)


def test_no_case_is_lost_from_the_case_files_or_the_browser(analysed_run: tuple[Path, AnalysisOutputs]) -> None:
    from tfr_helpers.views.offline_browser import OfflineCaseBrowser, unpack

    run, _ = analysed_run
    raw = json.loads(results_text(run))
    fails = sorted(p["feedback"]["feedback_id"] for p in raw["pair_evaluations"] if p["feedback"] is not None)
    files = [run / "refinement_cases.md", *sorted(run.glob("feedback_cases_*.md"))]
    rows = [case_rows(f.read_text()) for f in files]
    assert sum(map(len, rows)) == len(fails) > 0  # one row per test-fail feedback, refined or not
    assert all([r[2] for r in file] == list(range(1, len(file) + 1)) for file in rows)
    page = OfflineCaseBrowser(run).html()
    data = unpack(re.findall(r"-data'>([^<]+)</script>", page)[0])
    assert sorted(data["s"][row[0]] for row in data["rows"] if data["s"][row[1]] != "trajectory step") == fails
