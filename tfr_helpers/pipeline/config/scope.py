"""What each coder is run on: its tasks, code samples and test samples, and what is skipped and why.

A coder is studied on the tasks of its benchmarks. A replayed model (``replay:<dataset>``) answers only what
its dataset holds, so a task the dataset lacks is skipped for that coder (and reported), a sample count
beyond what it holds is cut to what it holds (and reported), and a test kind it has no samples of is not
asked for. A role a dataset cannot play (refiner, judge) is never filled by another model: the stages that
need it are skipped for the coder with the reason ``not run: no refiner`` / ``not run: no judge``.

Everything here is a pure function of the configuration, the task list and the datasets' files, so
``results.json`` and every resume agree on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from tfr_helpers.models.provider_table import is_replayed, is_simulated
from tfr_helpers.pipeline.screening.registry import resolve_strategy
from tfr_helpers.records import ModelSource, SkippedWork, Task, TestKind
from tfr_helpers.replay import load_replay

if TYPE_CHECKING:
    from tfr_helpers.pipeline.config.experiment import ExperimentConfig
    from tfr_helpers.replay import ReplayDataset
    from tfr_helpers.replay.records import ReplayTask

NO_REFINER = "not run: no refiner"
NO_JUDGE = "not run: no judge"


def dataset_of(spec: str) -> ReplayDataset | None:
    """The replay dataset a ``replay:`` spec names (loaded once per process), else None.

    Raises:
        ConfigError: Unknown dataset. DataError: Missing or corrupt files.
    """
    if not is_replayed(spec):
        return None

    return load_replay(spec.partition(":")[2])


def check_datasets(config: ExperimentConfig) -> None:
    """Load every replay dataset the run names, so bad files fail before any stage runs.

    Raises:
        ConfigError: An unknown dataset. DataError: Missing or corrupt files, a malformed line.
    """
    for spec in config.models.all_specs():
        dataset_of(spec)


def _replayed_roles(config: ExperimentConfig, coder: str) -> list[tuple[str, ReplayDataset]]:
    specs = dict.fromkeys((coder, config.models.tester_for(coder)))
    return [(spec, ds) for spec in specs if (ds := dataset_of(spec)) is not None]


def _task(dataset: ReplayDataset, task_id: str) -> ReplayTask:
    found = dataset.task(task_id)
    assert found is not None, task_id  # only served tasks are asked for
    return found


def coder_tasks(config: ExperimentConfig, tasks: Mapping[str, Task], coder: str) -> list[Task]:
    """The tasks ``coder`` is run on: its benchmarks' tasks that every replayed role's dataset holds."""
    benchmarks = set(config.benchmarks_for(coder))
    datasets = [ds for _, ds in _replayed_roles(config, coder)]
    return [
        t for t in tasks.values() if t.benchmark in benchmarks and all(ds.task(t.task_id) is not None for ds in datasets)
    ]


def code_samples(config: ExperimentConfig, coder: str, task_id: str) -> int:
    """Code samples of ``coder`` for one task: the configured count, cut to what a replayed coder holds."""
    wanted = config.code_samples_for(coder)
    dataset = dataset_of(coder)
    return wanted if dataset is None else min(wanted, len(_task(dataset, task_id).code_samples))


def test_samples(config: ExperimentConfig, coder: str, task_id: str, kind: TestKind) -> int:
    """Test samples (tester calls) of one kind for ``coder``'s task, cut to what a replayed tester holds."""
    wanted = config.test_samples_for(coder)
    dataset = dataset_of(config.models.tester_for(coder))
    return wanted if dataset is None else min(wanted, len(_task(dataset, task_id).samples_of_kind(kind)))


def refines(config: ExperimentConfig, coder: str) -> bool:
    """Whether ``coder``'s feedback is refined (its refiner is not a replay dataset)."""
    return not is_replayed(config.models.refiner_for(coder))


def not_refined(config: ExperimentConfig, stage: str, coders: Iterable[str] | None = None) -> list[SkippedWork]:
    """The one record of "this coder was not refined": a :class:`SkippedWork` of ``stage`` with reason
    :data:`NO_REFINER` for each coder (of ``coders``, default every coder, in that order) without a refiner.

    ``results.json`` states it in the base study's ``skipped`` (stage ``refine_codes``), in the rounds' ``not_run``
    (stage ``backprompt_rounds``), and as the oracle and control arms' ``refinement_status``
    (:func:`refinement_status`): all from these records.
    """
    names = config.models.coder_names if coders is None else coders
    return [SkippedWork(model=m, stage=stage, reason=NO_REFINER) for m in names if not refines(config, m)]


def refinement_status(config: ExperimentConfig) -> dict[str, str]:
    """Each coder's refinement status in an arm that refines: ``run``, or the reason of its :func:`not_refined`
    record (an arm asks the coder's refiner as ``refine_codes`` does, so it leaves out the same coders)."""
    status = dict.fromkeys(config.models.coder_names, "run")
    return status | {skip.model: skip.reason for skip in not_refined(config, "refine_codes")}


def judges(config: ExperimentConfig, coder: str) -> bool:
    """Whether the screeners that call a model run on ``coder``'s feedback (its judge is not a replay dataset)."""
    return not is_replayed(config.models.judge_for(coder))


def compact_artifacts(config: ExperimentConfig, coder: str) -> bool:
    """Whether ``coder``'s per-pair artifacts are written compactly: one pairs file per code sample and no
    decision file for a strategy that calls no model (replayed data, or several code samples: tens of thousands
    of pairs would otherwise be tens of thousands of small files)."""
    return is_replayed(coder) or config.artifact_only.code_samples_for(coder) > 1


def _kinds(config: ExperimentConfig) -> list[tuple[TestKind, int]]:
    counts: list[tuple[TestKind, int]] = [("ebt", config.ebts_per_task), ("pbt", config.pbts_per_task)]
    return [(k, n) for k, n in counts if n > 0]


def skipped_work(config: ExperimentConfig, tasks: Mapping[str, Task]) -> list[SkippedWork]:
    """Every task, sample count and stage the run leaves out for a coder, with the reason, in coder order."""
    out: list[SkippedWork] = []
    for coder in config.models.coder_names:
        benchmarks = set(config.benchmarks_for(coder))
        in_scope = [t for t in tasks.values() if t.benchmark in benchmarks]
        for spec, ds in _replayed_roles(config, coder):
            for task in in_scope:
                if ds.task(task.task_id) is None:
                    out.append(SkippedWork(model=coder, task_id=task.task_id, stage="all", reason=_gap(spec, ds)))
        served = coder_tasks(config, tasks, coder)
        out += _short_samples(config, coder, served)
        tester = dataset_of(config.models.tester_for(coder))
        for kind, _ in _kinds(config) if tester is not None else []:
            if kind not in tester.kinds:  # type: ignore[union-attr]
                reason = f"no {kind} tests: replay dataset {tester.name} holds none"  # type: ignore[union-attr]
                out.append(SkippedWork(model=coder, stage="generate_tests", reason=reason))
        out += not_refined(config, "refine_codes", [coder])
        if not judges(config, coder) and any(resolve_strategy(name).calls_model for name in config.screening):
            out.append(SkippedWork(model=coder, stage="screen_feedback", reason=NO_JUDGE))
    return out


def _gap(spec: str, dataset: ReplayDataset) -> str:
    return f"task not in replay dataset {dataset.name} ({spec})"


def _short_samples(config: ExperimentConfig, coder: str, served: Iterable[Task]) -> list[SkippedWork]:
    out = []
    tester = config.models.tester_for(coder)
    for task in served:
        if dataset_of(coder) is not None and code_samples(config, coder, task.task_id) < config.code_samples_for(coder):
            n = code_samples(config, coder, task.task_id)
            reason = f"{n} of {config.code_samples_for(coder)} code samples: the dataset holds {n}"
            out.append(SkippedWork(model=coder, task_id=task.task_id, stage="generate_codes", reason=reason))
        if dataset_of(tester) is None:
            continue
        for kind, _ in _kinds(config):
            n = test_samples(config, coder, task.task_id, kind)
            if 0 < n < config.test_samples_for(coder):
                reason = f"{n} of {config.test_samples_for(coder)} {kind} test samples: the dataset holds {n}"
                out.append(SkippedWork(model=coder, task_id=task.task_id, stage="generate_tests", reason=reason))
    return out


def model_source(spec: str) -> ModelSource:
    """Where one model's outputs come from, in the words every output uses."""
    dataset = dataset_of(spec)
    if dataset is not None:
        kind = "published" if dataset.origin == "published" else "imported"
        return ModelSource(
            model=spec,
            source="replayed",
            label=f"replayed ({kind})",
            dataset=dataset.name,
            producer=dataset.model,
            license=dataset.license,
            note=dataset.note,
        )
    if is_simulated(spec):
        return ModelSource(model=spec, source="simulated", label="simulated", note="simulated outputs, not evidence")
    return ModelSource(model=spec, source="live", label="live provider", note=f"generated by {spec} during this run")


def model_sources(config: ExperimentConfig) -> list[ModelSource]:
    """The source of every model the run uses, in first-use order."""
    return [model_source(spec) for spec in config.models.all_specs()]
