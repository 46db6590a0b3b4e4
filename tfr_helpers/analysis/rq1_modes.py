"""RQ1 by how the generated code failed: the unreliable share of test-fail feedback overall and per failure mode.

Feedback whose code did not load or crashed inside its own code says something true about the code whatever the
test expects; counting it with the wrong tests hides that. This table separates the two. ``indeterminate``
feedback (a verdict that still depends on the machine) is counted in its own column and kept out of ``n``.
"""

from __future__ import annotations

from typing import get_args

import pandas as pd

from tfr_helpers.analysis.inference.stats import share_columns, wilson
from tfr_helpers.analysis.tidy.sources import source_of
from tfr_helpers.records import FailureMode, Results

MODES: tuple[str, ...] = get_args(FailureMode)
COLUMNS = ["model", "source", "failure_mode", "indeterminate", "k", "n", "pct", "low", "high"]


def by_failure_mode(results: Results) -> pd.DataFrame:
    """Per model and failure mode (``all``: every mode): unreliable test-fail feedback over all of it.

    Models are never pooled (a simulated and a real model are different evidence).

    Returns:
        Columns ``model, source, failure_mode, indeterminate, k, n, pct, low, high``: ``k`` unreliable, ``n``
        reliable + unreliable feedback of that mode, ``indeterminate`` the feedback of that mode left out of ``n``.
    """
    rows = []
    fails = [p for p in results.pair_evaluations if p.reliability is not None]
    for model in sorted({p.model for p in fails}):
        mine = [p for p in fails if p.model == model]
        source = source_of(results, model).source
        for mode in ("all", *MODES):
            sub = mine if mode == "all" else [p for p in mine if p.failure_mode == mode]
            decided = [p for p in sub if p.reliability != "indeterminate"]
            k = sum(p.reliability == "unreliable" for p in decided)
            rows.append(
                {
                    "model": model,
                    "source": source,
                    "failure_mode": mode,
                    "indeterminate": len(sub) - len(decided),
                    **share_columns(wilson(k, len(decided))),
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)
