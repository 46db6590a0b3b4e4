"""Menet et al.'s Table 2 on CodeT's published CodeGen-16B HumanEval generations: pass@1 of each selection heuristic,
hard and soft, with m = n = 10 code and test samples per task drawn from CodeT's 100 x 100, mean +- SE over 5 seeds.

Reads the matrices `tfr select` stores (CodeT's released protocol, `--semantics packed`; built here when missing,
about 7 minutes on 2 quiet cores), then, per seed, draws 10 of each task's 100 code samples and 10 of its 100 test
samples (`tfr_helpers.consensus.replication.subsample`) and runs every strategy on the drawn matrix
(`tfr_helpers.consensus.replication.seed_draws`). Prints:

- the table: random selection, MBR-Exec, MaxPass, CodeT (hard and soft), MBR-Exec over outputs (the paper's
  AlphaCode / FunCoder pair), B4 and CodeT's released score, pass@1 in percent, mean +- SE over the seeds;
- B4 against MaxPass Soft (the paper's Table S7);
- per family, soft minus hard paired by task (bootstrap interval over tasks, Wilcoxon, Holm) and the verdict;
- the same with the 10 test samples drawn among those that hold a test (`--only-suites` prints only that one),
  since about 87% of CodeGen's test samples hold no test;
- the estimators' diagnostics (`tfr_helpers.consensus.replication.diagnostics`: signal-to-noise, Spearman and Kendall with
  correctness, per task) on the whole 100 x 100 matrices and on the seeds' draws, and the data's profile (suites of
  one case, samples failing every test, tasks whose largest identical cluster is wrong, ties);
- the runtime.

Real data (CodeGen-Mono-16B's published generations), never simulated. Usage:
``TFR_BENCHMARK_DIR=... TFR_REPLAY_DIR=... uv run python benchmarks/consensus/menet_table2.py [--seeds 5]
[--select-dir runs/select_codet-codegen16b-humaneval] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

from tfr_helpers.consensus.execute import build_matrices
from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.replication.diagnostics import data_profile, diagnostics
from tfr_helpers.consensus.replication.seed_draws import (
    B4_PAIR,
    FAMILIES,
    compare,
    draw_tasks,
    run_draws,
    seed_table,
    verdict,
)
from tfr_helpers.replay import load_replay

DATASET = "codet-codegen16b-humaneval"


def _print_draws(
    title: str,
    matrices: list[TaskMatrix],
    truths: dict[str, TaskTruth],
    entry: dict[str, str],
    samples: dict[str, int],
    seeds: list[int],
    only_suites: bool,
) -> None:
    t0 = time.process_time()
    draws = run_draws(matrices, truths, entry, samples, seeds=seeds, only_suites=only_suites)
    table = seed_table(draws)
    cells = table.apply(lambda r: f"{r['pass@1 mean']:.2f} ± {r['SE']:.2f}", axis=1)
    print(f"\n## {title}\n")
    print(pd.DataFrame({"pass@1 (%)": cells, "fallback tasks (mean)": table["fallback tasks"].round(1)}).to_string())
    print("\nB4 against MaxPass Soft (Table S7):")
    b4 = compare(draws, {"B4 vs MaxPass Soft": B4_PAIR}).iloc[0]
    print(
        f"  b4 {cells['b4']} vs maxpass_soft {cells['maxpass_soft']}: difference {b4['difference']:+.2f} "
        f"[{b4['low']:+.2f}, {b4['high']:+.2f}] points, {b4['tasks better']} tasks better / {b4['tasks worse']} worse, "
        f"Wilcoxon p {b4['p']:.3g}: {verdict(b4, 'b4', 'maxpass_soft')}"
    )
    print("\nSoft minus hard, paired by task (mean over seeds per task; 95% bootstrap interval over tasks; Holm):")
    families = compare(draws, {name: pair for name, pair in FAMILIES.items()})
    for name, row in families.iterrows():
        hard, soft = FAMILIES[str(name)]
        print(
            f"  {name}: {soft} {cells[soft]} vs {hard} {cells[hard]}; difference {row['difference']:+.2f} "
            f"[{row['low']:+.2f}, {row['high']:+.2f}], {row['tasks better']} tasks better / {row['tasks worse']} worse "
            f"of {row['tasks']}, p {row['p']:.3g} (Holm {row['p (Holm)']:.3g}): {verdict(row, soft, hard)}"
        )
    print(f"(draws and rankers: {time.process_time() - t0:.1f} CPU-seconds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n", type=int, default=10, help="code samples per task (the paper: 10)")
    parser.add_argument("--m", type=int, default=10, help="test samples per task (the paper: 10)")
    parser.add_argument("--select-dir", type=Path, default=Path("runs") / f"select_{DATASET}")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only-suites", action="store_true", help="draw among the test samples that hold a test only")
    args = parser.parse_args()
    wall, cpu = time.monotonic(), time.process_time()
    dataset = load_replay(DATASET)
    matrices, truths, stats = build_matrices(dataset, args.select_dir, "packed", timeout=0.1, workers=args.workers)
    print(
        f"{DATASET} (CodeGen-Mono-16B, real generations): {len(matrices)} tasks, matrices {stats.cached_tasks} loaded "
        f"/ {len(matrices) - stats.cached_tasks} executed ({time.monotonic() - wall:.1f} s); n = {args.n} code and "
        f"m = {args.m} test samples per task, seeds 0..{args.seeds - 1}; pass@1 in percent, mean ± SE over seeds"
    )
    entry = {t: task.entry_point for t, task in dataset.tasks.items()}
    samples = {t: len(task.samples_of_kind("ebt")) for t, task in dataset.tasks.items()}
    seeds = list(range(args.seeds))
    variants = [(True, "m test samples drawn among those holding a test")]
    if not args.only_suites:
        variants.insert(0, (False, "m test samples drawn among all 100 (CodeGen's empty samples included)"))
    for only, title in variants:
        _print_draws(title, matrices, truths, entry, samples, seeds, only)
    t0 = time.process_time()
    pd.set_option("display.width", 200)
    print("\n## Estimator diagnostics (per task, over its executed code samples; median / mean over defined tasks)\n")
    print("whole matrices (100 code x 100 test samples):")
    print(diagnostics(matrices, truths).round(3).to_string())
    drawn = [d for seed in seeds for d in draw_tasks(matrices, truths, entry, samples, seed, args.n, args.m)]
    small = [d[0] for d in drawn]
    keyed = {f"{i}:{m.task_id}": m.model_copy(update={"task_id": f"{i}:{m.task_id}"}) for i, m in enumerate(small)}
    truth_keyed = {k: d[1].model_copy(update={"task_id": k}) for k, d in zip(keyed, drawn, strict=True)}
    print(f"\nthe draws (n = {args.n}, m = {args.m}, all test samples; every seed's tasks pooled, {len(small)} task draws):")
    print(diagnostics(list(keyed.values()), truth_keyed).round(3).to_string())
    print("\nprofile of the data (whole matrices):")
    for key, value in data_profile(matrices, truths).items():
        print(f"  {key}: {value:.1f}")
    print("profile of the draws:")
    for key, value in data_profile(list(keyed.values()), truth_keyed).items():
        print(f"  {key}: {value:.1f}")
    print(f"(diagnostics: {time.process_time() - t0:.1f} CPU-seconds)")
    print(
        f"\nruntime: {time.monotonic() - wall:.1f} s wall, {time.process_time() - cpu:.1f} CPU-seconds in this process "
        f"(load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    main()
