"""``summary.json``: every number the tables show, per table, with the simulated flag on top."""

from __future__ import annotations

from typing import Any

from tfr_helpers.analysis import answers, rq1, rq2, rq3
from tfr_helpers.analysis.arms import reports
from tfr_helpers.analysis.headlines import headline, sections
from tfr_helpers.analysis.inference import pairwise
from tfr_helpers.analysis.inference.clustered import INTERVAL_FORM, METHODS, N_RESAMPLES, SEED
from tfr_helpers.analysis.sensitivity import evalplus_strength
from tfr_helpers.analysis.tables import CAPTIONS, SIMULATED_NOTE, caption
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.analysis.tidy.sources import real_note, skipped_frame
from tfr_helpers.records import Results

SUMMARY_VERSION = 1

NUMBERS = {
    "rq1_four_cases": rq1.four_cases,
    "rq1_by_benchmark": rq1.by_benchmark,
    "rq1_unreliable_causes": rq1.unreliable_causes,
    "rq2_refinement_outcomes": rq2.refinement_outcomes,
    "rq2_conditional_transitions": rq2.conditional_transitions,
    "rq2_generated_test_diagnostic": rq2.generated_test_diagnostic,
    "rq3_screening_and_downstream": rq3.screening_and_downstream,
    "rq3_undecided_sensitivity": rq3.undecided_sensitivity,
    "rq3_pairwise": pairwise.pairwise_comparisons,
}
"""Table name -> function computing the numbers that table shows."""

INTERVALS = {
    "method": f"cluster bootstrap; {INTERVAL_FORM}",
    "levels": METHODS,
    "resamples": N_RESAMPLES,
    "seed": SEED,
    "clusters": "tasks (each row's <prefix>clusters column); within a drawn task its code samples are drawn "
    "with replacement when the coder has several (method 'task>code bootstrap')",
    "estimand": "pct: pooled ratio over instances (sum of numerators / sum of denominators over all rows); "
    "task_mean_pct: mean of per-task shares, each task once (robustness)",
    "design_effect": "<prefix>deff: bootstrap variance / variance if the rows were independent (linearised "
    "ratio variance, or a multinomial instance bootstrap for measures of confusion counts)",
    "wilson": "only for a share at 0 or 100 percent (method 'wilson over tasks': the bootstrap has no spread "
    "there, so each task holding the share's denominator counts as one observation); the oracle and rounds "
    "sections use the same bootstrap and rule",
    "tests": "every 'differs' is a task-level permutation test (the two arms or strategies swapped within whole "
    "tasks); below six tasks with a discordant instance there is no p ('too few tasks')",
}
"""How every interval of the tables is made (each row also carries its method, resamples, clusters, deff)."""

DEFINITIONS = {
    "share": "pct is 100*k/n rounded to one decimal: the pooled ratio over instances; low/high bound its 95 "
    "percent cluster-bootstrap interval (see intervals).",
    "undecided": "An undecided screening decision (unparseable judge answer) counts as reject; "
    "rq3_undecided_sensitivity shows it as accept and left out too.",
    "common_set": "RQ3 scores every strategy of a model on the same feedback: the feedback every strategy decided.",
    "abstained": "A consensus screener that found no evidence (fewer than two programs, no consensus) accepts as "
    "accept_all would; abstain_pct is the share of such decisions.",
    "net_change_per_code_pp": "Policy over all the model's code samples: refine each once with one feedback drawn "
    "at random from the accepted ones with a refinement record (expectation over the draw), keep the code when "
    "none is accepted; 100 * mean over code samples of (after - before).",
    "diff_per_code_pp": "net_change_per_code_pp(S) - net_change_per_code_pp(accept_all), paired (same "
    "resamples), with a task-level permutation p-value (diff_per_code_p; None below six informative tasks).",
    "net_change_pp": "Per refinement attempt (labelled as such): 100 * mean over attempts of (after_S - "
    "before); after_S is the benchmark verdict of the refined code if the strategy accepted the feedback and "
    "refinement gave code, else of the generated code.",
    "diff_vs_accept_all_pp": "Per attempt: net_change_pp(S) - net_change_pp(accept_all) = "
    "100 * (regressions_avoided - fixes_lost) / attempts.",
    "regressions_avoided": "Pass->Fail attempts whose feedback the strategy rejected.",
    "fixes_lost": "Fail->Pass attempts whose feedback the strategy rejected.",
    "pairwise": "rq3_pairwise: a - b on the common set, paired cluster-bootstrap interval; p: task-level "
    "permutation test (decisions swapped within whole tasks; NaN and test 'too few tasks' below six informative "
    "tasks); family: primary (each strategy vs accept_all on MCC, Holm within the model; accept_all's MCC is 0 "
    "by convention, so its p tests the strategy's MCC = 0 with the reliability labels permuted within each code "
    "sample of a task, exact) or exploratory (Holm within one model and measure); differs: p_holm < 0.05.",
    "refinement_prompts": "Identical refinement prompts (same task, code sample and feedback text) share one "
    "cached reply: unique counts distinct prompts, and unique_* rates count each once.",
}


def build_summary(results: Results) -> dict[str, Any]:
    """Every number of the tables, per table, plus run identity, the simulated flag and definitions.

    Args:
        results: A finished run.

    Returns:
        ``{"version", "simulated", "note", "real_note", "run_name", "model_sources", "skipped", "headline",
        "definitions", "intervals", "tables": {name: {"caption", "rows"}}, "populations"}``, JSON-serialisable
        (``skipped``: items per coder, stage and reason; ``headline``: the notebooks' headline numbers per model and
        source, see :mod:`tfr_helpers.analysis.headlines`; ``intervals``: the uncertainty method of every interval;
        ``populations``: RQ1's unreliable share over all, non-empty and empty solutions, over all, non-placeholder
        and placeholder tests, and the tasks with tests;
        ``answers``: each report's headline rows, real first, :mod:`tfr_helpers.analysis.answers`).
    """
    return (
        {
            "version": SUMMARY_VERSION,
            "simulated": results.simulated,
            "note": SIMULATED_NOTE if results.simulated else "",
            "real_note": real_note(results),
            "run_name": results.run_name,
            "model_sources": [src.model_dump() for src in results.model_sources],
            "skipped": frame_records(skipped_frame(results)),
            "headline": {section: headline(results, section) for section in sections()},
            "definitions": DEFINITIONS,
            "intervals": INTERVALS,
            "tables": {
                name: {"caption": caption(name, results), "rows": frame_records(fn(results))}
                for name, fn in NUMBERS.items()
                if name in CAPTIONS
            },
        }
        | {key: section for arm in reports() for key, section in arm.summary_section(results).items()}
        | evalplus_strength.summary_section(results)
        | answers.summary_section(results)
        | {
            "populations": {
                "rq1_by_solution": {"rows": frame_records(rq1.unreliable_by_solution(results))},
                "rq1_by_test": {"rows": frame_records(rq1.unreliable_by_test(results))},
                "tasks": {"rows": frame_records(rq1.task_populations(results))},
            }
        }
    )
