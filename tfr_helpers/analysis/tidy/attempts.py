"""Refinement attempts: one per test-fail feedback, with every stage's record about it joined in.

The one join of a run's records per attempt (generated code and its benchmark verdict, the generated test, the
code-test pair evaluation and its feedback, the screening decisions, the refinement and the refined code's
evaluation); ``refinement_cases.md`` and the case browser both read attempts from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tfr_helpers.analysis.tidy.sources import source_of
from tfr_helpers.pipeline.steps.lookups import tests_by_id
from tfr_helpers.records import (
    BenchmarkVerdict,
    GeneratedCode,
    GeneratedTest,
    PairEvaluation,
    RefinedEvaluation,
    Refinement,
    Results,
    ScreeningDecision,
)


@dataclass(frozen=True)
class Attempt:
    """One refinement attempt: a test-fail feedback and everything the run recorded about it.

    Attributes:
        pair: The code-test pair evaluation that produced the feedback.
        test: The generated test (None if its record is missing).
        code: The generated code under refinement (None if missing).
        before: The generated code's benchmark verdict (None if missing).
        refinement: The refinement call and code (None before ``refine_codes`` has run).
        refined: The refined code's evaluation (None before ``evaluate_refined_codes`` has run).
        decisions: Screening decisions on the feedback, by strategy.
        source: The coder's source (``simulated`` / ``replayed`` / ``live``).
    """

    pair: PairEvaluation
    test: GeneratedTest | None
    code: GeneratedCode | None
    before: BenchmarkVerdict | None
    refinement: Refinement | None
    refined: RefinedEvaluation | None
    decisions: dict[str, ScreeningDecision] = field(default_factory=dict)
    source: str = "live"
    """Where the coder's outputs come from: ``simulated``, ``replayed`` (real, published or imported) or ``live``."""

    @property
    def feedback_id(self) -> str:
        """Id of the feedback (the pair id: the generated test id, ``@c<i>`` added for code sample ``i`` > 0)."""
        return self.pair.pair_id

    @property
    def task_id(self) -> str:
        """Benchmark task id."""
        return self.pair.task_id

    @property
    def model(self) -> str:
        """The model under study (coder/tester spec)."""
        return self.pair.model

    @property
    def benchmark(self) -> str:
        """Benchmark name."""
        return self.pair.benchmark

    @property
    def reliability(self) -> str:
        """``reliable`` / ``unreliable`` (``unknown`` if the pair evaluation left it unset)."""
        return self.pair.reliability or "unknown"

    @property
    def transition(self) -> str:
        """Benchmark transition of the refinement, or ``not refined`` when the stage has not run yet."""
        return self.refined.transition if self.refined is not None else "not refined"

    def decision(self, strategy: str) -> str:
        """Decision of ``strategy`` on this feedback, or ``not screened``."""
        found = self.decisions.get(strategy)
        return found.decision if found is not None else "not screened"

    def label(self, number: int) -> str:
        """One line for the attempt list."""
        return (
            f"{number}. {self.task_id} · {self.pair.kind}#{self.test.index if self.test else '?'}"
            f"{f' · code sample {self.pair.code_index}' if self.pair.code_index else ''} · "
            f"{self.model} · {self.reliability} · {self.transition}"
        )


def build_attempts(results: Results) -> list[Attempt]:
    """Join the records of all stages into one :class:`Attempt` per test-fail feedback, in run order.

    Args:
        results: A finished run's results, or the provisional results of a run in progress (attempts then
            lack the records of the stages that have not run yet).

    Returns:
        The attempts, in the order of ``results.pair_evaluations``.
    """
    tests = tests_by_id(results.generated_tests)
    codes = {(c.model, c.task_id, c.sample_index): c for c in results.generated_codes}
    before = {(v.model, v.task_id, v.code_index): v for v in results.benchmark_verdicts if v.subject == "generated"}
    refinements = {r.feedback_id: r for r in results.refinements}
    refined = {r.feedback_id: r for r in results.refined_evaluations}
    decisions: dict[str, dict[str, ScreeningDecision]] = {}
    for d in results.screening:
        decisions.setdefault(d.feedback_id, {})[d.strategy] = d
    sources = {m: source_of(results, m).source for m in {p.model for p in results.pair_evaluations}}
    attempts = []
    for pair in results.pair_evaluations:
        if pair.feedback is None:
            continue
        fid = pair.feedback.feedback_id
        key = (pair.model, pair.task_id, pair.code_index)
        attempts.append(
            Attempt(
                pair=pair,
                test=tests.get(pair.test_id),
                code=codes.get(key),
                before=before.get(key),
                refinement=refinements.get(fid),
                refined=refined.get(fid),
                decisions=decisions.get(fid, {}),
                source=sources[pair.model],
            )
        )
    return attempts
