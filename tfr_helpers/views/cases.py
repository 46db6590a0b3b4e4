"""Refinement attempts as the case browser filters them (the join itself is :mod:`tfr_helpers.analysis.tidy.attempts`)."""

from __future__ import annotations

from dataclasses import dataclass

from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results

__all__ = ["ALL", "Attempt", "Filters", "build_attempts", "load_run_results", "strategies"]

load_run_results = load_results
"""Read ``results.json`` of a run (the pipeline's one reader, :func:`~tfr_helpers.pipeline.engine.codec.load_results`)."""

ALL = "(all)"
"""Filter value that matches every attempt."""


@dataclass(frozen=True)
class Filters:
    """A selection of attempts; every field set to :data:`ALL` matches everything."""

    model: str = ALL
    source: str = ALL
    """``simulated``, ``replayed`` (real generations read from files) or ``live``."""
    benchmark: str = ALL
    reliability: str = ALL
    transition: str = ALL
    strategy: str = ALL
    decision: str = ALL

    def matches(self, attempt: Attempt) -> bool:
        """True when ``attempt`` passes every filter (decision applies to the chosen strategy)."""
        if self.decision != ALL and self.strategy != ALL and attempt.decision(self.strategy) != self.decision:
            return False
        pairs = [
            (self.model, attempt.model),
            (self.source, attempt.source),
            (self.benchmark, attempt.benchmark),
            (self.reliability, attempt.reliability),
            (self.transition, attempt.transition),
        ]
        return all(wanted == ALL or wanted == actual for wanted, actual in pairs)


def strategies(results: Results) -> list[str]:
    """Screening strategies present in the run, in first-seen order."""
    return list(dict.fromkeys(d.strategy for d in results.screening))
