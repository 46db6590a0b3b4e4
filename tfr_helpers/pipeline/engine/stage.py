"""Stage registry: each pipeline stage is one module that registers a :class:`Stage` when imported.

A stage declares what the runner needs and nothing stage-specific is left in the runner: its name (used by
``tfr stage <name>``), its place in the run order, its checkpoint file, how its work items are built from the
configuration and the records of earlier stages, how each output record maps back to the item that produced it,
and whether its work runs in the sandbox (which sizes its checkpoint chunks). A stage without a checkpoint
(``finalize_results``) runs once, on complete records only, and its single output is the run's ``Results``.

A stage declares its typed inputs (:class:`Inputs`): the record types it reads from earlier stages and the
settings (configuration keys, prompt templates) its records depend on, and the record types it produces. From
them the engine derives which stages come before it (:func:`upstream`: those producing a type it reads), what a
change of configuration makes stale (:func:`stale_stages`), and which stages never wait for another's undone items
(:attr:`Stage.independent`); the runner hands its ``items`` only the declared record types
(:class:`InputRecords`) and its ``items`` and ``run`` a configuration that refuses an undeclared key
(:class:`~tfr_helpers.pipeline.engine.settings_view.SettingsView`).

The study's own stages are modules defining ``STAGE = Stage(...)``, listed in run order in
:data:`tfr_helpers.pipeline.study.RUN_ORDER`, which registers them. A stage outside the package is a module that
calls ``register_stage(Stage(..., order=15))`` and is declared in the ``tfr.stages`` entry point group; one that
declares no ``inputs`` is handed every record so far by stage name (:data:`StageRecords`, read with
:func:`records_of`) and the whole configuration, and its records depend on every part of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.fingerprint import covers
from tfr_helpers.plugins import load_entry_points_once

if TYPE_CHECKING:
    from tfr_helpers.pipeline.engine.context import RunContext

StageRecords = dict[str, list[Any]]
"""The records of the stages run (or loaded) so far, by stage name, each list in item order."""

ENTRY_POINT_GROUP = "tfr.stages"
"""Entry point group of stage modules defined outside the package."""

R = TypeVar("R")


class UndeclaredInput(LookupError):
    """A stage asked for records or settings it did not declare in its :class:`Inputs`."""


@dataclass(frozen=True)
class Inputs:
    """What a stage reads: the record types of earlier stages its items are built from, and the settings its
    records depend on.

    Attributes:
        records: Record types produced by earlier stages (``GeneratedCode``); the stages producing them run
            before this one and a stale one makes this one stale (:func:`upstream`). None: none.
        settings: Fingerprint parts the stage's records depend on: dotted configuration keys (``sandbox``, a key
            covering the keys under it; ``models.refiner``) and prompt templates (``template:<name>``). A change of
            one makes its records stale. The stage's code may read these keys (and the keys outside the
            fingerprint: ``run_name``, ``concurrency``, ``budget_usd``) and no other
            (:class:`~tfr_helpers.pipeline.engine.settings_view.SettingsView`).
        selects: Configuration keys that only choose the stage's items (``screening``: one item per strategy):
            records of the items still yielded stay valid, those of items no longer yielded are simply not
            loaded. The stage may read them too.
    """

    records: tuple[type, ...] = ()
    settings: tuple[str, ...] = ()
    selects: tuple[str, ...] = ()


class InputRecords:
    """The records of earlier stages a stage declared (:attr:`Inputs.records`), by type: ``inputs.of(GeneratedCode)``.

    Raises :class:`UndeclaredInput` for a type the stage does not declare."""

    def __init__(self, stage: str, records: StageRecords, declared: Iterable[type] | None) -> None:
        """``records``: every record so far by stage name, in run order; ``declared`` None: every type (the
        consolidation of a whole run)."""
        self._stage = stage
        self._records = records
        self._declared = None if declared is None else frozenset(declared)

    def of(self, cls: type[R]) -> list[R]:
        """The records of exactly type ``cls`` (a subclass is a type of its own), stage after stage in run order,
        each stage's in item order; empty when the stages producing them have not run.

        Raises:
            UndeclaredInput: ``cls`` is not among the stage's declared input records.
        """
        if self._declared is not None and cls not in self._declared:
            declared = ", ".join(sorted(t.__name__ for t in self._declared)) or "none"
            raise UndeclaredInput(
                f"stage {self._stage!r} asked for {cls.__name__} records, which it does not declare (it declares: "
                f"{declared}); add {cls.__name__} to its Inputs(records=...)"
            )
        return [r for found in self._records.values() for r in found if type(r) is cls]


@dataclass(frozen=True)
class Stage:
    """One pipeline stage.

    Attributes:
        name: Stage name (``generate_codes``).
        run: The stage function, ``run(items, ctx) -> records`` (an item left undone answers ``Undone``).
        items: ``items(ctx, inputs) -> work items`` in canonical order; each item has a ``key`` and a ``unit``
            (the (coder model, task id) it belongs to: an undone item blocks its unit in later stages).
            ``inputs`` is an :class:`InputRecords` over the declared record types (a stage without
            :attr:`inputs`: every record so far by stage name, :data:`StageRecords`).
        checkpoint: Checkpoint file name (``checkpoints/<name>.jsonl``), or None for the final stage, which
            is not checkpointed and returns the run's ``Results`` as its one record.
        output_key: ``output_key(record) -> key of the item that produced it`` (checkpoint grouping).
        sandboxed: True when the stage's work runs in the sandbox (chunks sized by sandbox workers, not by
            concurrent model calls).
        inputs: The record types and settings the stage reads (:class:`Inputs`). None (a plugin's stage that
            declares nothing, the final consolidation): every record by stage name, the whole configuration,
            and its records depend on every part.
        produces: The record types its ``run`` returns (checked as its records are checkpointed).
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
    items: Callable[[RunContext, Any], list[Any]]
    checkpoint: str | None
    output_key: Callable[[Any], str] = str
    sandboxed: bool = False
    inputs: Inputs | None = None
    produces: tuple[type, ...] = ()
    parallel_chunks: bool = False
    waits: Callable[[Any], bool] | None = None
    order: int = 0
    """Position in the run order (stages run by ascending order). The study's own stages get theirs from their
    place in :data:`tfr_helpers.pipeline.study.RUN_ORDER` (10, 20, 30...); a plugin stage sets one to run between
    two of them (15: after the first, before the second)."""

    @property
    def reads(self) -> tuple[str, ...] | None:
        """The fingerprint parts its records depend on (:attr:`Inputs.settings`); None: every part."""
        return None if self.inputs is None else tuple(dict.fromkeys(self.inputs.settings))

    @property
    def selects(self) -> tuple[str, ...]:
        """The keys that only choose its items (:attr:`Inputs.selects`)."""
        return () if self.inputs is None else self.inputs.selects

    @property
    def independent(self) -> bool:
        """Its items need no record of an earlier stage (it declares none), so an undone item elsewhere never
        holds them back."""
        return self.inputs is not None and not self.inputs.records

    def input_records(self, records: StageRecords) -> InputRecords | StageRecords:
        """What its ``items`` receive: its declared record types over ``records`` (every record by stage name
        when it declares no :attr:`inputs`)."""
        if self.inputs is None:
            return records
        return InputRecords(self.name, records, self.inputs.records)


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


def final_stage() -> str:
    """The name of the stage that writes ``results.json`` (the registered stage without a checkpoint)."""
    return next((s.name for s in registered_stages() if s.checkpoint is None), "the final stage")


def records_of(records: StageRecords, stage: str, cls: type | None = None) -> list[Any]:
    """The records of ``stage`` so far (only those of type ``cls`` when given); empty if it has not run. For a stage
    that declares no :attr:`Stage.inputs` (a plugin's), which receives every record by stage name; a stage that
    declares its inputs reads them by type (:meth:`InputRecords.of`)."""
    found = records.get(stage, [])
    return found if cls is None else [r for r in found if isinstance(r, cls)]


def upstream(stage: Stage, stages: Sequence[Stage]) -> tuple[str, ...]:
    """The stages before ``stage`` (in ``stages``, run order) producing a record type it declares in its inputs."""
    if stage.inputs is None or not stage.inputs.records:
        return ()
    wanted = set(stage.inputs.records)
    names = [s.name for s in stages]
    before = stages[: names.index(stage.name)] if stage.name in names else stages
    return tuple(s.name for s in before if wanted & set(s.produces))


def check_inputs(stages: Sequence[Stage]) -> None:
    """Every record type a stage declares is produced by a stage that runs before it.

    Raises:
        ConfigError: A stage reads a type that no earlier stage produces, naming both.
    """
    for i, stage in enumerate(stages):
        made = {t for s in stages[:i] for t in s.produces}
        for cls in stage.inputs.records if stage.inputs is not None else ():
            if cls not in made:
                raise ConfigError(
                    f"stage {stage.name!r} reads {cls.__name__} records, which no stage before it produces: "
                    f"declare it in the producing stage's produces=(...), or run {stage.name!r} after that stage"
                )


def stale_stages(parts: Iterable[str], stages: Sequence[Stage]) -> dict[str, list[str]]:
    """For each changed part, the stages whose records it makes stale, in run order: the stages that read it
    (:attr:`Stage.reads`; every stage for a part no stage declares) and every stage after one of those
    (:func:`upstream`, transitively)."""
    declared = [key for s in stages for key in (*(s.reads or ()), *s.selects)]
    after = {s.name: upstream(s, stages) for s in stages}
    out = {}
    for part in parts:
        undeclared = not any(covers(key, part) for key in declared)
        stale = {s.name for s in stages if s.reads is None or undeclared or any(covers(key, part) for key in s.reads)}
        for s in stages:  # run order: a stage's inputs come before it
            if any(name in stale for name in after[s.name]):
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
