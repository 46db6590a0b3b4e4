"""What each control asks the refiner (docs/controls.md says the same in prose).

- ``resample``: the coder's own prompt (template ``codegen``: the task alone) to the refiner: a fresh generation,
  never the cached original.
- ``retry``: template ``retry``: the task and the code with a neutral request to check and fix it; no test, no
  failure.
- ``placebo``: template ``placebo`` (the text of ``refine``, versioned on its own) whose feedback is
  :func:`placebo_feedback`: the feedback's lines, each replaced by a fixed filler cut to its length.

Every control request carries a sample index of its own per feedback instance (:func:`instance_index`), so each
instance gets its own request even when two instances' prompts are the same (every retry of one code sample, say):
one control attempt per refined instance, never a reply shared through the response cache.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from tfr_helpers.models.jobs import CallJob, task_variables
from tfr_helpers.pipeline.steps.refine import RefineJob

INSTANCE_OFFSET = 1_000_000
"""Sample indices of control requests start here: far above any coder's code samples, so a resample is a new
request and not the generated code's cached reply."""
FILLER = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore "
    "magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo "
)
"""The one text every placebo line is cut from: the same for every task, so it says nothing about any."""
_FENCE = re.compile(r"^\s*```")


def instance_index(feedback_id: str) -> int:
    """The sample index of the control requests beside one feedback instance (stable: a hash of its id; it is part
    of the response cache key and of the simulated model's seed, and is never sent to a provider)."""
    return INSTANCE_OFFSET + int(hashlib.sha256(feedback_id.encode("utf-8")).hexdigest()[:6], 16)


def placebo_line(line: str) -> str:
    """A line of the same length and indentation whose text is the filler (fences and blank lines kept)."""
    if _FENCE.match(line) or not line.strip():
        return line
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    repeats = len(body) // len(FILLER) + 1
    return indent + (FILLER * repeats)[: len(body)]


def placebo_feedback(text: str) -> str:
    """The feedback's shape with no content: same lines, lengths, blank lines and code fences, filler text."""
    return "\n".join(placebo_line(line) for line in text.split("\n"))


def resample_request(item: RefineJob) -> CallJob:
    """A fresh generation from the task alone (the coder's prompt), at the instance's own sample index."""
    index = instance_index(item.feedback.feedback_id)
    return CallJob(item.refiner, "refiner", "codegen", task_variables(item.task), item.task, sample_index=index)


def retry_request(item: RefineJob) -> CallJob:
    """The task and the code with a neutral request to check and fix it (no test, no failure)."""
    variables = {**task_variables(item.task), "code": item.code}
    index = instance_index(item.feedback.feedback_id)
    return CallJob(item.refiner, "refiner", "retry", variables, item.task, sample_index=index)


def placebo_request(item: RefineJob) -> CallJob:
    """The refinement prompt with the feedback replaced by :func:`placebo_feedback` of it."""
    variables = {**task_variables(item.task), "code": item.code, "feedback": placebo_feedback(item.feedback.text)}
    index = instance_index(item.feedback.feedback_id)
    return CallJob(item.refiner, "refiner", "placebo", variables, item.task, sample_index=index)


TEMPLATES = {"resample": "codegen", "retry": "retry", "placebo": "placebo"}
"""The prompt template each control's request renders."""

REQUESTS: dict[str, Callable[[RefineJob], CallJob]] = {
    "resample": resample_request,
    "retry": retry_request,
    "placebo": placebo_request,
}
"""Each control's request."""
