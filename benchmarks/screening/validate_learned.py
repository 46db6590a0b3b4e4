"""Honest validation of the learned gold-free screener on real labelled test-fail feedback (never simulated).

Sources: every real coder of the run directories (CodeT's CodeGen and Reflexion's GPT-4 final solutions, replayed)
and the failing tests of their replayed trajectory steps, one source per trajectory set (one run of a model: two runs
of a model, such as GPT-4o's default run and its `no-unit` run, are two sources, never pooled). Unit of analysis: one
test-fail feedback item; intervals and tests are clustered by task. Prints:

- per source: items, tasks and classes;
- **held out by source, task-disjoint** (the protocol, `screener.transfer`): for each source, the model is trained on
  the other sources minus every item on one of the held-out source's tasks and every item whose test text is one of
  the held-out source's tests, and its threshold is chosen inside that training data (the maximum-MCC threshold of
  its own grouped out-of-fold probabilities), never on the items scored. Beside the AUROC (with its 95% task-bootstrap
  percentile interval), the trivial baselines on the same items (`screener.baselines`: the empty-solution flag, the
  test-code-error flag, the feedback-without-content flag, and the best single feature chosen on the training
  data), and the screener against the best of them: the paired AUROC difference with its task-bootstrap interval and
  the task-swap permutation p (`analysis.inference.paired_tasks.swap_test` of `measures.paired_level_cells`),
  Holm-adjusted over the held-out sources. Reflexion's GPT-4 final solutions are also split into empty and non-empty
  solutions (`replay.empty_solution.is_empty_solution`); a part with one class has no AUROC;
- the ablation: the held-out AUROC without the features of the task's own examples (`EXAMPLE_FEATURES`);
- with `--pooled-cv`: grouped-by-task 5-fold cross-validation over all sources with nested thresholds (each fold's
  threshold chosen on its training part), per source (not transfer: every source is in training); a reliability
  figure.

    uv run tfr stage all --params benchmarks/screening/replay_humaneval.yaml --run-dir runs/screening_replay_humaneval
    uv run tfr stage all --params papermill_params/trajectories.yaml --run-dir runs/trajectories
    uv run python benchmarks/screening/validate_learned.py --run-dir runs/screening_replay_humaneval \
        --run-dir runs/trajectories --pooled-cv  # the kept output: benchmarks/screening/validate_learned.out
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import matthews_corrcoef, roc_auc_score
from statsmodels.stats.multitest import multipletests

from tfr_helpers.analysis.inference.clustered import resampler
from tfr_helpers.analysis.inference.measures import paired_level_cells
from tfr_helpers.analysis.inference.paired_tasks import swap_test
from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.cache import ExecutionCache
from tfr_helpers.screener.baselines import FLAG_SIGNS, FLAGS, best_single_feature
from tfr_helpers.screener.dataset import Example, as_arrays, examples_of_runs
from tfr_helpers.screener.features import FEATURES
from tfr_helpers.screener.train import best_threshold, fit_linear, nested_out_of_fold, out_of_fold
from tfr_helpers.screener.transfer import held_out_split

RESAMPLES = 500
LEVEL_DIGITS = 3
"""Scores are rounded to this many decimals for the paired AUROC test (its cells hold one column per score level)."""
EXAMPLE_FEATURES = tuple(
    f
    for f in (
        "has_prompt_examples",
        "prompt_example_pass_share",
        "matches_example_input",
        "contradicts_example",
        "example_input_distance",
    )
    if f in FEATURES
)
"""The features of the task's own examples (left out in the ablation)."""
REFLEXION = "replay:reflexion-gpt4-humaneval"
EMPTY = FLAGS.index("empty_solution")
Stat = Callable[[np.ndarray, np.ndarray, np.ndarray | None], float]


def _featurise(run_dir: Path) -> list[Example]:
    """A run's examples, the prompt examples' runs served by the execution cache (as `tfr screen train` does)."""
    limits, runs = Limits(timeout_s=10.0), ExecutionCache()
    with Sandbox(limits) as sandbox:

        def execute(jobs: Sequence[tuple[str, Sequence[TestSpec]]]) -> list[ProgramRun]:
            return runs.run_many(jobs, limits, lambda todo: sandbox.run_many(todo, desc="prompt examples"))

        return examples_of_runs([run_dir], execute)


def _examples(run_dirs: list[Path]) -> list[Example]:
    """Each run directory's examples (cached in it per feature set), each (source, feedback) once."""
    tag = hashlib.sha256(json.dumps([FEATURES, FLAGS, 2]).encode()).hexdigest()[:10]
    out: dict[tuple[str, str], Example] = {}
    for d in run_dirs:
        cache = d / f"learned_examples-{tag}.json"
        if cache.exists():
            found = [
                Example(
                    tuple(e["features"]), e["label"], e["task"], e["source"], e["feedback_id"], e["test"], tuple(e["flags"])
                )
                for e in json.loads(cache.read_text())
            ]
        else:
            found = _featurise(d)
            cache.write_text(json.dumps([asdict(e) for e in found]))
        out.update({(e.source, e.feedback_id): e for e in found})
    return list(out.values())


def _auroc(y: np.ndarray, p: np.ndarray, w: np.ndarray | None = None) -> float:
    return float(roc_auc_score(y, p, sample_weight=w))


def _interval(stat: Stat, y: np.ndarray, p: np.ndarray, tasks: np.ndarray) -> str:
    """The statistic with its 95% task-bootstrap percentile interval (weights per row; resamples with both classes)."""
    rs = resampler(tasks.tolist(), n_resamples=RESAMPLES, seed=0)
    draws = []
    for r in rs.weights[:, rs.unit_of_row]:
        keep = r > 0
        if len(set(y[keep].tolist())) == 2:
            draws.append(stat(y[keep], p[keep], r[keep]))
    lo, hi = np.percentile(draws, [2.5, 97.5]) if draws else (np.nan, np.nan)
    return f"{stat(y, p, None):.3f} [{lo:.3f}, {hi:.3f}]"


def _auroc_cell(y: np.ndarray, p: np.ndarray, tasks: np.ndarray) -> str:
    if len(set(y.tolist())) < 2:
        return f"no AUROC (one class: {int(y.sum())} unreliable of {len(y)})"
    return _interval(_auroc, y, p, tasks)


def _mcc_cell(y: np.ndarray, p: np.ndarray, t: np.ndarray, tasks: np.ndarray) -> str:
    rs = resampler(tasks.tolist(), n_resamples=RESAMPLES, seed=0)
    draws = []
    for r in rs.weights[:, rs.unit_of_row]:
        keep = r > 0
        draws.append(float(matthews_corrcoef(y[keep], p[keep] >= t[keep], sample_weight=r[keep])))
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return f"{matthews_corrcoef(y, p >= t):.3f} [{lo:.3f}, {hi:.3f}]"


def paired_auroc(y: np.ndarray, a: np.ndarray, b: np.ndarray, tasks: np.ndarray) -> tuple[float, float, float, str]:
    """AUROC(a) - AUROC(b) on the same items: the difference, its 95% task-bootstrap interval and the task-swap
    permutation p (as text: a number, or why there is none)."""
    cells, swapped, stat = paired_level_cells(np.round(a, LEVEL_DIGITS), np.round(b, LEVEL_DIGITS), y.astype(bool))
    rs = resampler(tasks.tolist(), n_resamples=RESAMPLES, seed=0)
    _, boot = rs.sums(cells)
    draws = stat(boot)
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    test = swap_test(tasks, cells, swapped, stat)
    p = f"{test.p_value:.4f}" if test.p_value is not None else test.status
    return test.value, float(lo), float(hi), p


def _held_out(examples: list[Example], x: np.ndarray, y: np.ndarray, tasks: np.ndarray, sources: np.ndarray) -> None:
    print("\nheld out by source, task-disjoint (trained on the other sources without the held-out tasks and tests;")
    print("threshold chosen inside the training data; baselines on the same items; paired test against the best)")
    flags = np.array([e.flags for e in examples], dtype=float)
    rows = []
    ablation = []
    keep = [i for i, f in enumerate(FEATURES) if f not in EXAMPLE_FEATURES]
    for s in sorted(set(sources.tolist())):
        split = held_out_split(examples, s)
        test, train_ = split.test, split.train
        n_tasks = len(set(tasks[test].tolist()))
        head = (
            f"  {s}: {test.sum()} items, {n_tasks} tasks, {int((y[test] == 0).sum())} reliable / "
            f"{int(y[test].sum())} unreliable; trained on {train_.sum()} items ({split.dropped_tasks} dropped for a "
            f"held-out task, {split.dropped_tests} more for a held-out test)"
        )
        print(head)
        if len(set(y[train_].tolist())) < 2 or len(set(y[test].tolist())) < 2:
            print("    one class only on one side: no AUROC")
            continue
        model = fit_linear(x[train_], y[train_], tasks[train_])
        q = model.proba(x[test])
        inner, _, _ = out_of_fold(x[train_], y[train_], tasks[train_], "linear")
        t = np.full(test.sum(), best_threshold(inner, y[train_]))
        yt, tt = y[test], tasks[test]
        print(f"    screener: AUROC {_auroc_cell(yt, q, tt)}, MCC at {t[0]:.3f} {_mcc_cell(yt, q, t, tt)}")
        single = best_single_feature(x[train_], y[train_])
        scores = {name: FLAG_SIGNS[k] * flags[test, k] for k, name in enumerate(FLAGS)}
        scores[f"best single feature ({FEATURES[single.index]}, {'+' if single.sign > 0 else '-'})"] = single.score(x[test])
        aurocs = {name: _auroc(yt, v) for name, v in scores.items()}
        print("    baselines: " + "; ".join(f"{name} {a:.3f}" for name, a in aurocs.items()))
        best = max(aurocs, key=lambda k: aurocs[k])
        diff, lo, hi, p = paired_auroc(yt, q, scores[best], tt)
        rows.append((s, diff, lo, hi, p, best, aurocs[best], _auroc(yt, q)))
        if s == REFLEXION:
            empty = flags[test, EMPTY] > 0
            for label, m in (("empty solutions", empty), ("non-empty solutions", ~empty)):
                n = len(set(tt[m].tolist()))
                print(f"    {label}: {m.sum()} items, {n} tasks: AUROC {_auroc_cell(yt[m], q[m], tt[m])}")
        if len(keep) < len(FEATURES):
            m2 = fit_linear(x[train_][:, keep], y[train_], tasks[train_])
            ablation.append((s, _auroc_cell(yt, q, tt), _auroc_cell(yt, m2.proba(x[test][:, keep]), tt)))
    tested = [i for i, r in enumerate(rows) if r[4].replace(".", "", 1).isdigit()]
    adjusted = dict(zip(tested, multipletests([float(rows[i][4]) for i in tested], method="holm")[1], strict=True))
    print("\nscreener against the best trivial baseline on the same held-out items (paired by task; Holm over sources)")
    for i, (s, diff, lo, hi, p, best, best_auc, auc) in enumerate(rows):
        holm = f"{adjusted[i]:.4f}" if i in adjusted else "none"
        beats = "beats it" if i in adjusted and adjusted[i] < 0.05 and diff > 0 else "does not beat it"
        if i in adjusted and adjusted[i] < 0.05 and diff < 0:
            beats = "is beaten by it"
        print(
            f"  {s}: screener {auc:.3f} vs {best} {best_auc:.3f}: difference {diff:+.3f} [{lo:+.3f}, {hi:+.3f}], "
            f"p {p}, Holm {holm}: {beats}"
        )
    if ablation:
        print("\nablation: held-out AUROC with and without the features of the task's own examples")
        print(f"  (left out: {', '.join(EXAMPLE_FEATURES)})")
        for s, with_, without in ablation:
            print(f"  {s}: with {with_}; without {without}")


def _figure(y: np.ndarray, p: np.ndarray, sources: np.ndarray, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    for s in sorted(set(sources.tolist())):
        m = sources == s
        if len(set(y[m].tolist())) == 2 and m.sum() >= 40:
            frac, mean = calibration_curve(y[m], p[m], n_bins=6, strategy="quantile")
            ax.plot(mean, frac, marker="o", label=s)
    ax.plot([0, 1], [0, 1], "k:", lw=1)
    ax.set(
        xlabel="predicted P(unreliable), out-of-fold", ylabel="observed unreliable share", title="Reliability (real data)"
    )
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--run-dir", type=Path, action="append", required=True)
    ap.add_argument(
        "--pooled-cv",
        action="store_true",
        help="also the grouped 5-fold CV over all sources (not transfer) and its reliability figure (slow)",
    )
    ap.add_argument("--figure", type=Path, default=Path("benchmarks/screening/reliability.png"))
    args = ap.parse_args()
    examples = _examples(args.run_dir)
    x, y, tasks, sources = as_arrays(examples)
    print(f"real feedback (replayed data): {len(y)} items, {int(y.sum())} unreliable, {len(set(tasks.tolist()))} tasks")
    print(f"features: {len(FEATURES)} ({len(EXAMPLE_FEATURES)} from the task's own examples)")
    for s in sorted(set(sources.tolist())):
        m = sources == s
        print(f"  {s}: {m.sum()} items, {int((y[m] == 0).sum())} reliable, {len(set(tasks[m].tolist()))} tasks")
    _held_out(examples, x, y, tasks, sources)
    if not args.pooled_cv:
        return
    p, t, per_fold = nested_out_of_fold(x, y, tasks)
    print(
        "\ngrouped-by-task 5-fold CV over all sources (not transfer: every source in training), nested thresholds "
        f"({', '.join(f'{v:.3f}' for v in per_fold)})"
    )
    for s in sorted(set(sources.tolist())):
        m = sources == s
        if len(set(y[m].tolist())) < 2:
            print(f"  {s}: {m.sum()} items: no AUROC (one class)")
            continue
        print(
            f"  {s}: {m.sum()} items: AUROC {_auroc_cell(y[m], p[m], tasks[m])}, MCC {_mcc_cell(y[m], p[m], t[m], tasks[m])}"
        )
    _figure(y, p, sources, args.figure)
    print(f"reliability figure: {args.figure}")


if __name__ == "__main__":
    main()
