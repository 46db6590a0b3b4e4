"""The registry of published generation datasets: where each file comes from, its sha256, license and model.

Each dataset is a set of files in an upstream repository at a pinned commit. The files are never copied into
this repository: they are resolved like benchmark data (see :mod:`tfr_helpers.replay.resolve`), laid out as
``<folder>/<file name>`` both in ``$TFR_REPLAY_DIR`` and in the cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tfr_helpers.errors import ConfigError
from tfr_helpers.records import BenchmarkName
from tfr_helpers.replay.records import ReplayDataset, ReplayTask

Adapter = Literal["codet", "reflexion", "reflexion_log"]


@dataclass(frozen=True)
class ReplayFile:
    """One upstream file of a dataset.

    Attributes:
        role: What the adapter reads it for (``code``, ``tests``, ``code_tasks``, ``test_tasks``).
        repo_path: Path of the file in the upstream repository.
        sha256: Pinned sha256 of the file's bytes.
        lines: Exact number of JSON lines the file holds.
        local_name: The file's name below the override directory and the cache when it differs from the upstream
            base name (several upstream trajectory logs share one base name).
    """

    role: str
    repo_path: str
    sha256: str
    lines: int
    local_name: str | None = None

    @property
    def name(self) -> str:
        """The file's name below the override directory and the cache (the upstream base name by default)."""
        return self.local_name or self.repo_path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class DatasetSpec:
    """A named dataset of real, published generations.

    Attributes:
        name: Registry name (``codet-codegen16b-humaneval``), used as ``replay:<name>``.
        benchmark: Benchmark whose tasks the generations answer.
        model: The model that produced the generations.
        folder: Directory of the files below ``$TFR_REPLAY_DIR`` and below the cache.
        repo: Upstream GitHub repository (``owner/name``).
        commit: Pinned commit of the files.
        license: License of the files, with its holder.
        paper: The publication the generations come from.
        sampling: How the generations were sampled, as published.
        adapter: Which adapter turns the files into records.
        files: The files, by role.
        package: ``(distribution, module, resource dir)`` when an installed package ships the files (laid out
            as ``<resource dir>/<folder>/<file>``); None for both published datasets.
    """

    name: str
    benchmark: BenchmarkName
    model: str
    folder: str
    repo: str
    commit: str
    license: str
    paper: str
    sampling: str
    adapter: Adapter
    files: tuple[ReplayFile, ...]
    package: tuple[str, str, str] | None = None

    def url(self, file: ReplayFile) -> str:
        """Canonical download URL of one file: the raw file at the pinned commit."""
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{file.repo_path}"

    def rel_path(self, file: ReplayFile) -> str:
        """Path of a file below the override directory, a mirror and the cache."""
        return f"{self.folder}/{file.name}"

    def file(self, role: str) -> ReplayFile:
        """The dataset's file with the given role."""
        return next(f for f in self.files if f.role == role)

    @property
    def display(self) -> str:
        """The name tables and reports give the dataset's model: ``CodeGen-Mono-16B (CodeT)``, the producing model
        and the work that published its generations (the paper's title up to its colon)."""
        return f"{self.model} ({self.paper.split(':')[0]})"

    @property
    def source(self) -> str:
        """Short provenance: ``github.com/<repo>@<commit[:7]>``."""
        return f"github.com/{self.repo}@{self.commit[:7]}"


_CODET_DIR = "CodeT/data"
CODET = DatasetSpec(
    name="codet-codegen16b-humaneval",
    benchmark="humaneval",
    model="CodeGen-Mono-16B",
    folder="codet",
    repo="microsoft/CodeT",
    commit="35f54d60b152cc31d134b788e702878ad613d9f7",
    license="MIT (Copyright (c) Microsoft Corporation)",
    paper="CodeT: Code Generation with Generated Tests (Chen et al., ICLR 2023)",
    sampling="temperature 0.8, top-p 0.95, at most 300 new tokens, 100 code and 100 test samples per task",
    adapter="codet",
    files=(
        ReplayFile(
            "code",
            f"{_CODET_DIR}/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl",
            "239b84349993c19a98bc4bf96a9a9ac47908125b3242db72788471e6c58728d5",
            164,
        ),
        ReplayFile(
            "tests",
            f"{_CODET_DIR}/generated_data/HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_test_case.jsonl",
            "ac10882a8b480ab04e591f39a4c62ce8faa1c207aae1c3e4679ad9ec8215a255",
            164,
        ),
        ReplayFile(
            "code_tasks",
            f"{_CODET_DIR}/dataset/HumanEval_for_code_generation.jsonl",
            "882c3d56432b2b5b9e568398d7ebdf54f2c84fdb05fef3b833a3d935ad71861c",
            164,
        ),
        ReplayFile(
            "test_tasks",
            f"{_CODET_DIR}/dataset/HumanEval_for_test_case_generation.jsonl",
            "32c8f69001f439f3817b9124b54c78870d90b5c54e2babafdd9598bc5adf322e",
            164,
        ),
    ),
)

REFLEXION = DatasetSpec(
    name="reflexion-gpt4-humaneval",
    benchmark="humaneval",
    model="GPT-4",
    folder="reflexion",
    repo="noahshinn/reflexion",
    commit="218cf0ef1df84b05ce379dd4a8e47f17766733a0",
    license="MIT (Copyright (c) 2023 Noah Shinn)",
    paper="Reflexion: Language Agents with Verbal Reinforcement Learning (Shinn et al., NeurIPS 2023)",
    sampling="one final solution per task after the Reflexion loop (pass@1 run); GPT-4's own asserts per task",
    adapter="reflexion",
    files=(
        ReplayFile(
            "code",
            "programming_runs/root/reflexion_humaneval_py_pass_at_1/reflexion_humaneval_py_pass_at_1.jsonl",
            "548e1a6650265901334e90a98ad7c9dd6752da921b6ded56dd611c142314cd5e",
            164,
        ),
        ReplayFile(
            "tests",
            "programming_runs/root/testacc_humaneval_py/humaneval-py..gz_test-acc_1_gpt-4_pass_at_k_1_py.jsonl",
            "3e2c143f8360e4a897db9e5507cf29ece360a099c16962ef7a17638c9b3ad920",
            164,
        ),
    ),
)

DATASETS: dict[str, DatasetSpec] = {d.name: d for d in (CODET, REFLEXION)}
"""Every registered dataset, by name."""


def dataset_spec(name: str) -> DatasetSpec:
    """Return a registered dataset.

    Args:
        name: A key of :data:`DATASETS`.

    Returns:
        The dataset's spec.

    Raises:
        ConfigError: Unknown name (the message lists the registered ones).
    """
    if name not in DATASETS:
        raise ConfigError(
            f"unknown replay dataset {name!r}; registered datasets: {', '.join(DATASETS)} "
            "(or name a directory holding code.jsonl / tests.jsonl, e.g. replay:./my_generations)"
        )
    return DATASETS[name]


def published_dataset(spec: DatasetSpec, tasks: dict[str, ReplayTask]) -> ReplayDataset:
    """Wrap an adapter's tasks as the dataset record of a registered, published dataset.

    Args:
        spec: The dataset's registry entry.
        tasks: Its tasks by id, in benchmark order.

    Returns:
        The record, naming the model, the upstream source and license, and saying the generations are real.
    """
    return ReplayDataset(
        name=spec.name,
        benchmark=spec.benchmark,
        model=spec.model,
        origin="published",
        source=spec.source,
        license=spec.license,
        note=f"real generations by {spec.model}, published with {spec.paper} ({spec.source}); not simulated",
        tasks=tasks,
    )
