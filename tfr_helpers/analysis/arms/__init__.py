"""The analysis of the study's arms, one folder entry per arm, and the one interface every arm's report implements.

An arm package's report is its ``report`` module (``ArmDeclaration.report``: ``tfr_helpers/arms/<arm>/report.py``),
satisfying :class:`ArmReport`; the arms not yet moved into a package keep theirs in this folder. :func:`reports` lists
them all. The writers (``analysis/writing/export.py``: the ``.tex`` tables; ``analysis/summary.py``: summary.json's
sections; ``analysis/figures.py``: the figures; ``analysis/headlines.py``: the numbers of each arm's
``HEADLINE_KINDS``) loop over :func:`reports` and name no arm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from pandas.io.formats.style import Styler

from tfr_helpers.analysis.answers import AnswerKind
from tfr_helpers.records import Results
from tfr_helpers.records.arm_registry import arms

Plot = Callable[..., Any]
"""``plot(results, ax=None)``: draws one figure on ``ax`` and returns it."""


class ArmReport(Protocol):
    """What one arm contributes to a run's analysis (each member is a module attribute of the arm's report)."""

    NAME: str
    """The arm's name (its configuration key)."""
    HEADLINE_KINDS: tuple[AnswerKind, ...]
    """The arm's headline numbers, each registered (:func:`~tfr_helpers.analysis.answers.register_answer_kind`);
    :func:`~tfr_helpers.analysis.headlines.headline_numbers` takes their ``numbers`` only when the arm is present
    (``()`` when it adds none)."""

    def present(self, results: Results) -> bool:
        """Whether the run holds the arm (every other member is only called when it does)."""
        ...

    def tables(self, results: Results) -> dict[str, Styler]:
        """File stem -> table written as ``analysis/<stem>.tex``."""
        ...

    def summary_section(self, results: Results) -> dict[str, Any]:
        """The arm's top-level sections of ``summary.json`` (``{}`` when the run does not hold it)."""
        ...

    def figures(self, results: Results) -> dict[str, tuple[Plot, tuple[float, float]]]:
        """Figure stem -> (plot, size in inches) saved as ``analysis/figures/<stem>.png``, ``.pdf`` and ``.svg``."""
        ...


def reports() -> list[ArmReport]:
    """Every arm's report, in the order of the headline rows and summary.json's sections: each arm package's (the
    registry's order), then the trajectories'."""
    packaged = [cast(ArmReport, arm.load("report")) for arm in arms() if arm.report is not None]
    return packaged
