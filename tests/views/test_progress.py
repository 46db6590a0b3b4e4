"""results_so_far on a real (tiny) pipeline run: provisional results from checkpoints match results.json."""

from __future__ import annotations

import pytest

from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.results_file import has_results
from tfr_helpers.views import CaseBrowser, results_so_far

pytestmark = pytest.mark.slow  # runs the pipeline stages (sandbox) on 2 tasks


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    params = tmp_path_factory.mktemp("params") / "tiny.yaml"
    params.write_text(
        "run_name: tiny\nbenchmarks: [humaneval]\ntasks: 2\nebts_per_task: 2\n"
        "pbts_per_task: 0\nmodels: {coders: ['sim:weak']}\n"
    )
    return load_config(params), tmp_path_factory.mktemp("runs") / "tiny"


def test_provisional_results_follow_the_stages(tiny) -> None:  # type: ignore[no-untyped-def]
    config, run = tiny
    with pytest.raises(RunDirError, match="not a started run"):
        results_so_far(run)
    run_stages(config, run, ["generate_codes", "generate_tests", "evaluate_code_test_pairs"], progress=False)
    early = results_so_far(run)
    assert early.simulated and len(early.tasks) == 2
    assert early.pair_evaluations and not early.screening and not early.refined_evaluations
    browser = CaseBrowser(run)  # a run in progress is browsable: nothing refined or screened yet
    assert browser.attempts and {a.transition for a in browser.attempts} == {"not refined"}
    assert "not screened yet" in browser.shown_html()

    run_stages(config, run, ["screen_feedback", "refine_codes", "evaluate_refined_codes"], progress=False)
    provisional = results_so_far(run)
    assert not has_results(run)
    run_stages(config, run, ["finalize_results"], progress=False)
    final = results_so_far(run)
    for field in (
        "tasks",
        "task_benchmarks",
        "generated_codes",
        "generated_tests",
        "benchmark_verdicts",
        "pair_evaluations",
        "screening",
        "refinements",
        "refined_evaluations",
        "call_totals",  # the same builder as finalize_results: nothing but the stage times may differ
        "time_limit",
        "config",
        "skipped",
        "model_sources",
    ):
        assert getattr(provisional, field) == getattr(final, field), field
