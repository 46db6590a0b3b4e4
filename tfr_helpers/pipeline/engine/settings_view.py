"""A stage's view of the configuration: the keys it declared (``Inputs.settings`` and ``selects``), nothing else.

The runner hands a stage that declares its inputs this view as ``ctx.config`` while the stage builds its items and
runs them, and so do the shared steps and the run context's own helpers that read configuration on the stage's
behalf (the sandbox limits read ``sandbox`` and ``seed``; a model call renders a template). Reading a fingerprinted
top-level key the stage does not declare, or rendering a template it does not declare, raises
:class:`~tfr_helpers.pipeline.engine.stage.UndeclaredInput`: a read that a change of configuration would not make
stale cannot go unnoticed. Keys outside the fingerprint (``run_name``, ``concurrency``, ``budget_usd``) are open to
every stage. A method of the configuration reads what it declares (``experiment.reads``: ``code_samples_for`` reads
``models`` and ``code_samples_per_task``), and a method that declares nothing (``fingerprint``, ``model_dump``...)
reads every key: a stage calling one through its view must declare what the method reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.config.fingerprint import UNFINGERPRINTED
from tfr_helpers.pipeline.engine.stage import UndeclaredInput
from tfr_helpers.records.arm_registry import ArmSettings

TEMPLATE = "template:"
"""Prefix of a declared prompt template (``template:refine``)."""

FIELDS = frozenset(ExperimentConfig.model_fields)
"""The configuration's top-level keys."""


def method_reads(method: Any) -> tuple[str, ...]:
    """The top-level keys a method of the configuration reads: those it declares, else every key."""
    return tuple(getattr(method, "__reads__", FIELDS))


class SettingsView:
    """The configuration as one stage may read it (see the module docstring)."""

    __slots__ = ("_config", "_keys", "_stage", "_templates")

    def __init__(self, config: ExperimentConfig, stage: str, parts: Iterable[str]) -> None:
        """``parts``: the stage's declared settings and selects (dotted keys, ``template:<name>``)."""
        parts = tuple(parts)
        self._config = config
        self._stage = stage
        self._keys = frozenset(p.split(".")[0] for p in parts if not p.startswith(TEMPLATE)) | UNFINGERPRINTED
        self._templates = frozenset(p[len(TEMPLATE) :] for p in parts if p.startswith(TEMPLATE))

    def __getattr__(self, name: str) -> Any:
        if name in FIELDS and name not in self._keys:
            raise UndeclaredInput(
                f"stage {self._stage!r} read the configuration key {name!r}, which it does not declare: add it (or "
                f"the key under it that it reads, e.g. '{name}.<key>') to its Inputs(settings=...) so that a change "
                "of it makes the stage's records stale"
            )
        if name not in FIELDS and callable(method := getattr(type(self._config), name, None)):
            missing = [key for key in method_reads(method) if key not in self._keys]
            if missing:
                raise UndeclaredInput(
                    f"stage {self._stage!r} called the configuration's {name}(), which reads the key "
                    f"{missing[0]!r} that the stage does not declare: add it to its Inputs(settings=...) so that a "
                    "change of it makes the stage's records stale"
                )
        return getattr(self._config, name)

    def arm_settings(self, name: str) -> ArmSettings | None:
        """The settings of the arm ``name`` declared at the top level (``ArmDeclaration.settings``), once the stage
        declares every key of them.

        Raises:
            UndeclaredInput: The stage does not declare one of the arm's keys.
        """
        found = self._config.arm_settings(name)
        missing = [key for key in type(found).model_fields if key not in self._keys] if found is not None else []
        if missing:
            raise UndeclaredInput(
                f"stage {self._stage!r} read the configuration key {missing[0]!r} of arm {name!r}, which it does not "
                "declare: add it to its Inputs(settings=...) so that a change of it makes the stage's records stale"
            )
        return found

    def require_template(self, name: str) -> None:
        """Check that the stage declares the prompt template ``name`` it renders.

        Raises:
            UndeclaredInput: It does not (``template:<name>`` is not among its settings).
        """
        if name not in self._templates:
            raise UndeclaredInput(
                f"stage {self._stage!r} rendered the prompt template {name!r}, which it does not declare: add "
                f"'{TEMPLATE}{name}' to its Inputs(settings=...) so that a change of the template makes its records stale"
            )

    def __repr__(self) -> str:
        return f"SettingsView({self._stage!r}, keys={sorted(self._keys)}, templates={sorted(self._templates)})"
