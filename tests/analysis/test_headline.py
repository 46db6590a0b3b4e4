"""Headline numbers never pool sources: the replay smoke study plus a simulated coder, and the worked example."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfr_helpers import analysis, views
from tfr_helpers.analysis.headlines import headline, headline_lines, headline_numbers, sections
from tfr_helpers.cli import app
from tfr_helpers.notebooks.running import NotebookReport, NotebookRunSummary
from tfr_helpers.passk import pass_at_k
from tfr_helpers.pipeline import load_config, run_stages

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # every test reads one study run (replay and simulated coders)
SIM = "sim:default"
CODET = "replay:codet-codegen16b-humaneval"
GPT4 = "replay:reflexion-gpt4-humaneval"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> Path:
    """``replay_smoke.yaml`` (CodeT and Reflexion, real) on 4 tasks, plus the simulated coder."""
    run = tmp_path_factory.mktemp("mixed") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_CACHE_DIR", str(run.parent / "cache"))
        config = load_config(ROOT / "papermill_params" / "replay_smoke.yaml")
        coders = [SIM, *[c.model_dump(exclude_defaults=True) for c in config.models.coders]]
        config = load_config(
            ROOT / "papermill_params" / "replay_smoke.yaml",
            {"tasks": {"humaneval": 4}, "models": {"coders": coders}, "screening": ["accept_all", "llm_judge"]},
        )
        lines = run_stages(config, run, progress=False).lines()
        analysis.analyze(run)
    (run / "stage_summary.txt").write_text("\n".join(lines))  # what `tfr stage all` printed
    return run


def _numbers_of(values: dict[str, object]) -> set[str]:
    return {k for k in values if k not in ("simulated", "tasks", "by_model", "pooled")}


def test_every_headline_is_per_model_with_its_source_and_none_is_pooled(mixed: Path) -> None:
    results = analysis.load_results(mixed)
    summary = json.loads((mixed / "analysis" / "summary.json").read_text())
    for section in sections():
        values = headline(results, section)
        assert summary["headline"][section] == json.loads(json.dumps(values))
        assert views.headline(results, section) == values
        assert not _numbers_of(values), (section, values)  # no run-wide number beside the per-model ones
        assert "pooled" not in values  # a simulated and two replayed coders: nothing may be pooled
        by_model = values["by_model"]
        assert set(by_model) == {SIM, CODET, GPT4}
        assert by_model[SIM]["source"] == "simulated"
        assert by_model[CODET]["source"] == "replayed (published): CodeGen-Mono-16B"
        assert by_model[GPT4]["source"] == "replayed (published): GPT-4"
    rq1 = summary["headline"]["rq1"]["by_model"]
    fails = [p for p in results.pair_evaluations if p.feedback is not None]
    for model, numbers in rq1.items():
        mine = [p for p in fails if p.model == model]
        assert numbers["test_fail_feedback"] == len(mine) > 0
        assert numbers["unreliable"] == sum(p.reliability == "unreliable" for p in mine)
    assert "counts" not in summary  # the old pooled record counts are gone


def test_the_stage_summary_counts_per_model_and_source(mixed: Path) -> None:
    lines = (mixed / "stage_summary.txt").read_text().splitlines()
    counted = [line for line in lines if line.startswith(("cases", "unreliable causes", "transitions", "screening"))]
    assert counted and all(" of " in line.split(":")[0] for line in counted)  # never a run-wide "cases: ..." line
    assert {line.split(" of ")[1].split(" [")[0] for line in counted} == {SIM, CODET, GPT4}
    assert f"cases of {GPT4} [replayed (published): GPT-4]: " in "\n".join(counted)


def test_the_printed_summary_gives_one_line_per_model_and_source(mixed: Path, tmp_path: Path) -> None:
    results = analysis.load_results(mixed)
    report = NotebookReport(
        name="01_rq1_feedback_reliability.ipynb",
        notebook=tmp_path / "01.ipynb",
        html=tmp_path / "01.html",
        seconds=1.0,
        headline=headline(results, "rq1"),
    )
    lines = NotebookRunSummary(run_dir=mixed, params=tmp_path / "p.yaml", notebooks=[report]).lines()
    assert lines[1] == "  01_rq1_feedback_reliability.ipynb (1.0 s)"  # no simulated=True above the real numbers
    assert lines[2] == "  total: 1 notebooks in 0 min 01.0 s"
    real, demo = (
        lines.index(next(x for x in lines if x.startswith("Real results"))),
        lines.index(next(x for x in lines if x.startswith("Demo: the simulated model"))),
    )
    rq1 = [x for x in lines if x.startswith("  rq1  ")]
    names = [x[7:].split("  ")[0] for x in rq1]  # display names, as the paper tables give them
    assert names == [
        "CodeGen-Mono-16B (CodeT)",
        "CodeGen-Mono-16B (CodeT)",  # its share again without its placeholder asserts, a row of its own
        "GPT-4 (Reflexion)",
        SIM,
    ]  # real first, the simulated row under the demo title
    assert "without placeholder" in rq1[1] and "without placeholder" not in rq1[0] + rq1[2] + rq1[3], rq1
    interval = r"(\[\d+\.\d, \d+\.\d\]|\((all|none of) \d+; \[\d+\.\d, \d+\.\d\]\))"  # 0% or 100% said as such
    assert all(re.search(rf"\d% {interval}  \d+ of \d+ feedback instances", x) for x in rq1), rq1
    assert real < lines.index(rq1[2]) < demo < lines.index(rq1[3])
    assert any("rq2  CodeGen-Mono-16B (CodeT)" in x and "no answer: refine_codes not run: no refiner" in x for x in lines)
    assert not any("pooled" in line or "refinements=0" in line for line in lines)
    assert not any("pass->fail" in line or "fail->pass" in line for line in lines)  # one naming: Pass->Fail
    # then the time per stage, the counts and every output's path
    stages = lines.index("stages (wall time):")
    assert lines[stages + 1].split()[0] in ("generate_codes", "generate_tests", "evaluate_code_test_pairs")
    assert any(re.fullmatch(r"  sandbox runs: [1-9][\d,]*", x) for x in lines)
    assert any(x.startswith("  model calls behind the results: ") for x in lines)
    excluded = "CodeGen-Mono-16B (CodeT) refine_codes: not run: no refiner (1 item)"  # counted, by display name
    assert any(excluded in x for x in lines) and not any(f"{CODET} refine_codes" in x for x in lines)
    assert f"  report   {tmp_path / '01.html'}" in lines
    assert any(x.startswith("  tables   ") and "rq1_four_cases" in x for x in lines)
    assert any(x.startswith("  figures  ") and "pdf, png, svg" in x for x in lines)


def test_a_pooled_figure_only_where_the_models_share_one_source(mixed: Path) -> None:
    results = analysis.load_results(mixed)
    sims = results.model_copy(update={"pair_evaluations": [p for p in results.pair_evaluations if p.model == SIM]})
    weak = [p.model_copy(update={"model": "sim:weak"}) for p in sims.pair_evaluations]
    both = sims.model_copy(update={"pair_evaluations": sims.pair_evaluations + weak, "generated_codes": []})
    values = headline(both, "rq1")
    assert set(values["by_model"]) == {SIM, "sim:weak"}
    pooled = values["pooled"]
    assert pooled["models"] == [SIM, "sim:weak"] and pooled["source"] == "simulated"
    assert pooled["pairs"] == 2 * values["by_model"][SIM]["pairs"]
    assert headline_lines(values)[-1].startswith("pooled over sim:default, sim:weak (all simulated): pairs=")


def test_the_worked_example_gives_the_numbers_a_reader_checks_by_hand(
    tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README "A worked example": the exact commands, from the project root."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    run = tmp_path / "example"
    runner = CliRunner()
    staged = runner.invoke(app, ["stage", "all", "--params", "papermill_params/example.yaml", "--run-dir", str(run)])
    assert staged.exit_code == 0, staged.output
    analyzed = runner.invoke(app, ["analyze", "--run-dir", str(run)])
    assert analyzed.exit_code == 0, analyzed.output
    line = next(x for x in analyzed.output.splitlines() if x.startswith("rq1: replay:examples/three_tasks"))
    assert line.endswith(
        "pairs=7, pass_pass=3, pass_fail=1, fail_pass=1, fail_fail=2, test_fail_feedback=3, unreliable=2, "
        "unreliable_pct=66.7"
    )
    cases = {(p.task_id, p.test_id.rsplit("/", 1)[-1], p.case) for p in analysis.load_results(run).pair_evaluations}
    assert sorted(c[2] for c in cases if c[0] == "HumanEval/2") == ["fail_pass", "pass_fail", "pass_pass"]


def test_the_transitions_figure_keeps_models_apart(mixed: Path) -> None:
    results = analysis.load_results(mixed)
    weak = [r.model_copy(update={"model": "sim:weak"}) for r in results.refined_evaluations]
    two = results.model_copy(update={"refined_evaluations": results.refined_evaluations + weak})
    (ax,) = analysis.plot_transitions(two).axes  # both simulated: one panel (the replayed coders have no refiner)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["A · reliable", "A · unreliable", "B · reliable", "B · unreliable"]
    assert "A: sim:default (simulated)" in ax.get_xlabel() and "B: sim:weak" in ax.get_xlabel()


def test_headline_shares_are_clustered_by_task_never_wilson_over_instances(mixed: Path) -> None:
    frame = headline_numbers(analysis.load_results(mixed))
    shares = frame[frame["number"].isin(["code_pass_at_1", "unreliable_feedback"])]
    assert len(shares) == 6, shares  # two numbers for each of the three coders
    assert all("bootstrap" in s or "wilson over tasks" in s for s in shares["interval"]), shares["interval"].tolist()
    codet = shares[(shares["model"] == CODET) & (shares["number"] == "unreliable_feedback")].iloc[0]
    assert codet["interval"] == "95% task>code bootstrap over test-fail feedback", codet["interval"]


def test_the_notebook_headline_and_the_interval_rows_give_one_unreliable_share(mixed: Path) -> None:
    results = analysis.load_results(mixed)
    rows = headline_numbers(results).set_index(["model", "number"])["value"]
    by_model = headline(results, "rq1")["by_model"]
    assert by_model and all(
        numbers["unreliable_pct"] == rows[(model, "unreliable_feedback")] for model, numbers in by_model.items()
    )


def test_code_pass_at_1_is_the_shared_pass_at_k_estimator_weighted_by_samples(mixed: Path) -> None:
    """The headline's code pass@1 (a share of code samples, with its interval) is the one pass@k estimator's
    (``tfr_helpers.passk.pass_at_k``, k = 1) per-task values averaged with each task's samples as weights."""
    results = analysis.load_results(mixed)
    rows = headline_numbers(results).set_index(["model", "number"])["value"]
    verdicts = [v for v in results.benchmark_verdicts if v.subject == "generated"]
    for model in {v.model for v in verdicts}:
        per_task: dict[str, list[bool]] = {}
        for v in verdicts:
            if v.model == model:
                per_task.setdefault(v.task_id, []).append(v.passed)
        counts = [(len(p), sum(p)) for p in per_task.values()]
        weighted = sum(n * pass_at_k(n, c, 1) for n, c in counts) / sum(n for n, _ in counts)
        assert rows[(model, "code_pass_at_1")] == pytest.approx(round(100 * weighted, 1)), model


def _readme_headlines(run_dir: Path) -> subprocess.CompletedProcess[str]:
    script = ROOT / "benchmarks" / "readme_headlines.py"
    return subprocess.run([sys.executable, str(script), "--run-dir", str(run_dir)], capture_output=True, text=True)


def test_the_readme_headline_script_prints_every_replayed_model_with_its_population(mixed: Path) -> None:
    """``benchmarks/readme_headlines.py`` on the replay smoke study (plus a simulated coder, which it leaves out)."""
    out = _readme_headlines(mixed)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    summary = json.loads((mixed / "analysis" / "summary.json").read_text())
    tasks = {r["model"]: r for r in summary["populations"]["tasks"]["rows"]}
    split = summary["populations"]["rq1_by_solution"]["rows"]
    assert lines[0].startswith("| model (replayed) |") and not any(SIM in x or "simulated" in x for x in lines)
    for model, producer in ((CODET, "CodeGen-Mono-16B"), (GPT4, "GPT-4")):
        whole = next(r for r in split if r["model"] == model and r["solution"] == "all")
        line = next(x for x in lines if x.startswith(f"| {producer}, all solutions |"))
        assert f"{whole['k']:,} of {whole['n']:,} feedback instances" in line and f"from {whole['clusters']} tasks" in line
        assert f"{tasks[model]['tasks_with_tests']} of its 4 tasks have any generated test" in line
        parts = {r["solution"]: r for r in split if r["model"] == model}
        assert parts["empty"]["n"] + parts["non_empty"]["n"] == whole["n"]  # the split adds up
        assert parts["empty"]["k"] + parts["non_empty"]["k"] == whole["k"]
        assert (parts["empty"]["n"] > 0) == any(x.startswith(f"| {producer}, empty solutions |") for x in lines)


def test_the_readme_headline_script_refuses_a_run_without_analysis(tmp_path: Path) -> None:
    out = _readme_headlines(tmp_path)
    assert out.returncode != 0 and "tfr analyze" in out.stderr


def test_the_paper_tables_fit_a_page_and_keep_real_and_simulated_rows_apart(mixed: Path, tmp_path: Path) -> None:
    from tests.helpers.latex import overfull_boxes

    tables = sorted((mixed / "analysis").glob("*.tex"))
    assert len(tables) >= 9
    assert not overfull_boxes(tables, tmp_path)  # every table fits a 17 cm text width
    for path in tables:
        for table in path.read_text().split(r"\begin{table}")[1:]:
            real = "CodeGen-Mono-16B (CodeT)" in table or "GPT-4 (Reflexion)" in table
            assert not (real and "sim:default" in table), path.name  # never in one table
            assert "replay:" not in table and "Part " not in table, path.name
    four = (mixed / "analysis" / "rq1_four_cases.tex").read_text()
    assert r"\label{tab:rq1_four_cases}" in four and r"\label{tab:rq1_four_cases-simulated}" in four
    assert "Real generations: CodeGen-Mono-16B (CodeT), GPT-4 (Reflexion)." in four
