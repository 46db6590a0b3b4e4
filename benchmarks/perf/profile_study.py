"""Where the study's stage time goes: per stage and per benchmark, and the total before and after the speed-ups.

Runs the study's stages (``papermill_params/default.yaml`` unless ``--params``) in a fresh run directory with an
empty cache directory, with the sandbox instrumented from outside (no library code changes for the profile):

- ``runs``: programs run in the sandbox; ``tests``: test outcomes executed (``not_run`` excluded);
- ``wall``: stage wall time (the runner's); ``cpu``: this process plus the workers and their forked programs
  (``/proc/<worker>/stat`` utime+stime+cutime+cstime around every job, and at worker start-up);
- ``busy``: worker-seconds spent on jobs; ``hyp``: test time of Hypothesis tests (functions of a spec that uses
  Hypothesis); ``sleep``: wall of BigCodeBench jobs whose program or tests call ``sleep(``;
- ``start``: worker start-up wall (workers started); ``idle``: worker-seconds alive in the stage but not on a job.

Per benchmark, a job is attributed by its benchmark tests or reference (exact), else by the entry point its
program defines (BigCodeBench: ``task_func``).

Modes: ``--mode both`` (default) runs the study twice with the defaults, each with an empty cache directory:
``fixed`` (``sandbox.time_limit.policy: fixed``, every test the study's budget) and ``evalplus`` (EvalPlus's
rule: a code's limit per test from the reference's CPU time on it), and prints the stage time of each and the
verdict and label changes the policy caused, per benchmark. ``--mode cache`` runs ``before`` (execution cache
off, the old pool sizing: ``TFR_EXEC_CACHE=0 TFR_SANDBOX_POOLS=old``) and ``after`` (defaults), then a rerun with
only the screening strategies changed (the last one dropped, ``consensus_b4@0.7`` added) in the ``after`` run
directory, which accepts a change of only the screening list and reruns the screening of the new strategy and
the final stage; it prints the three totals and the load average around each. Each of ``fixed``,
``evalplus``, ``before``, ``after`` runs alone too.

``--mode records --run-dir RUN`` runs nothing: it reads a finished run's records and prints, per stage, test
time, timeout time and the time outside tests (per benchmark, per kind), user and system CPU and the files
written (``run_profile.py``).

Usage: ``uv run python benchmarks/perf/profile_study.py [--params F] [--tasks N]
[--mode both|cache|fixed|evalplus|before|after|records] [--run-dir RUN]``
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

CLK = os.sysconf("SC_CLK_TCK")
SLEEP = re.compile(r"\bsleep\(")
DEF = re.compile(r"^def (\w+)\(", re.M)
RERUN_ADDS = "consensus_b4@0.7"
"""The strategy the screening-change rerun adds (it drops the params' last one)."""
COLUMNS = ("runs", "tests", "wall", "cpu", "busy", "hyp", "sleep", "start", "idle")


def _proc_cpu(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / CLK
    except OSError:
        return 0.0


def _self_cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    return s.ru_utime + s.ru_stime


@dataclass
class Row:
    values: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COLUMNS, 0.0))

    def add(self, **kv: float) -> None:
        for k, v in kv.items():
            self.values[k] += v


@dataclass
class Profile:
    """Everything measured in one run of the study."""

    stage: str = "-"
    rows: dict[tuple[str, str], Row] = field(default_factory=lambda: defaultdict(Row))
    spans: dict[str, list[float]] = field(default_factory=dict)
    """Stage -> [first start, last end] of its stage-function calls."""
    workers: list[list[float]] = field(default_factory=list)
    """[started, stopped or inf] per worker."""
    benchmark_of: dict[str, str] = field(default_factory=dict)
    """Benchmark test source or reference -> benchmark."""
    entry_points: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def attribute(self, program: str, tests: Any) -> str:
        for t in tests:
            if t.source in self.benchmark_of:
                return self.benchmark_of[t.source]
        if program in self.benchmark_of:
            return self.benchmark_of[program]
        if "def task_func(" in program:
            return "bigcodebench"
        for name in DEF.findall(program):
            if name in self.entry_points:
                return self.entry_points[name]
        return "other"


@contextmanager
def instrumented(profile: Profile) -> Iterator[None]:
    """Patch the worker handle, ``Sandbox.run`` and the stage registry to feed ``profile``; undo on exit."""
    from tfr_helpers.pipeline.engine import stage as stages_mod
    from tfr_helpers.sandbox import pool

    orig_init, orig_close, orig_run = pool._WorkerHandle.__init__, pool._WorkerHandle.close, pool.Sandbox.run
    orig_request = pool._WorkerHandle.request
    orig_stages = dict(stages_mod._REGISTRY)

    def init(self: Any, cmd: list[str]) -> None:
        t0 = time.monotonic()
        orig_init(self, cmd)
        t1 = time.monotonic()
        self._profile_span = [t1, float("inf")]
        with profile.lock:
            profile.workers.append(self._profile_span)
            profile.rows[(profile.stage, "(workers)")].add(start=t1 - t0, cpu=_proc_cpu(self.proc.pid))

    def close(self: Any) -> None:
        span = getattr(self, "_profile_span", None)
        if span is not None:
            span[1] = min(span[1], time.monotonic())
        orig_close(self)

    def request(self: Any, job: Any, timeout: float) -> Any:
        c0 = _proc_cpu(self.proc.pid)
        try:
            return orig_request(self, job, timeout)
        finally:  # the worker reaps its forked child before replying: cutime holds the program's CPU
            _JOB_CPU.value = getattr(_JOB_CPU, "value", 0.0) + _proc_cpu(self.proc.pid) - c0

    def run(self: Any, program: str, tests: Any, limits: Any = None, call: str = "") -> Any:
        _JOB_CPU.value = 0.0
        t0 = time.monotonic()
        result = orig_run(self, program, tests, limits, call)
        wall = time.monotonic() - t0
        bench = profile.attribute(program, tests)
        hyp_names = {n for t in tests if "hypothesis" in t.source or "@given" in t.source for n in DEF.findall(t.source)}
        hyp = sum(o.duration_s or 0.0 for o in result.outcomes if o.name in hyp_names)
        sleeps = bench == "bigcodebench" and (SLEEP.search(program) or any(SLEEP.search(t.source) for t in tests))
        with profile.lock:
            profile.rows[(profile.stage, bench)].add(
                runs=1,
                tests=sum(o.status != "not_run" for o in result.outcomes),
                busy=wall,
                hyp=hyp,
                sleep=wall if sleeps else 0.0,
                cpu=_JOB_CPU.value,
            )
        return result

    def wrap(stage: Any) -> Any:
        def stage_run(items: Any, ctx: Any) -> Any:
            if not profile.benchmark_of:
                _index_tasks(profile, ctx.tasks.values())
            profile.stage = stage.name
            c0, t0 = _self_cpu(), time.monotonic()
            try:
                return stage.run(items, ctx)
            finally:
                span = profile.spans.setdefault(stage.name, [t0, t0])
                span[1] = time.monotonic()
                profile.rows[(stage.name, "(driver)")].add(cpu=_self_cpu() - c0)

        return replace(stage, run=stage_run)

    stages_mod.registered_stages()
    pool._WorkerHandle.__init__ = init  # type: ignore[method-assign]
    pool._WorkerHandle.close = close  # type: ignore[method-assign]
    pool.Sandbox.run = run  # type: ignore[method-assign]
    pool._WorkerHandle.request = request  # type: ignore[method-assign]
    for name, stage in orig_stages.items():
        stages_mod._REGISTRY[name] = wrap(stage)
    try:
        yield
    finally:
        pool._WorkerHandle.__init__ = orig_init  # type: ignore[method-assign]
        pool._WorkerHandle.close = orig_close  # type: ignore[method-assign]
        pool.Sandbox.run = orig_run  # type: ignore[method-assign]
        pool._WorkerHandle.request = orig_request  # type: ignore[method-assign]
        stages_mod._REGISTRY.update(orig_stages)


_JOB_CPU = threading.local()
"""CPU of the current thread's job (set by the patched ``_WorkerHandle.request``)."""


def _index_tasks(profile: Profile, tasks: Any) -> None:
    from tfr_helpers.benchmarks import benchmark_tests

    for task in tasks:
        bench = task.benchmark
        profile.benchmark_of[task.reference] = bench
        profile.entry_points.setdefault(task.entry_point, bench)
        for spec in benchmark_tests(task):
            profile.benchmark_of[spec.source] = bench


def idle_seconds(profile: Profile, stage: str) -> float:
    start, end = profile.spans.get(stage, (0.0, 0.0))
    alive = sum(max(0.0, min(end, w[1]) - max(start, w[0])) for w in profile.workers)
    busy = sum(r.values["busy"] for (s, _), r in profile.rows.items() if s == stage)
    return max(0.0, alive - busy)


def run_study(
    params: Path,
    tasks: int | None,
    cache_dir: Path,
    env: dict[str, str],
    run_dir: Path,
    screening: list[str] | None = None,
    policy: str | None = None,
) -> tuple[Profile, Any]:
    """Run every stage into ``run_dir`` (work recorded there is kept); the profile and the run summary."""
    from tfr_helpers.pipeline import load_config, run_stages

    overrides: dict[str, Any] = {}
    if tasks is not None:
        overrides["tasks"] = tasks
    if screening is not None:
        overrides["screening"] = screening
    if policy is not None:
        base = load_config(params).sandbox.model_dump()
        overrides["sandbox"] = {**base, "time_limit": {**base["time_limit"], "policy": policy}}
    config = load_config(params, overrides)
    saved = {k: os.environ.get(k) for k in (*env, "TFR_CACHE_DIR")}
    os.environ.update(env, TFR_CACHE_DIR=str(cache_dir))
    profile = Profile()
    try:
        with instrumented(profile):
            summary = run_stages(config, run_dir, progress=False)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    for stage in summary.stage_seconds:
        profile.rows[(stage, "(all)")].add(wall=summary.stage_seconds[stage], idle=idle_seconds(profile, stage))
    return profile, summary


def table(profile: Profile, summary: Any) -> list[str]:
    """Markdown table: one row per stage (totals), then its benchmarks."""
    head = "| stage | benchmark | " + " | ".join(COLUMNS) + " |"
    out = [head, "|" + "---|" * (len(COLUMNS) + 2)]
    total = Row()
    for stage in summary.stage_seconds:
        parts = {b: r for (s, b), r in profile.rows.items() if s == stage and b != "(all)"}
        agg = Row()
        agg.add(**profile.rows[(stage, "(all)")].values)
        for r in parts.values():
            agg.add(**{k: v for k, v in r.values.items() if k not in ("wall", "idle")})
        total.add(**agg.values)
        out.append(_line(stage, "**all**", agg))
        for bench in sorted(parts):
            if bench not in ("(driver)",) and any(parts[bench].values[k] for k in ("runs", "start")):
                out.append(_line("", bench, parts[bench]))
    out.append(_line("**total**", "", total))
    return out


def _line(stage: str, bench: str, row: Row) -> str:
    cells = [f"{int(row.values[c])}" if c in ("runs", "tests") else f"{row.values[c]:.1f}" for c in COLUMNS]
    return f"| {stage} | {bench} | " + " | ".join(cells) + " |"


def cache_line(summary: Any) -> str:
    hits, misses = summary.exec_cache
    return f"execution cache: {hits} hits, {misses} misses; sandbox runs {summary.sandbox_runs}"


def policy_changes(fixed_dir: Path, policy_dir: Path) -> list[str]:
    """Per benchmark: generated-code verdicts, RQ1 labels (case, reliability) and RQ2 transitions that differ."""
    from tfr_helpers.analysis import load_results

    a, b = load_results(fixed_dir), load_results(policy_dir)
    bench = a.task_benchmarks
    lines = ["| benchmark | verdicts changed | labels changed | transitions changed |", "|---|---|---|---|"]
    va = {(v.model, v.task_id, v.code_index): v.passed for v in a.benchmark_verdicts}
    vb = {(v.model, v.task_id, v.code_index): v.passed for v in b.benchmark_verdicts}
    pa = {(p.model, p.test_id, p.code_index): (p.case, p.reliability) for p in a.pair_evaluations}
    pb = {(p.model, p.test_id, p.code_index): (p.case, p.reliability) for p in b.pair_evaluations}
    ra = {(r.model, r.feedback_id): r.transition for r in a.refined_evaluations}
    rb = {(r.model, r.feedback_id): r.transition for r in b.refined_evaluations}

    def changed(x: dict[Any, Any], y: dict[Any, Any], task_of: Any, name: str) -> str:
        keys = [k for k in x if bench.get(task_of(k)) == name]
        return f"{sum(1 for k in keys if x[k] != y.get(k))} of {len(keys)}"

    for name in sorted(set(bench.values())):
        lines.append(
            f"| {name} | {changed(va, vb, lambda k: k[1], name)} | "
            f"{changed(pa, pb, lambda k: k[1].split('|')[1], name)} | "
            f"{changed(ra, rb, lambda k: k[1].split('|')[1], name)} |"
        )
    return lines


def load() -> str:
    return "load average %.1f %.1f %.1f" % os.getloadavg()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--params", type=Path, default=root / "papermill_params" / "default.yaml")
    parser.add_argument("--tasks", type=int, default=None, help="first N tasks per benchmark (default: the params')")
    parser.add_argument(
        "--mode", choices=("both", "cache", "fixed", "evalplus", "before", "after", "records"), default="both"
    )
    parser.add_argument("--run-dir", type=Path, default=None, help="--mode records: a finished run directory")
    parser.add_argument("--workers", type=int, default=None, help="--mode records: its sandbox workers (default: cores)")
    parser.add_argument("--no-rerun", action="store_true", help="skip the screening-change rerun")
    parser.add_argument("--keep", type=Path, default=None, help="keep the run and cache directories here")
    args = parser.parse_args(argv)
    if args.mode == "records":
        from run_profile import profile_run  # this directory is on sys.path when run as a script

        if args.run_dir is None:
            parser.error("--mode records needs --run-dir RUN (a finished run directory)")
        print("\n".join(profile_run(args.run_dir, args.workers)))
        return 0
    modes = {
        "before": {"TFR_EXEC_CACHE": "0", "TFR_SANDBOX_POOLS": "old"},
        "after": {"TFR_EXEC_CACHE": "1", "TFR_SANDBOX_POOLS": "auto"},
        "fixed": {"TFR_EXEC_CACHE": "1", "TFR_SANDBOX_POOLS": "auto"},
        "evalplus": {"TFR_EXEC_CACHE": "1", "TFR_SANDBOX_POOLS": "auto"},
    }
    wanted = {"both": ["fixed", "evalplus"], "cache": ["before", "after"]}.get(args.mode, [args.mode])
    policy = {"fixed": "fixed", "evalplus": "evalplus"}
    totals: dict[str, tuple[float, str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="tfr-profile-cache-") as scratch:
        tmp = str(args.keep or scratch)
        for mode in wanted:
            cache = Path(tmp) / mode
            l0 = load()
            run_dir = Path(tmp) / f"run-{mode}"
            profile, summary = run_study(args.params, args.tasks, cache, modes[mode], run_dir, policy=policy.get(mode))
            totals[mode] = (sum(summary.stage_seconds.values()), l0, load())
            print(f"\n## {mode} ({', '.join(f'{k}={v}' for k, v in modes[mode].items())}; {l0} at start, {load()} at end)\n")
            print("\n".join(table(profile, summary)))
            print("\n" + cache_line(summary))
            sys.stdout.flush()
            if mode == "after" and not args.no_rerun:
                from tfr_helpers.pipeline import load_config

                screening = list(load_config(args.params).screening)
                changed = [*screening[:-1], RERUN_ADDS] if len(screening) > 1 else [*screening, RERUN_ADDS]
                l0 = load()
                again_profile, again = run_study(
                    args.params, args.tasks, cache, modes[mode], Path(tmp) / "run-after", screening=changed
                )
                totals["rerun"] = (sum(again.stage_seconds.values()), l0, load())
                stages = ", ".join(f"{k} {v:.1f}s" for k, v in again.stage_seconds.items())
                print(f"\n## rerun in the after run directory with screening {changed}\n\n{stages}\n")
                print("\n".join(table(again_profile, again)))
                print("\n" + cache_line(again))
        if "fixed" in totals and "evalplus" in totals:
            print("\n## what the EvalPlus policy changed (fixed -> evalplus)\n")
            print("\n".join(policy_changes(Path(tmp) / "run-fixed", Path(tmp) / "run-evalplus")))
    print("\n## total stage time\n")
    for mode, (seconds, l0, l1) in totals.items():
        print(f"- {mode}: {seconds:.1f} s ({l0} at start, {l1} at end; {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
