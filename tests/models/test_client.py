"""ModelClient without network: registry, credentials, sync facade inside a running loop, accounting."""

from __future__ import annotations

import asyncio
import json

import pytest

from tfr_helpers.errors import ConfigError, CredentialsError
from tfr_helpers.models import (
    ModelClient,
    ModelError,
    ModelRequest,
    ModelSettings,
    ModelSpec,
    Price,
    Provider,
    ProviderReply,
    RateLimited,
    check_credentials,
    make_provider,
    make_request,
    register_provider,
)
from tfr_helpers.models.provider_table import _REGISTRY


class EchoProvider(Provider):
    """Answers with the last message; fails with the errors queued in ``fail``."""

    api_flavour = "echo"
    base_url = "local://echo"

    def __init__(self, settings: ModelSettings) -> None:
        self.calls = 0
        self.fail: list[ModelError] = []

    async def generate(self, spec, request, params):
        self.calls += 1
        await asyncio.sleep(0)
        if self.fail:
            raise self.fail.pop(0)
        return ProviderReply(text=f"echo:{request.messages[-1].content}", input_tokens=1000, output_tokens=500)


@pytest.fixture
def echo():
    made: list[EchoProvider] = []

    def factory(settings):
        made.append(EchoProvider(settings))
        return made[-1]

    register_provider("echo", factory)
    yield made
    _REGISTRY.pop("echo", None)


def _req(i=0, role="coder"):
    return make_request("judge", role=role, sample_index=i, description="d", code=f"c{i}", feedback="f")


def _settings(tmp_path, **kw):
    return ModelSettings(
        cache_dir=tmp_path / "cache",
        prices={"echo:m": Price(input_per_mtok=2.0, output_per_mtok=10.0)},
        retry={"backoff_base_s": 0.001, "backoff_max_s": 0.002},  # type: ignore[arg-type]
        **kw,
    )


def test_unknown_provider_lists_the_known_ones(tmp_path):
    with pytest.raises(ConfigError, match="known providers: .*anthropic.*openai.*sim"):
        make_provider("nope", ModelSettings())


def test_missing_keys_are_one_error_naming_every_variable(monkeypatch):
    from tfr_helpers.models import credentials

    monkeypatch.setattr(credentials, "_dotenv_loaded", True)
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(CredentialsError) as info:
        check_credentials(["openai:a", "anthropic:b", "openai-compatible:c", "sim:default"])
    msg = str(info.value)
    assert "OPENAI_API_KEY" in msg and "ANTHROPIC_API_KEY" in msg and "OPENAI_COMPATIBLE_BASE_URL" in msg
    check_credentials(["sim:default"])  # the simulated model needs nothing
    check_credentials(["openai-compatible:c"], ModelSettings(base_urls={"openai-compatible": "http://h/v1"}))


def test_credentials_come_from_dotenv(monkeypatch, tmp_path):
    from tfr_helpers.models import credentials

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(credentials, "_dotenv_loaded", False)
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv-123\n")
    monkeypatch.chdir(tmp_path)
    check_credentials(["openai:a"])
    assert credentials.resolve_credentials("openai", ModelSettings()).api_key == "sk-from-dotenv-123"
    assert "sk-from" not in repr(credentials.resolve_credentials("openai", ModelSettings()))
    monkeypatch.delenv("OPENAI_API_KEY")


def test_sync_call_works_inside_a_running_event_loop(echo, tmp_path):
    client = ModelClient(_settings(tmp_path), run_dir=tmp_path / "run")

    async def notebook_cell():  # like a Jupyter kernel: a loop is already running here
        return client.call(ModelSpec("echo", "m"), _req(), stage="judge_stage")

    reply = asyncio.run(notebook_cell())
    client.close()
    assert reply.text.startswith("echo:") and reply.record.error is None
    assert reply.record.usage.cost_usd == pytest.approx((1000 * 2.0 + 500 * 10.0) / 1e6)


def test_acall_works_on_the_callers_loop_too(echo, tmp_path):
    async def main():
        client = ModelClient(_settings(tmp_path))
        reply = await client.acall(ModelSpec("echo", "m"), _req(), stage="s")
        await client.aclose()
        return reply

    assert asyncio.run(main()).text.startswith("echo:")


def test_call_many_preserves_order_and_totals_group_by_model_role_stage(echo, tmp_path):
    with ModelClient(_settings(tmp_path), run_dir=tmp_path / "run") as client:
        items = [(ModelSpec("echo", "m"), _req(i)) for i in range(5)]
        replies = client.call_many(items, stage="a", progress=False)
        assert [r.text for r in replies] == [f"echo:{m.messages[-1].content}" for _, m in items]
        client.call_many(items[:2], stage="a", progress=False)  # cached
        echo[0].fail = [RateLimited("slow down")] * 5
        client.call("echo:m", _req(9, role="judge"), stage="b")
        totals = {(t.stage, t.role): t for t in client.call_totals()}
    a, b = totals[("a", "coder")], totals[("b", "judge")]
    # the two cache hits keep the original calls' usage (1000 input tokens each)
    assert (a.calls, a.cached, a.errors, a.input_tokens) == (7, 2, 0, 7000)
    assert (b.calls, b.errors, b.input_tokens, b.cost_usd) == (1, 1, 0, 0.0)
    lines = (tmp_path / "run" / "calls" / "a.jsonl").read_text().splitlines()
    assert len(lines) == 7 and sum(json.loads(x)["cached"] for x in lines) == 2


def test_cache_modes(echo, tmp_path):
    spec = ModelSpec("echo", "m")
    for mode, expect_cached in (("use", False), ("use", True), ("refresh", False), ("off", False)):
        with ModelClient(_settings(tmp_path, cache_mode=mode)) as client:
            assert client.call(spec, _req(), stage="s").record.cached is expect_cached
    assert sum(p.calls for p in echo) == 3


def test_simulated_provider_goes_through_the_layer_and_bypasses_the_cache(tmp_path):
    settings = ModelSettings(cache_dir=tmp_path / "cache", provider_options={"sim": {"seed": 3}})
    request = ModelRequest(messages=(), role="coder", template="codegen", template_version="1")
    with ModelClient(settings, run_dir=tmp_path / "run") as client:
        first = client.call("sim:default", request, stage="s")
        second = client.call("sim:default", request, stage="s")
    assert first.text == second.text and "simulated" in first.text
    assert not second.record.cached and not (tmp_path / "cache").exists()
    assert len((tmp_path / "run" / "calls" / "s.jsonl").read_text().splitlines()) == 2
