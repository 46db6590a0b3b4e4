"""tfr_helpers.pipeline: the experiment configuration and the study's resumable stages, from params to results.json.

The public face: :func:`run_study` (also :func:`run_stages`), :func:`load_config`, :func:`register_stage` and
:func:`register_strategy`; the rooms below hold the rest (``docs/architecture.md``).
"""

from typing import TYPE_CHECKING, Any

from tfr_helpers.pipeline.config.experiment import ExperimentConfig, load_config
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.run_summary import RunSummary
from tfr_helpers.pipeline.engine.runner import default_run_dir
from tfr_helpers.pipeline.engine.stage import Stage, register_stage
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.screening import builtin as _builtin_strategies  # noqa: F401  (registers them)
from tfr_helpers.pipeline.screening.registry import STRATEGIES, Screener, ScreeningItem, Verdict, register_strategy

if TYPE_CHECKING:
    from tfr_helpers.pipeline.study import STAGES, run_study

    run_stages = run_study


def __getattr__(name: str) -> Any:
    """``run_study`` (also ``run_stages``, the name notebooks and scripts call it by) and ``STAGES``, from the study,
    loaded on first use: the study composes every arm's stages as it loads, and an arm's stage module imported
    first (a test, a fresh interpreter) imports this package before its own stages exist."""
    if name in ("run_study", "run_stages", "STAGES"):
        from tfr_helpers.pipeline import study

        return study.STAGES if name == "STAGES" else study.run_study
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "STAGES",
    "STRATEGIES",
    "ExperimentConfig",
    "RunStore",
    "RunSummary",
    "Screener",
    "ScreeningItem",
    "Stage",
    "Verdict",
    "default_run_dir",
    "load_config",
    "load_results",
    "register_stage",
    "register_strategy",
    "run_stages",
    "run_study",
]
