"""Fixtures of the model-layer tests: fake credentials, the fake API server, settings with tiny backoffs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.models import credentials
from tfr_helpers.models.settings import ModelSettings, Price, RetryPolicy

FAKE_KEY = "sk-FAKE-KEY-do-not-log-0123456789"
"""The fake API key; no file under the run directory or cache may contain it."""


@pytest.fixture(autouse=True)
def fake_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake keys for every provider, no base URLs from the environment, no .env loading."""
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(var, FAKE_KEY)
    for var in (
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "OPENAI_COMPATIBLE_BASE_URL",
        "ANTHROPIC_AUTH_TOKEN",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(credentials, "_dotenv_loaded", True)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    """A running fake server."""
    with FakeLLMServer() as srv:
        yield srv


def make_settings(server: FakeLLMServer, tmp_path: Path, **retry: float) -> ModelSettings:
    """Settings pointing every real provider at the fake server, with tiny backoffs."""
    policy = {
        "max_attempts": 3,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
        "jitter": 0.5,
        "retry_after_max_s": 2.0,
        "deadline_s": 10.0,
        "read_timeout_s": 5.0,
        "connect_timeout_s": 2.0,
        **retry,
    }
    return ModelSettings(
        base_urls={
            "openai": server.base_url + "/v1",
            "openai-compatible": server.base_url + "/v1",
            "anthropic": server.base_url,
        },
        retry=RetryPolicy(**policy),  # type: ignore[arg-type]
        cache_dir=tmp_path / "cache",
        prices={
            f"{p}:m1": Price(input_per_mtok=1.0, output_per_mtok=2.0) for p in ("openai", "anthropic", "openai-compatible")
        },
        sampling={"temperature": 0.7, "max_tokens": 256, "seed": 3},  # type: ignore[arg-type]
    )
