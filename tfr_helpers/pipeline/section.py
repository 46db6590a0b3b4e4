"""The main job's "beyond one refinement" section (notebook 03c): which study it shows and where it runs.

The main job (``tfr run --params papermill_params/X.yaml``) studies refinement once per feedback. Beside it, notebook
03c shows multi-round backprompting, the oracle-repaired arm and repeated seeds on a small study of its own,
declared in the sibling params file ``papermill_params/X_beyond.yaml`` (validated like any params file) and run into
``<run>/sections/<its run_name>/`` (resumable, like every run). Which study the notebook shows:

1. the main run itself when its configuration already goes beyond one refinement (``seeds``, or an arm on that
   its declaration says goes beyond one refinement, as the rounds and the oracle-repaired arm do);
2. else the section params file (``tfr run`` passes ``X_beyond.yaml`` when it exists; interactively, the
   notebook's ``section_params`` parameter);
3. else none: ``tfr run`` leaves notebook 03c out (``notebooks._extra_parameters``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.arms.declaration import enabled_arms, registered_arms
from tfr_helpers.pipeline.config.experiment import ExperimentConfig, load_config
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.run_summary import RunSummary
from tfr_helpers.pipeline.engine.seed_dirs import seed_dir
from tfr_helpers.pipeline.study import run_study
from tfr_helpers.records import Results

SECTION_SUFFIX = "_beyond"
"""``X.yaml``'s section is ``X_beyond.yaml`` in the same directory."""
SECTIONS_DIR = "sections"
"""Subdirectory of the main run holding the section's run directory."""


def section_params_for(params: Path | str) -> Path | None:
    """The section params file of a main params file (``X.yaml`` -> ``X_beyond.yaml``), or None when absent."""
    path = Path(params)
    if path.stem.endswith(SECTION_SUFFIX):
        return None
    sibling = path.with_name(f"{path.stem}{SECTION_SUFFIX}{path.suffix}")
    return sibling if sibling.is_file() else None


def goes_beyond_one(config: ExperimentConfig) -> bool:
    """Whether a configuration repeats seeds or turns on an arm declared to go beyond one refinement
    (:attr:`~tfr_helpers.pipeline.arms.declaration.Arm.beyond_one`)."""
    return config.seeds is not None or any(arm.beyond_one for arm in enabled_arms(config))


@dataclass(frozen=True)
class Section:
    """The study notebook 03c shows: its configuration, run directory and where it was declared."""

    config: ExperimentConfig
    run_dir: Path
    origin: str
    """``this run`` or the section params file."""

    @property
    def seeds(self) -> list[int]:
        """The study's seeds (``[seed]`` for a single-base study)."""
        return list(self.config.seeds) if self.config.seeds is not None else [self.config.seed]

    def run(self, progress: bool = False) -> RunSummary:
        """Run (or resume; a finished study reruns in seconds) every stage of the section's study."""

        return run_study(self.config, self.run_dir, "all", progress=progress)  # one run per seed when seeded

    def results(self) -> dict[int, Results]:
        """Each seed's results, by seed (one entry for a single-base study)."""

        if self.config.seeds is None:
            return {self.config.seed: load_results(self.run_dir)}
        return {seed: load_results(seed_dir(self.run_dir, seed)) for seed in self.seeds}

    def describe(self) -> str:
        """One line: where the study comes from, the arms it turns on (each as its declaration summarizes it), its
        seeds and its run directory."""
        arms = ", ".join(arm.summary(self.config) for arm in enabled_arms(self.config)) or "one refinement"
        return f"section study from {self.origin}: {arms}, seeds {self.seeds}, run directory {self.run_dir}"


def resolve_section(config: ExperimentConfig, run_dir: Path, section_params: str | Path = "") -> Section:
    """The study notebook 03c shows (see the module docstring).

    Args:
        config: The main run's configuration.
        run_dir: The main run's directory.
        section_params: A section params file ("" for none); relative paths are taken from the project root.

    Raises:
        ConfigError: there is no such study, or the section params file is missing or invalid (naming the key).
    """
    if goes_beyond_one(config):
        return Section(config, Path(run_dir), "this run")
    if not str(section_params):
        raise ConfigError(
            "this run refines once with one seed and no section params file is given: set section_params (e.g. "
            "papermill_params/smoke_beyond.yaml), or give the run seeds or "
            + " or ".join(arm.switch for arm in registered_arms() if arm.beyond_one)
        )
    path = Path(section_params)
    if not path.is_absolute():
        path = Path(__file__).resolve().parents[2] / path
    section = load_config(path)
    return Section(section, Path(run_dir) / SECTIONS_DIR / section.run_name, str(path))
