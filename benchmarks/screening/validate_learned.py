"""Honest validation of the learned gold-free screener on a run directory's real (replayed) feedback.

Prints, per real source: grouped-by-task cross-validated AUROC (5 folds, no task in two folds) with a cluster
(task) bootstrap interval, MCC at the threshold chosen on the out-of-fold probabilities, the Brier score, and a
reliability figure; leave-one-source-out AUROC for every source holding both classes; and, paired on the same
feedback, the MCC of the learned screener against `reject_test_code_errors` and the best consensus screener
(the run's own decisions), with a task-bootstrap interval of the difference.

    uv run tfr stage all --params benchmarks/screening/replay_humaneval.yaml --run-dir runs/screening_replay_humaneval
    uv run python benchmarks/screening/validate_learned.py --run-dir runs/screening_replay_humaneval

Training data are a plain list of Example(features, label, task, source): another real source (trajectory steps)
is added by appending its examples (tfr_helpers.screener.dataset.examples_from_items) before the evaluation.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, matthews_corrcoef, roc_auc_score

from tfr_helpers.analysis import load_results
from tfr_helpers.analysis.inference.clustered import resampler
from tfr_helpers.sandbox import Limits, Sandbox
from tfr_helpers.screener.dataset import Example, as_arrays, examples_from_run
from tfr_helpers.screener.train import best_threshold, fit_linear, out_of_fold

RESAMPLES = 500
CONSENSUS = ("consensus_codet_top", "consensus_b4", "consensus_dual_critic", "consensus_dawid_skene")


def _examples(run_dir: Path, cache: Path) -> list[Example]:
    if cache.exists():
        return [
            Example(tuple(e["features"]), e["label"], e["task"], e["source"], e["feedback_id"])
            for e in json.loads(cache.read_text())
        ]
    with Sandbox(Limits(timeout_s=10.0)) as sandbox:
        examples = examples_from_run(run_dir, lambda jobs: sandbox.run_many(jobs))
    cache.write_text(json.dumps([asdict(e) for e in examples]))
    return examples


def _boot(stat, y, p, tasks):  # noqa: ANN001, ANN202
    rs = resampler(tasks, n_resamples=RESAMPLES, seed=0)
    w = rs.weights[:, rs.unit_of_row]
    draws = []
    for row in w:
        keep = row > 0
        if len(set(y[keep].tolist())) == 2:
            draws.append(stat(y[keep], p[keep], row[keep]))
    return np.percentile(draws, [2.5, 97.5])


def _auroc(y, p, w=None):  # noqa: ANN001, ANN202
    return roc_auc_score(y, p, sample_weight=w)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run-dir", type=Path, required=True)
    ap.add_argument("--figure", type=Path, default=Path("benchmarks/screening/reliability.png"))
    args = ap.parse_args()
    examples = _examples(args.run_dir, args.run_dir / "learned_examples.json")
    x, y, tasks, sources = as_arrays(examples)
    print(f"real feedback: {len(y)} items, {int(y.sum())} unreliable, {len(set(tasks.tolist()))} tasks (replayed data)")
    p, _, _ = out_of_fold(x, y, tasks, "linear")
    t = best_threshold(p, y)
    print(f"threshold (max MCC on out-of-fold probabilities): {t:.3f}")
    print("\ngrouped-by-task 5-fold CV (trained on all sources, scored per source)")
    for s in sorted(set(sources.tolist())):
        m = sources == s
        n_rel = int((y[m] == 0).sum())
        if n_rel < 10 or int(y[m].sum()) < 10:
            print(f"  {s}: {m.sum()} items, {n_rel} reliable: too few of one class for an AUROC")
            continue
        lo, hi = _boot(_auroc, y[m], p[m], tasks[m])
        mcc = matthews_corrcoef(y[m], p[m] >= t)
        mlo, mhi = _boot(lambda a, b, w: matthews_corrcoef(a, b >= t, sample_weight=w), y[m], p[m], tasks[m])
        brier = brier_score_loss(y[m], p[m])
        print(
            f"  {s}: {m.sum()} items ({n_rel} reliable), AUROC {_auroc(y[m], p[m]):.3f} [{lo:.3f}, {hi:.3f}], "
            f"MCC {mcc:.3f} [{mlo:.3f}, {mhi:.3f}], Brier {brier:.3f}"
        )
    fig, ax = plt.subplots(figsize=(4, 4))
    for s in sorted(set(sources.tolist())):
        m = sources == s
        frac, mean = calibration_curve(y[m], p[m], n_bins=8, strategy="quantile")
        ax.plot(mean, frac, marker="o", label=s.split(":")[-1])
    ax.plot([0, 1], [0, 1], "k:", lw=1)
    ax.set(
        xlabel="predicted P(unreliable), out-of-fold",
        ylabel="observed unreliable share",
        title="Reliability (replayed data)",
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.figure, dpi=120)
    print(f"reliability figure: {args.figure}")
    print("\nleave-one-source-out (trained on the other sources, all their tasks)")
    for s in sorted(set(sources.tolist())):
        test, train_ = sources == s, sources != s
        if len(set(y[train_].tolist())) < 2 or len(set(y[test].tolist())) < 2:
            print(f"  held out {s}: one class only on one side, no AUROC")
            continue
        q = fit_linear(x[train_], y[train_], tasks[train_]).proba(x[test])
        lo, hi = _boot(_auroc, y[test], q, tasks[test])
        print(f"  held out {s}: AUROC {_auroc(y[test], q):.3f} [{lo:.3f}, {hi:.3f}] ({test.sum()} items)")
    print("\npaired on the same feedback: MCC of learned_gold_free (out-of-fold) minus another screener's")
    results = load_results(args.run_dir)
    decided = {(d.strategy, d.feedback_id): d.decision == "reject" for d in results.screening}
    fids = np.array([e.feedback_id for e in examples])
    for s in sorted(set(sources.tolist())):
        m = sources == s
        rows = []
        for other in ("reject_test_code_errors", *CONSENSUS):
            rej = np.array([decided.get((other, f), False) for f in fids[m]])
            rows.append((other, matthews_corrcoef(y[m], rej), rej))
        best = max((r for r in rows if r[0] in CONSENSUS), key=lambda r: r[1])
        for name, score, rej in (rows[0], best):
            own = matthews_corrcoef(y[m], p[m] >= t)
            rs = resampler(tasks[m], n_resamples=RESAMPLES, seed=0)
            w = rs.weights[:, rs.unit_of_row]
            d = [
                matthews_corrcoef(y[m], p[m] >= t, sample_weight=r) - matthews_corrcoef(y[m], rej, sample_weight=r)
                for r in w
            ]
            lo, hi = np.percentile(d, [2.5, 97.5])
            print(
                f"  {s}: learned {own:.3f} vs {name} {score:.3f} (rejects {rej.mean():.1%}): "
                f"difference {own - score:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )


if __name__ == "__main__":
    main()
