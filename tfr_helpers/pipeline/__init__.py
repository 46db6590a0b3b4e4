"""tfr_helpers.pipeline: the experiment configuration and the seven resumable stages to results.json."""

from tfr_helpers.pipeline.config.experiment import ExperimentConfig, load_config
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.run_summary import RunSummary
from tfr_helpers.pipeline.engine.runner import STAGES, default_run_dir, run_stages
from tfr_helpers.pipeline.engine.stage import Stage, register_stage
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.screening.registry import STRATEGIES, ScreeningItem, Verdict, register_strategy

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
