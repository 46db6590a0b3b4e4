"""Drawing a smaller study from a task's matrix: ``n`` of its code samples and ``m`` of its test samples.

Menet et al. (arXiv 2602.06098, Table 2) select among ``n = 10`` code samples with ``m = 10`` test samples per
task, drawn from larger pools; CodeT's published generations hold 100 of each. :func:`draw` cuts one task's
matrix (and its benchmark verdicts) down to a uniform draw without replacement, so every ranker runs on the
smaller matrix unchanged:

- the drawn code samples keep their programs (a program stands for the drawn samples it holds: its multiplicity);
- the drawn test samples keep their suites. A test sample that held no test (about 87% of CodeGen's, docs/replay.md)
  is drawn like any other and brings no suite, unless ``only_suites`` draws among the suites alone;
- the tests are the unique tests of the drawn suites, each counted as often as the drawn suites hold it;
- the outputs matrix keeps the inputs the kept tests expose (:func:`~tfr_helpers.consensus.outputs.exposed_inputs`).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.outputs import exposed_inputs
from tfr_helpers.errors import DataError


def draw(
    matrix: TaskMatrix,
    truth: TaskTruth,
    rng: np.random.Generator,
    n: int,
    m: int,
    test_samples: int,
    entry_point: str,
    only_suites: bool = False,
) -> tuple[TaskMatrix, TaskTruth]:
    """``n`` code samples and ``m`` test samples of one task, drawn uniformly without replacement.

    Args:
        matrix: The task's whole matrix.
        truth: Its benchmark verdicts.
        rng: The draw's generator (code samples are drawn first, then test samples).
        n: Code samples to keep (all when the task has fewer).
        m: Test samples to keep (all when the task has fewer).
        test_samples: Test samples the task had in all, the empty ones included (at least its suites).
        entry_point: The function under test (to find the inputs the kept tests expose).
        only_suites: Draw among the test samples that hold a test only.

    Returns:
        The smaller matrix and its verdicts.

    Raises:
        DataError: ``test_samples`` is smaller than the matrix's suites.
    """
    suites = [s for s in matrix.suites if s]
    if test_samples < len(suites):
        raise DataError(f"{matrix.task_id}: {test_samples} test samples cannot hold its {len(suites)} suites")
    owner = {sample: i for i, samples in enumerate(matrix.program_samples) for sample in samples}
    pool = sorted(owner)
    kept_samples = sorted(rng.choice(pool, size=min(n, len(pool)), replace=False).tolist())
    per_program = Counter(owner[s] for s in kept_samples)
    programs = sorted(per_program)
    total = len(suites) if only_suites else test_samples
    picked = rng.choice(total, size=min(m, total), replace=False)
    kept_suites = [suites[i] for i in sorted(picked.tolist()) if i < len(suites)]
    occurrences = Counter(j for s in kept_suites for j in s)
    tests = sorted(occurrences)
    column = {j: k for k, j in enumerate(tests)}
    texts = [matrix.tests[j] for j in tests]
    wanted = set(exposed_inputs(texts, entry_point))
    inputs = [k for k, text in enumerate(matrix.inputs) if text in wanted]
    outputs: list[list[str] | None] = []
    if matrix.outputs and inputs:
        for i in programs:
            row = matrix.outputs[i]
            outputs.append(None if row is None else [row[k] for k in inputs])
    small = TaskMatrix(
        task_id=matrix.task_id,
        semantics=matrix.semantics,
        program_ids=[matrix.program_ids[i] for i in programs],
        program_samples=[[s for s in kept_samples if owner[s] == i] for i in programs],
        tests=texts,
        test_counts=[occurrences[j] for j in tests],
        suites=[[column[j] for j in s] for s in kept_suites],
        passes=["".join(matrix.passes[i][j] for j in tests) for i in programs],
        executed=[matrix.executed[i] for i in programs],
        inputs=[matrix.inputs[k] for k in inputs] if outputs else [],
        outputs=outputs,
    )
    return small, TaskTruth(task_id=truth.task_id, correct=[truth.correct[i] for i in programs])
