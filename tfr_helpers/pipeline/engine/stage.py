"""Stage registry: each pipeline stage is one module that registers a :class:`Stage` when imported.

A stage declares what the runner needs and nothing stage-specific is left in the runner: its name (used by
``tfr stage <name>``), its place in the run order, its checkpoint file, how its work items are built from the
configuration and the records of earlier stages, how each output record maps back to the item that produced it,
and whether its work runs in the sandbox (which sizes its checkpoint chunks). A stage without a checkpoint
(``finalize_results``) runs once, on complete records only, and its single output is the run's ``Results``.

The study's own stages are modules defining ``STAGE = Stage(...)``, listed in run order in
:data:`tfr_helpers.pipeline.study.RUN_ORDER`, which registers them. A stage outside the package is a module that
calls ``register_stage(Stage(..., order=15))`` and is declared in the ``tfr.stages`` entry point group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.fingerprint import covers
from tfr_helpers.plugins import load_entry_points

if TYPE_CHECKING:
    from tfr_helpers.pipeline.engine.context import RunContext

StageRecords = dict[str, list[Any]]
"""The records of the stages run (or loaded) so far, by stage name, each list in item order."""

ENTRY_POINT_GROUP = "tfr.stages"
"""Entry point group of stage modules defined outside the package."""

CONTROL_ARM_PARTS = ("refinement.controls", "template:retry", "template:placebo")
"""Fingerprint parts only the control arm reads (its list of controls and the templates of two of them): every
other stage is unaffected by them, so turning the controls on in a finished run keeps its records."""

TRAJECTORY_PARTS = ("trajectories",)
"""Keys only the trajectory arm reads (the sets named, their files' hashes): the other stages' records stay valid when
sets are added to a finished run."""

BASE_STUDY_UNAFFECTED_BY = ("screening", "refinement", "template:retry", "template:placebo", *TRAJECTORY_PARTS)
"""Keys the base study's six checkpointed stages never read: every feedback is refined whatever the screening
(a screening strategy's decisions are items of their own), and the rounds and the oracle-repaired arm are stages of
their own, so turning them on in a finished run keeps its records."""

ROUND_PARTS = ("refinement.rounds", "refinement.round_tests", "refinement.stop_when_passing")
"""Keys only the rounds read."""

ORACLE_ARM_UNAFFECTED_BY = ("screening", *ROUND_PARTS, *CONTROL_ARM_PARTS, *TRAJECTORY_PARTS)
"""Keys the oracle-repaired arm's stages never read (it takes every unreliable EBT feedback of round 1)."""

CONTROL_ARM_UNAFFECTED_BY = (
    "screening",
    *ROUND_PARTS,
    "refinement.oracle_repair",
    "refinement.controls",
    *TRAJECTORY_PARTS,
)
"""Keys the control arm's stages never read (each takes every feedback the feedback arm refines; a control's
stage has no items unless its control is listed, and records of items no longer yielded are simply not loaded)."""


@dataclass(frozen=True)
class Stage:
    """One pipeline stage.

    Attributes:
        name: Stage name (``generate_codes``).
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
            (:func:`tfr_helpers.pipeline.config.fingerprint.blocking_stages`); by default a stage depends on every part.
        parallel_chunks: True when chunks may run concurrently: a sandboxed stage whose chunk function only runs
            programs and builds records (no model calls; no files but its own items' artifacts), so a chunk waiting
            on its slowest program never leaves a worker idle (:data:`tfr_helpers.pipeline.engine.runner.CHUNKS_IN_FLIGHT`).
    """

    name: str
    run: Callable[[Sequence[Any], RunContext], list[Any]]
    items: Callable[[RunContext, StageRecords], list[Any]]
    checkpoint: str | None
    output_key: Callable[[Any], str] = str
    sandboxed: bool = False
    unaffected_by: tuple[str, ...] = ()
    parallel_chunks: bool = False
    order: int = 0
    """Position in the run order (stages run by ascending order). The study's own stages get theirs from their
    place in :data:`tfr_helpers.pipeline.study.RUN_ORDER` (10, 20, 30...); a plugin stage sets one to run between
    two of them (15: after the first, before the second)."""


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
    """Every registered stage in run order (the study's, registered by :mod:`tfr_helpers.pipeline.study`, and the
    ``tfr.stages`` plugins, imported once)."""
    global _loaded
    if not _loaded:
        _loaded = True
        load_entry_points(ENTRY_POINT_GROUP)
    return sorted(_REGISTRY.values(), key=lambda s: s.order)


def records_of(records: StageRecords, stage: str, cls: type | None = None) -> list[Any]:
    """The records of ``stage`` so far (only those of type ``cls`` when given); empty if it has not run."""
    found = records.get(stage, [])
    return found if cls is None else [r for r in found if isinstance(r, cls)]


def blocking_stages(
    parts: Iterable[str], stages: Sequence[Stage], has_records: Callable[[str], bool]
) -> dict[str, list[str]]:
    """For each changed part, the stages holding records that depend on it (empty lists: the change is safe).

    Args:
        parts: Changed fingerprint parts.
        stages: The registered stages.
        has_records: ``has_records(checkpoint_name)``: the run directory holds records of that checkpoint.
            A stage without a checkpoint (the final one) is recomputed every run and never blocks.
    """
    holding = [s for s in stages if s.checkpoint is not None and has_records(s.checkpoint)]
    return {part: [s.name for s in holding if not any(covers(key, part) for key in s.unaffected_by)] for part in parts}
