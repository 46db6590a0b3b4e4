"""Consensus screeners for RQ3: accept or reject test-fail feedback from the same model's code x test matrix.

A screener sees what a practitioner has before refinement and nothing more: the generated programs (all code
samples of the coder for the task) and the generated tests, and how each program fared on each test. It reads
the ``generated`` outcome of each pair record, never the reference's outcome, the case, the reliability or
the benchmark verdicts; the matrix it builds (:func:`run_matrices`) has no field for them.

Registered strategies (usable in the ``screening`` list of a params file):

- ``consensus_codet_top``: accept when the failing test is passed by the top CodeT consensus level (at least half
  of its samples); the top level is what CodeT would select.
- ``consensus_b4``, ``consensus_dual_critic``, ``consensus_dawid_skene``: accept when the failing test's score from
  that method clears a threshold (B4: the test is in the best candidate's ``y``; dual-critic: ``t_j``;
  Dawid-Skene: the test's sensitivity ``alpha_j``). Default 0.5; another threshold is part of the name,
  ``consensus_dawid_skene@0.7``.

Each decision's ``score`` is 1 minus the trust the method gives the failing test (CodeT: the share of its top
level passing the test; the others: the test score), so higher means more likely unreliable. A task with fewer
than two programs (a coder with one code sample: the screener declares it needs two, and the registry accepts
without asking it), or where the method finds no consensus, gives no evidence: the feedback is accepted (as
``accept_all`` would), the decision is ``abstained`` with no score, and the reasoning says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfr_helpers import logfiles
from tfr_helpers.consensus.from_run import RunMatrix, matrices_from_records
from tfr_helpers.consensus.rankers.builtin import resolve_selector
from tfr_helpers.consensus.ranking import Ranking
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.screening.registry import (
    Screener,
    ScreeningItem,
    Strategy,
    Verdict,
    register_screener,
    register_strategy,
    register_strategy_family,
    too_few_samples,
)
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation

DEFAULT_THRESHOLD = 0.5
SAMPLES = 2
"""Code samples of the coder a consensus screener needs: with fewer there is no consensus (it abstains)."""


_READ: dict[tuple[str, str, int, int], list[Any]] = {}
"""Decoded checkpoint records by (path, type, size, mtime): the screening stage calls a screener once per chunk of
feedback, and the earlier stages' checkpoints do not change meanwhile, so each is decoded once."""


def _records(ctx: RunContext, checkpoint: str, cls: type) -> tuple[tuple[str, str, int, int], list[Any]]:
    path = ctx.store.checkpoint_path(checkpoint)
    where = logfiles.stored(path)  # plain, or compressed once a run of stages ended
    stat = where.stat() if where is not None else None
    key = (str(path), cls.__name__, stat.st_size if stat else -1, stat.st_mtime_ns if stat else -1)
    if key not in _READ:
        for old in [k for k in _READ if k[:2] == key[:2]]:
            del _READ[old]
        entries = ctx.store.read_checkpoint(checkpoint)
        _READ[key] = [r for e in entries for r in decode_records(e["data"]) if isinstance(r, cls)]
    return key, _READ[key]


_BUILT: dict[tuple[tuple[str, str, int, int], ...], dict[tuple[str, str], RunMatrix]] = {}
"""Matrices of every unit, by the (path, type, size, mtime) of the checkpoints they were built from."""
_RANKED: dict[tuple[str, tuple[str, str]], tuple[RunMatrix, Ranking]] = {}
"""Each (method, unit)'s ranking of the matrices in :data:`_BUILT` (cleared with them): a unit's feedback spans
several of the stage's chunks, and a ranking is a function of the unit's matrix alone."""


def run_matrices(ctx: RunContext, units: set[tuple[str, str]]) -> dict[tuple[str, str], RunMatrix]:
    """The matrices of the given (coder, task) units from the run's checkpoints (generated outcomes only).

    All units are built once per state of the checkpoints (the stage asks chunk by chunk)."""
    (k1, codes), (k2, tests), (k3, pairs) = (
        _records(ctx, "generated_codes", GeneratedCode),
        _records(ctx, "generated_tests", GeneratedTest),
        _records(ctx, "test_execution_feedback", PairEvaluation),
    )
    key = (k1, k2, k3)
    if key not in _BUILT:
        _BUILT.clear()
        _RANKED.clear()
        _BUILT[key] = matrices_from_records(codes, tests, pairs)
    built = _BUILT[key]
    return {u: built[u] for u in sorted(units) if u in built}


def unit_ranking(method: str, unit: tuple[str, str], run: RunMatrix) -> Ranking:
    """``method``'s ranking of ``unit``'s matrix (from :func:`run_matrices`), computed once per state of the
    checkpoints."""
    key = (method, unit)
    known = _RANKED.get(key)
    if known is None or known[0] is not run:
        known = _RANKED[key] = (run, resolve_selector(method)(run.matrix))
    return known[1]


def _no_evidence(run: RunMatrix | None, ranking: Ranking | None) -> str:
    if run is None or len(run.matrix.program_ids) < SAMPLES:  # the programs generated, not only those asked for
        return too_few_samples(SAMPLES)
    if ranking is not None and not ranking.levels:
        return f"no consensus ({ranking.fallback}): accepted as accept_all would"
    return ""


def _screen(
    items: Sequence[ScreeningItem], ctx: RunContext, method: str, decide: Callable[[RunMatrix, Ranking, int], Verdict]
) -> list[Verdict]:
    """Decide each item from its unit's matrix and the method's ranking (computed once per unit)."""
    runs = run_matrices(ctx, {(i.coder, i.task.task_id) for i in items})
    out = []
    for item in items:
        unit = (item.coder, item.task.task_id)
        run = runs.get(unit)
        why = _no_evidence(run, None)
        if why or run is None or item.test.test_id not in run.test_index:
            why = why or "the test is not in the matrix: accepted as accept_all would"
            out.append(Verdict("accept", why, abstained=True))
            continue
        ranking = unit_ranking(method, unit, run)
        why = _no_evidence(run, ranking)
        if why:
            out.append(Verdict("accept", why, abstained=True))
            continue
        out.append(decide(run, ranking, run.test_index[item.test.test_id]))
    return out


@register_strategy("consensus_codet_top", samples=SAMPLES, scores=True, abstains=True)
def consensus_codet_top(items: Sequence[ScreeningItem], ctx: RunContext) -> list[Verdict]:
    """Accept when at least half of the samples in CodeT's top consensus level pass the failing test."""

    def decide(run: RunMatrix, ranking: Ranking, j: int) -> Verdict:
        top = ranking.levels[0]
        w = run.matrix.weights[top]
        share = float((w * run.matrix.matrix[top, j]).sum() / w.sum())
        reason = f"{share:.0%} of the {int(w.sum())} samples in CodeT's top consensus level pass this test"
        return Verdict("accept" if share >= 0.5 else "reject", reason, score=1 - share)

    return _screen(items, ctx, "codet", decide)


def threshold_screener(method: str, threshold: float) -> Strategy:
    """A screener accepting feedback whose test score from ``method`` is at least ``threshold``."""

    def screener(items: Sequence[ScreeningItem], ctx: RunContext) -> list[Verdict]:
        def decide(run: RunMatrix, ranking: Ranking, j: int) -> Verdict:
            if ranking.test_scores is None:
                return Verdict("accept", f"{method} scores no test: accepted as accept_all would", abstained=True)
            score = float(np.asarray(ranking.test_scores)[j])
            verb = "clears" if score >= threshold else "is below"
            return Verdict(
                "accept" if score >= threshold else "reject",
                f"{method} test score {score:.3f} {verb} {threshold:g}",
                score=1 - score,
            )

        return _screen(items, ctx, method, decide)

    screener.__doc__ = f"Accept when the failing test's {method} score is at least {threshold:g}."
    return screener


def _declared(name: str, decide: Strategy) -> Screener:
    """A consensus screener: it compares the coder's code samples, scores and may abstain."""
    return Screener(name, decide, samples=SAMPLES, scores=True, abstains=True)


def _family(method: str) -> Callable[[str], Screener]:
    def make(arg: str) -> Screener:
        try:
            threshold = float(arg)
        except ValueError:
            raise ConfigError(f"consensus_{method}@{arg}: the part after @ is a threshold number, e.g. 0.5") from None
        return _declared(f"consensus_{method}@{arg}", threshold_screener(method, threshold))

    return make


for _method in ("b4", "dual_critic", "dawid_skene"):
    register_screener(_declared(f"consensus_{_method}", threshold_screener(_method, DEFAULT_THRESHOLD)))
    register_strategy_family(f"consensus_{_method}", _family(_method))
