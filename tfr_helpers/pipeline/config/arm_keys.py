"""A configuration section some of whose keys the arms own: it validates its own keys and hands each registered
arm's keys to that arm's settings model (``ArmDeclaration.settings_model``), so that an arm's keys are declared in
its package alone while the params file keeps one section (``refinement: {oracle_repair: true, rounds: 3}``).

A key no model of the section claims is an error as anywhere else in the configuration; an arm's bad value is
reported under its key (``refinement.oracle_repair``); ``model_dump`` writes the section's keys, then each arm's,
so the configuration and the run's fingerprint hold every key as before.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from tfr_helpers.records.arm_registry import ArmSettings, arms_in_section


class ArmKeys(BaseModel):
    """A configuration section (:attr:`SECTION`) that holds the keys of the arms declared in it besides its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    SECTION: ClassVar[str]
    """The section's key (``refinement``; ``""``: the top level)."""

    _arm_settings: dict[str, ArmSettings] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _arm_keys(cls, value: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        if isinstance(value, cls):
            return value
        data = dict(value) if isinstance(value, dict) else value
        owned: dict[str, ArmSettings] = {}
        if isinstance(data, dict):
            for arm in arms_in_section(cls.SECTION):
                keys = {key: data.pop(key) for key in arm.settings_model.model_fields if key in data}
                owned[arm.name] = arm.settings_model.model_validate(keys)
        instance = handler(data)
        instance._arm_settings = owned
        return instance

    @model_serializer(mode="wrap")
    def _with_arm_keys(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for settings in self._arm_settings.values():
                data.update(settings.model_dump(mode=info.mode))
        return data

    def arm_settings(self, name: str) -> ArmSettings | None:
        """The settings of the arm ``name`` (None when the arm was registered after this section was validated)."""
        return self._arm_settings.get(name)
