"""Print the size of the study's tests and the coverage of its intervals on simulated clustered data.

    uv run python benchmarks/stats/size_and_coverage.py [--replications 500] [--resamples 2000] [--seed 0]
    uv run python benchmarks/stats/size_and_coverage.py --by-code-sample [--replications 300]

For 15, 20 and 164 tasks and intraclass correlation 0.1 and 0.3: the rejection rate at 0.05 of each test when
there is no effect, the size and power of the primary test of a screener (its MCC = 0) against the former one,
and the coverage of each 95% interval of a pooled share of 0.6 and 0.876 (``--by-code-sample``: only the primary
test's size when reliability and decisions also vary by code sample within a task)
(``tfr_helpers/analysis/inference/calibration.py`` says how the data are drawn). Simulated data: these numbers
describe the methods, not the study's results.
"""

from __future__ import annotations

import argparse
import time

from tfr_helpers.analysis.inference.calibration import (
    BY_CODE_SAMPLE,
    INTERVALS,
    PRIMARY,
    TESTS,
    coverage_of_intervals,
    primary_rejection,
    primary_size_by_code_sample,
    size_of_tests,
)

TASKS = (15, 20, 164)
ICCS = (0.1, 0.3)
SHARES = (0.6, 0.876)
EFFECTS = (0.0, 0.05, 0.1, 0.2)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--permutations", type=int, default=999)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--by-code-sample", action="store_true", help="only the primary test under code-sample ICC")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.by_code_sample:
        _by_code_sample(args.replications, args.seed)
        print(f"\n({time.perf_counter() - start:.0f} s)")
        return
    print(f"Simulated: {args.replications} replications, {args.resamples} resamples, seed {args.seed}.\n")
    print("Rejection rate under no effect (alpha 0.05; rates of about 0.3, 1 + Poisson(10) instances per task)\n")
    extra = ("too few tasks", "difference interval coverage")
    print("| tasks | ICC | " + " | ".join((*TESTS, *extra)) + " |")
    print("|---" * (2 + len(TESTS) + len(extra)) + "|")
    for n_tasks in TASKS:
        for icc in ICCS:
            rates = size_of_tests(
                n_tasks,
                icc,
                replications=args.replications,
                n_resamples=args.resamples,
                n_permutations=args.permutations,
                seed=args.seed,
            )
            print(f"| {n_tasks} | {icc} | " + " | ".join(_pct(rates[k]) for k in (*TESTS, *extra)) + " |", flush=True)
    print(
        "\nThe primary test of a screener, MCC = 0 (alpha 0.05; reliable share about 0.3, the screener rejects "
        "about 30% of feedback, plus the effect on unreliable feedback and minus it on reliable; effect 0: size)\n"
    )
    print("| tasks | ICC | effect | mean MCC | " + " | ".join(PRIMARY) + " |")
    print("|---" * (4 + len(PRIMARY)) + "|")
    for n_tasks in TASKS:
        for icc in ICCS:
            for effect in EFFECTS:
                rates = primary_rejection(
                    n_tasks,
                    icc,
                    effect,
                    replications=args.replications,
                    n_permutations=args.permutations,
                    seed=args.seed,
                )
                cells = " | ".join(_pct(rates[k]) for k in PRIMARY)
                print(f"| {n_tasks} | {icc} | {effect} | {rates['mean MCC']:.3f} | {cells} |", flush=True)
    print("\nCoverage of 95% intervals of a pooled share (1 + Poisson(10) instances per task)\n")
    print("| tasks | ICC | share | " + " | ".join(INTERVALS) + " |")
    print("|---" * (3 + len(INTERVALS)) + "|")
    for n_tasks in TASKS:
        for icc in ICCS:
            for share in SHARES:
                cov = coverage_of_intervals(
                    n_tasks, icc, share, replications=args.replications, n_resamples=args.resamples, seed=args.seed
                )
                cells = " | ".join(_pct(cov[k]) for k in INTERVALS)
                print(f"| {n_tasks} | {icc} | {share} | {cells} |", flush=True)
    print(f"\n({time.perf_counter() - start:.0f} s)")


def _by_code_sample(replications: int, seed: int) -> None:
    print(f"Simulated: {replications} replications, seed {seed}.\n")
    print(
        "Size of the primary test (alpha 0.05; 10 code samples of 1 + Poisson(3) feedback per task, task ICC 0.3; "
        "reliability and decisions vary by code sample with the given ICC, independently: no effect)\n"
    )
    names = BY_CODE_SAMPLE
    print("| tasks | ICC among a task's code samples | " + " | ".join(names) + " |")
    print("|---" * (2 + len(names)) + "|")
    for n_tasks in TASKS:
        for icc_code in (0.1, 0.3):
            rates = primary_size_by_code_sample(n_tasks, icc_code, replications=replications, seed=seed)
            print(f"| {n_tasks} | {icc_code} | " + " | ".join(_pct(rates[k]) for k in names) + " |", flush=True)


if __name__ == "__main__":
    main()
