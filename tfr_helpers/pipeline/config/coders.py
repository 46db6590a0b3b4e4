"""A coder entry of ``models.coders``: the plain ``provider:model`` string, or a mapping that sets the coder's
own roles, benchmarks and sample counts.

Real datasets serve one benchmark and differ in how many samples they hold (CodeT: 100 code and 100 test
samples per HumanEval task; Reflexion: 1 and 1), so a replayed coder usually names its own::

    models:
      coders:
        - sim:default
        - {model: "replay:codet-codegen16b-humaneval", benchmarks: [humaneval], code_samples: 10, test_samples: 10}

Unset fields fall back to the run's: ``models.tester`` / ``refiner`` / ``judge`` (then the coder itself),
``benchmarks``, ``code_samples_per_task``, ``test_samples_per_task``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tfr_helpers.benchmarks.registry import benchmark_names, get_benchmark
from tfr_helpers.replay.datasets import DATASETS


def check_spec(spec: Any) -> Any:
    """Raise ``ValueError`` unless ``spec`` is None or a ``provider:model`` string."""
    if spec is not None and (not isinstance(spec, str) or ":" not in spec or not spec.split(":", 1)[1]):
        raise ValueError(f"{spec!r} is not 'provider:model' (e.g. 'sim:default', 'openai:gpt-5-mini')")
    return spec


class CoderEntry(BaseModel):
    """One coder with its own settings (every field but ``model`` optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    """The coder, ``provider:model`` (``replay:<dataset>`` for replayed code)."""
    tester: str | None = None
    """Writes this coder's tests (null: ``models.tester``, then the coder itself)."""
    refiner: str | None = None
    """Refines this coder's code (null: ``models.refiner``, then the coder itself)."""
    judge: str | None = None
    """Answers the LLM screening strategies for this coder (null: ``models.judge``, then the coder)."""
    benchmarks: list[str] | None = Field(default=None, min_length=1)
    """The benchmarks this coder is studied on (null: the run's; a registered replay dataset: its benchmark)."""
    code_samples: int | None = Field(default=None, ge=1)
    """Code samples per task (null: ``code_samples_per_task``)."""
    test_samples: int | None = Field(default=None, ge=1)
    """Test samples (tester calls) per task and test kind (null: ``test_samples_per_task``)."""

    @field_validator("model", "tester", "refiner", "judge")
    @classmethod
    def _spec_form(cls, value: Any) -> Any:
        return check_spec(value)


Coder = str | CoderEntry
"""An item of ``models.coders``."""


def coder_item(index: int, item: Any) -> Coder:
    """Validate one item of ``models.coders`` (a spec string or a mapping).

    Raises:
        ValueError: naming the item and the key, e.g. ``coder 1 (a mapping): code_samples: ...``.
    """
    if isinstance(item, CoderEntry):
        return item
    if isinstance(item, dict):
        try:
            return CoderEntry.model_validate(item)
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                key = ".".join(str(p) for p in err["loc"]) or "<entry>"
                msg = err["msg"].removeprefix("Value error, ")
                if err["type"] == "extra_forbidden":
                    msg = f"unknown key; a coder mapping takes {', '.join(CoderEntry.model_fields)}"
                problems.append(f"{key}: {msg}")
            raise ValueError(f"coder {index} (a mapping): " + "; ".join(problems)) from None
    return check_spec(item)  # type: ignore[no-any-return]


def as_entry(coder: Coder) -> CoderEntry:
    """The mapping form of a coder item (a plain string sets only ``model``)."""
    return coder if isinstance(coder, CoderEntry) else CoderEntry(model=coder)


def default_benchmarks(model: str) -> list[str] | None:
    """The benchmarks a registered replay dataset serves (``replay:codet-...`` -> ``[humaneval, humaneval_plus,
    humaneval_plus_mini]``: its own and those keeping its tasks under their ``id_aliases``), else None."""
    provider, _, name = model.partition(":")
    if provider != "replay":
        return None

    spec = DATASETS.get(name)
    if spec is None:
        return None
    prefix = get_benchmark(spec.benchmark).id_prefix
    return [spec.benchmark, *(b for b in benchmark_names() if prefix in get_benchmark(b).id_aliases)]
