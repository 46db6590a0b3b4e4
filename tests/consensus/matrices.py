"""Small hand-built matrices with known answers (see each test for the arithmetic)."""

from __future__ import annotations

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth


def build(
    task_id: str,
    rows: list[str],
    weights: list[int],
    test_counts: list[int],
    suites: list[list[int]] | None = None,
    executed: list[bool] | None = None,
) -> TaskMatrix:
    """A matrix from pass rows ('110'), program multiplicities and test multiplicities."""
    samples, start = [], 0
    for w in weights:
        samples.append(list(range(start, start + w)))
        start += w
    return TaskMatrix(
        task_id=task_id,
        program_ids=[f"p{i}" for i in range(len(rows))],
        program_samples=samples,
        tests=[f"assert f({j}) == {j}" for j in range(len(test_counts))],
        test_counts=test_counts,
        suites=suites or [],
        passes=rows,
        executed=executed or [True] * len(rows),
    )


def truth(matrix: TaskMatrix, correct: list[bool]) -> TaskTruth:
    """Benchmark verdicts for the matrix's programs."""
    return TaskTruth(task_id=matrix.task_id, correct=correct)


# A: p0 (2 samples) and p1 (1) pass t0,t1; p2 (1) passes t2; p3 (1) passes nothing. Every test occurs twice,
# in suites [t0,t1], [t2], [t1], [t0,t2]. Only p0 is correct.
A = build("HumanEval/0", ["110", "110", "001", "000"], [2, 1, 1, 1], [2, 2, 2], [[0, 1], [2], [1], [0, 2]])
A_TRUTH = truth(A, [True, False, False, False])

# B: two programs, one sample each, each passing a different test once: CodeT scores tie (1 * 1).
B = build("HumanEval/1", ["10", "01"], [1, 1], [1, 1])
B_TRUTH = truth(B, [True, False])

# C: nothing passes anything (no consensus); 1 of 3 samples correct.
C = build("HumanEval/2", ["00", "00"], [2, 1], [1, 1])
C_TRUTH = truth(C, [False, True])

# D: no test at all; 1 of 2 samples correct.
D = build("HumanEval/3", ["", ""], [1, 1], [])
D_TRUTH = truth(D, [True, False])

# E: no program passes the benchmark; p1 did not execute.
E = build("HumanEval/4", ["11", "00"], [3, 1], [1, 1], executed=[True, False])
E_TRUTH = truth(E, [False, False])
