"""The end-of-run summary: what this invocation did and what the run's results hold."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tfr_helpers.models.calllog import CallCounts, count_calls, read_call_log
from tfr_helpers.pipeline.engine.context import Counters
from tfr_helpers.records import Results


@dataclass(frozen=True)
class RunSummary:
    """Counts of one run (empty result counts when ``finalize_results`` did not run)."""

    run_dir: Path
    stage_seconds: dict[str, float]
    """Wall time per stage run by this invocation."""
    model_calls: int
    """Model requests issued by this invocation (cache hits included; see :attr:`invocation_calls`)."""
    sandbox_runs: int
    """Programs run in the sandbox by this invocation."""
    exec_cache: tuple[int, int] = (0, 0)
    """Program runs served from the execution cache and looked up but executed (hits, misses)."""
    invocation_calls: CallCounts = field(default_factory=CallCounts)
    """This invocation's calls split honestly: sent, from the cache, failed, retries, and the cost spent now."""
    run_calls: CallCounts = field(default_factory=CallCounts)
    """The same over every invocation of the run (its call log), failed attempts of earlier ones included."""
    cases: dict[str, int] = field(default_factory=dict)
    causes: dict[str, int] = field(default_factory=dict)
    transitions: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, dict[str, int]] = field(default_factory=dict)
    """Strategy -> decision -> count."""
    by_model: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    """Coder -> ``cases`` / ``unreliable causes`` / ``transitions`` / ``screening <strategy>`` -> counts: what
    :meth:`lines` prints, one line per coder and source (the run-wide counts above are never printed pooled)."""
    sources: dict[str, str] = field(default_factory=dict)
    """Coder -> its source label (``simulated``, ``replayed (published): GPT-4``, ``live provider``)."""
    calls: int = 0
    """Model calls behind the run's results (all invocations; a reply served from the cache counts once)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    """Original cost of the results' calls (a cache hit keeps the cost of the call that produced it)."""
    errors: dict[str, int] = field(default_factory=dict)
    """Call errors, code without usable code, test-generation failures, refinements without code."""
    undone: dict[str, int] = field(default_factory=dict)
    """Stage -> items left undone by failed calls (not checkpointed; a rerun continues them)."""
    skipped: dict[str, int] = field(default_factory=dict)
    """``<coder> <stage>: <reason>`` -> items (tasks, or 1 for a whole stage) the run left out by design
    (a task a replay dataset lacks, fewer samples than asked, no refiner or judge for a dataset)."""

    def lines(self) -> list[str]:
        """A short human-readable report."""
        out = [f"run: {self.run_dir}"]
        out.append("stages: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.stage_seconds.items()))
        calls = f" ({self.invocation_calls.describe()})" if self.model_calls else ""
        out.append(f"this invocation: {self.model_calls} model calls{calls}, {self.sandbox_runs} sandbox runs")
        if any(self.exec_cache):
            out.append(f"execution cache: {self.exec_cache[0]} hits, {self.exec_cache[1]} misses")
        if self.run_calls != self.invocation_calls and self.run_calls != CallCounts():
            out.append(f"all invocations (calls/): {self.run_calls.describe()}")
        for model, parts in self.by_model.items():  # per coder and source: no line pools a simulated and a real one
            for title, counts in parts.items():
                if counts:
                    numbers = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
                    out.append(f"{title} of {model} [{self.sources.get(model, '?')}]: {numbers}")
        if self.calls:
            out.append(
                f"calls behind the results: {self.calls}, tokens in/out: {self.input_tokens}/{self.output_tokens}, "
                f"cost ${self.cost_usd:.4f} (original usage, replies served from the cache included)"
            )
        for what, n in self.skipped.items():
            out.append(f"skipped: {what} ({n} {'item' if n == 1 else 'items'})")
        if self.undone:
            items = ", ".join(f"{stage} {n}" for stage, n in self.undone.items())
            out.append(f"undone: {sum(self.undone.values())} items ({items}); rerun to continue")
        out.append("errors: " + (", ".join(f"{k}={v}" for k, v in self.errors.items() if v) or "none"))
        return out


def summarize(
    run_dir: Path,
    seconds: dict[str, float],
    counters: Counters,
    results: Results | None,
    calls: CallCounts | None = None,
) -> RunSummary:
    """Build the summary of one invocation (with result counts when ``results`` is given)."""
    calls = calls or CallCounts()
    logged = count_calls(read_call_log(run_dir))
    hits_misses = (counters.exec_cache_hits, counters.exec_cache_misses)
    base = RunSummary(run_dir, seconds, counters.model_calls, counters.sandbox_runs, hits_misses, calls, logged)
    if results is None:
        return base
    decisions: dict[str, Counter[str]] = {}
    for dec in results.screening:
        decisions.setdefault(dec.strategy, Counter())[dec.decision] += 1
    totals = results.call_totals
    coder_of = {p.pair_id: p.model for p in results.pair_evaluations}
    by_model: dict[str, dict[str, dict[str, int]]] = {}
    for model in dict.fromkeys([c.model for c in results.generated_codes] + list(coder_of.values())):
        pairs = [p for p in results.pair_evaluations if p.model == model]
        parts: dict[str, dict[str, int]] = {
            "cases": dict(Counter(p.case for p in pairs)),
            "unreliable causes": dict(Counter(p.cause for p in pairs if p.cause)),
            "transitions": dict(Counter(r.transition for r in results.refined_evaluations if r.model == model)),
        }
        for dec in results.screening:
            if coder_of.get(dec.feedback_id) == model:
                counts = parts.setdefault(f"screening {dec.strategy}", {})
                counts[dec.decision] = counts.get(dec.decision, 0) + 1
        by_model[model] = parts
    return RunSummary(
        run_dir,
        seconds,
        counters.model_calls,
        counters.sandbox_runs,
        hits_misses,
        calls,
        logged,
        cases=dict(Counter(p.case for p in results.pair_evaluations)),
        causes=dict(Counter(p.cause for p in results.pair_evaluations if p.cause)),
        transitions=dict(Counter(r.transition for r in results.refined_evaluations)),
        decisions={k: dict(v) for k, v in decisions.items()},
        by_model=by_model,
        sources={m: _source_label(results, m) for m in by_model},
        skipped=dict(Counter(f"{s.model} {s.stage}: {s.reason}" for s in results.skipped)),
        calls=sum(t.calls for t in totals),
        input_tokens=sum(t.input_tokens for t in totals),
        output_tokens=sum(t.output_tokens for t in totals),
        cost_usd=sum(t.cost_usd for t in totals),
        errors={
            "call_errors": sum(t.errors for t in totals),
            "codes_without_code": sum(c.code is None for c in results.generated_codes),
            "test_generation_failures": len(results.test_generation_failures),
            "refinements_without_code": sum(r.code is None for r in results.refinements),
            "undecided_screening": sum(d.decision == "undecided" for d in results.screening),
        },
    )


def _source_label(results: Results, model: str) -> str:
    """The coder's source as every table names it (``replayed (published): GPT-4``); ``model_sources`` holds it."""
    for src in results.model_sources:
        if src.model == model:
            return f"{src.label}: {src.producer}" if src.source == "replayed" and src.producer else src.label
    return "unknown source"
