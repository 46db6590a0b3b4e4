"""What notebook 03c shows of a "beyond one refinement" study beside each arm's own section (``views.show_arm``):
the headline numbers over seeds, and the headline the notebook records.

Every number comes from the other analysis modules (:mod:`~tfr_helpers.analysis.headlines`, :mod:`.over_seeds`, the
arms' reports); here they are put side by side over the seeds of one study (one seed: its own values, SE undefined).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from tfr_helpers.analysis.headlines import headline_numbers
from tfr_helpers.analysis.seeds.over_seeds import over_seeds
from tfr_helpers.records import Results
from tfr_helpers.records.arm_registry import arms


@dataclass(frozen=True)
class SectionNumbers:
    """One study's results by seed and the headline numbers over seeds."""

    results: dict[int, Results]
    headline: pd.DataFrame
    """:func:`seeds.over_seeds` of every seed's headline numbers."""

    @property
    def simulated(self) -> bool:
        """Whether any seed's run used the simulated model."""
        return any(r.simulated for r in self.results.values())

    @property
    def first(self) -> Results:
        """The first seed's results (tables shown for one run)."""
        return next(iter(self.results.values()))


def section_numbers(results: Mapping[int, Results]) -> SectionNumbers:
    """The frames of :class:`SectionNumbers` from each seed's results."""
    by_seed = dict(results)
    headline = over_seeds({s: headline_numbers(r) for s, r in by_seed.items()})
    return SectionNumbers(by_seed, headline)


def headline_values(numbers: SectionNumbers) -> dict[str, Any]:
    """The notebook's recorded headline: seeds, what each arm records of itself (its report's
    ``section_headline(results)``, else whether the first seed holds it), and pass@1 of the generated code and the
    headline numbers the arms name (mean +- SE over seeds, per model); every number with its definition is in the
    study's summary.json."""
    first = numbers.first
    wanted = {"code_pass_at_1": "code pass@1"}
    out: dict[str, Any] = {"simulated": numbers.simulated, "seeds": list(numbers.results)}
    for arm in (arm for arm in arms() if arm.beyond_one):  # the arms of this section
        own = getattr(arm.load("report"), "section_headline", None) if arm.report is not None else None
        if own is None:
            out[arm.field] = first.has(arm)
            continue
        values, named = own(first)
        out |= values
        wanted |= named
    for _, r in numbers.headline[numbers.headline["number"].isin(list(wanted))].iterrows():
        se = "--" if math.isnan(r["se"]) else f"{r['se']:.1f}"
        out[f"{r['model']} {wanted[r['number']]}"] = f"{r['mean']:.1f} +- {se}"
    return out
