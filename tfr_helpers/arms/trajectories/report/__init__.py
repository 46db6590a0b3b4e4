"""The replayed self-repair trajectories arm's report: the steps' numbers (:mod:`.trajectories`), their answers,
cases, contrast, exclusion bounds, rewards and screening, the dose series over fixed test lists (:mod:`.dose`,
:mod:`.dose_response`, :mod:`.dose_report`), and what the arm contributes to a run's analysis
(:mod:`.trajectories_report`, whose members this package exports: the arm's ``ArmReport``)."""

from tfr_helpers.arms.trajectories.report import trajectory_answers  # noqa: F401  (registers its answer rows)
from tfr_helpers.arms.trajectories.report.trajectories_report import (
    HEADLINE_KINDS,
    NAME,
    analyze_lines,
    case_files,
    exclusion_lines,
    figures,
    present,
    record_counts,
    summary_section,
    tables,
)

__all__ = [
    "HEADLINE_KINDS",
    "NAME",
    "analyze_lines",
    "case_files",
    "exclusion_lines",
    "figures",
    "present",
    "record_counts",
    "summary_section",
    "tables",
]
