"""tfr_helpers.benchmarks: HumanEval, MBPP and BigCodeBench as typed tasks, their data resolution and tests.

Data resolution (per benchmark): installed package (HumanEval) -> ``data_dir`` / ``$TFR_BENCHMARK_DIR`` ->
cache (``$TFR_CACHE_DIR`` or the user cache, ``/benchmarks``) -> download (``$TFR_BENCHMARK_URL_<NAME>``
or the canonical URL). See ``benchmarks/README.md`` at the repository root.
"""

from tfr_helpers.benchmarks.load import (
    BENCHMARKS,
    clear_memory_cache,
    data_source,
    get_task,
    load_tasks,
    resolve_benchmark,
)
from tfr_helpers.benchmarks.registry import (
    BenchmarkEntry,
    benchmark_names,
    benchmark_of_id,
    get_benchmark,
    register_benchmark,
)
from tfr_helpers.benchmarks.selection_file import Selection, load_selection, selection_path
from tfr_helpers.benchmarks.specs import benchmark_tests
from tfr_helpers.benchmarks.subsets.selection import build_selection

__all__ = [
    "BENCHMARKS",
    "BenchmarkEntry",
    "Selection",
    "benchmark_names",
    "benchmark_of_id",
    "benchmark_tests",
    "build_selection",
    "clear_memory_cache",
    "data_source",
    "get_benchmark",
    "get_task",
    "load_selection",
    "load_tasks",
    "register_benchmark",
    "resolve_benchmark",
    "selection_path",
]
