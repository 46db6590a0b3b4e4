"""Stage registry: each pipeline stage is one module that registers a :class:`Stage` when imported.

A stage declares what the runner needs and nothing stage-specific is left in the runner: its name (used by
``tfr stage <name>``), its place in the run order, its checkpoint file, how its work items are built from the
configuration and the records of earlier stages, how each output record maps back to the item that produced it,
and whether its work runs in the sandbox (which sizes its checkpoint chunks). A stage without a checkpoint
(``finalize_results``) runs once, on complete records only, and its single output is the run's ``Results``.

Add a stage by writing its module with the stage function (``stage(items, ctx) -> records``) and a
``register_stage(Stage(...))`` call, and importing it from ``BUILTIN_MODULES`` (inside the package) or declaring
it in the ``tfr.stages`` entry point group (outside it).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tfr_helpers.errors import ConfigError
from tfr_helpers.plugins import load_entry_points

if TYPE_CHECKING:
    from tfr_helpers.pipeline.engine.context import RunContext

StageRecords = dict[str, list[Any]]
"""The records of the stages run (or loaded) so far, by stage name, each list in item order."""

ENTRY_POINT_GROUP = "tfr.stages"
"""Entry point group of stage modules defined outside the package."""

BUILTIN_MODULES = (
    "tfr_helpers.pipeline.stages.generate_codes",
    "tfr_helpers.pipeline.stages.generate_tests",
    "tfr_helpers.pipeline.stages.evaluate_code_test_pairs",
    "tfr_helpers.pipeline.stages.screen_feedback",
    "tfr_helpers.pipeline.stages.refine_codes",
    "tfr_helpers.pipeline.stages.evaluate_refined_codes",
    "tfr_helpers.pipeline.arms.oracle.oracle_repair_tests",
    "tfr_helpers.pipeline.arms.oracle.oracle_refine_codes",
    "tfr_helpers.pipeline.arms.oracle.oracle_evaluate_refined",
    "tfr_helpers.pipeline.arms.rounds.generate_round_tests",
    "tfr_helpers.pipeline.arms.rounds.evaluate_round_suites",
    "tfr_helpers.pipeline.arms.rounds.backprompt_rounds",
    "tfr_helpers.pipeline.stages.finalize_results",
)
"""The modules of the seven stages of the study; importing one registers its stage."""


SEED_STUDY_UNAFFECTED_BY = ("screening", "refinement")
"""Keys the seed study's six checkpointed stages never read: every feedback is refined whatever the screening
(a screening strategy's decisions are items of their own), and the rounds and the oracle-repaired arm are stages of
their own, so turning them on in a finished run keeps its records."""

ORACLE_ARM_UNAFFECTED_BY = ("screening", "refinement.rounds", "refinement.round_tests", "refinement.stop_when_passing")
"""Keys the oracle-repaired arm's stages never read (it takes every unreliable EBT feedback of round 1)."""


@dataclass(frozen=True)
class Stage:
    """One pipeline stage.

    Attributes:
        name: Stage name (``generate_codes``).
        order: Position in the run order (stages run by ascending order).
        run: The stage function, ``run(items, ctx) -> records`` (an item left undone answers ``Undone``).
        items: ``items(ctx, records_so_far) -> work items`` in canonical order; each item has a ``key``.
        checkpoint: Checkpoint file name (``checkpoints/<name>.jsonl``), or None for the final stage, which
            is not checkpointed and returns the run's ``Results`` as its one record.
        output_key: ``output_key(record) -> key of the item that produced it`` (checkpoint grouping).
        sandboxed: True when the stage's work runs in the sandbox (chunks sized by sandbox workers, not by
            concurrent model calls).
        unaffected_by: Fingerprint parts (dotted config keys such as ``screening``; a key also covers the keys
            under it) whose change leaves this stage's recorded records valid: records of items the new value
            no longer yields are simply not loaded. A run directory accepts a change of such a part
            (:func:`tfr_helpers.pipeline.engine.fingerprint.blocking_stages`); by default a stage depends on every part.
        parallel_chunks: True when chunks may run concurrently: a sandboxed stage whose chunk function only runs
            programs and builds records (no model calls; no files but its own items' artifacts), so a chunk waiting
            on its slowest program never leaves a worker idle (:data:`tfr_helpers.pipeline.engine.runner.CHUNKS_IN_FLIGHT`).
    """

    name: str
    order: int
    run: Callable[[Sequence[Any], RunContext], list[Any]]
    items: Callable[[RunContext, StageRecords], list[Any]]
    checkpoint: str | None
    output_key: Callable[[Any], str] = str
    sandboxed: bool = False
    unaffected_by: tuple[str, ...] = ()
    parallel_chunks: bool = False


_REGISTRY: dict[str, Stage] = {}
_loaded = False


def register_stage(stage: Stage) -> Stage:
    """Register (or replace) a stage; returns it.

    Raises:
        ConfigError: Another stage already has this order or checkpoint name.
    """
    for other in _REGISTRY.values():
        if other.name == stage.name:
            continue
        if other.order == stage.order or (stage.checkpoint is not None and other.checkpoint == stage.checkpoint):
            raise ConfigError(f"stage {stage.name!r} clashes with stage {other.name!r} (same order or checkpoint)")
    _REGISTRY[stage.name] = stage
    return stage


def registered_stages() -> list[Stage]:
    """Every registered stage in run order (the built-in ones and ``tfr.stages`` plugins, imported once)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN_MODULES:
            importlib.import_module(module)
        load_entry_points(ENTRY_POINT_GROUP)
    return sorted(_REGISTRY.values(), key=lambda s: s.order)


def records_of(records: StageRecords, stage: str, cls: type | None = None) -> list[Any]:
    """The records of ``stage`` so far (only those of type ``cls`` when given); empty if it has not run."""
    found = records.get(stage, [])
    return found if cls is None else [r for r in found if isinstance(r, cls)]
