"""``summary.json``: every number the six tables show, per table, with the simulated flag on top."""

from __future__ import annotations

from typing import Any

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.arms import oracle, rounds
from tfr_helpers.analysis.frames import frame_records
from tfr_helpers.analysis.sources import real_note, skipped_frame
from tfr_helpers.analysis.tables import CAPTIONS, SIMULATED_NOTE, caption
from tfr_helpers.records import Results

SUMMARY_VERSION = 1

NUMBERS = {
    "rq1_four_cases": rq1.four_cases,
    "rq1_by_benchmark": rq1.by_benchmark,
    "rq1_unreliable_causes": rq1.unreliable_causes,
    "rq2_refinement_outcomes": rq2.refinement_outcomes,
    "rq2_generated_test_diagnostic": rq2.generated_test_diagnostic,
    "rq3_screening_and_downstream": rq3.screening_and_downstream,
}
"""Table name -> function computing the numbers that table shows."""

DEFINITIONS = {
    "share": "pct is 100*k/n rounded to one decimal; low/high bound its 95% Wilson score interval.",
    "bootstrap": "F1 and pass-rate changes: 95% percentile interval from 2000 resamples of tasks "
    "(with replacement, all rows of a task together, seed 0).",
    "undecided": "An undecided screening decision (unparseable judge answer) counts as reject.",
    "net_change_pp": "100 * mean over refinement attempts of (after_S - before): after_S is the benchmark "
    "verdict of the refined code if the strategy accepted the feedback and refinement gave "
    "code, else of the generated code.",
    "diff_vs_accept_all_pp": "net_change_pp(S) - net_change_pp(accept_all) = "
    "100 * (regressions_avoided - fixes_lost) / attempts.",
    "regressions_avoided": "Pass->Fail attempts whose feedback the strategy rejected.",
    "fixes_lost": "Fail->Pass attempts whose feedback the strategy rejected.",
}


def build_summary(results: Results) -> dict[str, Any]:
    """Every number of the six tables, per table, plus run identity, the simulated flag and definitions.

    Args:
        results: A finished run.

    Returns:
        ``{"version", "simulated", "note", "real_note", "run_name", "model_sources", "skipped", "counts",
        "definitions", "tables": {name: {"caption", "rows"}}}``, JSON-serialisable (``skipped``: items per
        coder, stage and reason).
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
            "counts": {
                "tasks": len(results.tasks),
                "generated_codes": len(results.generated_codes),
                "generated_tests": len(results.generated_tests),
                "pair_evaluations": len(results.pair_evaluations),
                "feedback": sum(p.feedback is not None for p in results.pair_evaluations),
                "screening_decisions": len(results.screening),
                "refinements": len(results.refined_evaluations),
            },
            "definitions": DEFINITIONS,
            "tables": {
                name: {"caption": caption(name, results), "rows": frame_records(fn(results))}
                for name, fn in NUMBERS.items()
                if name in CAPTIONS
            },
        }
        | ({"oracle_repair": section} if (section := oracle.oracle_summary(results)) else {})
        | rounds.summary_section(results)
    )
