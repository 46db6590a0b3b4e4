"""Lookups over the records of earlier stages: a code sample's text and verdict, a generated test by id, test-fail
feedback."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.records import BenchmarkVerdict, Feedback, GeneratedCode, GeneratedTest, PairEvaluation

CodeKey = tuple[str, str, int]
"""A code sample: (coder model, task id, sample index)."""


def code_texts(codes: Iterable[GeneratedCode]) -> dict[CodeKey, str]:
    """Each code sample's text by (model, task id, sample index); empty when the coder returned no code."""
    return {(c.model, c.task_id, c.sample_index): c.code or "" for c in codes}


def code_verdicts(verdicts: Iterable[BenchmarkVerdict]) -> dict[CodeKey, bool]:
    """Each code sample's benchmark verdict (the ``before`` of its refinements' transitions)."""
    return {(v.model, v.task_id, v.code_index): v.passed for v in verdicts}


def tests_by_id(tests: Iterable[GeneratedTest]) -> dict[str, GeneratedTest]:
    """Each generated test by its id."""
    return {t.test_id: t for t in tests}


def test_fail_feedback(pairs: Iterable[PairEvaluation]) -> list[tuple[PairEvaluation, Feedback]]:
    """Each pair whose generated test failed the code, with its feedback, in pair order."""
    return [(p, p.feedback) for p in pairs if p.feedback is not None]
