"""``refinement_cases.md``: every refinement attempt traced as Setup -> RQ1 -> RQ2 -> RQ3 with artifact links.

Attempts are grouped like the base study's worked examples: regressions (Pass->Fail) after unreliable
feedback first, then fixes (Fail->Pass) after reliable feedback, then all the others. Links are relative to
the written file and point only to files that exist: an artifact's own file (a run of the former layout), else
its stage's log ``artifacts/<stage>.jsonl`` followed by the artifact's path, the line to look for (a missing
artifact is named, not linked).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from tfr_helpers.analysis.arms.trajectory_cases import set_label, write_trajectory_cases
from tfr_helpers.analysis.tables import CASE_LABELS, SIMULATED_NOTE, TRANSITION_LABELS
from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.analysis.tidy.sources import real_note, skip_reason, source_label
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.pipeline.engine.artifact_log import artifact_location
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.records import (
    ModelCallRecord,
    RefinedEvaluation,
    Results,
    ScreeningDecision,
    TestOutcome,
)

GROUPS = (
    ("Regressions (Pass->Fail) after unreliable feedback", "regression"),
    ("Fixes (Fail->Pass) after reliable feedback", "fix"),
    ("All other attempts", "other"),
)


def _group(a: Attempt) -> str:
    """``regression`` (pass->fail after unreliable feedback), ``fix`` (fail->pass after reliable) or ``other``."""
    if a.transition == "pass->fail" and a.reliability == "unreliable":
        return "regression"
    if a.transition == "fail->pass" and a.reliability == "reliable":
        return "fix"
    return "other"


class _Links:
    """Markdown links relative to the output file, only to files that exist."""

    def __init__(self, run: Path, out: Path) -> None:
        self.run, self.base = run, out.parent

    def __call__(self, label: str, rel: str | None) -> str:
        if not rel:
            return ""
        target = artifact_location(self.run, rel)  # its own file (an older run), else its stage's artifact log
        if target is None:
            return f"{label}: `{rel}` (missing)"
        link = f"[{label}]({quote(os.path.relpath(target, self.base))})"
        return link if target == self.run / rel else f"{link} `{rel}`"

    def call(self, call: ModelCallRecord | None) -> list[str]:
        if call is None:
            return []
        return [x for x in (self("prompt", call.prompt_path), self("response", call.response_path)) if x]


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _outcome(o: TestOutcome | None) -> str:
    if o is None:
        return "no outcome"
    return o.status + (f" ({o.exc_type})" if o.exc_type else "")


def _collect(results: Results) -> list[Attempt]:
    """The refined attempts (refinement evaluated), by model, task and feedback."""
    attempts = [a for a in build_attempts(results) if a.refined is not None]
    return sorted(attempts, key=lambda a: (a.model, a.task_id, a.feedback_id))


def _refined(a: Attempt) -> RefinedEvaluation:
    assert a.refined is not None  # _collect keeps refined attempts only
    return a.refined


def _decisions(a: Attempt) -> list[ScreeningDecision]:
    return sorted(a.decisions.values(), key=lambda d: d.strategy)


def _account(a: Attempt, reason: str = "") -> str:
    """One sentence on what happened in this attempt (or feedback instance, never refined: ``reason`` says why)."""
    pair, ev = a.pair, a.refined
    kind = pair.kind.upper() if pair else "generated"
    before = "passed" if (ev.benchmark_before if ev else a.before and a.before.passed) else "failed"
    if pair and pair.reliability == "unreliable":
        cause = (pair.cause or "unknown cause").replace("_", " ")
        why = f"the reference fails it too ({cause}), so the feedback is unreliable"
    else:
        why = "the reference passes it, so the feedback is reliable"
    if ev is None:
        result = f"it was not refined ({reason or 'no refinement record'})"
    elif ev.transition == "no_code":
        result = "refinement returned no usable code"
    else:
        after = "passes" if ev.benchmark_after else "fails"
        result = f"the refined code {after} the benchmark ({TRANSITION_LABELS[ev.transition]})"
    judged = ", ".join(f"{d.strategy} {d.decision}" for d in _decisions(a)) or "no screening decision"
    return (
        f"The generated code {before} the benchmark; its {kind} test failed on it and {why}; {result}. Screening: {judged}."
    )


def _table(a: Attempt, link: _Links, reason: str = "") -> list[str]:
    ev, pair = a.refined, a.pair
    passed_before = ev.benchmark_before if ev else bool(a.before and a.before.passed)
    rows = [("Study part", "Step", "Details", "Result"), ("---", "---", "---", "---")]
    code_links = link.call(a.code.call) if a.code else []
    code_links += [x for x in [link("code", a.code.code_path if a.code else None)] if x]
    bench = link("benchmark run", a.before.run_path if a.before else None)
    rows.append(
        (
            "Setup",
            "Code generation",
            " · ".join(code_links + ([bench] if bench else [])),
            "benchmark " + ("pass" if passed_before else "fail"),
        )
    )
    t = a.test
    test_links = (link.call(t.call) + [x for x in [link("test", t.test_path)] if x]) if t else []
    rows.append(
        (
            "Setup",
            "Test generation",
            f"{t.kind.upper()} `{t.name}` " + " · ".join(test_links) if t else "test record missing",
            "",
        )
    )
    if pair:
        details = (
            f"code: {_outcome(pair.generated)}; reference: {_outcome(pair.reference)}"
            + (f"; rerun: {_outcome(pair.reference_rerun)}" if pair.reference_rerun else "")
            + (" · " + link("execution record", pair.record_path) if pair.record_path else "")
        )
        result = f"{CASE_LABELS[pair.case]}" + (f", {pair.cause.replace('_', ' ')}" if pair.cause else "")
        rows.append(("RQ1", "Test execution and feedback", details, result))
    r = a.refinement
    ref_links = (link.call(r.call) + [x for x in [link("refined code", r.code_path)] if x]) if r else []
    if ev is None:
        rows.append(("RQ2", "Code refinement", "not refined", reason or "no refinement record"))
    else:
        ref_links += [x for x in [link("benchmark run", ev.benchmark_run_path)] if x]
        after = f"{TRANSITION_LABELS[ev.transition]}; generated test after: {_outcome(ev.generated_test_after)}"
        rows.append(("RQ2", "Code refinement", " · ".join(ref_links) or "no artifacts", after))
    for d in _decisions(a):
        links = [x for x in [link("decision", d.decision_path)] if x] + link.call(d.call)
        rows.append(("RQ3", f"Screening: {d.strategy}", " · ".join(links) or "no model call", d.decision))
    return ["| " + " | ".join(_cell(c) if c not in ("---",) else c for c in row) + " |" for row in rows]


def render_refinement_cases(results: Results, run_dir: Path, out: Path) -> str:
    """Markdown text of ``refinement_cases.md`` (links relative to ``out``)."""
    link = _Links(run_dir, out)
    attempts = _collect(results)
    lines = [f"# Refinement cases: {results.run_name}", ""]
    if results.simulated:
        lines += [f"> **{SIMULATED_NOTE}**" + (" (the rows of simulated models)" if real_note(results) else ""), ""]
    if real_note(results):
        lines += [f"> **{real_note(results)}**", ""]
    lines += ["Models and where their outputs come from:", ""]
    lines += [f"- `{s.model}`: {s.label} ({s.note})" for s in results.model_sources] + [""]
    for skip in results.skipped:
        if skip.stage == "refine_codes" and skip.task_id is None:
            lines += [f"- `{skip.model}` ({source_label(results, skip.model)}): refinement {skip.reason}", ""]
    lines += [f"{len(attempts)} refinement attempts, one per test-fail feedback.", ""]
    number = 0
    for title, key in GROUPS:
        group = [a for a in attempts if _group(a) == key]
        lines += [f"## {title} ({len(group)})", ""]
        for a in group:
            number += 1
            kind = a.pair.kind.upper() if a.pair else "?"
            lines += [
                f"### {number}. {a.model} · {a.task_id} · {kind} `{a.test.name if a.test else '?'}`"
                f" · {a.pair.reliability if a.pair else '?'} feedback · {TRANSITION_LABELS[_refined(a).transition]}"
                + (f" · code sample {a.pair.code_index}" if a.pair.code_index else "")
                + f" · {source_label(results, a.model)}",
                "",
                _account(a),
                "",
                *_table(a, link),
                "",
            ]
    return "\n".join(lines)


def feedback_file_name(model: str) -> str:
    """``feedback_cases_<model>.md``: the file listing a coder's feedback instances that were never refined."""
    return "feedback_cases_" + "".join(c if c.isalnum() or c in "-." else "_" for c in model) + ".md"


def unrefined_by_model(results: Results) -> dict[str, list[Attempt]]:
    """Per coder, its test-fail feedback that no refinement followed (replayed data without a refiner)."""
    out: dict[str, list[Attempt]] = {}
    for a in build_attempts(results):
        if a.refined is None:
            out.setdefault(a.model, []).append(a)
    return out


def render_feedback_cases(results: Results, model: str, attempts: list[Attempt], run_dir: Path, out: Path) -> str:
    """Markdown of one coder's unrefined feedback instances, in the table form of ``refinement_cases.md``."""
    link = _Links(run_dir, out)
    reason = skip_reason(results, model, "refine_codes") or "no refinement record"
    lines = [f"# Feedback cases: {model} ({source_label(results, model)}), run {results.run_name}", ""]
    lines += [f"{len(attempts)} test-fail feedback instances, none refined ({reason}).", ""]
    for number, a in enumerate(sorted(attempts, key=lambda a: (a.task_id, a.feedback_id)), start=1):
        lines += [
            f"## {number}. {a.task_id} · {a.pair.kind.upper()} `{a.test.name if a.test else '?'}` · "
            f"{a.pair.reliability} feedback" + (f" · code sample {a.pair.code_index}" if a.pair.code_index else ""),
            "",
            _account(a, reason),
            "",
            *_table(a, link, reason),
            "",
        ]
    return "\n".join(lines)


def write_refinement_cases(run_dir: Path | str, out: Path | str | None = None) -> Path:
    """Write ``refinement_cases.md`` (default: at the run's root) listing every refinement attempt, and beside it
    ``feedback_cases_<model>.md`` for each coder whose test-fail feedback was never refined (real replayed data
    without a refiner) and ``trajectory_cases_<set>.md`` for each replayed trajectory set: the same tables, linked
    from the end of ``refinement_cases.md``.

    Args:
        run_dir: A run directory holding ``results.json``.
        out: Output file; default ``<run_dir>/refinement_cases.md``.

    Returns:
        The path written.

    Raises:
        RunDirError: If ``results.json`` is missing or invalid.
    """

    run = shown_run(run_dir)  # a multi-seed run: its first seed's attempts and artifacts, listed at its top level
    results = load_results(run)
    target = (Path(out) if out is not None else Path(run_dir) / "refinement_cases.md").resolve()
    text = render_refinement_cases(results, run.resolve(), target)
    unrefined = unrefined_by_model(results)
    if unrefined:
        text += "\n## Feedback never refined, one file per model\n\n"
    for model, attempts in unrefined.items():
        name = feedback_file_name(model)
        atomic_write_text(
            target.parent / name, render_feedback_cases(results, model, attempts, run.resolve(), target.parent / name)
        )
        text += f"- [{name}]({name}): {len(attempts)} feedback instances of `{model}` ({source_label(results, model)})\n"
    trajectory_files = write_trajectory_cases(results, target.parent)
    if trajectory_files:
        text += "\n## Replayed trajectory steps (real self-repair), one file per set\n\n"
    for name, info, steps in trajectory_files:
        text += f"- [{name}]({name}): {steps} steps of `{set_label(info.model, info.name)}` (real data, replayed)\n"
    return atomic_write_text(target, text)
