"""What a BigCodeBench check spends in its forked child, and which modules it imports that no worker preloaded.

Imports a heavy worker's preloads (``sandbox.preload.PRELOAD``, or ``--preload`` a comma-separated list), freezes
them as a worker does, then for each of the first ``--bcb-limit`` selected BigCodeBench references forks a child
that loads the reference as a module and runs its ``TestCases`` (unittest, in the reference's namespace, as the
sandbox does) and reports its CPU for each step and the modules it added to ``sys.modules``. Prints, per task,
the CPU of the load and of the tests; over all tasks, the modules most often imported (by top-level package and by
the submodules of the preloaded packages), then, for each such module, the CPU a child of the preloaded process
spends importing it alone (``--import-cost``).

Run outside the sandbox (no uid drop, limits or view): the figures are the child's own work, not its set-up.

Usage: ``uv run python benchmarks/perf/bcb_child_cost.py [--bcb-limit 40 | --sample] [--import-cost] [--preload a,b]
[--warm CODE] [--repeat N] [--quiet]`` (``--bcb-limit 0``: all 338; ``--sample``: the main job's 40; ``--warm``: code
the parent runs before forking, e.g. a candidate warm-up; ``--repeat``: the least CPU of N checks per task)
"""

from __future__ import annotations

import argparse
import collections
import gc
import importlib
import json
import os
import resource
import sys
import tempfile
import types
import unittest
from typing import Any

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.subsets.library_sample import library_sample
from tfr_helpers.sandbox.preload import PRELOAD


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _in_child(fn: object) -> dict[str, object]:
    """Run ``fn()`` (returning a JSON-able dict) in a forked child; its dict plus the child's total CPU."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.chdir(tempfile.mkdtemp())
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115
        os.dup2(sys.stdout.fileno(), 1)
        os.dup2(sys.stdout.fileno(), 2)
        try:
            out = fn()  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001
            out = {"error": repr(exc)}
        data = json.dumps(out).encode()
        while data:
            data = data[os.write(write, data) :]
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    _, _, usage = os.wait4(pid, 0)
    out = json.loads(b"".join(chunks) or b"{}")
    out["child_cpu"] = usage.ru_utime + usage.ru_stime
    return out


def _check(reference: str, tests: str) -> dict[str, object]:
    before = set(sys.modules)
    module = types.ModuleType("solution")
    sys.modules["solution"] = module
    c0, f0 = _cpu(), _faults()
    exec(compile(reference, "solution.py", "exec"), module.__dict__)  # noqa: S102
    c1, f1 = _cpu(), _faults()
    loaded = set(sys.modules)
    exec(compile(tests, "test_0.py", "exec"), module.__dict__)  # noqa: S102
    suite = unittest.TestSuite()
    for value in list(module.__dict__.values()):
        if isinstance(value, type) and issubclass(value, unittest.TestCase) and value is not unittest.TestCase:
            suite.addTests(unittest.TestLoader().loadTestsFromTestCase(value))
    result = unittest.TestResult()
    suite.run(result)
    c2, f2 = _cpu(), _faults()
    return {
        "load_cpu": c1 - c0,
        "test_cpu": c2 - c1,
        "load_faults": f1 - f0,
        "test_faults": f2 - f1,
        "ok": result.wasSuccessful(),
        "by_load": sorted(loaded - before - {"solution"}),
        "by_tests": sorted(set(sys.modules) - loaded),
    }


def _import(name: str) -> dict[str, object]:
    c0 = _cpu()
    importlib.import_module(name)
    return {"cpu": _cpu() - c0}


def _server(warm: str, tasks: list[Any]) -> tuple[int, Any, Any]:
    """Fork a process that runs ``warm`` (if any), then serves checks: a task index in, the child's CPU out."""
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(to_w)
        os.close(from_r)
        if warm:
            exec(compile(warm, "<warm>", "exec"), {})  # noqa: S102
        gc.collect()
        gc.freeze()
        with os.fdopen(to_r, "rb") as inbox, os.fdopen(from_w, "wb") as outbox:
            for line in inbox:
                task = tasks[int(line)]
                out = _in_child(lambda t=task: _check(t.reference, t.tests))
                outbox.write(json.dumps(out["child_cpu"]).encode() + b"\n")
                outbox.flush()
        os._exit(0)
    os.close(to_r)
    os.close(from_w)
    return pid, os.fdopen(to_w, "wb"), os.fdopen(from_r, "rb")


def ab(warm: str, tasks: list[Any], rounds: int) -> None:
    """Children of a process without ``warm`` (A) and of one with it (B), task by task, alternately."""
    servers = [_server("", tasks), _server(warm, tasks)]
    cpu = [[0.0, 0.0] for _ in range(rounds)]
    for r in range(rounds):
        for i in range(len(tasks)):
            order = (0, 1) if (i + r) % 2 == 0 else (1, 0)
            for side in order:
                _, inbox, outbox = servers[side]
                inbox.write(f"{i}\n".encode())
                inbox.flush()
                cpu[r][side] += float(outbox.readline())
        a, b = (1000 * c / len(tasks) for c in cpu[r])
        print(f"round {r + 1}: child CPU per check A {a:.1f} ms, B (warm) {b:.1f} ms, B/A {b / a:.3f}", flush=True)
    a, b = (1000 * sum(c[side] for c in cpu) / len(tasks) / rounds for side in (0, 1))
    print(f"all rounds: A {a:.1f} ms, B (warm) {b:.1f} ms per check, B/A {b / a:.3f}; load {os.getloadavg()[0]:.1f}")
    for _, inbox, outbox in servers:
        inbox.close()
        outbox.close()
    for pid, _, _ in servers:
        os.waitpid(pid, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bcb-limit", type=int, default=40)
    parser.add_argument("--import-cost", action="store_true", help="time each module's import in a child")
    parser.add_argument("--preload", default=",".join(PRELOAD))
    parser.add_argument("--sample", action="store_true", help="the main job's stratified sample (40 tasks) instead")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--warm", default="", help="Python code the parent runs after its preloads, before forking")
    parser.add_argument("--repeat", type=int, default=1, help="checks per task; the one of least CPU is kept")
    parser.add_argument("--ab", type=int, default=0, help="rounds of A/B: children of a process with --warm or not")
    parser.add_argument("--quiet", action="store_true", help="no line per task")
    args = parser.parse_args()
    os.environ.update(MPLBACKEND="Agg", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    for name in filter(None, args.preload.split(",")):
        importlib.import_module(name)
    tasks = load_tasks("bigcodebench")
    tasks = library_sample(tasks, "bigcodebench") if args.sample else tasks[: args.bcb_limit or None]
    if args.ab:
        ab(args.warm, tasks, args.ab)
        return
    if args.warm:
        exec(compile(args.warm, "<warm>", "exec"), {})  # noqa: S102
    gc.collect()
    gc.freeze()
    preloaded = set(sys.modules)
    counts: collections.Counter[str] = collections.Counter()
    tops: collections.Counter[str] = collections.Counter()
    total = {"load_cpu": 0.0, "test_cpu": 0.0, "child_cpu": 0.0}
    for task in tasks:
        outs = [_in_child(lambda t=task: _check(t.reference, t.tests)) for _ in range(args.repeat)]
        out = min(outs, key=lambda o: float(o["child_cpu"]))  # type: ignore[arg-type]
        new = [m for m in [*out.get("by_load", []), *out.get("by_tests", [])] if not m.startswith("_")]  # type: ignore[misc]
        for m in new:
            counts[m] += 1
        for top in {m.split(".")[0] for m in new}:
            tops[top] += 1
        for key in total:
            total[key] += float(out.get(key, 0.0))  # type: ignore[arg-type]
        if args.quiet:
            continue
        shown = sorted({m for m in new if m.count(".") <= 1})[:8]
        print(
            f"{task.task_id:<20} ok={out.get('ok')!s:<5} load {1000 * float(out.get('load_cpu', 0)):7.1f} ms "  # type: ignore[arg-type]
            f"tests {1000 * float(out.get('test_cpu', 0)):7.1f} ms child {1000 * float(out['child_cpu']):7.1f} ms "  # type: ignore[arg-type]
            f"+{len(new)} modules {' '.join(shown)} {out.get('error', '')}"
        )
    n = len(tasks)
    print(
        f"\n{n} tasks: per check load {1000 * total['load_cpu'] / n:.1f} ms, tests {1000 * total['test_cpu'] / n:.1f} "
        f"ms, child in all {1000 * total['child_cpu'] / n:.1f} ms (preloads: {len(preloaded)} modules)"
    )
    print("top-level packages imported by the children (tasks):")
    print("  " + ", ".join(f"{k} {v}" for k, v in tops.most_common(args.top)))
    wanted = [m for m, _ in counts.most_common() if m.count(".") <= 1 and m.split(".")[0] not in ("solution",)]
    print("modules imported (tasks), up to one dot:")
    print("  " + ", ".join(f"{m} {counts[m]}" for m in wanted[: 3 * args.top]))
    if args.import_cost:
        print("CPU of importing each alone in a child of the preloaded process (ms; tasks using it):")
        costs = []
        for m in wanted[: 3 * args.top]:
            out = _in_child(lambda m=m: _import(m))
            costs.append((float(out.get("cpu", 0.0)) * 1000, m))  # type: ignore[arg-type]
        for cost, m in sorted(costs, reverse=True):
            print(f"  {m:<40} {cost:7.1f} ms x {counts[m]} = {cost * counts[m]:8.1f} ms")


if __name__ == "__main__":
    main()
