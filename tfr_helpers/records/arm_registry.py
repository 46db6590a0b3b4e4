"""The arms' registry: the one list of the study's arm packages, and the declaration each of them exports.

An arm is one package, ``tfr_helpers/arms/<arm>/``: its settings (the configuration keys it owns), its records (its
part of ``results.json``), its stages, its report and its view. Its ``__init__`` exports one :class:`ArmDeclaration`
as ``ARM``, which says all of it; the declaration module imports pydantic and records only, and names its heavier
parts (stages, report, view) by dotted module path, imported on first use (:meth:`ArmDeclaration.load`).

:data:`ARM_PACKAGES` lists the study's arm packages; nothing else names them. Every layer that needs the arms (the
configuration's sections, ``Results``, the study's stage list, the analysis, the views, the cost estimate) asks
:func:`arms` or :func:`enabled_arms`. A test or a plugin adds an arm with :func:`register_arm`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from tfr_helpers.records.core import Record

ARM_PACKAGES: tuple[str, ...] = (
    "tfr_helpers.arms.rounds",
    "tfr_helpers.arms.oracle",
    "tfr_helpers.arms.controls",
    "tfr_helpers.arms.trajectories",
)
"""The study's arm packages, in the order their stages run (after the base study's) and their reports appear. Each
exports ``ARM``, an :class:`ArmDeclaration`."""


class ArmSettings(BaseModel):
    """The configuration keys an arm owns, as one section of the configuration validates them: unknown keys are
    errors and the record never changes once validated (like every configuration section)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    LEFT_OUT_WHEN_DEFAULT: ClassVar[frozenset[str]] = frozenset()
    """Keys left out of the run's fingerprint while they hold their default, so that a run made before the key
    existed keeps its fingerprint (and its configuration hash)."""

    def input_hashes(self) -> dict[str, str]:
        """Parts of the run's fingerprint beyond the keys' values, ``{part: hash}``: the files the settings name
        (a part under one of the keys, ``<key>.<name>``, makes stale the stages that declare the key). None here."""
        return {}


PartT = TypeVar("PartT", bound=Record)
SettingsT = TypeVar("SettingsT", bound=ArmSettings)


@dataclass(frozen=True)
class ArmDeclaration(Generic[PartT, SettingsT]):
    """One arm of the study, declared once, in its package's ``__init__``.

    Attributes:
        name: The arm's name (its package's name; the key of its part in ``Results.arm_parts``).
        field: The top-level key of ``results.json`` that holds its part, and its section of ``summary.json``.
        part: Its part of ``Results``: a record type.
        settings_model: The configuration keys it owns (an :class:`ArmSettings`), validated by :attr:`section`.
        is_on: ``is_on(settings) -> bool``: whether its settings turn the arm on.
        section: The configuration section its keys sit in (``refinement``; ``""``: the top level).
        stages: Dotted path of the module holding its stages (``STAGES``) and how it builds its part
            (``results(config, records)``, optional ``calls(part)`` and ``feedback_stages(config)``).
        report: Dotted path of its report module (an ``ArmReport`` of ``tfr_helpers.analysis.arms``), or None.
        view: Dotted path of its view module (``show(results)``, the notebook section), or None.
        prompts: Dotted path of the package holding its own prompt templates (``<name>.txt`` files beside it,
            listed in its ``TEMPLATES``), which the prompt renderer loads, or None.
        examples: Dotted path of a module giving labelled screening examples from a run directory for the learned
            screener (``examples(run_dir, execute)``, ``data_hashes(config)``), or None.
        beyond_one: Whether, when on, it goes beyond one refinement per feedback (a "beyond one refinement" study).
        switch: How a configuration turns it on (``refinement.oracle_repair: true``), for messages naming the fix.
        summarize: ``summarize(settings)``: what it does when on, in a few words (None: its name).
    """

    name: str
    field: str
    part: type[PartT]
    settings_model: type[SettingsT]
    is_on: Callable[[SettingsT], bool]
    section: str = "refinement"
    stages: str | None = None
    report: str | None = None
    view: str | None = None
    prompts: str | None = None
    examples: str | None = None
    beyond_one: bool = False
    switch: str = ""
    summarize: Callable[[SettingsT], str] | None = None

    def settings(self, config: Any) -> SettingsT:
        """The arm's settings in ``config`` (an ``ExperimentConfig`` or a stage's view of it).

        An arm registered after ``config`` was validated gets its defaults (``config`` cannot have set its keys: an
        unknown key is an error).
        """
        section = getattr(config, self.section) if self.section else config
        found = section.arm_settings(self.name)
        return found if isinstance(found, self.settings_model) else self.settings_model()

    def enabled(self, config: Any) -> bool:
        """Whether ``config`` turns the arm on."""
        return self.is_on(self.settings(config))

    def summary(self, config: Any) -> str:
        """What the arm does under ``config``, in a few words."""
        return self.summarize(self.settings(config)) if self.summarize is not None else self.name

    def load(self, part: str) -> ModuleType:
        """The arm's ``stages``, ``report``, ``view`` or ``prompts`` module, imported on first use.

        Raises:
            LookupError: The arm declares no such part.
        """
        path = getattr(self, part)
        if not isinstance(path, str):
            raise LookupError(f"arm {self.name!r} declares no {part} module")
        return importlib.import_module(path)


_LOADED: list[ArmDeclaration[Any, Any]] = []
_REGISTERED: dict[str, ArmDeclaration[Any, Any]] = {}


def _packages() -> list[ArmDeclaration[Any, Any]]:
    if not _LOADED:
        found = [importlib.import_module(package).ARM for package in ARM_PACKAGES]
        for package, declaration in zip(ARM_PACKAGES, found, strict=True):
            if not isinstance(declaration, ArmDeclaration):
                raise TypeError(f"{package}.ARM is not an ArmDeclaration")
        if not _LOADED:  # importing the arms loads the study, which may have asked (and filled this) already
            _LOADED.extend(found)
    return _LOADED


def register_arm(declaration: ArmDeclaration[Any, Any]) -> ArmDeclaration[Any, Any]:
    """Add (or replace) an arm beside the study's packages (a plugin's or a test's); returns it. Register it before
    loading the configuration that sets its keys."""
    _REGISTERED[declaration.name] = declaration
    return declaration


def unregister_arm(name: str) -> None:
    """Remove an arm added by :func:`register_arm` (a test's cleanup)."""
    _REGISTERED.pop(name, None)


def arms() -> list[ArmDeclaration[Any, Any]]:
    """Every arm: the study's packages in :data:`ARM_PACKAGES` order, then the registered ones."""
    study = [arm for arm in _packages() if arm.name not in _REGISTERED]
    return [*study, *_REGISTERED.values()]


def arm(name: str) -> ArmDeclaration[Any, Any]:
    """The arm named ``name``.

    Raises:
        KeyError: No arm has that name.
    """
    for found in arms():
        if found.name == name:
            return found
    raise KeyError(f"no arm {name!r}; the arms are {', '.join(a.name for a in arms())}")


def enabled_arms(config: Any) -> list[ArmDeclaration[Any, Any]]:
    """The arms ``config`` turns on, in :func:`arms` order."""
    return [found for found in arms() if found.enabled(config)]


def arms_in_section(section: str) -> list[ArmDeclaration[Any, Any]]:
    """The arms whose keys sit in the configuration section ``section`` (``""``: the top level)."""
    return [found for found in arms() if found.section == section]


def arm_of_field(field: str) -> ArmDeclaration[Any, Any] | None:
    """The arm whose part ``results.json`` holds under ``field``, if any."""
    return next((found for found in arms() if found.field == field), None)
