"""The simulated judges: Accept or Reject a test-fail feedback with set error rates."""

from __future__ import annotations

import random

from tfr_helpers.models.sim.rates import SimRates


def judge_answer(model: str, reliable: bool | None, reasoning: bool, rng: random.Random, rates: SimRates) -> str:
    """The judge's answer text.

    Args:
        model: Full model name (named in the answer as simulated).
        reliable: Ground truth (does the reference pass the test?); None when it could not be measured,
            in which case the decision is a coin flip.
        reasoning: Write ``Reasoning:`` lines before the decision, with the lower ``judge_reasoning_error``.
        rng: The request's deterministic generator.
        rates: Error and undecided rates.

    Returns:
        Text whose last line is ``Decision: Accept`` or ``Decision: Reject``, or
        (at ``judge_undecided``) neither.
    """
    error = rates.judge_reasoning_error if reasoning else rates.judge_error
    roll = rng.random()
    lines = []
    if reasoning:
        lines.append(f"Reasoning: I am the simulated model {model}, not an LLM; this reasoning is a template.")
    if roll < rates.judge_undecided:
        lines.append(f"I, the simulated model {model} (not an LLM), cannot tell whether this test is right.")
        return "\n".join(lines) + "\n"
    roll -= rates.judge_undecided
    correct = roll >= error
    if reliable is None:
        accept = rng.random() < 0.5
    else:
        accept = reliable if correct else not reliable
    if reasoning:
        view = "agrees" if accept else "does not agree"
        lines.append(f"Reasoning: the failing test's expectation {view} with the task description as I read it.")
    else:
        lines.append(f"The simulated model {model} (not an LLM) has judged this feedback.")
    lines.append("Decision: Accept" if accept else "Decision: Reject")
    return "\n".join(lines) + "\n"
