"""The population of the blind label validation and its stratified draw.

The population is every replayed test-fail feedback instance of a run (a generated test that a generated code
sample fails) whose label counts in the reliability shares (``reliable`` or ``unreliable``; ``indeterminate``
pairs are out of every reliability denominator, so they are left out and counted). Identical (task, code, test)
executions are one unit: a reader would read the same thing twice. The strata are the sources, never the label.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfr_helpers.errors import DataError
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation
from tfr_helpers.replay.empty_solution import is_empty_solution
from tfr_helpers.replay.load import load_replay

CODET = "replay:codet-codegen16b-humaneval"
REFLEXION = "replay:reflexion-gpt4-humaneval"
STRATA = {
    "codet": "CodeT CodeGen-Mono-16B HumanEval",
    "reflexion": "Reflexion GPT-4 HumanEval (its non-empty solutions)",
    "reflexion_empty": "Reflexion GPT-4 HumanEval (its empty published solutions)",
}
"""Stratum -> the source it holds, as readers see it."""
ALLOCATION = {"codet": 60, "reflexion": 50, "reflexion_empty": 10}
"""Items per stratum in a draw of 120: CodeT and Reflexion's real solutions about equally (CodeT has some 40 times
Reflexion's instances, so a proportional draw would leave Reflexion a handful), and a small share for Reflexion's
empty published solutions, a protocol artefact (the function is its docstring and returns None). Another ``--n``
scales the three in proportion (largest remainders)."""
PER_TASK = 2
"""At most this many items of one task in one stratum, so that the sample spreads over tasks."""


@dataclass
class Unit:
    """One distinct (task, code, test) test-fail execution: the pairs that share it and the one shown."""

    stratum: str
    task_id: str
    code: str
    test: str
    pairs: list[PairEvaluation] = field(default_factory=list)

    @property
    def shown(self) -> PairEvaluation:
        """The pair whose records the item is built from (the first by feedback id)."""
        return min(self.pairs, key=lambda p: p.pair_id)


@dataclass
class Population:
    """The units per stratum, with what was left out."""

    units: dict[str, list[Unit]]
    instances: dict[str, int]
    """Test-fail feedback instances per stratum (before identical executions are merged)."""
    indeterminate: int
    """Replayed test-fail instances left out because their label is ``indeterminate``."""
    other_models: list[str]
    """Models of the run that are not among the strata's sources (a simulated model, say): never drawn."""


def checkpoint(run_dir: Path, name: str) -> list[Any]:
    """The records of one checkpoint of a run."""
    return [r for e in RunStore(run_dir).read_checkpoint(name) for r in decode_records(e["data"])]


def empty_solutions() -> set[str]:
    """HumanEval tasks whose Reflexion solution is empty (:func:`is_empty_solution` of the replayed program)."""
    data = load_replay(REFLEXION.removeprefix("replay:"))
    return {t.task_id for t in data.tasks.values() if t.code_samples and is_empty_solution(t.code_samples[0].program)}


def stratum_of(pair: PairEvaluation, empty: set[str]) -> str | None:
    """The pair's stratum, or None for a model outside the strata."""
    if pair.model == CODET:
        return "codet"
    if pair.model == REFLEXION:
        return "reflexion_empty" if pair.task_id in empty else "reflexion"
    return None


def run_pairs(run_dir: Path) -> list[tuple[PairEvaluation, str, str]]:
    """A run's pair records, each with its code and its test's source.

    Raises:
        DataError: the run holds no pair records.
    """
    pairs = [p for p in checkpoint(run_dir, "test_execution_feedback") if isinstance(p, PairEvaluation)]
    if not pairs:
        raise DataError(f"{run_dir} holds no pair evaluations: run evaluate_code_test_pairs there first")
    codes = {
        (c.model, c.task_id, c.sample_index): c.code or ""
        for c in checkpoint(run_dir, "generated_codes")
        if isinstance(c, GeneratedCode)
    }
    tests = {t.test_id: t.source for t in checkpoint(run_dir, "generated_tests") if isinstance(t, GeneratedTest)}
    return [(p, codes[(p.model, p.task_id, p.code_index)], tests[p.test_id]) for p in pairs]


def population(run_dirs: Sequence[Path]) -> Population:
    """Read the runs' replayed test-fail feedback into units per stratum (a model may come from one run only).

    Raises:
        DataError: a run holds no pair records, two runs hold the same model, or there is no replayed test-fail
            feedback of the two sources.
    """
    empty = empty_solutions()
    units: dict[str, dict[tuple[str, str, str], Unit]] = {s: {} for s in STRATA}
    instances = dict.fromkeys(STRATA, 0)
    indeterminate = 0
    others: set[str] = set()
    owner: dict[str, Path] = {}
    for run_dir in run_dirs:
        for p, code, test in sorted(run_pairs(run_dir), key=lambda r: r[0].pair_id):
            if owner.setdefault(p.model, run_dir) != run_dir:
                raise DataError(f"{p.model} is in both {owner[p.model]} and {run_dir}: give each model's run once")
            stratum = stratum_of(p, empty)
            if stratum is None:
                others.add(p.model)
            elif p.feedback is None or p.benchmark != "humaneval":
                continue
            elif p.reliability not in ("reliable", "unreliable"):
                indeterminate += 1
            else:
                instances[stratum] += 1
                key = (p.task_id, code, test)
                units[stratum].setdefault(key, Unit(stratum, *key)).pairs.append(p)
    if not any(units.values()):
        raise DataError(f"no replayed test-fail feedback of {CODET} or {REFLEXION} in {[str(r) for r in run_dirs]}")
    return Population({s: list(u.values()) for s, u in units.items()}, instances, indeterminate, sorted(others))


def allocation(n: int) -> dict[str, int]:
    """:data:`ALLOCATION` scaled to ``n`` items (largest remainders; exact for 120)."""
    total = sum(ALLOCATION.values())
    exact = {s: n * k / total for s, k in ALLOCATION.items()}
    out = {s: int(v) for s, v in exact.items()}
    for s in sorted(exact, key=lambda s: out[s] - exact[s])[: n - sum(out.values())]:
        out[s] += 1
    return out


def draw_stratum(units: Iterable[Unit], n: int, rng: random.Random, stratum: str) -> list[Unit]:
    """``n`` units at random, spread over tasks: the tasks in random order, one random unit of each task per round,
    at most :data:`PER_TASK` rounds.

    Raises:
        DataError: the stratum cannot give ``n`` units within the per-task cap.
    """
    by_task: dict[str, list[Unit]] = defaultdict(list)
    for u in units:
        by_task[u.task_id].append(u)
    order = sorted(by_task)
    rng.shuffle(order)
    for task in order:
        rng.shuffle(by_task[task])
    picked = [by_task[t][r] for r in range(PER_TASK) for t in order if r < len(by_task[t])][:n]
    if len(picked) < n:
        raise DataError(
            f"stratum {stratum} has {len(picked)} units within {PER_TASK} per task ({len(order)} tasks); "
            f"{n} were asked: lower --n or draw from a run over more tasks"
        )
    return picked


def draw(pop: Population, n: int, seed: int) -> list[Unit]:
    """The stratified sample (strata in :data:`STRATA` order, one generator seeded with ``seed``), shuffled so that
    no stratum comes as a block."""
    rng = random.Random(seed)
    sizes = allocation(n)
    picked = [u for s in STRATA for u in draw_stratum(pop.units[s], sizes[s], rng, s)]
    rng.shuffle(picked)
    return picked


def counts(units: Mapping[str, Iterable[Unit]]) -> dict[str, tuple[int, int]]:
    """Units and distinct tasks per stratum."""
    out = {}
    for s, us in units.items():
        listed = list(us)
        out[s] = (len(listed), len({u.task_id for u in listed}))
    return out
