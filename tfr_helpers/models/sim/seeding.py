"""Deterministic randomness for the simulated model: every draw derives from a sha256 of the request."""

from __future__ import annotations

import hashlib
import json
import random


def request_rng(
    seed: int | str, model: str, template: str, task_id: str, variables: dict[str, str], sample_index: int
) -> random.Random:
    """A private ``random.Random`` seeded from a sha256 of everything that identifies one request.

    Never touches the global random state or the clock, so the same inputs give the same answer.

    Args:
        seed: The simulated model's seed (combined with the sampling seed when one is set).
        model: Full model name (``sim:default``).
        template: Prompt template name.
        task_id: Task id (empty when the request has no task).
        variables: The template's inputs.
        sample_index: Index of this sample among identical requests.

    Returns:
        A generator owned by the caller.
    """
    key = json.dumps([seed, model, template, task_id, sorted(variables.items()), sample_index])
    digest = hashlib.sha256(key.encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))
