"""tfr_helpers.analysis: tidy frames, statistics, six tables, figures, summary.json, refinement_cases.md.

Reads only ``results.json`` and the artifacts it points to.
"""

from tfr_helpers.analysis.cases import render_refinement_cases, write_refinement_cases
from tfr_helpers.analysis.figures import (
    PLOTS,
    plot_four_cases,
    plot_screening_pr,
    plot_transitions,
    save_figures,
)
from tfr_helpers.analysis.inference.clustered import Interval, Resampler, resampler
from tfr_helpers.analysis.inference.pairwise import pairwise_comparisons
from tfr_helpers.analysis.inference.stats import wilson
from tfr_helpers.analysis.inference_tables import (
    INFERENCE_TABLES,
    rq1_failure_modes_table,
    rq2_conditional_transitions_table,
    rq3_pairwise_table,
    rq3_undecided_sensitivity_table,
)
from tfr_helpers.analysis.interpret import interpret_rq1, interpret_rq2, interpret_rq3
from tfr_helpers.analysis.rq1 import by_benchmark, four_cases, unreliable_causes
from tfr_helpers.analysis.rq2 import conditional_transitions, generated_test_diagnostic, refinement_outcomes
from tfr_helpers.analysis.rq3 import screening_and_downstream, undecided_sensitivity
from tfr_helpers.analysis.runs import analyze
from tfr_helpers.analysis.sensitivity.evalplus_strength import strength_table as sensitivity_test_strength_table
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.analysis.tables import (
    TABLES,
    rq1_by_benchmark_table,
    rq1_four_cases_table,
    rq1_unreliable_causes_table,
    rq2_generated_test_diagnostic_table,
    rq2_refinement_outcomes_table,
    rq3_screening_and_downstream_table,
)
from tfr_helpers.analysis.tidy.frames import pairs_frame, refinements_frame, screening_frame
from tfr_helpers.analysis.writing.export import AnalysisOutputs, to_latex
from tfr_helpers.pipeline.engine.codec import load_results

__all__ = [
    "sensitivity_test_strength_table",
    "INFERENCE_TABLES",
    "PLOTS",
    "TABLES",
    "AnalysisOutputs",
    "analyze",
    "build_summary",
    "by_benchmark",
    "four_cases",
    "generated_test_diagnostic",
    "interpret_rq1",
    "interpret_rq2",
    "interpret_rq3",
    "load_results",
    "pairs_frame",
    "plot_four_cases",
    "plot_screening_pr",
    "plot_transitions",
    "refinement_outcomes",
    "refinements_frame",
    "render_refinement_cases",
    "rq1_by_benchmark_table",
    "rq1_four_cases_table",
    "rq1_unreliable_causes_table",
    "rq2_generated_test_diagnostic_table",
    "rq2_refinement_outcomes_table",
    "rq3_screening_and_downstream_table",
    "save_figures",
    "screening_and_downstream",
    "screening_frame",
    "to_latex",
    "unreliable_causes",
    "wilson",
    "Interval",
    "Resampler",
    "resampler",
    "conditional_transitions",
    "pairwise_comparisons",
    "undecided_sensitivity",
    "rq1_failure_modes_table",
    "rq2_conditional_transitions_table",
    "rq3_pairwise_table",
    "rq3_undecided_sensitivity_table",
    "write_refinement_cases",
]
