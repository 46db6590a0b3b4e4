"""Honest validation of the learned gold-free screener on real labelled test-fail feedback (never simulated).

Sources: every real coder of the run directories (CodeT's CodeGen and Reflexion's GPT-4 final solutions, replayed)
and the failing tests of their replayed trajectory steps (one source per model: ``trajectories:<model>``). Prints,
per source: items and classes; grouped-by-task cross-validated AUROC (5 folds, no task in two folds) with a cluster
(task) bootstrap interval, MCC at the threshold chosen on the out-of-fold probabilities and the Brier score, each
with its interval; Reflexion's GPT-4 final solutions split into empty and non-empty solutions; leave-one-source-out
(trained on every other source, threshold chosen on the training sources' out-of-fold probabilities) for every
source holding both classes; a reliability figure; and, paired on the same feedback of a replayed coder, the MCC of
the learned screener against `reject_test_code_errors` and the best consensus screener (the run's own decisions).

    uv run tfr stage all --params benchmarks/screening/replay_humaneval.yaml --run-dir runs/screening_replay_humaneval
    uv run tfr stage all --params benchmarks/screening/trajectories.yaml --run-dir runs/screening_trajectories
    uv run python benchmarks/screening/validate_learned.py --run-dir runs/screening_replay_humaneval \
        --run-dir runs/screening_trajectories
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Callable
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
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import GeneratedCode
from tfr_helpers.results_file import has_results
from tfr_helpers.sandbox import Limits, Sandbox
from tfr_helpers.screener.dataset import Example, as_arrays, checkpoint_records, examples_of_runs
from tfr_helpers.screener.train import best_threshold, fit_linear, out_of_fold

RESAMPLES = 500
CONSENSUS = ("consensus_codet_top", "consensus_b4", "consensus_dual_critic", "consensus_dawid_skene")
TARGET = 0.75
Stat = Callable[[np.ndarray, np.ndarray, np.ndarray | None], float]


def _examples(run_dirs: list[Path]) -> list[Example]:
    """Each run directory's examples (cached in it as learned_examples.json), each (source, feedback) once."""
    out: dict[tuple[str, str], Example] = {}
    for d in run_dirs:
        cache = d / "learned_examples.json"
        if cache.exists():
            found = [
                Example(tuple(e["features"]), e["label"], e["task"], e["source"], e["feedback_id"])
                for e in json.loads(cache.read_text())
            ]
        else:
            with Sandbox(Limits(timeout_s=10.0)) as sandbox:
                found = examples_of_runs([d], lambda jobs: sandbox.run_many(jobs))
            cache.write_text(json.dumps([asdict(e) for e in found]))
        out.update({(e.source, e.feedback_id): e for e in found})
    return list(out.values())


def _auroc(y: np.ndarray, p: np.ndarray, w: np.ndarray | None = None) -> float:
    return float(roc_auc_score(y, p, sample_weight=w))


def _brier(y: np.ndarray, p: np.ndarray, w: np.ndarray | None = None) -> float:
    return float(brier_score_loss(y, p, sample_weight=w))


def _mcc(t: float) -> Stat:
    return lambda y, p, w=None: float(matthews_corrcoef(y, p >= t, sample_weight=w))


def _cell(stat: Stat, y: np.ndarray, p: np.ndarray, tasks: np.ndarray) -> str:
    """The statistic with its 95% task-bootstrap percentile interval (resamples holding both classes)."""
    rs = resampler(tasks.tolist(), n_resamples=RESAMPLES, seed=0)
    rows = rs.weights[:, rs.unit_of_row]
    draws = [stat(y[r > 0], p[r > 0], r[r > 0]) for r in rows if len(set(y[r > 0].tolist())) == 2]
    lo, hi = np.percentile(draws, [2.5, 97.5]) if draws else (np.nan, np.nan)
    return f"{stat(y, p, None):.3f} [{lo:.3f}, {hi:.3f}]"


def _scores(y: np.ndarray, p: np.ndarray, tasks: np.ndarray, t: float) -> str:
    if len(set(y.tolist())) < 2:
        return f"one class only ({int(y.sum())} unreliable of {len(y)}): AUROC and MCC undefined, Brier {_brier(y, p):.3f}"
    return (
        f"AUROC {_cell(_auroc, y, p, tasks)}, MCC at {t:.3f} {_cell(_mcc(t), y, p, tasks)}, "
        f"Brier {_cell(_brier, y, p, tasks)}"
    )


def _docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _is_empty(code: str, entry_point: str) -> bool:
    """The entry point's body is its docstring only (an empty published solution after the prompt)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return all(
                isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)) for b in node.body
            )
    return False


def _empty_solutions(run_dirs: list[Path]) -> set[tuple[str, str]]:
    """(model, task) of the replayed coders' empty solutions (the prompt's function with no body)."""
    out = set()
    for d in run_dirs:
        for c in checkpoint_records(RunStore(d), "generated_codes", GeneratedCode):
            if _is_empty(c.code or "", get_task(c.task_id).entry_point):
                out.add((c.model, c.task_id))
    return out


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


def _paired(run_dirs: list[Path], examples: list[Example], y: np.ndarray, p: np.ndarray, t: float) -> None:
    print("\npaired on the same feedback: MCC of learned_gold_free (out-of-fold) minus another screener's")
    decided = {}
    for d in run_dirs:
        if has_results(d):
            decided.update({(s.strategy, s.feedback_id): s.decision == "reject" for s in load_results(d).screening})
    fids = np.array([e.feedback_id for e in examples])
    sources = np.array([e.source for e in examples])
    tasks = np.array([e.task for e in examples])
    for s in sorted(set(sources.tolist())):
        m = sources == s
        if not any((other, f) in decided for other in CONSENSUS for f in fids[m][:50]):
            continue
        rows = []
        for other in ("reject_test_code_errors", *CONSENSUS):
            rej = np.array([decided.get((other, f), False) for f in fids[m]])
            rows.append((other, matthews_corrcoef(y[m], rej), rej))
        best = max((r for r in rows if r[0] in CONSENSUS), key=lambda r: r[1])
        own = matthews_corrcoef(y[m], p[m] >= t)
        for name, score, rej in (rows[0], best):
            rs = resampler(tasks[m].tolist(), n_resamples=RESAMPLES, seed=0)
            d = [
                matthews_corrcoef(y[m], p[m] >= t, sample_weight=r) - matthews_corrcoef(y[m], rej, sample_weight=r)
                for r in rs.weights[:, rs.unit_of_row]
            ]
            lo, hi = np.percentile(d, [2.5, 97.5])
            print(
                f"  {s}: learned {own:.3f} vs {name} {score:.3f} (rejects {rej.mean():.1%}): "
                f"difference {own - score:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--run-dir", type=Path, action="append", required=True)
    ap.add_argument("--figure", type=Path, default=Path("benchmarks/screening/reliability.png"))
    args = ap.parse_args()
    examples = _examples(args.run_dir)
    x, y, tasks, sources = as_arrays(examples)
    print(f"real feedback: {len(y)} items, {int(y.sum())} unreliable, {len(set(tasks.tolist()))} tasks (replayed data)")
    for s in sorted(set(sources.tolist())):
        m = sources == s
        print(f"  {s}: {m.sum()} items, {int((y[m] == 0).sum())} reliable, {len(set(tasks[m].tolist()))} tasks")
    p, _, _ = out_of_fold(x, y, tasks, "linear")
    t = best_threshold(p, y)
    print(f"threshold (max MCC on out-of-fold probabilities): {t:.3f}")
    print("\ngrouped-by-task 5-fold CV (trained on all sources, scored per source)")
    for s in sorted(set(sources.tolist())):
        m = sources == s
        print(f"  {s}: {m.sum()} items: {_scores(y[m], p[m], tasks[m], t)}")
    empty = _empty_solutions(args.run_dir)
    gpt4 = sources == "replay:reflexion-gpt4-humaneval"
    if gpt4.any():
        is_empty = np.array([(s, k) in empty for s, k in zip(sources, tasks, strict=True)])
        for label, m in (("empty solutions", gpt4 & is_empty), ("non-empty solutions", gpt4 & ~is_empty)):
            if m.any():
                print(f"  replay:reflexion-gpt4-humaneval, {label}: {m.sum()} items: {_scores(y[m], p[m], tasks[m], t)}")
    _figure(y, p, sources, args.figure)
    print(f"reliability figure: {args.figure}")
    print("\nleave-one-source-out (trained on every other source; threshold from their out-of-fold probabilities)")
    met = []
    for s in sorted(set(sources.tolist())):
        test, train_ = sources == s, sources != s
        if len(set(y[train_].tolist())) < 2 or len(set(y[test].tolist())) < 2:
            print(f"  held out {s}: one class only on one side ({int(y[test].sum())} unreliable of {test.sum()}), no AUROC")
            continue
        q = fit_linear(x[train_], y[train_], tasks[train_]).proba(x[test])
        inner, _, _ = out_of_fold(x[train_], y[train_], tasks[train_], "linear")
        t_s = best_threshold(inner, y[train_])
        print(f"  held out {s} ({test.sum()} items): {_scores(y[test], q, tasks[test], t_s)}")
        met += [s] if _auroc(y[test], q) >= TARGET else []
    print(f"held-out sources with AUROC >= {TARGET}: {len(met)} ({', '.join(met) or 'none'})")
    _paired(args.run_dir, examples, y, p, t)


if __name__ == "__main__":
    main()
