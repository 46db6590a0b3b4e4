"""The provider registry: valid spec names, simulated-or-not, and a provider added by one registration."""

from __future__ import annotations

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.models import PROVIDERS, ModelSettings, ModelSpec, is_simulated, known_providers, make_provider
from tfr_helpers.models.provider_table import _REGISTRY, register_provider
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
        register_provider("synthetic", lambda settings: SimProvider(), simulated=True)
        assert ModelSpec.parse("synthetic:dataset-v1").provider == "synthetic"
        assert is_simulated("synthetic:dataset-v1")
        assert isinstance(make_provider("synthetic", ModelSettings()), SimProvider)
    finally:
        _REGISTRY.pop("synthetic", None)
    with pytest.raises(ConfigError, match="provider one of openai, anthropic, openai-compatible, sim"):
        ModelSpec.parse("synthetic:dataset-v1")


def test_provider_names_cannot_hold_a_colon() -> None:
    with pytest.raises(ConfigError, match="no ':'"):
        register_provider("a:b", lambda settings: SimProvider())


def test_a_registered_providers_credentials_come_from_its_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfr_helpers.errors import CredentialsError
    from tfr_helpers.models.credentials import check_credentials, resolve_credentials, secret_values

    monkeypatch.delenv("ACME_API_KEY", raising=False)
    try:
        register_provider("acme", lambda settings: SimProvider(), key_env="ACME_API_KEY", base_url_env="ACME_URL")
        with pytest.raises(CredentialsError, match="ACME_API_KEY is not set \\(needed by acme:m1\\)"):
            check_credentials(["acme:m1"])
        monkeypatch.setenv("ACME_API_KEY", "sk-acme-123456")
        monkeypatch.setenv("ACME_URL", "http://127.0.0.1:9/v1")
        creds = resolve_credentials("acme", ModelSettings())
        assert (creds.api_key, creds.base_url) == ("sk-acme-123456", "http://127.0.0.1:9/v1")
        assert "sk-acme-123456" in secret_values()
    finally:
        _REGISTRY.pop("acme", None)


def test_openai_compatible_needs_a_base_url_not_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfr_helpers.errors import CredentialsError
    from tfr_helpers.models.credentials import check_credentials, resolve_credentials

    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
    with pytest.raises(CredentialsError, match="OPENAI_COMPATIBLE_BASE_URL \\(or models.base_urls"):
        check_credentials(["openai-compatible:m"])
    creds = resolve_credentials("openai-compatible", ModelSettings(base_urls={"openai-compatible": "http://x/v1"}))
    assert (creds.api_key, creds.base_url) == ("EMPTY", "http://x/v1")
