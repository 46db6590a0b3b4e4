"""Screening strategies (RQ3): a registry of screeners, each one object that accepts or rejects test-fail feedback.

A screener sees only what a practitioner would have before refinement: the task as models see it (a
:class:`~tfr_helpers.records.TaskView`: id, description, entry point, signature...), the generated code, the
generated test, and the feedback built from the generated code's outcome. It never sees the reference, the
benchmark tests, the refined code or any later outcome: the item's types have no field holding them.

A :class:`Screener` is its decide function and what it declares about itself: whether it calls a model (the
judge), what it needs (several code samples of the coder, the sandbox, a trained artefact), and whether its
verdicts carry a score and may abstain. The stage, the run's scope, the trajectory arm and the cost estimate ask
these declarations; none keeps a list of names. Add one by decorating its decide function::

    @register_strategy("reject_long_feedback", scores=True)
    def reject_long_feedback(items, ctx):
        return [Verdict("reject" if len(i.feedback.text) > 2000 else "accept", score=len(i.feedback.text)) for i in items]

A verdict may state a ``score`` (higher: more likely unreliable; AUROC ranks the feedback by it) and whether the
strategy ``abstained`` (found no evidence and decided by default); the analysis reads these fields, never the
``reasoning`` text.

A strategy outside the package needs no registration: name it in the ``screening`` list of a params file by
import path (``mypkg.screens:reject_long_feedback``), or declare it in the ``tfr.screening`` entry point group
(``reject_long = "mypkg.screens:reject_long_feedback"``) and name it ``reject_long``; an entry naming a module
registers the screeners that module registers on import. The path may name a :class:`Screener` (what
:func:`register_strategy` returns) or a bare function, which is taken as a screener that calls no model, needs one
code sample and declares nothing about scores and abstentions. The package's own screeners are declared this way
in its ``pyproject.toml`` (the pipeline's built-ins, the consensus screeners, the learned screener).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

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
    """The model a screener that calls a model asks."""
    code: str
    test: GeneratedTest
    outcome: TestOutcome
    """The generated code's outcome on the test (what the feedback was built from)."""
    code_samples: int
    """The coder's code samples for the task (what a screener comparing samples has; a trajectory step: 1)."""

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
"""A decide function: a batch of items at once (so a screener that calls a model can call concurrently); its second
argument is the stage's :class:`~tfr_helpers.pipeline.engine.context.RunContext` (this registry sits below it)."""

Prepare = Callable[[Sequence[ScreeningItem], Any], None]
"""``prepare(items, ctx)``: work shared by the stage's chunks, given all the screener's pending items at once."""


def too_few_samples(samples: int) -> str:
    """The reason of a screener comparing ``samples`` code samples on a coder with fewer."""
    count = {2: "two", 3: "three", 4: "four"}.get(samples, str(samples))
    return f"fewer than {count} programs: no consensus, accepted as accept_all would"


ModelRole = Literal["judge"]
"""The model role a screener may call: the item's judge."""


@dataclass(frozen=True)
class Screener:
    """One screening strategy: its decide function and what it declares about itself.

    Call it as ``screener(items, ctx)`` (:meth:`screen`): the declarations are applied there, around ``decide``.
    """

    name: str
    """The name the ``screening`` list of a params file uses."""
    decide: Strategy
    """``decide(items, ctx) -> list[Verdict]``, one verdict per item, in order."""
    calls: ModelRole | None = None
    """The model it asks (``judge``: the item's judge, through ``ctx.call_models``), or None: it decides from the
    records alone. One that calls a model screens only coders whose judge can answer (not a replay dataset:
    ``not run: no judge``), never a replayed trajectory step, and the cost estimate counts its calls."""
    samples: int = 1
    """Code samples of the same coder for the task it compares (the consensus screeners: 2). An item whose coder
    has fewer (:attr:`ScreeningItem.code_samples`) is accepted as ``accept_all`` would, abstained, with the reason,
    and never given to ``decide``."""
    sandbox: bool = False
    """It runs programs in the run's sandbox (``ctx.run_programs``; the cost estimate runs none)."""
    artefact: Path | None = None
    """The trained artefact it reads (the learned screener's model), checked to exist when a params file names it."""
    scores: bool | None = False
    """Its verdicts state a score (the analysis ranks by it: AUROC, the paired AUROC rows): every verdict that decides
    without abstaining carries one. False: none does. None (a bare function): not declared, not checked."""
    abstains: bool | None = False
    """It may abstain (find no evidence and decide by default). False: no verdict abstains. None: not declared."""
    prepare: Prepare | None = None
    """Called by the ``screen_feedback`` stage once, before its first chunk, with all the screener's pending items
    (work shared by the chunks, e.g. the learned screener's sandbox runs, started in one batch); its verdicts must
    not depend on it."""

    def __post_init__(self) -> None:
        if not callable(self.decide):
            raise ConfigError(f"screener {self.name!r}: decide is not a function (decide(items, ctx) -> list[Verdict])")
        if self.calls not in (None, *get_args(ModelRole)):
            raise ConfigError(f"screener {self.name!r} calls {self.calls!r}; give one of: judge, None")
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or self.samples < 1:
            raise ConfigError(f"screener {self.name!r} needs {self.samples!r} code samples; give a whole number >= 1")
        if self.samples > 1 and self.abstains is False:
            raise ConfigError(
                f"screener {self.name!r} compares {self.samples} code samples, so it abstains on a coder with fewer: "
                "declare abstains=True"
            )

    @property
    def calls_model(self) -> bool:
        """Whether it asks a model (:attr:`calls` is set)."""
        return self.calls is not None

    def __call__(self, items: Sequence[ScreeningItem], ctx: Any) -> list[Verdict]:
        """:meth:`screen`."""
        return self.screen(items, ctx)

    def screen(self, items: Sequence[ScreeningItem], ctx: Any) -> list[Verdict]:
        """The verdicts on ``items``: :attr:`decide`'s on those with enough code samples, the others accepted and
        abstained (:attr:`samples`).

        Raises:
            ConfigError: ``decide`` returned another number of verdicts than items, or a verdict its declarations
                rule out (a score from a screener that declares none, an abstention from one that never abstains).
        """
        enough = [item.code_samples >= self.samples for item in items]
        asked = [item for item, ok in zip(items, enough, strict=True) if ok]
        verdicts = self.decide(asked, ctx) if asked else []
        if len(verdicts) != len(asked):
            raise ConfigError(f"screener {self.name!r} gave {len(verdicts)} verdicts on {len(asked)} items; give one each")
        decided = iter([self._checked(v) for v in verdicts])
        too_few = Verdict("accept", too_few_samples(self.samples), abstained=True)
        return [next(decided) if ok else too_few for ok in enough]

    def _checked(self, verdict: Verdict) -> Verdict:
        if not isinstance(verdict, Verdict):
            raise ConfigError(f"screener {self.name!r} returned {type(verdict).__name__}; return Verdict objects")
        if self.scores is False and verdict.score is not None:
            raise ConfigError(f"screener {self.name!r} declares no score but a verdict has one: declare scores=True")
        if self.scores and verdict.score is None and not verdict.abstained and verdict.decision != "undecided":
            raise ConfigError(
                f"screener {self.name!r} declares scores but a verdict that does not abstain has none: give every "
                "such verdict a score, or declare scores=False"
            )
        if self.abstains is False and verdict.abstained:
            raise ConfigError(f"screener {self.name!r} declares it never abstains but a verdict did: declare abstains=True")
        return verdict


STRATEGIES: dict[str, Screener] = {}
"""Registered screeners by name (those named by import path, entry point or family are added when first resolved)."""

ENTRY_POINT_GROUP = "tfr.screening"
"""Entry point group of screeners defined outside the package (name -> ``module:screener`` or ``module:function``)."""


def register_screener(screener: Screener) -> Screener:
    """Register (or replace) ``screener`` under its name; returns it."""
    STRATEGIES[screener.name] = screener
    return screener


def register_strategy(
    name: str,
    *,
    calls: ModelRole | None = None,
    samples: int = 1,
    sandbox: bool = False,
    artefact: Path | None = None,
    scores: bool = False,
    abstains: bool = False,
    prepare: Prepare | None = None,
) -> Callable[[Strategy], Screener]:
    """Decorator: register ``decide`` as the screener ``name`` with these declarations (see :class:`Screener`); the
    decorated name becomes the :class:`Screener`."""

    def register(decide: Strategy) -> Screener:
        return register_screener(
            Screener(name, decide, calls, samples, sandbox, artefact, scores, abstains, prepare)  # type: ignore[arg-type]
        )

    return register


FAMILIES: dict[str, Callable[[str], Screener]] = {}
"""Parametrised screeners: ``<prefix>@<arg>`` names are built by ``FAMILIES[prefix](arg)`` when first resolved."""


def register_strategy_family(prefix: str, factory: Callable[[str], Screener]) -> None:
    """Make ``<prefix>@<arg>`` a screener name (e.g. a threshold: ``consensus_dawid_skene@0.7``)."""
    FAMILIES[prefix] = factory


def _as_screener(name: str, obj: object, where: str) -> Screener:
    """``obj`` (a :class:`Screener`, or a bare decide function: declared as calling no model) named ``name``."""
    if isinstance(obj, Screener):
        return obj if obj.name == name else dataclasses.replace(obj, name=name)
    if not callable(obj):
        raise ConfigError(
            f"screening strategy {where!r} is not a function (decide(items, ctx) -> list[Verdict]) or a Screener"
        )
    return Screener(name, obj, scores=None, abstains=None)  # type: ignore[arg-type]


def _load_plugins() -> None:
    """Register the ``tfr.screening`` entry points not registered yet (an entry naming a module registers its own
    screeners on loading)."""
    for ep_name, obj in load_entry_points_once(ENTRY_POINT_GROUP).items():
        if callable(obj) and ep_name not in STRATEGIES:
            STRATEGIES[ep_name] = _as_screener(ep_name, obj, ep_name)


def registered_screeners() -> list[Screener]:
    """Every screener registered or declared as an entry point (built-ins and plugins), by name."""
    _load_plugins()
    return [STRATEGIES[name] for name in sorted(STRATEGIES)]


def describe(screener: Screener) -> str:
    """What ``screener`` declares, in words (``tfr screen list``)."""
    facts = [f"calls the {screener.calls}" if screener.calls else "calls no model"]
    facts += [f"needs {screener.samples} code samples"] if screener.samples > 1 else []
    facts += ["runs programs in the sandbox"] if screener.sandbox else []
    facts += [f"reads {screener.artefact.name}"] if screener.artefact is not None else []
    facts += [{True: "scores", False: "no score", None: "score undeclared"}[screener.scores]]
    facts += [{True: "may abstain", False: "never abstains", None: "abstention undeclared"}[screener.abstains]]
    return ", ".join(facts)


def resolve_strategy(name: str) -> Screener:
    """The screener called ``name``: a registered one, a ``tfr.screening`` entry point, a family member
    (``prefix@arg``) or ``module:attribute``.

    Raises:
        ConfigError: Unknown name (the message lists the known ones and the import-path form), an import path
            that cannot be loaded, an object that is neither a screener nor a function, or an artefact a
            screener declares that does not exist.
    """
    if name not in STRATEGIES:
        _load_plugins()
    if name not in STRATEGIES:
        prefix, _, arg = name.partition("@")
        if arg and prefix in FAMILIES:
            STRATEGIES[name] = _as_screener(name, FAMILIES[prefix](arg), name)
        elif ":" in name:
            STRATEGIES[name] = _as_screener(name, import_object(name, "screening strategy"), name)
        else:
            raise ConfigError(
                f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}, or an import path "
                "'package.module:function' of a strategy defined outside tfr"
            )
    found = STRATEGIES[name]
    if found.artefact is not None and not found.artefact.is_file():
        raise ConfigError(
            f"screener {name!r} reads the artefact {found.artefact}, which does not exist; rebuild it with "
            "`tfr screen train --run-dir <run> --out <file>`"
        )
    return found
