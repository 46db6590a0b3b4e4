"""A run's fingerprint: every input that changes its outputs, one named part at a time.

The configuration hash (``ExperimentConfig.config_hash``) is the hash of this fingerprint, and ``config.json``
stores the fingerprint itself, so a resume against a changed input can say *which* part changed instead of
only that the hash differs. Parts are short strings keyed by name:

- ``<dotted config key>``: every configuration value that determines results (``seed``,
  ``sandbox.timeout_s``, ``models.coders``...; transport settings such as concurrency, retries, cache and
  prices are left out), as JSON text;
- ``template:<name>``: the version and a hash of each prompt template as the renderer loaded it;
- ``sim``: the simulated model's version (a hash of its source), when a role uses it;
- ``bigcodebench_selection``: a hash of the BigCodeBench selection file, when BigCodeBench is in the run;
- ``replay:<dataset>:<file>``: the sha256 of each replayed dataset's files and ``replay:<dataset>:records`` the
  version of the adapters' rules, for every ``replay:`` model of the run.

A run directory refuses another fingerprint unless no stage that already holds records there reads a changed part
or is built from the records of one that does (each stage's declared ``Inputs``: its settings, its selects, the
record types it reads; the engine's ``blocking_stages``): changing only ``screening`` keeps the generations,
executions and refinements and runs only the screening of the new strategies.

More inputs plug in with :func:`register_hash_input` (replayed generations register the hashes of their
dataset files this way)::

    @register_hash_input("replay")
    def replay_datasets(config):
        return {f"replay:{name}": sha256_of(path) for name, path in datasets_of(config)}
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

from tfr_helpers.benchmarks.selection_file import selection_path
from tfr_helpers.models.provider_table import is_replayed
from tfr_helpers.models.sim import version as sim_version_module
from tfr_helpers.prompts.render import load_template, templates
from tfr_helpers.records.arm_registry import arms
from tfr_helpers.replay import replay_hashes

ExperimentConfig = Any
"""An :class:`~tfr_helpers.pipeline.config.experiment.ExperimentConfig` (whose ``fingerprint`` method calls this
module, so it is not imported here)."""

HashInput = Callable[[ExperimentConfig], dict[str, str]]
"""A function naming some inputs of a run and a short text (a value or a hash) for each."""

HASH_INPUTS: dict[str, HashInput] = {}
"""Registered hash inputs by name, in registration order."""

TRANSPORT_SETTINGS = (
    "concurrency",
    "default_concurrency",
    "retry",
    "cache_dir",
    "cache_mode",
    "prices",
    "batch",
    "batch_poll_s",
)
"""``model_settings`` keys that change how calls are made, never what they answer."""


TASK_PARTS = ("benchmarks", "tasks")
"""The parts that choose the run's tasks."""

MODEL_CALL_PARTS = ("sampling", "model_settings", "seed", "replay_datasets")
"""The parts a model's answer depends on besides the model and the prompt (sampling, provider options, the seed
of the simulator and of sampling, the imported datasets a ``replay:`` model reads)."""

PROGRAM_RUN_PARTS = ("sandbox", "seed", "plus_tiers")
"""The parts a program's verdict depends on besides the program and its tests (limits, time-limit policy, the
programs' seeds, the EvalPlus tiers judged)."""


def register_hash_input(name: str) -> Callable[[HashInput], HashInput]:
    """Register ``fn(config) -> {part: text}`` as part of every run's fingerprint."""

    def register(fn: HashInput) -> HashInput:
        HASH_INPUTS[name] = fn
        return fn

    return register


def sha256_text(text: str | bytes) -> str:
    """The first 16 hex digits of a sha256 (enough to tell versions apart)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


def fingerprint(config: ExperimentConfig) -> dict[str, str]:
    """Every registered input of ``config``'s run, by part name (sorted).

    Raises:
        ValueError: two hash inputs name the same part.
    """
    parts: dict[str, str] = {}
    for name, fn in HASH_INPUTS.items():
        for key, value in fn(config).items():
            if key in parts:
                raise ValueError(f"hash input {name!r} names part {key!r} a second time")
            parts[key] = value
    return dict(sorted(parts.items()))


def _flatten(data: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(data, dict) and data:
        out: dict[str, str] = {}
        for key, value in data.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: json.dumps(data, sort_keys=True)}


UNFINGERPRINTED = frozenset({"run_name", "concurrency", "budget_usd"})
"""Configuration keys outside the fingerprint: they change no record (the run's name, how fast, how much to spend)."""


@register_hash_input("config")
def config_values(config: ExperimentConfig) -> dict[str, str]:
    """Each result-relevant configuration value under its dotted key."""
    data = config.model_dump(mode="json", exclude=set(UNFINGERPRINTED))
    for arm in arms():  # an arm's key at its default is left out, so a run made before the key existed keeps its fingerprint
        settings = arm.settings(config)
        section = data[arm.section] if arm.section else data
        for key in settings.LEFT_OUT_WHEN_DEFAULT:
            if getattr(settings, key) == type(settings).model_fields[key].get_default(call_default_factory=True):
                section.pop(key, None)
    for transport in TRANSPORT_SETTINGS:
        data["model_settings"].pop(transport, None)
    if not config.sandbox.time_limit.margin:  # no near-limit band: a run made before the key existed keeps its fingerprint
        data["sandbox"]["time_limit"].pop("margin")
    return _flatten(data)


@register_hash_input("templates")
def template_hashes(config: ExperimentConfig) -> dict[str, str]:
    """Version and content hash of every prompt template, as loaded for rendering."""

    out = {}
    for name in templates():
        template = load_template(name)
        digest = sha256_text(json.dumps(dataclasses.asdict(template), sort_keys=True))
        out[f"template:{name}"] = f"version {template.version}, sha256 {digest}"
    return out


@register_hash_input("sim")
def sim_version_part(config: ExperimentConfig) -> dict[str, str]:
    """The simulated model's version, when any role of the run is simulated."""
    if not any(spec.partition(":")[0] == "sim" for spec in config.models.all_specs()):
        return {}

    return {"sim": sim_version_module.sim_version()}


@register_hash_input("bigcodebench_selection")
def selection_hash(config: ExperimentConfig) -> dict[str, str]:
    """Hash of the committed BigCodeBench selection file, when BigCodeBench is in the run."""
    if "bigcodebench" not in config.benchmarks:
        return {}

    path = selection_path()
    return {"bigcodebench_selection": sha256_text(path.read_bytes()) if path.is_file() else "missing"}


@register_hash_input("replay")
def replay_dataset_hashes(config: ExperimentConfig) -> dict[str, str]:
    """The files (pinned sha256, or an import directory's own hashes) and rules version of each replayed dataset."""

    parts: dict[str, str] = {}
    for spec in config.models.all_specs():
        if is_replayed(spec):
            parts.update(replay_hashes(spec.partition(":")[2]))
    return parts


@register_hash_input("arms")
def arm_input_hashes(config: ExperimentConfig) -> dict[str, str]:
    """The hashes of the files each arm's settings name (``ArmSettings.input_hashes``: a replayed log's files)."""
    parts: dict[str, str] = {}
    for arm in arms():
        parts.update(arm.settings(config).input_hashes())
    return parts


def _what(part: str) -> str:
    if part.startswith("template:"):
        return f"prompt template {part.removeprefix('template:')!r}"
    if part == "sim":
        return "the simulated model's code (sim version)"
    if part == "bigcodebench_selection":
        return "the BigCodeBench selection file"
    if ":" in part:
        kind, _, name = part.partition(":")
        return f"{kind} input {name!r}"
    return f"config key {part!r}"


def describe_changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One phrase per part that differs between two fingerprints (``config key 'seed': 0 -> 1``)."""
    return [
        f"{_what(part)}: {old.get(part, '(not set)')} -> {new.get(part, '(not set)')}"
        for part in sorted(set(old) | set(new))
        if old.get(part) != new.get(part)
    ]


def changed_parts(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The parts that differ between two fingerprints (added and removed ones included), sorted."""
    return sorted(part for part in set(old) | set(new) if old.get(part) != new.get(part))


def covers(declared: str, part: str) -> bool:
    """Whether a declared key (``screening``, ``sandbox``) names ``part`` or a part under it (``sandbox.timeout_s``)."""
    return part == declared or part.startswith(declared + ".")
