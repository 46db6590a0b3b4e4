"""Response cache keys and storage."""

from __future__ import annotations

import dataclasses

import pytest

from tfr_helpers.models import (
    Message,
    ModelRequest,
    ModelSpec,
    ProviderReply,
    ResponseCache,
    SamplingParams,
    cache_key,
    cache_key_components,
    diff_key_components,
)

SPEC = ModelSpec("openai", "m")
REQ = ModelRequest(messages=(Message("user", "hi"),), role="coder", template="codegen", template_version="1")
PARAMS = SamplingParams(temperature=0.0, max_tokens=100)


def _components(spec=SPEC, req=REQ, params=PARAMS, base_url="http://x/v1", flavour="chat.completions"):
    return cache_key_components(spec, req, params, base_url=base_url, api_flavour=flavour)


@pytest.mark.parametrize(
    "changed,field",
    [
        ({"spec": ModelSpec("openai-compatible", "m")}, "provider"),
        ({"spec": ModelSpec("openai", "m2")}, "model"),
        ({"base_url": "http://y/v1"}, "base_url"),
        ({"flavour": "responses"}, "api_flavour"),
        ({"req": dataclasses.replace(REQ, messages=(Message("user", "hi!"),))}, "messages"),
        ({"req": dataclasses.replace(REQ, sample_index=1)}, "sample_index"),
        ({"req": dataclasses.replace(REQ, template_version="2")}, "template_version"),
        ({"req": dataclasses.replace(REQ, template="ebt")}, "template"),
        ({"params": dataclasses.replace(PARAMS, seed=1)}, "sampling"),
        ({"params": dataclasses.replace(PARAMS, temperature=0.5)}, "sampling"),
        ({"params": dataclasses.replace(PARAMS, max_tokens=99)}, "sampling"),
    ],
)
def test_every_component_changes_the_key_and_the_diff_names_it(changed, field):
    a, b = _components(), _components(**changed)
    assert cache_key(a) != cache_key(b)
    (reason,) = diff_key_components(a, b)
    assert reason.startswith(field + ":")


def test_key_ignores_the_task_and_a_trailing_slash_and_is_stable():
    assert cache_key(_components(base_url="http://x/v1/")) == cache_key(_components())
    assert len(cache_key(_components())) == 64 and diff_key_components(_components(), _components()) == []


def test_store_and_read_back_and_corrupt_entry_is_a_miss(tmp_path):
    cache = ResponseCache(tmp_path)
    comps = _components()
    key = cache_key(comps)
    assert cache.get(key) is None
    cache.put(key, comps, ProviderReply(text="ok", input_tokens=3, output_tokens=4, raw_response={"a": 1}))
    got = cache.get(key)
    assert got.text == "ok" and got.input_tokens == 3 and got.raw_response == {"a": 1}
    assert not [p for p in tmp_path.rglob("*.tmp")]  # atomic write left no temp file
    next(tmp_path.rglob(f"{key}.json")).write_text("{not json")
    assert cache.get(key) is None
