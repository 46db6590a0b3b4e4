"""The reference never reaches a model: requests carry a TaskView, and only a provider that declares
``needs_reference`` (the simulated model) is granted the full tasks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.helpers.env import benchmark_dir
from tfr_helpers.errors import ConfigError
from tfr_helpers.models import ModelClient, ModelRequest, ModelSettings, make_request
from tfr_helpers.models import client as client_module
from tfr_helpers.models.base import ModelSpec, Provider, ProviderReply, SamplingParams, TaskLookup
from tfr_helpers.models.sim import SimProvider
from tfr_helpers.records import Task, TaskView

SENTINEL = "# SENTINEL-REFERENCE-7f3a"


def sentinel_task() -> Task:
    """A real HumanEval task whose reference and benchmark tests carry the sentinel."""
    from tfr_helpers.benchmarks import load_tasks

    benchmark_dir()  # the snapshots ($TFR_BENCHMARK_DIR); missing: skip, or fail in CI

    task = load_tasks("humaneval")[0]
    return task.model_copy(update={"reference": f"{task.reference}\n{SENTINEL}\n", "tests": f"{task.tests}\n{SENTINEL}\n"})


class Recording(Provider):
    """A provider that keeps every request it is handed (and any task lookup it is granted)."""

    def __init__(self, needs_reference: bool) -> None:
        self.needs_reference = needs_reference
        self.requests: list[ModelRequest] = []
        self.lookup: TaskLookup | None = None

    def grant_tasks(self, lookup: TaskLookup) -> None:
        if not self.needs_reference:
            super().grant_tasks(lookup)
        self.lookup = lookup

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        self.requests.append(request)
        return ProviderReply(text="ok")


def _call(provider: Recording, task: Task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "make_provider", lambda name, settings: provider)
    request = make_request(
        "codegen",
        role="coder",
        task=task,
        description=task.description,
        entry_point=task.entry_point,
        signature=task.signature,
    )
    with ModelClient(ModelSettings(cache_dir=tmp_path / "cache"), tasks={task.task_id: task}.__getitem__) as client:
        reply = client.call("openai:m1", request, stage="generate_codes")
    assert reply.text == "ok"


def test_task_view_has_no_field_for_the_reference_or_the_benchmark_tests() -> None:
    task = sentinel_task()
    view = task.view()
    assert isinstance(view, TaskView) and not isinstance(task, TaskView)
    for hidden in ("reference", "tests", "test_imports", "test_format"):
        assert hidden not in TaskView.model_fields and not hasattr(view, hidden)
    assert (view.task_id, view.description, view.entry_point) == (task.task_id, task.description, task.entry_point)
    assert SENTINEL in repr(task) and SENTINEL not in repr(view)


def test_a_request_refuses_a_full_task() -> None:
    with pytest.raises(TypeError, match=r"task\.view\(\)"):
        ModelRequest(messages=(), role="coder", template="codegen", template_version="1", task=sentinel_task())  # type: ignore[arg-type]


def test_make_request_reduces_a_full_task_to_its_view() -> None:
    task = sentinel_task()
    request = make_request("codegen", role="coder", task=task, description="d", entry_point="f", signature="s")
    assert request.task == task.view()
    assert not hasattr(request.task, "reference") and SENTINEL not in repr(request)


def test_a_real_provider_gets_the_view_and_is_never_granted_full_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = Recording(needs_reference=False)
    _call(provider, sentinel_task(), tmp_path, monkeypatch)
    (request,) = provider.requests
    assert isinstance(request.task, TaskView) and not hasattr(request.task, "reference")
    assert SENTINEL not in repr(request)
    assert provider.lookup is None


def test_only_a_provider_declaring_needs_reference_is_granted_the_full_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = sentinel_task()
    provider = Recording(needs_reference=True)
    _call(provider, task, tmp_path, monkeypatch)
    assert provider.lookup is not None and SENTINEL in provider.lookup(task.task_id).reference
    assert SENTINEL not in repr(provider.requests)  # the request itself still carries only the view


def test_the_base_provider_refuses_a_grant_it_did_not_declare() -> None:
    with pytest.raises(TypeError, match="needs_reference"):
        Recording(needs_reference=False).grant_tasks(lambda task_id: sentinel_task())


def test_the_simulated_model_declares_it_and_refuses_a_task_it_was_not_granted() -> None:
    assert SimProvider.needs_reference and SimProvider.simulated
    task = sentinel_task()
    request = make_request("codegen", role="coder", task=task, description="d", entry_point="f", signature="s")
    spec = ModelSpec.parse("sim:default")
    with pytest.raises(ConfigError, match="grant"):
        asyncio.run(SimProvider().generate(spec, request, SamplingParams()))
    granted = SimProvider()
    granted.grant_tasks({task.task_id: task}.__getitem__)
    assert "simulated model" in asyncio.run(granted.generate(spec, request, SamplingParams())).text
