"""What the analysis asks of a run's screeners: their declarations (:class:`~tfr_helpers.pipeline.screening.registry.
Screener`), never their names. A report that groups or describes screeners (those comparing code samples, those
calling a model) asks the registry, so that a screener added outside the package is reported as its declaration
says."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.errors import TfrError
from tfr_helpers.pipeline.screening.registry import Screener, resolve_strategy
from tfr_helpers.records import Results


def declared(name: str) -> Screener | None:
    """The screener ``name`` as it declares itself, or None when it cannot be resolved here (a run made with a
    screener from a package not installed now): the report then treats it as declaring nothing."""
    try:
        return resolve_strategy(name)
    except TfrError:
        return None


def compares_samples(name: str) -> bool:
    """Whether ``name`` compares several code samples of the coder (the consensus screeners): on one sample it finds
    no consensus and accepts, as ``accept_all`` would."""
    screener = declared(name)
    return screener is not None and screener.samples > 1


def model_callers(names: Iterable[str]) -> list[str]:
    """Those of ``names`` that call a model (the LLM judges), in order."""
    return [name for name in dict.fromkeys(names) if (screener := declared(name)) is not None and screener.calls_model]


def run_screeners(results: Results) -> list[str]:
    """The ``screening`` list of the run's configuration (empty when the results carry none)."""
    listed = results.config.get("screening") if isinstance(results.config, dict) else None
    return [str(name) for name in listed] if isinstance(listed, list) else []
