"""Arm registry: each arm of the study is declared once, as one :class:`Arm` (whether a configuration turns it on,
its stages, its part of ``Results``, its call accounting), and its consumers iterate over the registered arms instead
of naming them; whoever asks whether an arm is on asks its declaration (:func:`enabled_arms`).

The study's arms are listed in :data:`tfr_helpers.pipeline.study.ARMS`, which registers them; an arm's stages run in
its place of that list. ``finalize_results``, the view of a run in progress, the call totals and the cost estimate read
them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords, Stage, StageRecords
from tfr_helpers.records import ModelCallRecord
from tfr_helpers.records.arm_registry import ArmDeclaration

CallsOf = Callable[[Any], Iterable[tuple[str, ModelCallRecord]]]
"""``calls(part) -> (key, call)`` pairs: every model call the arm's part of ``Results`` holds, each under a key that
names one response once (a response stored twice is counted once)."""


def no_calls(part: Any) -> Iterable[tuple[str, ModelCallRecord]]:
    """The call accounting of an arm that calls no model."""
    return ()


def no_feedback_stages(config: ExperimentConfig) -> tuple[Stage, ...]:
    """An arm none of whose model stages runs once per test-fail feedback of the base study."""
    return ()


@dataclass(frozen=True)
class Arm:
    """One arm of the study.

    Attributes:
        name: The arm's name.
        enabled: ``enabled(config)``: whether the configuration turns the arm on (its keys, read by it alone).
        stages: Its stages, in the order they run.
        field: The field of :class:`~tfr_helpers.records.Results` its part fills.
        results: ``results(config, records) -> part`` (``records.of(RoundChain)``: the run's records by type,
            :class:`~tfr_helpers.pipeline.engine.stage.InputRecords`), asked only when the arm is on (an arm off has
            None).
        calls: Its call accounting (:data:`CallsOf`).
        feedback_stages: ``feedback_stages(config)``: those of its stages that ``config`` turns on and that ask a
            model once per test-fail feedback of the base study (an outcome: the cost estimate projects their calls
            from the expected feedback before any code has run).
        beyond_one: Whether the arm, when on, goes beyond one refinement per feedback: a run with it on is its own
            "beyond one refinement" section study (:func:`tfr_helpers.pipeline.section.goes_beyond_one`).
        switch: How a configuration turns the arm on (e.g. ``refinement.rounds > 1``), for messages naming the fix.
        summarize: ``summarize(config)``: what the arm does under a configuration that turns it on, in a few words,
            for one-line summaries of a configuration (None: the arm's name).
    """

    name: str
    enabled: Callable[[ExperimentConfig], bool]
    stages: tuple[Stage, ...]
    field: str
    results: Callable[[ExperimentConfig, InputRecords], Any]
    calls: CallsOf = no_calls
    feedback_stages: Callable[[ExperimentConfig], tuple[Stage, ...]] = no_feedback_stages
    beyond_one: bool = False
    switch: str = ""
    summarize: Callable[[ExperimentConfig], str] | None = None

    def summary(self, config: ExperimentConfig) -> str:
        """What the arm does under ``config`` (:attr:`summarize`), in a few words."""
        return self.summarize(config) if self.summarize is not None else self.name


def from_declaration(declaration: ArmDeclaration[Any, Any]) -> Arm:
    """The pipeline's side of an arm package's declaration: its stages module (``STAGES``, ``results(config,
    records)``, optional ``calls(part)`` and ``feedback_stages(config)``) with the declaration's switch."""
    module = declaration.load("stages")
    return Arm(
        declaration.name,
        enabled=declaration.enabled,
        stages=tuple(module.STAGES),
        field=declaration.field,
        results=module.results,
        calls=getattr(module, "calls", no_calls),
        feedback_stages=getattr(module, "feedback_stages", no_feedback_stages),
        beyond_one=declaration.beyond_one,
        switch=declaration.switch,
        summarize=declaration.summary,
    )


_REGISTRY: dict[str, Arm] = {}


def register_arm(arm: Arm) -> Arm:
    """Register (or replace) an arm; returns it."""
    _REGISTRY[arm.name] = arm
    return arm


def registered_arms() -> list[Arm]:
    """Every registered arm, in the order registered."""
    return list(_REGISTRY.values())


def enabled_arms(config: ExperimentConfig) -> list[Arm]:
    """The registered arms ``config`` turns on, in the order registered."""
    return [arm for arm in registered_arms() if arm.enabled(config)]


def arm_parts(config: ExperimentConfig, records: StageRecords) -> dict[str, Any]:
    """Each registered arm's part of ``Results`` by field (None when the arm is off), from the records by stage:
    for ``finalize_results`` and for the view of a run in progress."""
    return {
        arm.field: arm.results(config, InputRecords(f"arm {arm.name}", records, None)) if arm.enabled(config) else None
        for arm in registered_arms()
    }


def arm_calls(parts: dict[str, Any]) -> Iterable[tuple[str, ModelCallRecord]]:
    """Every model call the arms' parts hold, keyed (:data:`CallsOf`)."""
    for arm in registered_arms():
        if parts.get(arm.field) is not None:
            yield from arm.calls(parts[arm.field])
