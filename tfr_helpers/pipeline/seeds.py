"""Repeated seeds: a study run once per seed in one run directory (docs/seeds.md).

A configuration with ``seeds: [k0, k1, ...]`` runs as one full run directory per seed::

    runs/<run>/
      config.json          the multi-seed configuration (``seeds`` set); a changed one is refused as usual
      seeds/<k>/           a complete run of seed k: its own config.json (``seed: k``, ``seeds: null``),
                           checkpoints, artifacts and results.json
      analysis/            written by ``tfr analyze`` (``tfr_helpers.analysis.seeds.over_seeds``): mean +- SE over seeds

Seed ``k``'s configuration is the study's with ``seed: k`` and ``seeds: null``, so ``seeds/<k>/`` is exactly the
run a single-base study with ``seed: k`` makes (same fingerprint, same records): the seed changes the simulated
model's draws, the sampling seed sent to providers that take one (OpenAI, vLLM; Anthropic records it as
unsupported) and the programs' seeds in the sandbox. The sampling seed is part of the response cache key, so
every seed gets its own samples from every provider; replayed generations are the same for every seed.

Seeds run one after another, each stage list in full; a killed run resumes at the seed and item where it
stopped (each seed directory resumes on its own; finished seeds are reloaded, not recomputed). The response and
execution caches are the usual shared ones.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.faults import RunIncomplete
from tfr_helpers.pipeline.engine.run_summary import RunSummary
from tfr_helpers.pipeline.engine.runner import _blockers, default_run_dir, run_stages
from tfr_helpers.pipeline.engine.seed_dirs import SEEDS_DIR, seed_dir
from tfr_helpers.pipeline.engine.store import RunStore

log = logging.getLogger(__name__)


def check_seeds(config: ExperimentConfig) -> list[int]:
    """The seeds of a multi-seed configuration, validated.

    Raises:
        ConfigError: ``seeds`` is null, lists a seed twice or a negative seed, or ``sampling.seed`` is also set
            (each seed's run uses its own seed as the sampling seed).
    """
    if config.seeds is None:
        raise ConfigError("seeds is null: this is a single-base study (set seeds: [0, 1, 2] to repeat it)")
    twice = [s for s in dict.fromkeys(config.seeds) if config.seeds.count(s) > 1]
    if twice:
        raise ConfigError(f"seeds lists seed {twice[0]} twice; list each seed once")
    negative = [s for s in config.seeds if s < 0]
    if negative:
        raise ConfigError(f"seeds holds {negative[0]}; seeds are directory names: use non-negative integers")
    if config.sampling.seed is not None:
        raise ConfigError(
            f"sampling.seed is {config.sampling.seed} and seeds is set: each seed's run sends its own seed as the "
            "sampling seed; drop sampling.seed"
        )
    return list(config.seeds)


def seed_config(config: ExperimentConfig, seed: int) -> ExperimentConfig:
    """Seed ``seed``'s configuration: the study's with ``seed: seed``, ``seeds: null`` and run name ``<run>_seed<k>``
    (the run name is not part of the fingerprint: the seed's run is the single-seed run of that seed)."""
    return config.model_copy(update={"seed": seed, "seeds": None, "run_name": f"{config.run_name}_seed{seed}"})


def run_seeds(
    config: ExperimentConfig,
    run_dir: Path | None,
    stages: str | Sequence[str] = "all",
    *,
    progress: bool = True,
) -> RunSummary:
    """Run ``stages`` once per seed of ``config.seeds`` into ``<run_dir>/seeds/<seed>/`` (see the module docstring).

    Args:
        config: A configuration with ``seeds`` set.
        run_dir: The multi-seed run directory (default ``runs/<run_name>``).
        stages: As for :func:`~tfr_helpers.pipeline.engine.runner.run_stages`, applied to every seed.
        progress: Show tqdm progress bars.

    Returns:
        The seeds' summaries added up (stage seconds, calls, sandbox runs, counts), for the top-level directory.

    Raises:
        RunIncomplete: a seed left items undone; later seeds are not started (a rerun continues at that seed).
        ConfigError: bad ``seeds`` (see :func:`check_seeds`).
        RunDirError: the directory, or one seed's, belongs to another configuration.
    """

    seeds = check_seeds(config)
    root = Path(run_dir) if run_dir is not None else default_run_dir(config)
    RunStore(root).bind_config(
        config.model_dump(mode="json"), config.config_hash(), config.fingerprint(), _seed_blockers(root)
    )
    summaries: list[RunSummary] = []
    for seed in seeds:
        log.info("seed %s of %s: %s", seed, seeds, seed_dir(root, seed))
        try:
            summaries.append(run_stages(seed_config(config, seed), seed_dir(root, seed), stages, progress=progress))
        except RunIncomplete as exc:
            done = summaries + ([exc.summary] if exc.summary is not None else [])
            raise RunIncomplete(
                f"seed {seed} (of {seeds}): {exc}; later seeds not started", exc.ledger, combine(root, done)
            ) from None
    return combine(root, summaries)


PER_SEED_PARTS = ("seed", "seeds")
"""Fingerprint parts of the multi-seed configuration that no seed's records depend on: each seed's own
configuration sets them (``seeds`` may grow: finished seeds are kept, new ones run)."""


def _seed_blockers(root: Path) -> Callable[[list[str]], dict[str, list[str]]]:
    """For the top-level binding: the stages of every existing seed directory whose records depend on a changed part
    (``runner._blockers`` per seed), so a change the seeds' records allow rebinds and any other is refused before
    anything is written."""

    def blockers(parts: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {part: [] for part in parts}
        shared = [part for part in parts if part not in PER_SEED_PARTS]
        for path in sorted((root / SEEDS_DIR).glob("*/config.json")) if shared else []:
            for part, stages in _blockers(RunStore(path.parent))(shared).items():
                out[part] += [f"{stage} (seed {path.parent.name})" for stage in stages]
        return out

    return blockers


def combine(root: Path, summaries: Sequence[RunSummary]) -> RunSummary:
    """The summaries of several seeds added up under the multi-seed directory ``root``."""
    total = RunSummary(root, {}, 0, 0)
    for s in summaries:
        total = dataclasses.replace(
            total,
            stage_seconds=_add(total.stage_seconds, s.stage_seconds),
            model_calls=total.model_calls + s.model_calls,
            sandbox_runs=total.sandbox_runs + s.sandbox_runs,
            exec_cache=(total.exec_cache[0] + s.exec_cache[0], total.exec_cache[1] + s.exec_cache[1]),
            cases=_add(total.cases, s.cases),
            causes=_add(total.causes, s.causes),
            transitions=_add(total.transitions, s.transitions),
            decisions={
                k: _add(total.decisions.get(k, {}), s.decisions.get(k, {})) for k in {*total.decisions, *s.decisions}
            },
            calls=total.calls + s.calls,
            input_tokens=total.input_tokens + s.input_tokens,
            output_tokens=total.output_tokens + s.output_tokens,
            cost_usd=total.cost_usd + s.cost_usd,
            errors=_add(total.errors, s.errors),
            undone=_add(total.undone, s.undone),
            skipped=_add(total.skipped, s.skipped),
        )
    return total


def _add(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + value
    return out
