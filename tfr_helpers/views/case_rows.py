"""The case browsers' rows, and the one registry of their sources (the base study's rows and each arm's).

A row source (:class:`RowSource`) gives either or both kinds of row: ``cases``, the offline browser's browsable
cases (one generic :class:`CaseRow` each), and ``sections``, the (title, HTML) rows the ipywidgets browser shows
under one refinement attempt. Both browsers loop over :data:`ROW_SOURCES` in registration order and name no arm.

The offline browser's rows: one generic :class:`CaseRow` per browsable case, built from the run.

A row has the facets the page filters on, a one-line summary, the text it searches, and its sections (code, test,
execution records, feedback, refined code, the benchmark test that failed after refinement). Every test-fail
feedback of every source is a row: a refinement attempt where the run refined it, else a feedback instance (real
replayed data without a refiner: the feedback, the code, the test and the reference's verdict).

Another kind of case (e.g. a published self-repair trajectory's steps), or another row under each attempt (e.g. an
arm's siblings of that attempt), slots in by registering a source::

    register_row_source(RowSource("trajectories", cases=lambda results, run_dir: [CaseRow(...), ...]))
    register_row_source(RowSource("controls", sections=lambda results, attempt, run_dir: [("Controls", html)]))
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tfr_helpers.analysis.tidy.attempts import Attempt, build_attempts
from tfr_helpers.pipeline.engine.artifact_log import read_artifact
from tfr_helpers.records import ProgramRun, Results, TestOutcome
from tfr_helpers.records.arm_registry import arms
from tfr_helpers.views.render import rows_html

TEXT_CAP = 4_000
"""Characters of one section's text embedded in the page (code, test, message); longer texts are cut, saying so."""


@dataclass(frozen=True)
class CaseSection:
    """One titled block of a case: ``code`` (a program or test) or ``text`` (a record, a message)."""

    title: str
    text: str
    kind: str = "text"


@dataclass(frozen=True)
class CaseRow:
    """One browsable case of any kind, for any source."""

    id: str
    kind: str
    """``refinement attempt``, ``feedback instance``, ``trajectory step``..."""
    model: str
    source: str
    benchmark: str
    task_id: str
    summary: str
    facets: dict[str, str] = field(default_factory=dict)
    """Further filters: name -> value (reliability, transition, a strategy's decision...)."""
    sections: tuple[CaseSection, ...] = ()


CaseBuilder = Callable[[Results, Path], list[CaseRow]]
"""``(results, run_dir) -> rows``: the offline browser's cases of one source."""
SectionBuilder = Callable[[Results, Attempt, Path], list[tuple[str, str]]]
"""``(results, attempt, run_dir) -> [(title, html), ...]``: one source's rows under an attempt (``[]``: none)."""


@dataclass(frozen=True)
class RowSource:
    """One source of case-browser rows: the base study or an arm (each kind of row optional)."""

    name: str
    cases: CaseBuilder | None = None
    sections: SectionBuilder | None = None
    order: int = 100
    """Display place: lower first (the base study 0, then the arms); equal places keep registration order."""


ROW_SOURCES: list[RowSource] = []
"""Every source of case-browser rows, in display order (by :attr:`RowSource.order`, the base study's first).

The sources register when their modules are imported; ``tfr_helpers.views`` imports every one of them."""


def register_row_source(source: RowSource) -> RowSource:
    """Add a source of rows (its rows come after those already registered).

    Raises:
        ValueError: a source of that name is registered already (rename it).
    """
    if any(s.name == source.name for s in ROW_SOURCES):
        raise ValueError(f"a case-row source named {source.name!r} is registered already: give it another name")
    ROW_SOURCES.append(source)
    ROW_SOURCES.sort(key=lambda s: s.order)  # stable: equal places keep registration order
    return source


def row_sources() -> list[RowSource]:
    """:data:`ROW_SOURCES`, once every arm package's view is imported (an arm's view registers its row sources)."""
    for arm in arms():
        if arm.view is not None:
            arm.load("view")
    return ROW_SOURCES


def case_rows(results: Results, run_dir: Path) -> list[CaseRow]:
    """Every case of the run (the offline browser's rows), from every registered source."""
    return [row for s in row_sources() if s.cases is not None for row in s.cases(results, run_dir)]


def attempt_sections(results: Results, attempt: Attempt, run_dir: Path) -> list[tuple[str, str]]:
    """The (title, HTML) rows of one attempt (the ipywidgets browser's pane), from every registered source."""
    return [row for s in row_sources() if s.sections is not None for row in s.sections(results, attempt, run_dir)]


def cap(text: str | None) -> str:
    """``text`` cut to :data:`TEXT_CAP` characters (saying how many were left out)."""
    text = text or ""
    return text if len(text) <= TEXT_CAP else text[:TEXT_CAP] + f"\n... ({len(text) - TEXT_CAP} more characters)"


def outcome_text(outcome: TestOutcome | None) -> str:
    """An execution record in a few lines: status, exception and message, expected and actual values."""
    return "not run" if outcome is None else outcome.text()


def failing_test(run: ProgramRun | None) -> str:
    """The first benchmark test a program failed, with its message ("passed" when none failed)."""
    return "not recorded" if run is None else run.failure_text()


def read_run(run_dir: Path, rel: str | None) -> ProgramRun | None:
    """A recorded program run (an execution artifact), or None when the run did not keep it."""
    text = read_artifact(run_dir, rel)
    if text is None:
        return None
    try:
        return ProgramRun.model_validate(json.loads(text))
    except ValueError:
        return None


def attempt_row(attempt: Attempt, run_dir: Path) -> CaseRow:
    """The case row of one test-fail feedback (refined or not)."""
    pair = attempt.pair
    code = attempt.code.code if attempt.code else None
    before = attempt.before
    sections = [
        CaseSection("Generated code", cap(code) or "no usable code", "code"),
        CaseSection("Generated test", cap(attempt.test.source if attempt.test else None) or "not recorded", "code"),
        CaseSection(
            "Execution: the generated code on the test, then the reference (the oracle)",
            outcome_text(pair.generated) + "\n\n" + outcome_text(pair.reference),
        ),
        CaseSection(
            f"Reference verdict: feedback {attempt.reliability}" + (f" ({pair.cause})" if pair.cause else ""),
            f"case {pair.case}: generated code {pair.generated.status}, reference {pair.reference.status}",
        ),
        CaseSection("Feedback shown to the refiner", cap(pair.feedback.text if pair.feedback else None)),
        CaseSection(
            "Benchmark tests before refinement: " + ("pass" if before and before.passed else "fail"),
            failing_test(before.run if before else None),
        ),
    ]
    refined = attempt.refined
    if attempt.refinement is not None:
        sections.append(CaseSection("Refined code", cap(attempt.refinement.code) or "no usable code", "code"))
    if refined is not None:
        after = "n/a" if refined.benchmark_after is None else ("pass" if refined.benchmark_after else "fail")
        sections.append(
            CaseSection(
                f"After refinement: benchmark {after} ({refined.transition})",
                failing_test(read_run(run_dir, refined.benchmark_run_path))
                + "\n\nThe generated test on the refined code:\n"
                + outcome_text(refined.generated_test_after),
            )
        )
    if attempt.decisions:
        decisions = "\n".join(
            f"{s}: {d.decision}" + (f"\n  {cap(d.reasoning)[:800]}" if d.reasoning else "")
            for s, d in attempt.decisions.items()
        )
        sections.append(CaseSection("Screening decisions", decisions))
    test_name = f"{pair.kind}#{attempt.test.index}" if attempt.test else pair.kind
    sample = f" · code sample {pair.code_index}" if pair.code_index else ""
    kind = "refinement attempt" if attempt.refinement is not None else "feedback instance"
    facets = {"reliability": attempt.reliability, "transition": attempt.transition}
    facets |= {f"screening: {s}": d.decision for s, d in attempt.decisions.items()}
    return CaseRow(
        id=attempt.feedback_id,
        kind=kind,
        model=attempt.model,
        source=attempt.source,
        benchmark=attempt.benchmark,
        task_id=attempt.task_id,
        summary=f"{attempt.task_id} · {test_name}{sample} · {attempt.reliability} · {attempt.transition}",
        facets=facets,
        sections=tuple(sections),
    )


def attempt_rows(results: Results, run_dir: Path) -> list[CaseRow]:
    """Every test-fail feedback of the run as a case row (refinement attempt or feedback instance)."""
    return [attempt_row(a, run_dir) for a in build_attempts(results)]


def base_sections(results: Results, attempt: Attempt, run_dir: Path) -> list[tuple[str, str]]:
    """The base study's rows of an attempt: Setup, RQ1, RQ2, RQ3."""
    return rows_html(attempt, run_dir)


register_row_source(RowSource("base study", cases=attempt_rows, sections=base_sections, order=0))
