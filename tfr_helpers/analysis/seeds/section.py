"""What notebook 03c shows of a "beyond one refinement" study: rounds and numbers over seeds (each arm package's
own section is its view: ``views.show_arm``).

Every number comes from the other analysis modules (:mod:`rounds`, :mod:`seeds`); here they are put side by side
over the seeds of one study (one seed: its own values, SE undefined).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from tfr_helpers.analysis.arms import rounds
from tfr_helpers.analysis.headlines import headline_numbers
from tfr_helpers.analysis.inference.stats import mean_se
from tfr_helpers.analysis.seeds.over_seeds import over_seeds
from tfr_helpers.records import Results
from tfr_helpers.records.arm_registry import arms

ROUND_METRICS = {
    "pass_at_1": "pass@1",
    "suite_precision": "suite precision",
    "collision_probability": "collision",
    "unreliable_share": "unreliable feedback",
}
"""Per-round shares of :func:`rounds.per_round` shown over seeds (percent), with their labels."""
PLOTTED = ("suite_precision", "collision_probability")
"""The metrics :func:`plot_rounds_over_seeds` draws by default."""


@dataclass(frozen=True)
class SectionNumbers:
    """One study's results by seed and the frames the notebook shows."""

    results: dict[int, Results]
    per_round: dict[int, pd.DataFrame]
    """Seed -> :func:`rounds.per_round` (empty when the study has one round)."""
    headline: pd.DataFrame
    """:func:`seeds.over_seeds` of every seed's headline numbers."""

    @property
    def simulated(self) -> bool:
        """Whether any seed's run used the simulated model."""
        return any(r.simulated for r in self.results.values())

    @property
    def first(self) -> Results:
        """The first seed's results (tables shown for one run)."""
        return next(iter(self.results.values()))


def section_numbers(results: Mapping[int, Results]) -> SectionNumbers:
    """The frames of :class:`SectionNumbers` from each seed's results."""
    by_seed = dict(results)
    per_round = {s: rounds.per_round(r) for s, r in by_seed.items() if rounds.present(r)}
    headline = over_seeds({s: headline_numbers(r) for s, r in by_seed.items()})
    return SectionNumbers(by_seed, per_round, headline)


def rounds_over_seeds(per_round: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """Per coder and round (all benchmarks pooled): each share of :data:`ROUND_METRICS` as mean and SE over seeds.

    Returns:
        Columns ``model, round, seeds`` and ``<metric>_mean`` / ``<metric>_se`` in percent (SE NaN with one seed);
        empty without rounds.
    """
    if not per_round:
        return pd.DataFrame(columns=["model", "round", "seeds"])
    pooled = pd.concat([f.assign(seed=s) for s, f in per_round.items()], ignore_index=True)
    pooled = pooled[pooled["benchmark"] == rounds.ALL]
    rows = []
    for (model, k), g in pooled.groupby(["model", "round"], sort=True):
        row: dict[str, Any] = {"model": model, "round": int(k), "seeds": g["seed"].nunique()}
        for metric in ROUND_METRICS:
            mean, se = mean_se(100 * g[metric].astype(float))
            row[f"{metric}_mean"], row[f"{metric}_se"] = mean, se
        rows.append(row)
    return pd.DataFrame(rows)


def plot_rounds_over_seeds(
    frame: pd.DataFrame, metrics: tuple[str, ...] = ("suite_precision", "collision_probability")
) -> Any:
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


def headline_values(numbers: SectionNumbers) -> dict[str, Any]:
    """The notebook's recorded headline: seeds, rounds, and pass@1 of the generated code and of the last round
    (mean +- SE over seeds, per model); every number with its definition is in the study's summary.json."""
    first = numbers.first
    last = first.rounds.rounds if first.rounds is not None else 0
    wanted = {"code_pass_at_1": "code pass@1", f"pass_at_1_round:{last}": f"pass@1 after round {last}"}
    out: dict[str, Any] = {
        "simulated": numbers.simulated,
        "seeds": list(numbers.results),
        "rounds": max(last, 1),
        **{arm.field: first.has(arm) for arm in arms()},  # whether the first seed holds each arm package's part
    }
    for _, r in numbers.headline[numbers.headline["number"].isin(list(wanted))].iterrows():
        se = "--" if math.isnan(r["se"]) else f"{r['se']:.1f}"
        out[f"{r['model']} {wanted[r['number']]}"] = f"{r['mean']:.1f} +- {se}"
    return out
