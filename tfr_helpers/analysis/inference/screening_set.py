"""The feedback every screening strategy of one coder decided on (the common set), and the downstream policy.

All strategies of a coder are scored on the same feedback instances: those every strategy decided and whose
reliability is known. Per decision it also reads the decision's typed fields: whether the strategy abstained
(``abstained``: it found no evidence, e.g. a consensus screener accepting as ``accept_all`` would) and its
``score`` (higher: more likely unreliable; for AUROC). A decision's reasoning is text for people, never read.

Downstream policy (per code sample, over all the coder's code samples): refine each code sample once, with one
feedback drawn at random from the common-set feedback on it that the strategy accepts and that has a refinement
record; keep the code when none is accepted. Its benchmark change is the expectation over the draw, the mean of
``after - before`` over the accepted feedback (a refinement with no usable code keeps the code: change 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import Resampler, resampler
from tfr_helpers.analysis.inference.units import samples_per_task
from tfr_helpers.analysis.tidy.frames import refinements_frame, screening_frame
from tfr_helpers.pipeline.steps.lookups import code_texts
from tfr_helpers.records import Results

T = TypeVar("T")
BASELINE = "accept_all"
UNDECIDED_AS = ("reject", "accept", "excluded")
"""The three readings of an undecided decision: as a reject (the default), as an accept, left out."""
GAIN = {"fail->pass": 1, "pass->fail": -1}
"""Benchmark change of one refinement (other transitions, and no code, change nothing)."""


@dataclass(frozen=True)
class CommonSet:
    """One coder's common feedback set: one row per feedback, one decision column per strategy."""

    model: str
    feedback: pd.DataFrame
    """Columns ``feedback_id, task_id, code_index, reliable, transition, gain, prompt`` (gain None: no refinement;
    ``prompt`` numbers the distinct (task, code sample text, feedback text) prompts)."""
    decisions: pd.DataFrame
    """Index ``feedback_id`` (the order of :attr:`feedback`), one column of decisions per strategy."""
    abstained: pd.DataFrame
    """Same shape: True where the strategy abstained (found no evidence)."""
    scores: pd.DataFrame
    """Same shape: the decision's ``score``, higher meaning more likely unreliable (NaN where it states none)."""
    codes: pd.DataFrame
    """All the coder's code samples: ``task_id, code_index``."""
    decided: dict[str, int]
    """Decisions of each strategy before the common set was taken (on feedback of known reliability)."""
    samples_per_task: dict[str, int]
    """Code samples the coder produced per task (the second level of the resampling)."""

    def resampler(self, rows: pd.DataFrame, n_resamples: int, seed: int) -> Resampler:
        """Resampling weights for some of the coder's rows (columns ``task_id``, ``code_index``)."""
        return resampler(
            rows["task_id"].tolist(),
            rows["code_index"].tolist(),
            samples_per_task=self.samples_per_task,
            n_resamples=n_resamples,
            seed=seed,
        )

    @property
    def strategies(self) -> list[str]:
        """The strategies, ``accept_all`` first."""
        return sorted(self.decisions.columns, key=lambda s: (s != BASELINE, s))

    def accepted(self, strategy: str, undecided_as: str = "reject") -> np.ndarray:
        """Whether the strategy accepts each feedback, reading undecided as ``reject`` or ``accept``."""
        dec = self.decisions[strategy].to_numpy()
        return (dec == "accept") | ((dec == "undecided") & (undecided_as == "accept"))

    def ranking_scores(self, strategy: str) -> np.ndarray | None:
        """The strategy's ranking of every feedback of the common set by reliability, for AUROC (reliable is the
        positive class): minus its ``score``, abstentions tied at one level (the median of its stated scores: an
        abstention carries no evidence either way); None when some other decision states no score (a judge, say),
        so the strategy has no AUROC."""
        scores = -self.scores[strategy].to_numpy(dtype=float)
        abstained = self.abstained[strategy].to_numpy(dtype=bool)
        stated = np.isfinite(scores)
        if not stated.any() or not (stated | abstained).all():
            return None
        scores[~stated] = float(np.median(scores[stated]))
        return scores

    def per_code_change(self, strategy: str) -> np.ndarray:
        """Expected benchmark change of each code sample (rows of :attr:`codes`) under the downstream policy."""
        fb = self.feedback.assign(acc=self.accepted(strategy))
        drawn = fb[fb["acc"] & fb["gain"].notna()]
        mean = drawn.groupby(["task_id", "code_index"])["gain"].mean()
        keys = pd.MultiIndex.from_frame(self.codes[["task_id", "code_index"]])
        return mean.reindex(keys).fillna(0.0).to_numpy(dtype=float)


def set_resamplers(cs: CommonSet, n_resamples: int, seed: int) -> tuple[Resampler, Resampler]:
    """Resamplers of the common set's feedback rows and of the coder's code samples."""
    return cs.resampler(cs.feedback, n_resamples, seed), cs.resampler(cs.codes, n_resamples, seed)


_LAST: dict[str, tuple[Results, tuple[object, ...], Any]] = {}
"""Per computation, its last run's value: the tables, summary.json and the text of one analysis ask for the same
RQ3 numbers several times on one ``Results`` (the same object: ``Results`` is never changed in place)."""


def last_of(name: str, results: Results, key: tuple[object, ...], compute: Callable[[], T]) -> T:
    """``compute()``, or its value from the last call with the same ``results`` object and ``key``."""
    hit = _LAST.get(name)
    if hit is not None and hit[0] is results and hit[1] == key:
        value: T = hit[2]
    else:
        value = compute()
        _LAST[name] = (results, key, value)
    return value.copy() if isinstance(value, pd.DataFrame) else value


def common_sets(results: Results) -> dict[str, CommonSet]:
    """Each coder's common set (coders with screening decisions on feedback of known reliability)."""
    return last_of("common_sets", results, (), lambda: _common_sets(results))


def _common_sets(results: Results) -> dict[str, CommonSet]:
    frame = screening_frame(results)
    frame = frame[frame["reliable"].notna()]
    readings = {
        (s.strategy, s.feedback_id): (s.abstained, np.nan if s.score is None else s.score) for s in results.screening
    }
    refined = refinements_frame(results).set_index("feedback_id")["transition"]
    codes_text = code_texts(results.generated_codes)
    prompt_of = {
        p.pair_id: (p.task_id, codes_text.get((p.model, p.task_id, p.code_index), ""), p.feedback.text)
        for p in results.pair_evaluations
        if p.feedback is not None
    }
    prompts: dict[tuple[str, str, str], int] = {}
    out = {}
    for model in sorted(frame["model"].dropna().unique()):
        mine = frame[frame["model"] == model]
        decided = mine.groupby("strategy")["feedback_id"].nunique().to_dict()
        wide = mine.pivot_table(index="feedback_id", columns="strategy", values="decision", aggfunc="first")
        wide = wide.dropna().sort_index()
        info = mine.drop_duplicates("feedback_id").set_index("feedback_id").loc[wide.index]
        feedback = pd.DataFrame(
            {
                "feedback_id": wide.index,
                "task_id": info["task_id"].astype(str).to_numpy(),
                "code_index": info["code_index"].astype(int).to_numpy(),
                "reliable": info["reliable"].astype(bool).to_numpy(),
                "transition": refined.reindex(wide.index).to_numpy(),
            }
        )
        feedback["gain"] = [GAIN.get(t, 0) if isinstance(t, str) else None for t in feedback["transition"]]
        feedback["gain"] = feedback["gain"].astype(float)
        feedback["prompt"] = [prompts.setdefault(prompt_of.get(f, ("", "", f)), len(prompts)) for f in wide.index]
        mine_read = {s: [readings.get((s, f), (False, np.nan)) for f in wide.index] for s in wide.columns}
        codes = pd.DataFrame(
            [(c.task_id, c.sample_index) for c in results.generated_codes if c.model == model],
            columns=["task_id", "code_index"],
        )
        out[str(model)] = CommonSet(
            model=str(model),
            feedback=feedback,
            decisions=wide,
            abstained=pd.DataFrame({s: [r[0] for r in v] for s, v in mine_read.items()}, index=wide.index),
            scores=pd.DataFrame({s: [r[1] for r in v] for s, v in mine_read.items()}, index=wide.index, dtype=float),
            codes=codes,
            decided={str(k): int(v) for k, v in decided.items()},
            samples_per_task=samples_per_task(results, str(model)),
        )
    return out
