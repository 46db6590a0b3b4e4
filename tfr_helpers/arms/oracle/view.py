"""The oracle-repaired arm's notebook section: which unreliable EBTs were repaired (first seed), then refinement on
the original vs the repaired feedback of the same instances over seeds."""

from __future__ import annotations

from collections.abc import Mapping

from tfr_helpers.arms.oracle import report
from tfr_helpers.records import Results
from tfr_helpers.views.display import lines
from tfr_helpers.views.fit_table import fit


def section(results: Mapping[int, Results]) -> list[object]:
    """What the notebook displays, in order, for a study's results by seed (the first seed's repair table, or a
    line saying the run has no oracle-repaired arm; the comparison over seeds)."""
    first = next(iter(results.values()))
    repairs = report.repair_table(first) if report.present(first) else lines(["no oracle-repaired arm"])
    return [repairs, fit(report.over_seeds(results).round(2))]
