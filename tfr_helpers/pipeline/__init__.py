"""tfr_helpers.pipeline: the experiment configuration and the seven resumable stages to results.json."""

from tfr_helpers.pipeline.config import ExperimentConfig, load_config
from tfr_helpers.pipeline.results_io import load_results
from tfr_helpers.pipeline.runner import STAGES, default_run_dir, run_stages
from tfr_helpers.pipeline.stages import Stage, register_stage
from tfr_helpers.pipeline.store import RunStore
from tfr_helpers.pipeline.strategies import STRATEGIES, ScreeningItem, Verdict, register_strategy
from tfr_helpers.pipeline.summary import RunSummary

__all__ = [
    "STAGES",
    "STRATEGIES",
    "ExperimentConfig",
    "RunStore",
    "RunSummary",
    "ScreeningItem",
    "Stage",
    "Verdict",
    "default_run_dir",
    "load_config",
    "load_results",
    "register_stage",
    "register_strategy",
    "run_stages",
]
