"""``refinement_cases.md``: every refinement attempt traced as Setup -> RQ1 -> RQ2 -> RQ3 with artifact links.

Attempts are grouped like the base study's worked examples: regressions (Pass->Fail) after unreliable
feedback first, then fixes (Fail->Pass) after reliable feedback, then all the others; within a group, per model
and task (:mod:`tfr_helpers.analysis.case_blocks`: the code and tests once, then a row per attempt).
"""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from tfr_helpers.analysis.arms.trajectory_cases import set_label, write_trajectory_cases
from tfr_helpers.analysis.case_blocks import Links, legend, task_block
from tfr_helpers.analysis.tables import SIMULATED_NOTE
from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.analysis.tidy.sources import real_note, skip_reason, source_label
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.records import Results

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


def _collect(results: Results) -> list[Attempt]:
    """The refined attempts (refinement evaluated), by model, task and feedback."""
    attempts = [a for a in build_attempts(results) if a.refined is not None]
    return sorted(attempts, key=lambda a: (a.model, a.task_id, a.feedback_id))


def _strategies(results: Results) -> list[str]:
    return sorted({d.strategy for d in results.screening})


def _blocks(results: Results, attempts: list[Attempt], first: int, link: Links, refined: bool, level: str) -> list[str]:
    """One block per model and task (``attempts`` sorted by both) under a ``level`` heading, numbered from ``first``."""
    lines: list[str] = []
    strategies = _strategies(results)
    for (model, task), group in groupby(attempts, key=lambda a: (a.model, a.task_id)):
        cases = list(group)
        heading = f"{level} {model} · {task} · {source_label(results, model)} ({len(cases)})"
        lines += task_block(heading, cases, first, strategies, link, refined)
        first += len(cases)
    return lines


def render_refinement_cases(results: Results, run_dir: Path, out: Path) -> str:
    """Markdown text of ``refinement_cases.md`` (links relative to ``out``)."""
    link = Links(run_dir, out)
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
    lines += legend(_strategies(results))
    number = 1
    for title, key in GROUPS:
        group = [a for a in attempts if _group(a) == key]
        lines += [f"## {title} ({len(group)})", ""]
        lines += _blocks(results, group, number, link, refined=True, level="###")
        number += len(group)
    return "\n".join([*lines, *link.definitions(), ""])


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
    link = Links(run_dir, out)
    reason = skip_reason(results, model, "refine_codes") or "no refinement record"
    lines = [f"# Feedback cases: {model} ({source_label(results, model)}), run {results.run_name}", ""]
    lines += [f"{len(attempts)} test-fail feedback instances, none refined ({reason}).", ""]
    lines += legend(_strategies(results))
    ordered = sorted(attempts, key=lambda a: (a.model, a.task_id, a.feedback_id))
    lines += _blocks(results, ordered, 1, link, refined=False, level="##")
    return "\n".join([*lines, *link.definitions(), ""])


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
