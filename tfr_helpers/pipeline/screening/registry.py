"""Screening strategies (RQ3): a registry of functions that accept or reject test-fail feedback.

A strategy sees only what a practitioner would have before refinement: the task as models see it (a
:class:`~tfr_helpers.records.TaskView`: id, description, entry point, signature...), the generated code, the
generated test, and the feedback built from the generated code's outcome. It never sees the reference, the
benchmark tests, the refined code or any later outcome: the item's types have no field holding them.

Add a strategy by writing one function and registering it::

    @register_strategy("reject_long_feedback")
    def reject_long_feedback(items, ctx):
        return [Verdict("reject" if len(i.feedback.text) > 2000 else "accept") for i in items]

A verdict may also state a ``score`` (higher: more likely unreliable; AUROC ranks the feedback by it) and whether
the strategy ``abstained`` (found no evidence and decided by default); the analysis reads these fields, never the
``reasoning`` text.

A strategy outside the package needs no registration: name it in the ``screening`` list of a params file by
import path (``mypkg.screens:reject_long_feedback``), or declare it in the ``tfr.screening`` entry point group
(``reject_long = "mypkg.screens:reject_long_feedback"``) and name it ``reject_long``; an entry naming a module
registers the strategies that module registers on import. The package's own strategies are declared this way in
its ``pyproject.toml`` (the pipeline's built-ins, the consensus screeners, the learned screener).

A strategy may carry a ``prepare(items, ctx)`` attribute: the stage calls it once, before its first chunk, with all
the strategy's pending items (work shared by the chunks, e.g. the learned screener's sandbox runs, done in one
batch). Its verdicts must not depend on it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from tfr_helpers.errors import ConfigError
from tfr_helpers.models.jobs import CallResult
from tfr_helpers.plugins import import_object, load_entry_points_once
from tfr_helpers.records import Decision, Feedback, GeneratedTest, TaskView, TestOutcome, require_view

DECISIONS: tuple[str, ...] = get_args(Decision)
"""The decisions a verdict may give."""


@dataclass(frozen=True)
class ScreeningItem:
    """What a strategy may look at for one test-fail feedback."""

    feedback: Feedback
    task: TaskView
    """The task without its reference and benchmark tests."""
    coder: str
    """The coder model whose code failed the test."""
    judge: str
    """The model the LLM strategies ask."""
    code: str
    test: GeneratedTest
    outcome: TestOutcome
    """The generated code's outcome on the test (what the feedback was built from)."""

    def __post_init__(self) -> None:
        require_view(self.task, "ScreeningItem")


@dataclass(frozen=True)
class Verdict:
    """A strategy's answer on one item (``call`` set when a model was asked).

    ``score`` and ``abstained`` are what the analysis reads (AUROC ranks by the score; abstentions are counted);
    ``reasoning`` is for people and is never parsed."""

    decision: Decision
    reasoning: str | None = None
    call: CallResult | None = None
    score: float | None = None
    """How likely the feedback is unreliable, higher meaning more likely (any scale), or None (no score)."""
    abstained: bool = False
    """The strategy found no evidence and decided by default (e.g. accepted as ``accept_all`` would)."""

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise ConfigError(f"a screening verdict's decision is {self.decision!r}; use one of {', '.join(DECISIONS)}")
        if self.score is not None and (
            isinstance(self.score, bool) or not isinstance(self.score, numbers.Real) or not math.isfinite(self.score)
        ):
            raise ConfigError(
                f"a screening verdict's score is {self.score!r}; give a finite number (higher: more likely "
                "unreliable) or None"
            )
        if not isinstance(self.abstained, bool):
            raise ConfigError(f"a screening verdict's abstained is {self.abstained!r}; give True or False")
        if self.score is not None:  # numpy's floats and ints too, stored as a float
            object.__setattr__(self, "score", float(self.score))


Strategy = Callable[[Sequence[ScreeningItem], Any], list[Verdict]]
"""A strategy decides a batch of items at once (so LLM strategies can call concurrently); its second argument is
the stage's :class:`~tfr_helpers.pipeline.engine.context.RunContext` (this registry sits below it)."""

STRATEGIES: dict[str, Strategy] = {}
"""Registered strategies by name (strategies named by import path are added when first resolved)."""

ENTRY_POINT_GROUP = "tfr.screening"
"""Entry point group of strategies defined outside the package (name -> ``module:function``)."""


def register_strategy(name: str) -> Callable[[Strategy], Strategy]:
    """Register ``fn`` as screening strategy ``name`` (usable in the ``screening`` config key)."""

    def register(fn: Strategy) -> Strategy:
        STRATEGIES[name] = fn
        return fn

    return register


FAMILIES: dict[str, Callable[[str], Strategy]] = {}
"""Parametrised strategies: ``<prefix>@<arg>`` names are built by ``FAMILIES[prefix](arg)`` when first resolved."""


def register_strategy_family(prefix: str, factory: Callable[[str], Strategy]) -> None:
    """Make ``<prefix>@<arg>`` a strategy name (e.g. a threshold: ``consensus_dawid_skene@0.7``)."""
    FAMILIES[prefix] = factory


def resolve_strategy(name: str) -> Strategy:
    """The strategy called ``name``: a registered one, a ``tfr.screening`` entry point, or ``module:function``.

    Raises:
        ConfigError: Unknown name (the message lists the known ones and the import-path form), an import path
            that cannot be loaded, or an object that is not callable.
    """
    if name not in STRATEGIES:
        for ep_name, fn in load_entry_points_once(ENTRY_POINT_GROUP).items():
            if callable(fn):  # an entry naming a module (the built-ins' own) registers its strategies on loading
                STRATEGIES.setdefault(ep_name, fn)  # type: ignore[arg-type]
    if name in STRATEGIES:
        return STRATEGIES[name]
    prefix, _, arg = name.partition("@")
    if arg and prefix in FAMILIES:
        STRATEGIES[name] = FAMILIES[prefix](arg)
        return STRATEGIES[name]
    if ":" not in name:
        raise ConfigError(
            f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}, or an import path "
            "'package.module:function' of a strategy defined outside tfr"
        )
    fn = import_object(name, "screening strategy")
    if not callable(fn):
        raise ConfigError(f"screening strategy {name!r} is not a function (strategy(items, ctx) -> list[Verdict])")
    STRATEGIES[name] = fn  # type: ignore[assignment]
    return STRATEGIES[name]
