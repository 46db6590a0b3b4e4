"""Multi-round backprompting per round (docs/rounds.md): pass@1, suites, collisions, transitions.

Every number comes from the run's rounds part (``results.part(ARM)``, :mod:`tfr_helpers.arms.rounds.records`); runs
with ``refinement.rounds`` 1 have none, and every function here then returns an empty frame (the table and the
summary section are left out). Shares are fractions in [0, 1] (NaN when their denominator is 0); the table shows
percentages. Rows are per source, coder, benchmark and round, plus ``benchmark == "all"`` rows pooling the coder's
benchmarks. Over seeds: :func:`rounds_over_seeds` and :func:`plot_rounds_over_seeds`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.answers import AnswerKind, register_answer_kind
from tfr_helpers.analysis.inference.clustered import ratio
from tfr_helpers.analysis.inference.stats import mean_se
from tfr_helpers.analysis.inference.units import boundary_interval, clustered_rows
from tfr_helpers.analysis.tables import CLUSTERED, caption_with, headline_row
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundsResults
from tfr_helpers.records import Results

NAME = ARM.field
"""The arm's configuration key (``refinement.rounds``) and its section of ``summary.json``."""
TABLE = "rounds_per_round"
"""Name of the LaTeX table (``analysis/rounds_per_round.tex``)."""
CAPTION = (
    "Multi-round backprompting per round (0 = generated code), per model and benchmark: chains, chains active in the "
    "round, stopped early (passed their own suite); pass@1 percent of chains [95 percent bootstrap over tasks, then "
    "code samples]; mean suite length; suite precision (percent of the round's tests the reference passes); collision "
    "(percent of the round's refined programs equal to an earlier program of their chain); unreliable (percent of the "
    "round's test-fail feedback whose test the reference fails)."
)
"""Caption of :data:`TABLE`."""
FIGURE = "rounds_pass_at_1"
"""Stem of the figure ``tfr analyze`` draws for runs with rounds (``analysis/figures/rounds_pass_at_1.png``)."""
OBSERVED_FIGURE = "rounds_r_obs"
"""Stem of the figure of the true and the observed pass rate per round (``analysis/figures/rounds_r_obs.png``)."""
ALL = "all"
"""The benchmark label of rows pooling every benchmark of a coder."""
PER_ROUND_COLUMNS = [
    "source",
    "model",
    "benchmark",
    "round",
    "chains",
    "active",
    "stopped_early",
    "passed",
    "pass_at_1",
    "pass_low",
    "pass_high",
    "pass_method",
    "suite_length",
    "suite_precision",
    "suite_precision_low",
    "suite_precision_high",
    "suite_precision_method",
    "refined",
    "collision_probability",
    "collision_low",
    "collision_high",
    "collision_method",
    "feedback",
    "unreliable_share",
]
TRANSITION_COLUMNS = ["source", "model", "benchmark", "round", "transition", "n", "share"]
DEFINITIONS = {
    "chain": "One (coder, task, code sample with usable code) refined round after round; round 0 is the generated "
    "code. Round k runs the code of round k-1 on round k's suite and, if tests fail, refines it once with the "
    "feedback of all failing tests in one prompt.",
    "round": "0 = the generated code; 1..R = refinement rounds.",
    "chains": "Chains of the row's coder and benchmark (the same in every round).",
    "active": "Chains that ran round k (not stopped before it).",
    "stopped_early": "Chains stopped at or before round k: their input code passed every test of their own "
    "non-empty suite (stop_when_passing).",
    "passed": "Chains whose code after round k passes the benchmark tests.",
    "pass_at_1": "passed / chains (one program per chain; a stopped chain, or a round without usable code, keeps "
    "its last code); pass_low/pass_high: its 95% interval, a bootstrap over tasks (then code samples: chains of one "
    "task are not independent), pass_method the method (wilson over tasks at 0 or 100%). suite_precision_* and "
    "collision_* are the same for those shares.",
    "suite_length": "Mean number of tests in round k's suite over the active chains.",
    "suite_precision": "Tests of round k's suites that the reference passes / all their tests, over the active "
    "chains (first reference run).",
    "collision_probability": "Share of round k's refined programs equal to a program of an earlier round of the same "
    "chain (compared after ast.unparse: formatting and comments ignored).",
    "unreliable_share": "Share of round k's test-fail feedback (failing tests of the active chains' suites) whose "
    "test the reference fails too.",
    "feedback": "Failing tests (test-fail feedback instances) of round k over the active chains.",
    "refined": "Round k refinements that returned usable code.",
    "transition": "Benchmark verdict of the round's input code -> the refined code, for every chain refined in round "
    "k (no_code: the reply held no usable code); share of round k's refinement attempts.",
}


def present(results: Results) -> bool:
    """Whether the run has rounds (``refinement.rounds`` > 1)."""
    return results.has(ARM)


def _part(results: Results) -> RoundsResults | None:
    return results.part(ARM) if results.has(ARM) else None


def _rounds(results: Results) -> int:
    """The run's rounds per chain (0 when it has no rounds)."""
    part = _part(results)
    return part.rounds if part is not None else 0


def _groups(results: Results) -> Iterable[tuple[str, str, list[RoundChain]]]:
    """(coder, benchmark, chains) per coder and benchmark, then per coder over all its benchmarks."""
    part = _part(results)
    chains = part.chains if part is not None else []
    models = sorted({c.model for c in chains})
    for model in models:
        mine = [c for c in chains if c.model == model]
        for bench in sorted({c.benchmark for c in mine}):
            yield model, bench, [c for c in mine if c.benchmark == bench]
        yield model, ALL, mine


def _ratio(k: float, n: float) -> float:
    return k / n if n else math.nan


def _interval(chains: list[RoundChain], hits: list[float], among: list[float], prefix: str) -> dict[str, Any]:
    """``<prefix>_low/_high/_method``: the 95% interval of ``sum(hits) / sum(among)`` over ``chains`` (one row per
    chain), clustered by task then code sample (chains of one task are not independent)."""
    if not chains or not sum(among):
        return {f"{prefix}_low": math.nan, f"{prefix}_high": math.nan, f"{prefix}_method": None}
    rs = clustered_rows([c.task_id for c in chains], [c.code_index for c in chains])
    iv = ratio(rs, hits, among)
    if sum(hits) in (0, sum(among)):  # no spread at 0 or 100%: Wilson's over the tasks
        iv = boundary_interval(iv, int(sum(hits) > 0), rs, np.asarray(among, dtype=float))
    return {f"{prefix}_low": iv.low, f"{prefix}_high": iv.high, f"{prefix}_method": iv.method}


def round_row(chains: list[RoundChain], k: int) -> dict[str, Any]:
    """The numbers of round ``k`` over ``chains`` (keys of :data:`PER_ROUND_COLUMNS` but the labels)."""
    at_k = [(c, c.steps[k - 1]) for c in chains if len(c.steps) >= k] if k else []
    steps = [s for _, s in at_k]
    passing = []
    for c in chains:
        done = c.steps[:k] if k else []
        passing.append(float(done[-1].benchmark_after if done else c.initial_passed))
    stopped = sum(any(s.action == "stopped" for s in c.steps[:k]) for c in chains)
    refined = [(c, s) for c, s in at_k if s.action == "refined"]
    feedback = sum(len(s.failed) for s in steps)
    passed = int(sum(passing))
    active = [c for c, _ in at_k]
    suite = _interval(active, [s.suite_reference_passed for s in steps], [s.suite_size for s in steps], "suite_precision")
    collided = [float(bool(s.collision)) for _, s in refined]
    same = _interval([c for c, _ in refined], collided, [1.0] * len(refined), "collision")
    return {
        "chains": len(chains),
        "active": len(steps),
        "stopped_early": stopped,
        "passed": passed,
        "pass_at_1": _ratio(passed, len(chains)),
        **_interval(chains, passing, [1.0] * len(chains), "pass"),
        "suite_length": _ratio(sum(s.suite_size for s in steps), len(steps)),
        "suite_precision": _ratio(sum(s.suite_reference_passed for s in steps), sum(s.suite_size for s in steps)),
        **suite,
        "refined": len(refined),
        "collision_probability": _ratio(sum(bool(s.collision) for _, s in refined), len(refined)),
        **same,
        "feedback": feedback,
        "unreliable_share": _ratio(sum(len(s.unreliable) for s in steps), feedback),
    }


def per_round(results: Results) -> pd.DataFrame:
    """One row per source, coder, benchmark (and ``all``) and round 0..R; see :data:`DEFINITIONS`.

    Returns:
        Columns :data:`PER_ROUND_COLUMNS`; empty when the run has no rounds.
    """
    rows = []
    rounds = _rounds(results)
    for model, bench, chains in _groups(results):
        label = source_label(results, model)
        for k in range(rounds + 1):
            rows.append({"source": label, "model": model, "benchmark": bench, "round": k, **round_row(chains, k)})
    return pd.DataFrame(rows, columns=PER_ROUND_COLUMNS)


def round_transitions(results: Results) -> pd.DataFrame:
    """Benchmark transitions of each round's refinement attempts, per source, coder, benchmark (and ``all``).

    Returns:
        Columns :data:`TRANSITION_COLUMNS` (``n`` attempts with that transition, ``share`` of the round's attempts),
        one row per transition that occurred; empty when the run has no rounds.
    """
    rows = []
    rounds = _rounds(results)
    for model, bench, chains in _groups(results):
        for k in range(1, rounds + 1):
            seen = [c.steps[k - 1].transition for c in chains if len(c.steps) >= k]
            attempts = [t for t in seen if t is not None]
            for transition in sorted(set(attempts)):
                n = attempts.count(transition)
                rows.append(
                    {
                        "source": source_label(results, model),
                        "model": model,
                        "benchmark": bench,
                        "round": k,
                        "transition": transition,
                        "n": n,
                        "share": n / len(attempts),
                    }
                )
    return pd.DataFrame(rows, columns=TRANSITION_COLUMNS)


def _pct(x: Any) -> str:
    return "--" if x is None or pd.isna(x) else f"{100 * x:.1f}"


def rounds_table(results: Results) -> Styler:
    """Per coder, benchmark (and all) and round: chains, pass@1 [95% task bootstrap], suite length and precision,
    collision probability and unreliable share (percent; ``--`` when undefined)."""

    rows = [
        {
            "Model": r["model"],
            "Benchmark": r["benchmark"],
            "Round": str(r["round"]),
            "Source": r["source"],
            "Chains": str(r["chains"]),
            "Active": str(r["active"]),
            "Stopped": str(r["stopped_early"]),
            "Pass@1": f"{_pct(r['pass_at_1'])} [{_pct(r['pass_low'])}, {_pct(r['pass_high'])}]",
            "Suite length": "--" if pd.isna(r["suite_length"]) else f"{r['suite_length']:.1f}",
            "Suite precision": _pct(r["suite_precision"]),
            "Collision": _pct(r["collision_probability"]),
            "Unreliable": _pct(r["unreliable_share"]),
        }
        for _, r in per_round(results).iterrows()
    ]
    cols = ["Model", "Benchmark", "Round", "Source", "Chains", "Active", "Stopped", "Pass@1", "Suite length"]
    cols += ["Suite precision", "Collision", "Unreliable"]
    frame = pd.DataFrame(rows, columns=cols).set_index(["Model", "Benchmark", "Round"])
    return frame.style.set_caption(CAPTION)  # the sources: said once per report (views.sources_table)


def rounds_summary(results: Results) -> dict[str, Any] | None:
    """The ``rounds`` section of ``summary.json``: settings, definitions, every per-round number and transition,
    and the chains not run (None when the run has no rounds).

    Shares in ``per_round`` and ``transitions`` are fractions; the table shows them as percentages.
    """

    rr = _part(results)
    if rr is None:
        return None
    return {
        "settings": {"rounds": rr.rounds, "round_tests": rr.round_tests, "stop_when_passing": rr.stop_when_passing},
        "caption": caption_with(CAPTION, results),
        "definitions": DEFINITIONS,
        "per_round": frame_records(per_round(results)),
        "transitions": frame_records(round_transitions(results)),
        "not_run": [s.model_dump() for s in rr.not_run],
    }


def summary_section(results: Results) -> dict[str, Any]:
    """``{"rounds": rounds_summary(results)}``, or ``{}`` when the run has no rounds (for ``build_summary``)."""
    section = rounds_summary(results)
    return {NAME: section} if section is not None else {}


def tables(results: Results) -> dict[str, Styler]:
    """The arm's LaTeX table: :data:`TABLE`."""
    return {TABLE: rounds_table(results)}


def figures(results: Results) -> dict[str, tuple[Any, tuple[float, float]]]:
    """The arm's figures: pass@1 per round (:data:`FIGURE`), r and r_obs per round (:data:`OBSERVED_FIGURE`)."""
    return {FIGURE: (plot_rounds, (5.0, 3.5)), OBSERVED_FIGURE: (plot_observed_vs_true, (5.0, 3.5))}


def plot_pass_at_1_per_round(frames: Mapping[int, pd.DataFrame] | pd.DataFrame, ax: Any = None) -> Any:
    """Pass@1 (percent) per round, one line per coder over all its benchmarks (``benchmark == "all"`` rows).

    Args:
        frames: One :func:`per_round` frame (its 95% cluster-bootstrap band is drawn), or one frame per seed
            (``{seed: frame}``): the line is the mean over seeds and the band mean +- one standard error.
        ax: Matplotlib axes to draw on (a new figure's when None).

    Returns:
        The axes.
    """
    import matplotlib.pyplot as plt  # after analysis.figures picks the backend (Agg outside a notebook)

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    per_seed = {0: frames} if isinstance(frames, pd.DataFrame) else dict(frames)
    pooled = pd.concat([f.assign(seed=s) for s, f in per_seed.items()], ignore_index=True)
    pooled = pooled[pooled["benchmark"] == ALL]
    for model, g in pooled.groupby("model", sort=True):
        rounds = sorted(g["round"].unique())
        if len(per_seed) == 1:
            mean = [100 * g[g["round"] == k]["pass_at_1"].iloc[0] for k in rounds]
            low = [100 * g[g["round"] == k]["pass_low"].iloc[0] for k in rounds]
            high = [100 * g[g["round"] == k]["pass_high"].iloc[0] for k in rounds]
            band = "95% bootstrap over tasks"
        else:
            stats = [mean_se(100 * g[g["round"] == k]["pass_at_1"]) for k in rounds]
            mean = [m for m, _ in stats]
            low = [m - (0 if math.isnan(se) else se) for m, se in stats]
            high = [m + (0 if math.isnan(se) else se) for m, se in stats]
            band = f"mean +- SE over {len(per_seed)} seeds"
        ax.plot(rounds, mean, marker="o", label=f"{model} ({band})")
        ax.fill_between(rounds, low, high, alpha=0.2)
    ax.set_xticks(sorted(int(k) for k in pooled["round"].unique()))
    ax.set_xlabel("round (0 = generated code)")
    ax.set_ylabel("pass@1 (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Pass@1 per backprompting round")
    ax.legend(fontsize="small")
    return ax


def observed_vs_true(results: Results) -> pd.DataFrame:
    """Backprompting as Menet et al. draw it: per source and coder (all its benchmarks) and code index j (the code
    after round j, 0 = the generated code), ``r``, the true pass rate (the share of chains whose code passes the
    benchmark tests: ``pass_at_1`` at round j), and ``r_obs``, the observed own-test pass rate (the share of the
    chains that ran round j + 1 whose code passed every test of that round's own non-empty suite), with the chains
    each counts. The code after the last round meets no further suite: its ``r_obs`` is NaN."""
    rows = []
    rounds = _rounds(results)
    frame = per_round(results)
    for model, bench, chains in _groups(results):
        if bench != ALL:
            continue
        true = frame[(frame["model"] == model) & (frame["benchmark"] == ALL)].set_index("round")
        for j in range(rounds + 1):
            seen = [c.steps[j] for c in chains if len(c.steps) > j and c.steps[j].suite_size > 0]
            rows.append(
                {
                    "source": source_label(results, model),
                    "model": model,
                    "code_round": j,
                    "r": float(true.loc[j, "pass_at_1"]),
                    "chains": len(chains),
                    "r_obs": _ratio(sum(not s.failed for s in seen), len(seen)),
                    "observed": len(seen),
                }
            )
    return pd.DataFrame(rows, columns=["source", "model", "code_round", "r", "chains", "r_obs", "observed"])


def plot_observed_vs_true(results: Results, ax: Any = None) -> Any:
    """Per coder, ``r`` (solid) and ``r_obs`` (dashed) by round (:func:`observed_vs_true`), in percent."""
    import matplotlib.pyplot as plt  # after analysis.figures picks the backend (Agg outside a notebook)

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    frame = observed_vs_true(results)
    for model, g in frame.groupby("model", sort=True):
        line = ax.plot(g["code_round"], 100 * g["r"], marker="o", label=f"{model}: r (benchmark tests)")
        ax.plot(
            g["code_round"],
            100 * g["r_obs"],
            marker="s",
            linestyle="--",
            color=line[0].get_color(),
            label=f"{model}: r_obs (its own suite)",
        )
    ax.set_xlabel("code after round (0 = generated code)")
    ax.set_ylabel("pass rate (%)")
    ax.set_ylim(0, 100)
    ax.set_title("True and observed pass rate per backprompting round")
    ax.legend(fontsize="small")
    return ax


ROUND_METRICS = {
    "pass_at_1": "pass@1",
    "suite_precision": "suite precision",
    "collision_probability": "collision",
    "unreliable_share": "unreliable feedback",
}
"""Per-round shares of :func:`per_round` shown over seeds (percent), with their labels."""
PLOTTED = ("suite_precision", "collision_probability")
"""The metrics :func:`plot_rounds_over_seeds` draws by default."""


def per_round_by_seed(results: Mapping[int, Results]) -> dict[int, pd.DataFrame]:
    """Seed -> :func:`per_round` of that seed's run, for the seeds whose run has rounds (empty: one round only)."""
    return {s: per_round(r) for s, r in results.items() if present(r)}


def rounds_over_seeds(frames: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """Per coder and round (all benchmarks pooled): each share of :data:`ROUND_METRICS` as mean and SE over seeds.

    Args:
        frames: Seed -> :func:`per_round` (:func:`per_round_by_seed`).

    Returns:
        Columns ``model, round, seeds`` and ``<metric>_mean`` / ``<metric>_se`` in percent (SE NaN with one seed);
        empty without rounds.
    """
    if not frames:
        return pd.DataFrame(columns=["model", "round", "seeds"])
    pooled = pd.concat([f.assign(seed=s) for s, f in frames.items()], ignore_index=True)
    pooled = pooled[pooled["benchmark"] == ALL]
    rows = []
    for (model, k), g in pooled.groupby(["model", "round"], sort=True):
        row: dict[str, Any] = {"model": model, "round": int(k), "seeds": g["seed"].nunique()}
        for metric in ROUND_METRICS:
            mean, se = mean_se(100 * g[metric].astype(float))
            row[f"{metric}_mean"], row[f"{metric}_se"] = mean, se
        rows.append(row)
    return pd.DataFrame(rows)


def plot_rounds_over_seeds(frame: pd.DataFrame, metrics: tuple[str, ...] = PLOTTED) -> Any:
    """One panel per metric of :func:`rounds_over_seeds`: mean per round with a mean +- SE band over seeds."""
    import matplotlib.pyplot as plt  # after analysis.figures picks the backend (Agg outside a notebook)

    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 3.5), squeeze=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        for model, g in frame[frame["round"] > 0].groupby("model", sort=True):
            mean = g[f"{metric}_mean"].to_numpy(dtype=float)
            se = g[f"{metric}_se"].fillna(0).to_numpy(dtype=float)
            ax.plot(g["round"], mean, marker="o", label=f"{model} (mean +- SE over {int(g['seeds'].max())} seeds)")
            ax.fill_between(g["round"], mean - se, mean + se, alpha=0.2)
        ax.set_xticks(sorted(frame[frame["round"] > 0]["round"].unique()))
        ax.set_xlabel("round")
        ax.set_ylabel(f"{ROUND_METRICS[metric]} (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"{ROUND_METRICS[metric].capitalize()} per round")
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def section_headline(results: Results) -> tuple[dict[str, Any], dict[str, str]]:
    """What a "beyond one refinement" study records of the rounds in its headline (first seed's ``results``): the
    rounds per chain (1 without rounds), and pass@1 after the last round (headline number -> label)."""
    last = _rounds(results)
    return {NAME: max(last, 1)}, {f"pass_at_1_round:{last}": f"pass@1 after round {last}"}


def plot_rounds(results: Results, ax: Any = None) -> Any:
    """:func:`plot_pass_at_1_per_round` of one run (the figure ``tfr analyze`` saves as :data:`FIGURE`)."""
    return plot_pass_at_1_per_round(per_round(results), ax=ax)


HEADLINE_DEFINITIONS = {
    "pass_at_1_round:<k>": "Multi-round runs: percent of chains whose code after round k passes the benchmark "
    "tests (round 0: the generated code), over all the coder's benchmarks (analysis.rounds.per_round).",
    "suite_precision_round:<k>": "Percent of round k's suite tests that the reference passes.",
    "collision_round:<k>": "Percent of round k's refined programs equal to a program of an earlier round of the same chain.",
}
"""Definitions of :func:`headline_rows`' numbers."""


def headline_rows(results: Results) -> list[dict[str, object]]:
    """Pass@1, suite precision and collision per round (``benchmark == all`` rows), when the run has rounds."""

    rows = []
    frame = per_round(results)
    for _, r in frame[frame["benchmark"] == ALL].iterrows():
        model, k = r["model"], int(r["round"])
        for number, col, over in (
            ("pass_at_1_round", "pass", "chains"),
            ("suite_precision_round", "suite_precision", "suite tests"),
            ("collision_round", "collision", "refined programs"),
        ):
            if k == 0 and number != "pass_at_1_round":
                continue
            value = r["pass_at_1" if col == "pass" else col if col != "collision" else "collision_probability"]
            cells = (100 * value, 100 * r[f"{col}_low"], 100 * r[f"{col}_high"])
            rows.append(headline_row(results, model, f"{number}:{k}", *cells, CLUSTERED.format(r[f"{col}_method"], over)))
    return rows


HEADLINE_KINDS: tuple[AnswerKind, ...] = (
    register_answer_kind(
        AnswerKind(
            "rounds_numbers",
            "rq2",
            "pass@1, suite precision and collision per round",
            "chains, suite tests, refined programs",
            numbers=headline_rows,
            definitions=HEADLINE_DEFINITIONS,
        )
    ),
)
"""The arm's headline numbers (registered; :func:`headline_rows` computes their rows, :data:`HEADLINE_DEFINITIONS`
defines them)."""
