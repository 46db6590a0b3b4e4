"""HTML for one refinement attempt: the rows Setup -> RQ1 -> RQ2 -> RQ3 of ``refinement_cases.md``.

All HTML is self-contained (inline styles), so it renders the same live, in nbconvert exports and in
``embed_minimal_html`` pages.
"""

from __future__ import annotations

import html
from pathlib import Path

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer, PythonLexer

from tfr_helpers.analysis.tidy.diffs import unified_diff
from tfr_helpers.pipeline.engine.artifact_log import read_artifact
from tfr_helpers.records import ModelCallRecord, TestOutcome
from tfr_helpers.views.cases import Attempt

ARTIFACT_CAP = 20_000
"""Characters of a prompt or raw response shown before truncation."""

_FORMATTER = HtmlFormatter(noclasses=True, style="default", prestyles="font-family:monospace;font-size:12px")
_PRE = "white-space:pre-wrap;font-family:monospace;font-size:12px;background:#f6f8fa;padding:6px;margin:2px 0"


def code_html(source: str | None) -> str:
    """Python source as syntax-highlighted HTML (a note when there is no code)."""
    if source is None:
        return "<i>no usable code</i>"
    return highlight(source, PythonLexer(), _FORMATTER)


def diff_html(before: str | None, after: str | None) -> str:
    """Unified diff of the generated code against the refined code, highlighted."""
    if before is None or after is None:
        return "<i>no diff: one side has no usable code</i>"
    text = unified_diff(before, after, "generated", "refined")
    return highlight(text, DiffLexer(), _FORMATTER) if text else "<i>identical to the generated code</i>"


def _pre(text: str | None) -> str:
    return f'<pre style="{_PRE}">{html.escape(text or "")}</pre>'


def _details(summary: str, body: str, open_: bool = False) -> str:
    opened = " open" if open_ else ""
    return f"<details{opened}><summary><b>{html.escape(summary)}</b></summary>{body}</details>"


def _artifact(run_dir: Path, rel: str | None) -> str:
    if rel is None:
        return "<i>not recorded</i>"
    text = read_artifact(run_dir, rel)  # its own file (an older run) or its line in the stage's artifact log
    if text is None:
        return f"<i>missing artifact {html.escape(rel)}</i>"
    if len(text) > ARTIFACT_CAP:
        text = text[:ARTIFACT_CAP] + f"\n... ({len(text) - ARTIFACT_CAP} more characters in {rel})"
    return _pre(text)


def _call(run_dir: Path, call: ModelCallRecord | None, what: str) -> str:
    if call is None:
        return ""
    note = f"{call.model} · template {call.template} v{call.template_version}"
    note += " · cached" if call.cached else ""
    error = f"<p style='color:#b00'>call error: {html.escape(call.error)}</p>" if call.error else ""
    return _details(f"{what} prompt", _artifact(run_dir, call.prompt_path)) + _details(
        f"{what} raw response", f"<small>{html.escape(note)}</small>{error}" + _artifact(run_dir, call.response_path)
    )


def outcome_html(title: str, outcome: TestOutcome | None) -> str:
    """An execution record as a compact block: status, exception, compared values, traceback."""
    if outcome is None:
        return f"<p><b>{html.escape(title)}</b>: <i>not run</i></p>"
    color = "#080" if outcome.status == "passed" else "#b00"
    parts = [f"<b>{html.escape(title)}</b>: <span style='color:{color}'>{outcome.status}</span>"]
    if outcome.exc_type:
        parts.append(f"{html.escape(outcome.exc_type)}: {html.escape((outcome.message or '')[:500])}")
    if outcome.expected is not None or outcome.actual is not None:
        expected, actual = html.escape(str(outcome.expected)), html.escape(str(outcome.actual))
        parts.append(f"expected {expected}, actual {actual}")
    body = "<br>".join(parts)
    if outcome.traceback:
        body += _details("traceback", _pre(outcome.traceback))
    return f"<div style='margin:4px 0'>{body}</div>"


def header_html(attempt: Attempt) -> str:
    """One line naming the attempt: task, model, test, reliability, transition, decisions."""
    decisions = ", ".join(f"{s}: {d.decision}" for s, d in attempt.decisions.items()) or "not screened"
    return (
        f"<div class='tfr-attempt'><b>{html.escape(attempt.task_id)}</b> · {html.escape(attempt.model)} · "
        f"test {html.escape(attempt.feedback_id)}<br>feedback <b>{attempt.reliability}</b>"
        f"{' (' + attempt.pair.cause + ')' if attempt.pair.cause else ''} · transition "
        f"<b>{html.escape(attempt.transition)}</b> · decisions: {html.escape(decisions)}</div>"
    )


def rows_html(attempt: Attempt, run_dir: Path) -> list[tuple[str, str]]:
    """The four rows (title, HTML) of an attempt: Setup, RQ1, RQ2, RQ3."""
    code = attempt.code.code if attempt.code else None
    verdict = attempt.before.passed if attempt.before else None
    setup = (
        f"<p>Benchmark verdict of the generated code: <b>{_verdict(verdict)}</b></p>"
        + _details("generated code", code_html(code), open_=True)
        + _call(run_dir, attempt.code.call if attempt.code else None, "code generation")
        + _details("generated test", code_html(attempt.test.source if attempt.test else None), open_=True)
        + _call(run_dir, attempt.test.call if attempt.test else None, "test generation")
    )
    pair = attempt.pair
    rq1 = (
        f"<p>case <b>{pair.case}</b> · feedback <b>{attempt.reliability}</b>"
        f"{' · cause <b>' + pair.cause + '</b>' if pair.cause else ''}</p>"
        + outcome_html("generated code", pair.generated)
        + outcome_html("reference", pair.reference)
        + (outcome_html("reference (rerun)", pair.reference_rerun) if pair.reference_rerun else "")
        + _details("feedback shown to the refiner", _pre(pair.feedback.text if pair.feedback else ""), True)
    )
    ref, ev = attempt.refinement, attempt.refined
    if ref is None:
        rq2 = "<i>not refined yet (run refine_codes and evaluate_refined_codes)</i>"
    else:
        rq2 = (
            f"<p>transition <b>{html.escape(attempt.transition)}</b> · benchmark after: "
            f"<b>{_verdict(ev.benchmark_after if ev else None)}</b></p>"
            + (outcome_html("refined code on the generated test", ev.generated_test_after) if ev else "")
            + _details("refined code", code_html(ref.code), open_=True)
            + _details("diff against the generated code", diff_html(code, ref.code))
            + _call(run_dir, ref.call, "refinement")
        )
    rq3 = (
        "".join(
            f"<div style='margin:4px 0'><b>{html.escape(s)}</b>: <b>{d.decision}</b>"
            + (_details("judge's reasoning", _pre(d.reasoning)) if d.reasoning else "")
            + _call(run_dir, d.call, "judge")
            + "</div>"
            for s, d in attempt.decisions.items()
        )
        or "<i>not screened yet (run screen_feedback)</i>"
    )
    return [
        ("Setup", setup),
        ("RQ1: feedback reliability", rq1),
        ("RQ2: refinement", rq2),
        ("RQ3: screening", rq3),
    ]


def _verdict(passed: bool | None) -> str:
    return "n/a" if passed is None else ("pass" if passed else "fail")
