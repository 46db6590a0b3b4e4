"""The case browser's Rounds row: the backprompting rounds of the selected attempt's chain (docs/rounds.md).

The chain is the attempt's (coder, task, code sample); each round shows what the suite held, which tests failed
(with their reliability, measured against the reference), the feedback and prompt the refiner saw, its reply,
the refined code and its benchmark verdict.
"""

from __future__ import annotations

import html
from pathlib import Path

from tfr_helpers.records import Results
from tfr_helpers.records.rounds import RoundChain, RoundStep
from tfr_helpers.views.case_rows import RowSource, register_row_source
from tfr_helpers.views.cases import Attempt
from tfr_helpers.views.render import _call, _details, _pre, _verdict, code_html


def chain_of(results: Results, attempt: Attempt) -> RoundChain | None:
    """The chain of the attempt's code sample, or None (no rounds in the run, or no chain for it)."""
    if results.rounds is None:
        return None
    wanted = f"{attempt.model}|{attempt.task_id}|c{attempt.pair.code_index}"
    return next((c for c in results.rounds.chains if c.chain_id == wanted), None)


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
        if results.rounds is None:
            return []
        return [("Rounds", "<i>no chain for this code sample (see results.rounds.not_run)</i>")]
    intro = (
        f"<p>chain {html.escape(chain.chain_id)} · suites: {chain.round_tests} · round 0 (generated code) "
        f"benchmark <b>{_verdict(chain.initial_passed)}</b> · {len(chain.steps)} of {results.rounds.rounds} rounds"  # type: ignore[union-attr]
        f"{' (stopped early)' if chain.steps and chain.steps[-1].action == 'stopped' else ''}</p>"
    )
    return [("Rounds", intro + "".join(_step_html(s, run_dir) for s in chain.steps))]


register_row_source(RowSource("rounds", sections=rounds_rows, order=20))
