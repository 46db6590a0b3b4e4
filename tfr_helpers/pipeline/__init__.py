"""tfr_helpers.pipeline: the experiment configuration and the study's resumable stages, from params to results.json.

The public face: :func:`run_study` (also :func:`run_stages`), :func:`load_config`, :func:`register_stage` and
:func:`register_strategy`; the rooms below hold the rest (``docs/architecture.md``).
"""

from tfr_helpers.pipeline.config.experiment import ExperimentConfig, load_config
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.run_summary import RunSummary
from tfr_helpers.pipeline.engine.runner import default_run_dir
from tfr_helpers.pipeline.engine.stage import Stage, register_stage
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.screening import builtin as _builtin_strategies  # noqa: F401  (registers them)
from tfr_helpers.pipeline.screening.registry import STRATEGIES, Screener, ScreeningItem, Verdict, register_strategy
from tfr_helpers.pipeline.study import STAGES, run_study

run_stages = run_study
"""The name notebooks and scripts call :func:`run_study` by."""

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
