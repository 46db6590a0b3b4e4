"""A run with simulated and replayed (real) coders side by side: every view says which rows are which."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers import analysis, views
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict

FIXTURE = Path(__file__).parents[1] / "replay" / "data" / "import3"
REPLAY = f"replay:{FIXTURE}"


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> Path:
    run = tmp_path_factory.mktemp("mixed") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.setenv("TFR_CACHE_DIR", str(run.parent / "cache"))
        config = config_from_dict(
            {
                "run_name": "mixed",
                "benchmarks": ["humaneval"],
                "tasks": {"humaneval": ["HumanEval/0", "HumanEval/2", "HumanEval/4"]},
                "models": {"coders": ["sim:default", {"model": REPLAY, "code_samples": 2}]},
                "ebts_per_task": 3,
                "pbts_per_task": 0,
                "screening": ["accept_all", "llm_judge"],
            }
        )
        run_stages(config, run, progress=False)
        analysis.analyze(run)
        analysis.write_refinement_cases(run)
    return run


def test_the_case_browser_filters_by_source(mixed_run: Path) -> None:
    browser = views.CaseBrowser(mixed_run)
    assert set(browser.filters["source"].options) == {views.ALL, "simulated", "replayed"}
    browser.filters["source"].value = "replayed"
    assert browser.matching and {a.model for a in browser.matching} == {REPLAY}
    assert {a.transition for a in browser.matching} == {"not refined"}
    browser.filters["source"].value = "simulated"
    assert browser.matching and {a.model for a in browser.matching} == {"sim:default"}
    assert "Replayed rows are real generations" in browser.widget.children[0].value


def test_banner_sources_and_tables_name_each_source(mixed_run: Path) -> None:
    results = analysis.load_results(mixed_run)
    banner = views.simulated_banner(results).data
    assert "SIMULATED MODEL (sim:default)" in banner and f"REAL GENERATIONS, REPLAYED ({REPLAY})" in banner
    table = views.sources(results).set_index("model")  # models named as every table names them
    sim, real = "sim:default (simulated)", f"hand-written fixture ({FIXTURE.name})"
    assert list(table.index) == [sim, real]
    assert table.loc[sim, "source"] == "simulated"
    assert table.loc[real, "source"] == "replayed (imported)" and table.loc[real, "producer"] == "hand-written fixture"
    assert "not run: no refiner" in table.loc[real, "skipped"] and not table.loc[sim, "skipped"]
    four = analysis.rq1_four_cases_table(results).data.reset_index()
    assert dict(zip(four["Model"], four["Source"], strict=True)) == {
        "sim:default": "simulated",
        REPLAY: "replayed (imported): hand-written fixture",
    }
    caption = analysis.rq1_four_cases_table(results).caption or ""
    assert "simulated" not in caption.lower()  # a report says the sources once, under its first table
    page = views.sources_table(results).data  # provenance once, collapsed: the imported set, no repository to give
    assert page.count("<details class='tfr-provenance'") == 1 and "1 replayed source" in page
    assert f"<td style='padding:2px 8px'>{FIXTURE.name}</td><td style='padding:2px 8px'>generations</td>" in page
    assert "imported (replay_datasets)" in page and "Rows whose source is simulated" not in page
    assert f"<td style='padding:2px 8px'>{REPLAY}</td>" in page  # the spec a params file names it by
    tex = (mixed_run / "analysis" / "rq1_four_cases.tex").read_text()  # a table standing alone keeps the note
    assert "Rows whose source is simulated" in tex and "hand-written fixture" in tex
    rq2 = analysis.rq2_refinement_outcomes_table(results).data.reset_index()
    assert (rq2.loc[rq2["Model"] == REPLAY, "Attempts"] == "not run: no refiner").all()
    fig = analysis.plot_four_cases(results)  # one panel per kind of evidence, real first: never in one panel
    real, demo = fig.axes[:2]
    assert real.get_title() == "Real generations (evidence)" and demo.get_title().startswith("Simulated model")
    real_ticks = " ".join(t.get_text() for t in real.get_xticklabels())  # models named on the axis, with n
    demo_ticks = " ".join(t.get_text() for t in demo.get_xticklabels())
    assert "hand-written fixture" in real_ticks and "sim:default" not in real_ticks and "n = " in real_ticks
    assert "sim:default (simulated)" in demo_ticks
    headline = views.headline(results, "rq1")["by_model"]
    assert headline[REPLAY]["source"].startswith("replayed") and headline["sim:default"]["source"] == "simulated"


def test_refinement_cases_name_the_sources(mixed_run: Path) -> None:
    text = (mixed_run / "refinement_cases.md").read_text()
    assert f"- `{REPLAY}`: replayed (imported) (real generations by hand-written fixture" in text
    assert f"- `{REPLAY}` (replayed (imported): hand-written fixture): refinement not run: no refiner" in text
    assert "· simulated" in text  # every attempt heading names its source
    from tfr_helpers.analysis.cases import feedback_file_name

    name = feedback_file_name(REPLAY)  # the real feedback, never refined, in a file of its own, linked
    results = analysis.load_results(mixed_run)
    fails = [p for p in results.pair_evaluations if p.model == REPLAY and p.feedback is not None]
    assert f"- [{name}]({name}): {len(fails)} feedback instances of `{REPLAY}`" in text
    cases = (mixed_run / name).read_text()
    from tests.analysis.test_cases import case_rows

    assert len(case_rows(cases)) == len(fails)  # one row per feedback instance
    assert f"{len(fails)} test-fail feedback instances, none refined (not run: no refiner)" in cases


def test_a_run_in_progress_already_names_its_sources(mixed_run: Path, tmp_path: Path) -> None:
    import shutil

    partial = tmp_path / "partial"
    shutil.copytree(mixed_run, partial)
    (partial / "results.json.gz").unlink()  # as before finalize_results: notebook 01 reads the checkpoints
    results = views.results_so_far(partial)
    assert {s.model: s.label for s in results.model_sources} == {"sim:default": "simulated", REPLAY: "replayed (imported)"}
    assert any(s.reason == "not run: no refiner" for s in results.skipped) and results.simulated
