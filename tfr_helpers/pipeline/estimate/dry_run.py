"""``tfr estimate``: the calls, tokens and cost of a study, before any call is made.

How: every stage that calls models runs its real item builder and its real stage function on a context whose
``call_models`` renders each request and records it instead of sending it (an unsent call leaves its item undone,
so nothing is written). The calls counted are therefore the calls a run makes:

- ``generate_codes`` / ``generate_tests`` depend on the configuration only: **exact** counts and prompts;
- ``screen_feedback`` / ``refine_codes``, and the stages each arm declares for the configuration
  (:attr:`~tfr_helpers.pipeline.arms.declaration.Arm.feedback_stages`), run once per test-fail feedback, which is
  an outcome. With ``run_dir`` holding a finished ``evaluate_code_test_pairs`` they are **exact** (built from its
  records); otherwise they are **projected**: each (coder, task) gets one stand-in feedback (the reference as the
  code, the task's first example as the failing test) whose calls are recorded, times the expected feedbacks:
  generated tests x code samples x a fail rate range (default :data:`DEFAULT_FAIL_RATE`, stated in the report).
  Of the screeners, only those that declare they call a model are asked (the others make no call to count).

Tokens: no tokenizer is available offline (tiktoken downloads its encodings), so input tokens are the rendered
prompt's characters divided by :data:`CHARS_PER_TOKEN` (low / point / high). When the response cache holds
replies to the very requests planned, their reported ``input_tokens`` are compared with the approximation and
the measured ratio is reported. Output tokens: the cached replies' mean for that model and template when there
are some, else the range ``[max_tokens / 4, max_tokens]``. Calls already checkpointed or answered from the
cache count as free; simulated and replayed models are free.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tfr_helpers import logfiles
from tfr_helpers.models import make_request
from tfr_helpers.models.base import ModelSpec
from tfr_helpers.models.cache import ResponseCache, cache_key, cache_key_components
from tfr_helpers.models.jobs import CallJob, CallResult
from tfr_helpers.models.provider_builder import make_provider
from tfr_helpers.models.provider_table import is_replayed, is_simulated
from tfr_helpers.pipeline.arms.declaration import enabled_arms, registered_arms
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import registered_stages
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.engine.tasks import select_tasks
from tfr_helpers.pipeline.estimate.report import Line, Range, StudyEstimate
from tfr_helpers.pipeline.screening.registry import resolve_strategy
from tfr_helpers.pipeline.stages import refine_codes, screen_feedback
from tfr_helpers.records import Isolation, ModelCallRecord, ProgramRun, TestOutcome

CHARS_PER_TOKEN = (5.2, 4.4, 3.2)
"""Characters per token for the low, point and high input-token estimates, measured on the planned prompts with the
o200k and cl100k tokenizers (``benchmarks/perf/token_estimate.py``): 3.3 to 5.2, mean 4.2 to 4.6 per template."""
DEFAULT_FAIL_RATE = (0.1, 0.5)
"""Assumed share of (generated test, code sample) pairs that fail, when no evaluated run is given."""
BASE_FEEDBACK_STAGES = (screen_feedback.STAGE.name, refine_codes.STAGE.name)
"""The base study's model stages whose work items are test-fail feedbacks (an outcome of the pairs' evaluation)."""


def feedback_stages(config: ExperimentConfig) -> list[str]:
    """The stages whose calls are projected from the expected feedback: the base study's, then those each arm that
    ``config`` turns on names for it."""
    return [*BASE_FEEDBACK_STAGES, *(stage.name for arm in enabled_arms(config) for stage in arm.feedback_stages(config))]


@dataclass
class Planned:
    """One call a stage would make."""

    stage: str
    job: CallJob
    request: Any
    weight: Range = (1.0, 1.0, 1.0)
    """How many calls this one stands for (projected stages: expected feedbacks per stand-in)."""


class _Recorder(RunContext):
    """A run context that records the calls a stage asks for and sends none."""

    planned: list[Planned]
    stage_name: str = ""

    def call_models(self, jobs: Sequence[CallJob], stage: str) -> list[CallResult]:
        out = []
        for job in jobs:
            request = make_request(
                job.template, role=job.role, sample_index=job.sample_index, task=job.task, **job.variables
            )
            self.planned.append(Planned(self.stage_name or stage, job, request))
            record = ModelCallRecord(
                model=job.model,
                role=job.role,
                stage=stage,
                template=job.template,
                template_version=request.template_version,
                error="estimate: not sent",
            )
            out.append(CallResult(None, record, ""))
        return out

    def run_programs(self, jobs: Sequence[tuple[str, Sequence[Any]]], *args: Any, **kwargs: Any) -> list[ProgramRun]:
        """No program runs in an estimate: every test is ``not_run`` (a strategy that executes, such as the learned
        screener, then goes on to whatever model calls it makes)."""
        return [
            ProgramRun(
                outcomes=[TestOutcome(name=spec.name, status="not_run") for spec in specs],
                isolation=Isolation(network="none", uid_drop=False),
            )
            for _, specs in jobs
        ]


def _load(run_dir: Path | None, checkpoint: str) -> tuple[list[Any], set[str]]:
    if run_dir is None or not logfiles.exists(run_dir / "checkpoints" / f"{checkpoint}.jsonl"):
        return [], set()
    entries = RunStore(run_dir).read_checkpoint(checkpoint)
    return [r for e in entries for r in decode_records(e["data"])], {e["key"] for e in entries}


def plan_calls(
    config: ExperimentConfig, run_dir: Path | None = None, fail_rate: tuple[float, float] = DEFAULT_FAIL_RATE
) -> tuple[list[Planned], dict[str, str], int]:
    """The calls the study would make: (planned calls, stage -> ``exact`` / ``projected`` / ``done``, done calls).

    Calls of items already checkpointed in ``run_dir`` are not planned (counted as done).
    """

    run_dir = Path(run_dir) if run_dir is not None and Path(run_dir).is_dir() else None
    with tempfile.TemporaryDirectory(prefix="tfr-estimate-") as tmp:
        store = RunStore(Path(tmp))
        ctx = _Recorder(config, store, select_tasks(config, store))
        ctx.planned = []
        records: dict[str, list[Any]] = {}
        modes: dict[str, str] = {}
        done_calls, outcomes_known, complete = 0, True, True
        projected = feedback_stages(config)
        for stage in registered_stages():
            if stage.checkpoint is None:
                continue
            loaded, keys = _load(run_dir, stage.checkpoint)
            if stage.sandboxed:  # its records are outcomes: known only when this stage and all before are complete
                items = stage.items(ctx, stage.input_records(records)) if outcomes_known and complete else []
                outcomes_known = bool(items) and {i.key for i in items} <= keys
                records[stage.name] = loaded
                continue
            if not outcomes_known and stage.name in projected:
                modes[stage.name] = "projected"
                _project(ctx, stage, records, fail_rate)
                continue
            if not outcomes_known:
                modes[stage.name] = "not estimated (needs outcomes)"
                continue
            items = stage.items(ctx, stage.input_records(records))
            pending = [i for i in items if i.key not in keys]
            before = len(ctx.planned)
            ctx.stage_name = stage.name
            stage.run(pending, ctx)
            done_calls += _done_calls(ctx.planned[before:], pending, len(items) - len(pending))
            modes[stage.name] = "exact" if pending or not items else "done"
            complete = complete and not pending
            records[stage.name] = loaded
        return ctx.planned, modes, done_calls


def _done_calls(planned: list[Planned], pending: Sequence[Any], done_items: int) -> int:
    return round(len(planned) / len(pending) * done_items) if pending else done_items


def _project(ctx: _Recorder, stage: Any, records: dict[str, list[Any]], fail_rate: tuple[float, float]) -> None:
    """Record the calls of one stand-in feedback per (coder, task), weighted by the expected feedbacks."""
    tests = _expected(records, "generate_tests", ctx)
    codes = _expected(records, "generate_codes", ctx)
    before = len(ctx.planned)
    ctx.stage_name = stage.name
    units = [(coder, task) for coder in ctx.config.models.coder_names for task in ctx.tasks.values()]
    for coder, task in units:
        example = task.examples[0] if getattr(task, "examples", None) else f"assert {task.entry_point}(...)"
        fb = SimpleNamespace(
            feedback_id=f"{coder}|{task.task_id}|estimate",
            text=f"Test:\n{example}\n\nFailure: AssertionError: expected value differs\nTraceback (trimmed)",
        )
        test = SimpleNamespace(kind="ebt", index=0, source=example)
        outcome = TestOutcome(name="assert_0", status="failed", exc_type="AssertionError")
        item = SimpleNamespace(
            key=fb.feedback_id,
            task=task.view(),
            coder=coder,
            model=coder,
            judge=ctx.config.models.judge_for(coder),
            refiner=ctx.config.models.refiner_for(coder),
            code=task.reference,
            test=test,
            feedback=fb,
            outcome=outcome,
            code_samples=ctx.config.code_samples_for(coder),
        )
        if stage.name == screen_feedback.STAGE.name:
            for name in ctx.config.screening:
                screener = resolve_strategy(name)
                if screener.calls_model:  # the others make no call: nothing to count
                    screener([item], ctx)  # type: ignore[list-item]
        else:
            stage.run([item], ctx)
    per_unit = tests.get("per_unit", 0.0) * codes.get("per_unit", 1.0)
    lo, hi = fail_rate
    for planned in ctx.planned[before:]:
        planned.weight = (per_unit * lo, per_unit * (lo + hi) / 2, per_unit * hi)


def _expected(records: dict[str, list[Any]], stage_name: str, ctx: _Recorder) -> dict[str, float]:
    """Expected records per (coder, task) of a generating stage: generated tests (``count`` per sample; a replayed
    sample, ``count`` None, is taken to hold the configured number) or code samples."""
    stage = next(s for s in registered_stages() if s.name == stage_name)
    items = stage.items(ctx, stage.input_records(records))
    units = max(1, len(ctx.config.models.coders) * len(ctx.tasks))
    per_sample = {"ebt": ctx.config.ebts_per_task, "pbt": ctx.config.pbts_per_task}
    total = 0
    for item in items:
        count = getattr(item, "count", 1)
        count = count if count is not None else per_sample.get(getattr(item, "kind", ""), 1)
        total += count * getattr(item, "samples", 1)
    return {"per_unit": total / units}


# -- numbers -----------------------------------------------------------------------------------------------
def _tokens(chars: int) -> Range:
    lo, pt, hi = (chars / c for c in CHARS_PER_TOKEN)
    return lo, pt, hi


def _provider_keys(config: ExperimentConfig) -> dict[str, Any]:
    """Providers that can be built offline (base URL and API flavour for cache keys); None when not."""

    settings = config.resolved_model_settings()
    out: dict[str, Any] = {}
    for spec in config.models.all_specs():
        name = ModelSpec.parse(spec).provider
        if name not in out:
            try:
                out[name] = make_provider(name, settings)
            except Exception:  # a missing key: no cache lookup for that provider (noted in the report)
                out[name] = None
    return out


def _cached_means(cache_dir: Path, limit: int = 20000) -> dict[tuple[str, str], tuple[int, float]]:
    """(provider:model, template) -> (replies, mean output tokens) over the response cache."""
    sums: dict[tuple[str, str], list[float]] = {}
    for n, path in enumerate(cache_dir.glob("*/*.json")):
        if n >= limit:
            break
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            comp = data["components"]
            key = (f"{comp['provider']}:{comp['model']}", str(comp["template"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        acc = sums.setdefault(key, [0, 0.0])
        acc[0] += 1
        acc[1] += float(data.get("output_tokens", 0))
    return {k: (int(v[0]), v[1] / v[0]) for k, v in sums.items() if v[0]}


def estimate(
    config: ExperimentConfig,
    run_dir: Path | None = None,
    fail_rate: tuple[float, float] = DEFAULT_FAIL_RATE,
    batch: bool | None = None,
) -> StudyEstimate:
    """Calls per stage and role, input and output tokens and the cost in USD, with ranges (no call is made)."""

    planned, modes, done = plan_calls(config, run_dir, fail_rate)
    settings = config.resolved_model_settings()
    cache = ResponseCache(settings.resolved_cache_dir())
    providers = _provider_keys(config)
    means = _cached_means(settings.resolved_cache_dir()) if settings.cache_mode == "use" else {}
    lines: dict[tuple[str, str, str], Line] = {}
    ratios: list[float] = []
    notes: list[str] = []
    for p in planned:
        spec = ModelSpec.parse(p.job.model)
        free_model = is_simulated(p.job.model) or is_replayed(p.job.model)
        line = lines.setdefault((p.stage, p.job.model, p.job.role), Line(p.stage, p.job.model, p.job.role, modes[p.stage]))
        chars = sum(len(m.content) for m in p.request.messages)
        tokens = _tokens(chars)
        provider = providers.get(spec.provider)
        hit = None
        if provider is not None and not free_model and settings.cache_mode == "use":
            params = settings.sampling_for(p.job.model).to_params()
            comps = cache_key_components(
                spec, p.request, params, base_url=provider.base_url, api_flavour=provider.api_flavour
            )
            hit = cache.get_with_cost(cache_key(comps))
        if hit is not None:
            line.cached += p.weight[1]
            if hit[0].input_tokens:
                ratios.append(hit[0].input_tokens / tokens[1])
            continue
        max_tokens = settings.sampling_for(p.job.model).max_tokens
        seen = means.get((p.job.model, p.job.template))
        out: Range = (seen[1], seen[1], max_tokens) if seen else (max_tokens / 4, max_tokens / 2, max_tokens)
        line.add(
            p.weight, tokens, out, None if free_model else settings.prices.get(p.job.model), _discount(config, spec, batch)
        )
    unpriced = sorted({ln.model for ln in lines.values() if ln.unpriced})
    if unpriced:
        notes.append(f"no price in model_settings.prices for {', '.join(unpriced)}: counted as $0")
    missing = sorted(k for k, v in providers.items() if v is None)
    if missing:
        notes.append(f"cache not checked for {', '.join(missing)} (its API key is not set)")
    return StudyEstimate(
        lines=list(lines.values()),
        modes=modes,
        fail_rate=fail_rate,
        done_calls=done,
        ratios=ratios,
        notes=notes,
        chars_per_token=CHARS_PER_TOKEN,
        budget_usd=config.budget_usd,
        arms={arm.name: tuple(stage.name for stage in arm.stages) for arm in registered_arms()},
    )


def _discount(config: ExperimentConfig, spec: Any, batch: bool | None) -> float:
    """Price factor: the providers' batch APIs bill half (``model_settings.batch`` when set for the provider)."""
    if batch is None:
        flag = getattr(config.model_settings, "batch", None)
        batch = bool(flag.get(spec.provider, False)) if isinstance(flag, dict) else bool(flag)
    return 0.5 if batch else 1.0
