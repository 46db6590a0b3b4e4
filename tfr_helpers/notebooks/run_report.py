"""The end of ``tfr run``'s terminal output, after the answers: what each stage cost, what the run counted and left
out, and where every output is (reports, tables, figures, case files)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tfr_helpers.analysis.tidy.sources import model_display
from tfr_helpers.errors import TfrError
from tfr_helpers.pipeline import STAGES
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.runner import SANDBOX_RUNS
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.records import Results, present_arms


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 60 else f"{value // 60:.0f} min {value % 60:04.1f} s"


def _none(results: Results) -> str:
    return ""


def _no_lines(results: Results) -> list[str]:
    return []


def stage_lines(results: Results) -> list[str]:
    """Each stage that took time, in pipeline order, with its wall time (the run's own record)."""
    done = [(s, results.stage_seconds[s]) for s in STAGES if results.stage_seconds.get(s, 0.0) >= 0.05]
    if not done:
        return []
    width = max(len(s) for s, _ in done)
    return ["stages (wall time):"] + [f"  {s.ljust(width)}  {_seconds(v).rjust(12)}" for s, v in done]


def sandbox_runs(run_dir: Path) -> int | None:
    """Programs the run's stages ran in the sandbox over every invocation (None for a run that predates the count)."""
    try:
        counts = json.loads((run_dir / SANDBOX_RUNS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return sum(int(v) for v in counts.values())


def count_lines(results: Results, run_dir: Path) -> list[str]:
    """Sandbox runs, model calls (sent and served from the cache), tokens and cost, then every item the run left
    out (by design: a task a dataset lacks, a stage without a refiner) and every error count."""
    calls = sum(t.calls for t in results.call_totals)
    cached = sum(t.cached for t in results.call_totals)
    cost = sum(t.cost_usd for t in results.call_totals)
    tokens = sum(t.input_tokens for t in results.call_totals), sum(t.output_tokens for t in results.call_totals)
    runs = sandbox_runs(run_dir)
    out = ["counts:"]
    out.append(f"  sandbox runs: {runs:,}" if runs is not None else "  sandbox runs: not recorded (an older run)")
    out.append(f"  model calls behind the results: {calls:,} ({cached:,} served from the cache)")
    out.append(f"  tokens in/out: {tokens[0]:,}/{tokens[1]:,}; cost ${cost:.4f}")
    reports = [arm.load("report") for arm in present_arms(results) if arm.report is not None]
    steps = "".join(f", {said}" for report in reports if (said := getattr(report, "record_counts", _none)(results)))
    out.append(
        f"  records: {len(results.generated_codes):,} code samples, {len(results.pair_evaluations):,} "
        f"(code, test) pairs, {len(results.refined_evaluations):,} refinement attempts{steps}"
    )
    skipped = Counter((s.model, s.stage, s.reason) for s in results.skipped)
    left = [line for report in reports for line in getattr(report, "exclusion_lines", _no_lines)(results)]
    if skipped or left:
        out.append("excluded (by design, counted):")
        out += [
            f"  {model_display(results, m)} {stage}: {reason} ({n:,} {'item' if n == 1 else 'items'})"
            for (m, stage, reason), n in skipped.items()
        ]
        out += left
    errors = {
        "code samples without usable code": sum(c.code is None for c in results.generated_codes),
        "refinements without code": sum(r.code is None for r in results.refinements),
    }
    shown = {k: v for k, v in errors.items() if v}
    out.append("excluded (errors): " + (", ".join(f"{k} {v:,}" for k, v in shown.items()) or "none"))
    return out


def output_lines(run_dir: Path, reports: list[Path]) -> list[str]:
    """The paths of every output: the HTML reports, the LaTeX tables, the figures and the case files."""
    analysis = run_dir / "analysis"
    out = ["outputs:"]
    out += [f"  report   {p}" for p in reports]
    tables = sorted(analysis.glob("*.tex"))
    if tables:
        out.append(f"  tables   {analysis}/ ({len(tables)} .tex: {', '.join(p.stem for p in tables)})")
    figures = sorted((analysis / "figures").glob("*")) if (analysis / "figures").is_dir() else []
    if figures:
        stems = list(dict.fromkeys(p.stem for p in figures))
        kinds = sorted({p.suffix.lstrip(".") for p in figures})
        out.append(f"  figures  {analysis / 'figures'}/ ({len(stems)} figures as {', '.join(kinds)})")
    if (analysis / "summary.json").is_file():
        out.append(f"  numbers  {analysis / 'summary.json'}")
    cases = sorted(run_dir.glob("*.md"))
    out += [f"  cases    {p}" for p in cases]
    return out


def run_report_lines(run_dir: Path, reports: list[Path]) -> list[str]:
    """:func:`stage_lines`, :func:`count_lines` and :func:`output_lines` of a finished run (the counts left out
    when its results cannot be read)."""
    run = shown_run(run_dir)
    try:
        results = load_results(run)
    except (TfrError, OSError, ValueError):
        return output_lines(run, reports)
    return stage_lines(results) + count_lines(results, run) + output_lines(run, reports)
