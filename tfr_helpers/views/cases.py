"""Refinement attempts as the case browser sees them: one per test-fail feedback, joined across stages."""

from __future__ import annotations

from dataclasses import dataclass, field

from tfr_helpers.analysis.load import load_results
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

load_run_results = load_results
"""Read ``results.json`` of a run (the analysis layer's reader: one place for its checks and messages)."""

ALL = "(all)"
"""Filter value that matches every attempt."""


@dataclass(frozen=True)
class Attempt:
    """One refinement attempt: a test-fail feedback and everything the run recorded about it."""

    pair: PairEvaluation
    test: GeneratedTest | None
    code: GeneratedCode | None
    before: BenchmarkVerdict | None
    refinement: Refinement | None
    refined: RefinedEvaluation | None
    decisions: dict[str, ScreeningDecision] = field(default_factory=dict)

    @property
    def feedback_id(self) -> str:
        """Id of the feedback (equal to the generated test id)."""
        return self.pair.test_id

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
            f"{number}. {self.task_id} · {self.pair.kind}#{self.test.index if self.test else '?'} · "
            f"{self.model} · {self.reliability} · {self.transition}"
        )


@dataclass(frozen=True)
class Filters:
    """A selection of attempts; every field set to :data:`ALL` matches everything."""

    model: str = ALL
    benchmark: str = ALL
    reliability: str = ALL
    transition: str = ALL
    strategy: str = ALL
    decision: str = ALL

    def matches(self, attempt: Attempt) -> bool:
        """True when ``attempt`` passes every filter (decision applies to the chosen strategy)."""
        if self.decision != ALL and self.strategy != ALL and attempt.decision(self.strategy) != self.decision:
            return False
        pairs = [
            (self.model, attempt.model),
            (self.benchmark, attempt.benchmark),
            (self.reliability, attempt.reliability),
            (self.transition, attempt.transition),
        ]
        return all(wanted == ALL or wanted == actual for wanted, actual in pairs)


def build_attempts(results: Results) -> list[Attempt]:
    """Join the records of all stages into one :class:`Attempt` per test-fail feedback, in run order."""
    tests = {t.test_id: t for t in results.generated_tests}
    codes = {(c.model, c.task_id): c for c in results.generated_codes}
    before = {(v.model, v.task_id): v for v in results.benchmark_verdicts if v.subject == "generated"}
    refinements = {r.feedback_id: r for r in results.refinements}
    refined = {r.feedback_id: r for r in results.refined_evaluations}
    decisions: dict[str, dict[str, ScreeningDecision]] = {}
    for d in results.screening:
        decisions.setdefault(d.feedback_id, {})[d.strategy] = d
    attempts = []
    for pair in results.pair_evaluations:
        if pair.feedback is None:
            continue
        fid = pair.feedback.feedback_id
        key = (pair.model, pair.task_id)
        attempts.append(
            Attempt(
                pair=pair,
                test=tests.get(pair.test_id),
                code=codes.get(key),
                before=before.get(key),
                refinement=refinements.get(fid),
                refined=refined.get(fid),
                decisions=decisions.get(fid, {}),
            )
        )
    return attempts


def strategies(results: Results) -> list[str]:
    """Screening strategies present in the run, in first-seen order."""
    return list(dict.fromkeys(d.strategy for d in results.screening))
