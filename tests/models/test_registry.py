"""The provider registry: valid spec names, simulated-or-not, and a provider added by one registration."""

from __future__ import annotations

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.models import PROVIDERS, ModelSettings, ModelSpec, is_simulated, known_providers, make_provider
from tfr_helpers.models.registry import _REGISTRY, register_provider
from tfr_helpers.models.sim import SimProvider


def test_builtin_providers_are_derived_from_the_registry() -> None:
    assert PROVIDERS == ("openai", "anthropic", "openai-compatible", "sim")
    assert known_providers()[: len(PROVIDERS)] == list(PROVIDERS)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("sim:default", True), ("sim", True), ("openai:gpt-5-mini", False), ("anthropic:x", False), ("nope:x", False)],
)
def test_is_simulated_asks_the_provider_entry(spec: str, expected: bool) -> None:
    assert is_simulated(spec) is expected
    if ":" in spec and spec.partition(":")[0] in PROVIDERS:
        assert is_simulated(ModelSpec.parse(spec)) is expected


def test_a_registered_provider_is_a_valid_spec_and_can_declare_itself_simulated() -> None:
    try:
        register_provider("replay", lambda settings: SimProvider(), simulated=True)
        assert ModelSpec.parse("replay:dataset-v1").provider == "replay"
        assert is_simulated("replay:dataset-v1")
        assert isinstance(make_provider("replay", ModelSettings()), SimProvider)
    finally:
        _REGISTRY.pop("replay", None)
    with pytest.raises(ConfigError, match="provider one of openai, anthropic, openai-compatible, sim$"):
        ModelSpec.parse("replay:dataset-v1")


def test_provider_names_cannot_hold_a_colon() -> None:
    with pytest.raises(ConfigError, match="no ':'"):
        register_provider("a:b", lambda settings: SimProvider())
