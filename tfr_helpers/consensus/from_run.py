"""Matrices from a pipeline run's records: one per (coder, task), from the generated outcomes only.

The multi-sample run already executed every code sample of a coder on every generated test (identical programs
and tests once); this module turns those records into :class:`TaskMatrix` records without running anything.
Only :attr:`PairEvaluation.generated` is read from a pair record: never the reference's outcome, the case or
the reliability. The benchmark verdicts of the generated code (for scoring a selection) are read separately,
by :func:`selection_by_coder`, and never reach a strategy or a screener. The records hold pass/fail outcomes,
not what a program returned, so these matrices have no outputs matrix: the output-based strategies
(:data:`~tfr_helpers.consensus.rankers.mbr_outputs.OUTPUT_STRATEGIES`) are left out of ``all`` here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth, from_outcomes
from tfr_helpers.consensus.rankers.builtin import selector_names
from tfr_helpers.consensus.rankers.mbr_outputs import OUTPUT_STRATEGIES
from tfr_helpers.consensus.report import SelectionReport, selection_report
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation, Results


@dataclass(frozen=True)
class RunMatrix:
    """One coder's matrix for one task, and where each generated test sits in it."""

    matrix: TaskMatrix
    test_index: dict[str, int]
    """Generated test id -> unique test index."""


def matrices_from_records(
    codes: Sequence[GeneratedCode],
    tests: Sequence[GeneratedTest],
    pairs: Sequence[PairEvaluation],
    units: set[tuple[str, str]] | None = None,
) -> dict[tuple[str, str], RunMatrix]:
    """The matrix of each (coder, task) unit (all units of the code records when ``units`` is None).

    Programs are the unique code texts of the coder's samples (code that could not be extracted is left out),
    tests the unique test sources; identical ones count with their multiplicity; suites are the test samples.
    """
    units = units if units is not None else {(c.model, c.task_id) for c in codes}
    passed = {(p.model, p.task_id, p.test_id, p.code_index): p.generated.status == "passed" for p in pairs}
    ran = {(p.model, p.task_id, p.code_index) for p in pairs if p.generated.status != "not_run"}
    codes_of: dict[tuple[str, str], list[GeneratedCode]] = {}
    for c in codes:
        codes_of.setdefault((c.model, c.task_id), []).append(c)
    tests_of: dict[tuple[str, str], list[GeneratedTest]] = {}
    for t in tests:
        tests_of.setdefault((t.model, t.task_id), []).append(t)
    out = {}
    for coder, task_id in sorted(units):
        programs: dict[str, list[int]] = {}
        for c in sorted(codes_of.get((coder, task_id), []), key=lambda c: c.sample_index):
            if c.code is not None:
                programs.setdefault(c.code, []).append(c.sample_index)
        unique: dict[str, list[GeneratedTest]] = {}
        for t in tests_of.get((coder, task_id), []):
            unique.setdefault(t.source, []).append(t)
        index = {t.test_id: j for j, group in enumerate(unique.values()) for t in group}
        suites: dict[tuple[str, int], list[int]] = {}
        for t in (t for group in unique.values() for t in group):
            suites.setdefault((t.kind, t.sample_index), []).append(index[t.test_id])
        verdicts: list[list[bool] | None] = []
        for samples in programs.values():
            if (coder, task_id, samples[0]) not in ran:
                verdicts.append(None)
                continue
            verdicts.append([passed.get((coder, task_id, g[0].test_id, samples[0]), False) for g in unique.values()])
        tests_u = [(src, len(g)) for src, g in unique.items()]
        matrix = from_outcomes(task_id, "single", list(programs.items()), tests_u, list(suites.values()), verdicts)
        out[(coder, task_id)] = RunMatrix(matrix, index)
    return out


def selection_by_coder(
    results: Results, strategies: Sequence[str] = ("all",), ks: Sequence[int] = (1, 2, 10), min_samples: int = 2
) -> dict[str, SelectionReport]:
    """pass@k of every strategy per coder of a finished run, on its own code and test samples.

    Args:
        results: The run's results.
        strategies: Strategy names or ``all`` (every strategy but the output-based ones, which need outputs).
        ks: The k values.
        min_samples: Coders with fewer code samples per task than this are left out (nothing to select).

    Returns:
        Coder -> report (coders in run order).
    """
    runs = matrices_from_records(results.generated_codes, results.generated_tests, results.pair_evaluations)
    verdict = {(v.model, v.task_id, v.code_index): v.passed for v in results.benchmark_verdicts if v.subject == "generated"}
    if list(strategies) == ["all"]:
        strategies = [n for n in selector_names() if n not in OUTPUT_STRATEGIES]
    out = {}
    for coder in dict.fromkeys(c.model for c in results.generated_codes):
        mine = [r.matrix for (m, _), r in runs.items() if m == coder]
        if not mine or max(m.n_samples for m in mine) < min_samples:
            continue
        truths = {
            m.task_id: TaskTruth(
                task_id=m.task_id, correct=[verdict.get((coder, m.task_id, s[0]), False) for s in m.program_samples]
            )
            for m in mine
        }
        out[coder] = selection_report(mine, truths, strategies, ks)
    return out
