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
from tfr_helpers.plugins import load_entry_points_once

if TYPE_CHECKING:
    from tfr_helpers.pipeline.engine.context import RunContext

StageRecords = dict[str, list[Any]]
"""The records of the stages run (or loaded) so far, by stage name, each list in item order."""

ENTRY_POINT_GROUP = "tfr.stages"
"""Entry point group of stage modules defined outside the package."""


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
        reads: Fingerprint parts the stage's records depend on (dotted config keys such as ``sandbox``, a key
            covering the keys under it; ``template:<name>``): a change of one makes its records stale. None (a
            stage that declares nothing, e.g. a plugin's): every part. A part that no stage declares (the
            simulator's version, a replayed dataset's files) is read by every stage.
        selects: Parts that only choose the stage's items (``screening``: one item per strategy): records of the
            items still yielded stay valid, those of items no longer yielded are simply not loaded.
        after: The stages whose records its items are built from: a stale one makes this one stale too.
        parallel_chunks: True when chunks may run concurrently: a sandboxed stage whose chunk function only runs
            programs and builds records (no model calls; no files but its own items' artifacts), so a chunk waiting
            on its slowest program never leaves a worker idle (:data:`tfr_helpers.pipeline.engine.runner.CHUNKS_IN_FLIGHT`).
        waits: ``waits(item) -> bool`` for a ``parallel_chunks`` stage: the item's programs wait (sleep, child
            processes: :func:`tfr_helpers.sandbox.routing.waits`) rather than compute. Such items are started right
            after the stage's first chunk, so their waits (a BigCodeBench task whose five tests sleep 9 s each, one
            after the other) overlap with the other chunks' work instead of ending the stage with idle cores.
            Scheduling only: records are returned in item order, whatever order the chunks ran in.
    """

    name: str
    run: Callable[[Sequence[Any], RunContext], list[Any]]
    items: Callable[[RunContext, StageRecords], list[Any]]
    checkpoint: str | None
    output_key: Callable[[Any], str] = str
    sandboxed: bool = False
    reads: tuple[str, ...] | None = None
    selects: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    parallel_chunks: bool = False
    waits: Callable[[Any], bool] | None = None
    order: int = 0
    """Position in the run order (stages run by ascending order). The study's own stages get theirs from their
    place in :data:`tfr_helpers.pipeline.study.RUN_ORDER` (10, 20, 30...); a plugin stage sets one to run between
    two of them (15: after the first, before the second)."""


_REGISTRY: dict[str, Stage] = {}


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
    load_entry_points_once(ENTRY_POINT_GROUP)
    return sorted(_REGISTRY.values(), key=lambda s: s.order)


def records_of(records: StageRecords, stage: str, cls: type | None = None) -> list[Any]:
    """The records of ``stage`` so far (only those of type ``cls`` when given); empty if it has not run."""
    found = records.get(stage, [])
    return found if cls is None else [r for r in found if isinstance(r, cls)]


def stale_stages(parts: Iterable[str], stages: Sequence[Stage]) -> dict[str, list[str]]:
    """For each changed part, the stages whose records it makes stale, in run order: the stages that read it
    (:attr:`Stage.reads`; every stage for a part no stage declares) and every stage after one of those
    (:attr:`Stage.after`, transitively)."""
    declared = [key for s in stages for key in (*(s.reads or ()), *s.selects)]
    out = {}
    for part in parts:
        undeclared = not any(covers(key, part) for key in declared)
        stale = {s.name for s in stages if s.reads is None or undeclared or any(covers(key, part) for key in s.reads)}
        for s in stages:  # run order: a stage's inputs come before it
            if any(name in stale for name in s.after):
                stale.add(s.name)
        out[part] = [s.name for s in stages if s.name in stale]
    return out


def blocking_stages(
    parts: Iterable[str], stages: Sequence[Stage], has_records: Callable[[str], bool]
) -> dict[str, list[str]]:
    """For each changed part, the stages holding records that it makes stale (:func:`stale_stages`; empty lists:
    the change is safe).

    Args:
        parts: Changed fingerprint parts.
        stages: The registered stages, in run order.
        has_records: ``has_records(checkpoint_name)``: the run directory holds records of that checkpoint.
            A stage without a checkpoint (the final one) is recomputed every run and never blocks.
    """
    holding = {s.name for s in stages if s.checkpoint is not None and has_records(s.checkpoint)}
    return {part: [name for name in names if name in holding] for part, names in stale_stages(parts, stages).items()}
