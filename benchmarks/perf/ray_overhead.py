"""Ray overhead: the same multi-sample RQ1 batch through the local executor and the Ray executor.

The batch is ``evaluate_code_test_pairs`` on CodeT's replayed CodeGen-16B generations (N HumanEval tasks x 10
code samples x 10 test samples, as ``replay_rq1.py``). The generation stages run once; their run directory is
copied, and the evaluation stage runs in each copy, once with ``concurrency.executor: local`` and once with
``ray``, with the execution cache off (``TFR_EXEC_CACHE=0``) so both execute every program. Prints per executor
the program runs, the test executions, the stage's wall seconds and executions per second, the ratio
(Ray / local), whether both gave the same pair records (timing fields aside), and the load average around each.

The Ray side joins ``--address`` (a running cluster: ``auto``, ``host:port``) or, by default, starts the tests'
two-node ``ray.cluster_utils.Cluster`` on this machine (``tests/executors/cluster.py``: a head and a second node,
one CPU each; its start-up is timed apart; the stage's time includes starting the node actors and their worker
pools, as the local stage's includes starting its pool).

Usage: ``TFR_BENCHMARK_DIR=/path/to/benchmarks TFR_REPLAY_DIR=/path/to/replay uv run python
benchmarks/perf/ray_overhead.py [--tasks 20] [--address ADDR] [--order local-first|ray-first]``
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tfr_helpers.executors
import tfr_helpers.pipeline.engine.context
from tfr_helpers.executors.ray_start import import_ray
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import RunStore

REPO = Path(__file__).resolve().parents[2]
_make_executor = tfr_helpers.executors.make_executor
DATASET = "replay:codet-codegen16b-humaneval"
TIMING = {"duration_s", "latency_s", "stage_seconds", "cpu_s", "wait_s"}  # measurements, as in results_digest.py


def _config(tasks: int, **concurrency: Any) -> Any:
    return config_from_dict(
        {
            "run_name": "perf_ray_overhead",
            "benchmarks": ["humaneval"],
            "tasks": {"humaneval": tasks},
            "models": {"coders": [{"model": DATASET, "code_samples": 10, "test_samples": 10}]},
            "ebts_per_task": 5,
            "pbts_per_task": 0,
            "screening": [],
            "concurrency": concurrency,
        }
    )


def _strip(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _strip(v) for k, v in data.items() if k not in TIMING}
    if isinstance(data, list):
        return [_strip(v) for v in data]
    return data


def _pairs(run: Path) -> str:
    records = [r for e in RunStore(run).read_checkpoint("test_execution_feedback") for r in decode_records(e["data"])]
    return json.dumps(_strip([r.model_dump(mode="json") for r in records]), sort_keys=True)


class _Counting:
    """An executor passed through, counting the test outcomes it returns (the batch's test executions)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.executions = inner, 0

    def run_many(self, jobs: Any, desc: str, limits: Any) -> Any:
        runs = self.inner.run_many(jobs, desc, limits)
        self.executions += sum(len(r.outcomes) for r in runs)
        return runs

    def close(self) -> None:
        self.inner.close()


COUNTED: list[_Counting] = []


def _counting_make_executor(*args: Any, **kwargs: Any) -> _Counting:
    COUNTED.append(_Counting(_make_executor(*args, **kwargs)))
    return COUNTED[-1]


def _evaluate(run: Path, config: Any) -> tuple[float, int, int, str]:
    COUNTED.clear()
    load = os.getloadavg()
    started = time.perf_counter()
    summary = run_stages(config, run, stages="evaluate_code_test_pairs", progress=False)
    seconds = time.perf_counter() - started
    after = os.getloadavg()
    executions = sum(c.executions for c in COUNTED)
    return seconds, summary.sandbox_runs, executions, f"load {load[0]:.2f} -> {after[0]:.2f}"


def main() -> None:
    """Run the batch through both executors and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--address", default=None, help="Ray cluster to join (default: start a local Ray)")
    parser.add_argument("--order", choices=["local-first", "ray-first"], default="local-first")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    os.environ["TFR_EXEC_CACHE"] = "0"
    # the run context binds make_executor at import: count where it is called
    tfr_helpers.pipeline.engine.context.make_executor = _counting_make_executor  # type: ignore[assignment]
    local_config = _config(args.tasks, executor="local")
    ray_config = _config(args.tasks, executor="ray", ray_address=args.address)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "generated"
        run_stages(local_config, base, stages="generate_codes", progress=False)
        run_stages(local_config, base, stages="generate_tests", progress=False)
        runs = {name: Path(tmp) / name for name in ("local", "ray")}
        for run in runs.values():
            shutil.copytree(base, run)
        ray = import_ray()  # before any other import of ray (it sets RAY_ENABLE_UV_RUN_RUNTIME_ENV=0)
        started = time.perf_counter()
        cluster = None
        if args.address is None:
            sys.path.insert(0, str(REPO))
            from tests.executors.cluster import start_cluster

            cluster = start_cluster()
            ray_config = _config(args.tasks, executor="ray", ray_address=cluster.address)
        ray.init(address=cluster.address if cluster else args.address, log_to_driver=False)
        ray_start = time.perf_counter() - started
        cpus = int(ray.cluster_resources().get("CPU", 0))
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        order = ["local", "ray"] if args.order == "local-first" else ["ray", "local"]
        measured = {}
        try:
            for name in order:
                measured[name] = _evaluate(runs[name], local_config if name == "local" else ray_config)
        finally:
            ray.shutdown()
            if cluster is not None:
                cluster.shutdown()
        print(f"batch: evaluate_code_test_pairs, {args.tasks} HumanEval tasks x 10 x 10 ({DATASET}), cache off")
        print(f"ray: {nodes} node(s), {cpus} CPUs, started/joined in {ray_start:.1f} s")
        for name in ("local", "ray"):
            seconds, runs_, executions, load = measured[name]
            print(
                f"{name:5}: {runs_} program runs, {executions} test executions in {seconds:.1f} s = "
                f"{executions / seconds:.1f} executions/s ({load})"
            )
        rate = {name: m[2] / m[0] for name, m in measured.items()}
        ratio = rate["ray"] / rate["local"]
        print(f"ratio ray/local executions per second: {ratio:.2f}")
        print(f"same pair records: {_pairs(runs['local']) == _pairs(runs['ray'])}")


if __name__ == "__main__":
    main()
