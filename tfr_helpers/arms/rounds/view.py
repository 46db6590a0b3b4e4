"""Multi-round backprompting's views: its notebook section (:func:`section`) and the case browser's Rounds row, the
backprompting rounds of the selected attempt's chain (docs/rounds.md).

The chain is the attempt's (coder, task, code sample); each round shows what the suite held, which tests failed
(with their reliability, measured against the reference), the feedback and prompt the refiner saw, its reply,
the refined code and its benchmark verdict. Importing this module registers the row (``tfr_helpers.views`` imports
every arm's view).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

from tfr_helpers.arms.rounds import report
from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundStep
from tfr_helpers.records import Results
from tfr_helpers.views.case_rows import RowSource, register_row_source
from tfr_helpers.views.cases import Attempt
from tfr_helpers.views.display import lines
from tfr_helpers.views.fit_table import fit
from tfr_helpers.views.render import _call, _details, _pre, _verdict, code_html


def chain_of(results: Results, attempt: Attempt) -> RoundChain | None:
    """The chain of the attempt's code sample, or None (no rounds in the run, or no chain for it)."""
    if not results.has(ARM):
        return None
    wanted = f"{attempt.model}|{attempt.task_id}|c{attempt.pair.code_index}"
    return next((c for c in results.part(ARM).chains if c.chain_id == wanted), None)


def _ids(test_ids: list[str]) -> str:
    """Test ids without their model and task (``ebt|2``, ``pbt|r3|0``)."""
    return html.escape(", ".join(i.split("|", 2)[-1] for i in test_ids) or "none")


def _step_html(step: RoundStep, run_dir: Path) -> str:
    head = (
        f"<p>suite of {step.suite_size} tests, {step.suite_reference_passed} pass the reference · failing: "
        f"{len(step.failed)} ({len(step.unreliable)} unreliable) · benchmark {_verdict(step.benchmark_before)} -> "
        f"<b>{_verdict(step.benchmark_after)}</b>"
        f"{' · transition <b>' + html.escape(step.transition) + '</b>' if step.transition else ''}"
        f"{' · <b>collision</b> with an earlier round' if step.collision else ''}</p>"
        f"<p><small>failing tests: {_ids(step.failed)}; unreliable: {_ids(step.unreliable)}</small></p>"
    )
    body = head
    if step.feedback is not None:
        body += _details("feedback shown to the refiner (all failing tests)", _pre(step.feedback))
    body += _call(run_dir, step.call, "refinement")
    if step.action == "refined":
        body += _details("refined code", code_html(step.code), open_=True)
    return _details(f"round {step.round}: {step.action}", body, open_=step.round == 1)


def rounds_rows(results: Results, attempt: Attempt, run_dir: Path) -> list[tuple[str, str]]:
    """``[("Rounds", html)]`` for an attempt whose code sample has a chain, else ``[]`` (runs without rounds)."""
    chain = chain_of(results, attempt)
    if chain is None:
        if not results.has(ARM):
            return []
        return [("Rounds", "<i>no chain for this code sample (see results.rounds.not_run)</i>")]
    intro = (
        f"<p>chain {html.escape(chain.chain_id)} · suites: {chain.round_tests} · round 0 (generated code) "
        f"benchmark <b>{_verdict(chain.initial_passed)}</b> · {len(chain.steps)} of {results.part(ARM).rounds} rounds"
        f"{' (stopped early)' if chain.steps and chain.steps[-1].action == 'stopped' else ''}</p>"
    )
    return [("Rounds", intro + "".join(_step_html(s, run_dir) for s in chain.steps))]


register_row_source(RowSource("rounds", sections=rounds_rows, order=20))


def section(results: Mapping[int, Results]) -> list[object]:
    """What the notebook displays, in order, for a study's results by seed: pass@1 per round (the mean over seeds
    with a mean +- SE band, or one run's 95% bootstrap band), then suite precision, collision and unreliable feedback
    per round over seeds as a table and a figure; a line saying so when the study has one round only."""
    import matplotlib.pyplot as plt  # after analysis.figures picks the backend (Agg outside a notebook)

    frames = report.per_round_by_seed(results)
    if not frames:
        return [lines(["one round only"])]
    pass_at_1 = report.plot_pass_at_1_per_round(frames).figure
    over_seeds = report.rounds_over_seeds(frames)
    shares = report.plot_rounds_over_seeds(over_seeds)
    for figure in (pass_at_1, shares):
        plt.close(figure)  # shown once, by the notebook's display: the inline backend would draw it again
    return [pass_at_1, fit(over_seeds.round(2)), shares]
