"""The ``replay`` provider: ``replay:<dataset>`` or ``replay:path/to/dir`` answers from real, published files.

- coder requests (template ``codegen``): the ``sample_index``-th code sample of the task, as the bare program;
- tester requests (templates ``ebt`` / ``pbt``): the ``sample_index``-th test sample of that kind, its tests in
  one fenced block that :func:`tfr_helpers.models.parse_tests` splits back into exactly the sample's tests
  (``n_tests`` is not applied: the reply holds the sample as published);
- refiner and judge requests: a :class:`ConfigError` (a dataset holds generations, not refinements or
  judgements; name another provider for those roles).

No network call, no cost (0 tokens), not simulated (``simulated = False``, ``replayed = True``); every reply's
``raw_response`` names the dataset, the model that produced it and its source, and says it is real.
A task or sample the dataset lacks is a non-retryable :class:`ReplayGap`, recorded as the call's error.

Registered through :func:`tfr_helpers.models.provider_builder.register_provider` when this module is imported (the
``tfr.providers`` entry point in ``pyproject.toml`` imports it when the registry is first asked).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tfr_helpers.errors import ConfigError
from tfr_helpers.models.base import ModelRequest, ModelSpec, Provider, ProviderReply, SamplingParams
from tfr_helpers.models.errors import ModelError
from tfr_helpers.models.provider_table import register_provider
from tfr_helpers.models.settings import ModelSettings
from tfr_helpers.replay.load import load_replay
from tfr_helpers.replay.records import ReplayDataset
from tfr_helpers.replay.units import code_reply, tests_reply

SERVED_TEMPLATES = ("codegen", "ebt", "pbt")
"""Templates a replay dataset can answer (coder and tester roles)."""


class ReplayGap(ModelError):
    """The dataset has no such task, or fewer samples than the requested index (never retried)."""


class ReplayProvider(Provider):
    """Answers coder and tester requests with a dataset's recorded generations.

    Args:
        settings: Model settings (unused: a replay needs no key, URL or option).
        replay_dir: Override directory for registered datasets (default ``$TFR_REPLAY_DIR``).
    """

    simulated = False
    replayed = True
    """The replies are recorded generations of a real model, not produced now."""
    api_flavour = "replay"

    def __init__(self, settings: ModelSettings | None = None, replay_dir: Path | None = None) -> None:
        self.replay_dir = replay_dir

    def dataset(self, spec: ModelSpec) -> ReplayDataset:
        """Load (once) the dataset a spec names.

        Raises:
            ConfigError: Unknown dataset name. DataError: Missing or corrupt files.
        """
        return load_replay(spec.name, self.replay_dir)

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        """Answer one coder or tester request from the dataset.

        Raises:
            ConfigError: A refiner or judge request, or a request without a task.
            ReplayGap: The task or the sample is not in the dataset.
        """
        if request.template not in SERVED_TEMPLATES or request.role not in ("coder", "tester"):
            raise ConfigError(
                f"{spec} cannot serve the {request.role} role (template {request.template!r}): a replay dataset "
                "holds published code and tests only; name another provider for this role in the params file "
                "(e.g. models.refiner: openai:gpt-5-mini)"
            )
        task_id = getattr(request.task, "task_id", None)
        if task_id is None:
            raise ConfigError(f"{spec} answers only pipeline requests that carry a task; this one has none")
        dataset = await asyncio.to_thread(self.dataset, spec)
        task = dataset.task(task_id)
        if task is None:
            raise ReplayGap(f"replay dataset {dataset.name} has no task {task_id}")
        index = request.sample_index
        if request.template == "codegen":
            codes = task.code_samples
            if index >= len(codes):
                raise ReplayGap(f"replay dataset {dataset.name} has {len(codes)} code samples for {task_id}, no #{index}")
            header = f"Code sample {index} of {task_id} replayed from {dataset.name} (real generation by {dataset.model})."
            text = code_reply(codes[index], header)
        else:
            samples = task.samples_of_kind(request.template)  # type: ignore[arg-type]
            if index >= len(samples):
                raise ReplayGap(
                    f"replay dataset {dataset.name} has {len(samples)} {request.template} test samples for "
                    f"{task_id}, no #{index}"
                )
            header = f"Tests of {task_id} replayed from {dataset.name} (real generations by {dataset.model})."
            text = tests_reply(samples[index], header)
        ignored = tuple(k for k, v in vars(params).items() if v is not None and k != "max_tokens") + ("max_tokens",)
        return ProviderReply(
            text=text,
            raw_request={"replay": spec.name, "task_id": task_id, "template": request.template, "sample_index": index},
            raw_response={
                "replayed": True,
                "real": True,
                "dataset": dataset.name,
                "model": dataset.model,
                "origin": dataset.origin,
                "source": dataset.source,
                "license": dataset.license,
            },
            unsupported_params=ignored,
        )


def _factory(settings: ModelSettings) -> Provider:
    return ReplayProvider(settings)


register_provider("replay", _factory, simulated=False, replayed=True)
