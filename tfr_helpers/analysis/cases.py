"""``refinement_cases.md`` and ``feedback_cases_<model>.md``: every test-fail feedback traced with artifact links.

Attempts are grouped like the base study's worked examples: regressions (Pass->Fail) after unreliable
feedback first, then fixes (Fail->Pass) after reliable feedback, then all the others; within a group, per model
and task.

A task's block names its artifact folder once, then its code samples (generation and benchmark verdict) and its
tests once each, then one table row per case (a test-fail feedback): the code sample and test it pairs, the verdicts
of the code and of the reference, the refinement and what followed, and each screening strategy's decision. CodeT's
many samples x tests per task stay readable and small: the code and the test are listed once, not once per feedback.

Links are relative to the written file and point only to files that exist: an artifact's own file (a run of the
former layout), else its stage's log ``artifacts/<stage>.jsonl`` as a reference link (``[code.py][generate_codes]``,
the target defined once at the end of the file); the link's text is the artifact's path under the task's folder, the
line to look for (a missing artifact is named, not linked).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import groupby
from pathlib import Path
from urllib.parse import quote

from tfr_helpers.analysis.arms import reports
from tfr_helpers.analysis.tables import CASE_LABELS, SIMULATED_NOTE, TRANSITION_LABELS
from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.analysis.tidy.sources import real_note, skip_reason, source_label
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.pipeline.engine.artifact_log import artifact_location
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.records import ModelCallRecord, Results, TestOutcome

DECISION_LETTERS = {"accept": "A", "reject": "R", "undecided": "U"}
"""A screening decision in a case row (``-``: the strategy left no decision on this feedback)."""


class Links:
    """Markdown links relative to the output file, only to files that exist, labelled by path under ``folder``."""

    def __init__(self, run: Path, out: Path) -> None:
        self.run, self.base = run, out.parent
        self.folder = ""
        self.logs: dict[str, str] = {}
        """Reference name -> relative target of every stage log linked so far."""

    def __call__(self, rel: str | None) -> str:
        if not rel:
            return ""
        label = rel.removeprefix(self.folder) if self.folder else rel
        target = artifact_location(self.run, rel)  # its own file (an older run), else its stage's artifact log
        if target is None:
            return f"`{label}` (missing)"
        relative = quote(os.path.relpath(target, self.base))
        if target == self.run / rel:
            return f"[{label}]({relative})"
        name = target.stem if self.logs.get(target.stem, relative) == relative else relative  # two logs, one stem
        self.logs[name] = relative
        return f"[{label}][{name}]"

    def definitions(self) -> list[str]:
        """The reference definitions of the stage logs linked (the last lines of a case file)."""
        return [f"[{name}]: {target}" for name, target in sorted(self.logs.items())]

    def all(self, *rels: str | None) -> str:
        """The links of the paths given (empty ones left out), joined by `` · ``."""
        return " · ".join(x for x in map(self, rels) if x)

    def call(self, call: ModelCallRecord | None) -> str:
        return self.all(call.prompt_path, call.response_path) if call else ""


def cell(text: str) -> str:
    """``text`` on one line, safe inside a table cell."""
    return " ".join(text.replace("|", "\\|").split())


def outcome(o: TestOutcome | None) -> str:
    if o is None:
        return "no outcome"
    return o.status + (f" ({o.exc_type})" if o.exc_type else "")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row([cell(c) for c in r]) for r in rows)]


def _listing(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    """A table, or for one row a line of ``header: value`` pairs (a task with one code sample, one test)."""
    if len(rows) != 1:
        return _table(header, rows)
    return ["; ".join(f"{h}: {v}" for h, v in zip(header, rows[0], strict=True) if v)]


def _folder(attempts: Sequence[Attempt]) -> str:
    """The task's artifact folder (``<model dir>/<task dir>/``), from its first code path; empty when unknown."""
    path = next((a.code.code_path for a in attempts if a.code and a.code.code_path), None)
    return path.rsplit("/", 1)[0] + "/" if path and "/" in path else ""


def shared_records(attempts: Sequence[Attempt]) -> dict[int, str]:
    """Code sample -> the one execution record all its cases share (CodeT: one record per sample for all its tests)."""
    paths: dict[int, set[str]] = {}
    for a in attempts:
        paths.setdefault(a.pair.code_index, set()).add(a.pair.record_path or "")
    return {i: next(iter(p)) for i, p in paths.items() if len(p) == 1 and "" not in p and len(attempts) > 1}


def _samples(attempts: Sequence[Attempt], link: Links, shared: dict[int, str]) -> list[str]:
    rows: dict[int, list[str]] = {}
    for a in attempts:
        if a.pair.code_index in rows:
            continue
        before = "pass" if a.before and a.before.passed else "fail" if a.before else "not recorded"
        generation = " · ".join(x for x in (link.call(a.code.call), link(a.code.code_path)) if x) if a.code else ""
        run = link(a.before.run_path) if a.before else ""
        record = link(shared.get(a.pair.code_index)) or "one per case"
        rows[a.pair.code_index] = [str(a.pair.code_index), before, generation or "record missing", run, record]
    header = ("Code sample", "Benchmark", "Generation (prompt · response · code)", "Benchmark run", "Execution record")
    return _listing(header, list(rows.values()))


def _tests(attempts: Sequence[Attempt], link: Links) -> list[str]:
    rows: dict[str, list[str]] = {}
    for a in attempts:
        t = a.test
        if t is None or t.test_id in rows:
            continue
        generation = " · ".join(x for x in (link.call(t.call), link(t.test_path)) if x)
        rows[t.test_id] = [f"{t.kind.upper()} `{t.name}`", generation or "no artifacts"]
    return _listing(("Test", "Generation (prompt · response · test)"), list(rows.values())) if rows else []


def _screening(a: Attempt, strategies: Sequence[str], link: Links) -> tuple[str, str]:
    """The decisions as letters in ``strategies``' order, and the model calls of the strategies that made one."""
    letters = "".join(DECISION_LETTERS.get(a.decisions[s].decision, "?") if s in a.decisions else "-" for s in strategies)
    calls = [f"{s}: {link.call(d.call)}" for s, d in sorted(a.decisions.items()) if d.call is not None]
    return letters, "; ".join(calls)


def case_row(
    number: int, a: Attempt, strategies: Sequence[str], link: Links, refined: bool, shared: dict[int, str]
) -> list[str]:
    """One case's row: its number, code sample, test, case type, verdicts, refinement (``refined``) and screening."""
    pair = a.pair
    test = f"{pair.kind.upper()} `{a.test.name}`" if a.test else f"{pair.kind.upper()} (test record missing)"
    verdicts = [outcome(o) for o in (pair.generated, pair.reference, pair.reference_rerun) if o is not None]
    verdicts_text = f"all: {verdicts[0]}" if len(set(verdicts)) == 1 else " · ".join(verdicts)
    case = CASE_LABELS[pair.case] + (f", {pair.cause.replace('_', ' ')}" if pair.cause else "")
    record = "the sample's" if pair.code_index in shared else link(pair.record_path)
    row = [f"#{number}", str(pair.code_index), test, case, verdicts_text, record]
    if refined:
        r, ev = a.refinement, a.refined
        links = " · ".join(x for x in (link.call(r.call), link(r.code_path)) if x) if r else ""
        links = " · ".join(x for x in (links, link(ev.benchmark_run_path) if ev else "") if x)
        after = (
            f"{TRANSITION_LABELS[ev.transition]}; generated test after: {outcome(ev.generated_test_after)}"
            if ev
            else "not evaluated"
        )
        row += [links or "no artifacts", after]
    letters, calls = _screening(a, strategies, link)
    return [*row, letters or "none", calls]


def task_block(
    heading: str, attempts: Sequence[Attempt], first: int, strategies: Sequence[str], link: Links, refined: bool
) -> list[str]:
    """The markdown of one model's task: heading, folder, code samples, tests, then a row per case from ``first``."""
    link.folder = _folder(attempts)
    header = ["Case", "Code sample", "Test", "Feedback (case)", "Code · reference (· rerun)", "Execution record"]
    header += ["Refinement (prompt · response · code · benchmark run)", "After refinement"] if refined else []
    header += ["Screening", "Screening calls (prompt · response)"]
    shared = shared_records(attempts)
    rows = [case_row(first + i, a, strategies, link, refined, shared) for i, a in enumerate(attempts)]
    where = f"Artifacts under `{link.folder}`." if link.folder else "Artifact paths as recorded."
    samples = _samples(attempts, link, shared)
    out = [heading, "", where, "", *samples, "", *_tests(attempts, link), "", *_table(header, rows), ""]
    link.folder = ""
    return out


def legend(strategies: Sequence[str]) -> list[str]:
    """The lines that explain a case file's columns (the screening letters, where the artifacts are)."""
    order = ", ".join(f"{i + 1}. `{s}`" for i, s in enumerate(strategies)) or "none ran"
    return [
        "Per model and task: its code samples and tests once, then one row per test-fail feedback (a case). "
        "Each artifact links to its own file or to its stage's log under `artifacts/`, where the line to look for "
        "is the path shown (under the task's folder).",
        "",
        f"Screening: one letter per strategy, in this order: {order} "
        "(A accept, R reject, U undecided, - no decision). Every decision's record is a line of the "
        "`screen_feedback` log.",
        "",
    ]


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


def _no_files(results: Results, directory: Path) -> str:
    return ""


def write_refinement_cases(run_dir: Path | str, out: Path | str | None = None) -> Path:
    """Write ``refinement_cases.md`` (default: at the run's root) listing every refinement attempt, and beside it
    ``feedback_cases_<model>.md`` for each coder whose test-fail feedback was never refined (real replayed data
    without a refiner) and each arm report's own case files (``case_files(results, directory)``: one
    ``trajectory_cases_<set>.md`` per replayed trajectory set): the same tables, linked from the end of
    ``refinement_cases.md``.

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
    for report in reports():  # an arm's own case files (a replayed trajectory set's steps), linked from here
        if report.present(results):
            text += getattr(report, "case_files", _no_files)(results, target.parent)
    return atomic_write_text(target, text)
