"""Where a *finished* run's stage time went, read from its records alone (``profile_study.py --mode records``).

Per stage (its ``stage_seconds.json`` wall time, times the sandbox workers it had):

- ``test``: wall time of the test executions that did not time out (``duration_s`` of each distinct outcome);
- ``timeout``: wall time of the executions that timed out; ``own time``: both less their waits for a CPU
  (``wait_s``: what the machine's load added);
- ``outside``: worker-seconds not spent in any test: ``wall x workers - test - timeout`` (forks, program
  loads, transport, files, clean-up, idle workers), in total and per execution (the mean);
- per benchmark and per kind (``benchmark`` tests, generated ``ebt``/``pbt``, the reference's ``rerun`` and
  ``harder`` check, ``refined``): executions, test, timeout and the tests over 1 s;
- where the run logged every sandbox execution (``executions/<stage>.jsonl``: the job's wall time on its worker
  as the pool saw it), the median and quartiles of the cost outside the test per execution, and per sandbox call
  (the batch a run belonged to: ``generated tests``, ``reference reruns``, ``EvalPlus tiers``...) its jobs,
  executions, own time and median cost outside;
- user and system CPU of the stage (``stage_cpu.json``: the driver process, the sandbox workers and the programs
  they forked), where the run recorded it;
- files written in the stage, their bytes: its logs by name once they are compressed, else by modification time
  between the ends of the stages' checkpoints;
- where the notebook series ran into the run, each notebook's seconds and slowest cells, and the seconds the
  series spent around its stages;
- the largest files of the run directory, and the bytes of the results' eight largest top-level keys (each value
  as written without indentation, before compression), where the run has them.

An outcome is one execution; outcomes identical in every field (timings included) are one execution shared by
several records (a run's outcome repeated in several pairs).

Usage: ``uv run python benchmarks/perf/profile_study.py --mode records --run-dir RUN [--workers N]``
"""

from __future__ import annotations

import json
import os
import statistics
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from tfr_helpers import logfiles
from tfr_helpers.pipeline.engine.store import LOG_DIRS
from tfr_helpers.results_file import read_results_bytes, results_file

ROLE_KIND = {
    "reference_rerun": "rerun",
    "reference_harder": "harder",
    "generated_test_after": "refined",
    "benchmark_after_run": "refined",
}
"""Fields whose outcomes are a kind of their own (else a record's ``kind``, or ``benchmark`` for a run)."""
SLOW_S = 1.0


def _inline(value: Any, table: list[Any]) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$shared"}:
            return _inline(table[value["$shared"]], table)
        return {k: _inline(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [_inline(v, table) for v in value]
    return value


def checkpoint_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every record of a checkpoint file (plain or compressed) as a plain dict (shared values put back; a torn
    line skipped)."""
    for line in logfiles.read_text(path).splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        data = entry.get("data") or []
        table = data[0]["values"] if data and data[0].get("type") == "$shared" else []
        for item in data[1:] if table else data:
            record = item.get("record")
            if isinstance(record, dict):
                yield _inline(record, table) if table else record


def outcomes_of(value: Any, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(kind, outcome dict)`` for every test outcome inside a record, at any depth."""
    if isinstance(value, dict):
        if "status" in value and "name" in value and "duration_s" in value:
            yield kind, value
            return
        kind = value.get("kind", kind) if isinstance(value.get("kind"), str) else kind
        for key, sub in value.items():
            yield from outcomes_of(sub, ROLE_KIND.get(key, "benchmark" if key in ("run", "benchmark_run") else kind))
    elif isinstance(value, list):
        for sub in value:
            yield from outcomes_of(sub, kind)


def stage_checkpoints() -> list[tuple[str, str]]:
    """``(stage, checkpoint name)`` of every registered checkpointed stage, in run order."""
    import tfr_helpers.pipeline.study  # noqa: F401 - registers the study's stages
    from tfr_helpers.pipeline.engine.stage import registered_stages

    return [(s.name, s.checkpoint) for s in registered_stages() if s.checkpoint]


class Tally:
    """Executions, test time, timeout time and slow tests of one group."""

    def __init__(self) -> None:
        self.n, self.test, self.timeout, self.slow_n, self.slow_s, self.own = 0, 0.0, 0.0, 0, 0.0, 0.0

    def add(self, outcome: dict[str, Any]) -> None:
        seconds = float(outcome.get("duration_s") or 0.0)
        self.own += max(0.0, seconds - float(outcome.get("wait_s") or 0.0))
        self.n += 1
        if outcome.get("status") == "timeout":
            self.timeout += seconds
        else:
            self.test += seconds
        if seconds > SLOW_S:
            self.slow_n += 1
            self.slow_s += seconds

    def line(self, label: str) -> str:
        return (
            f"  {label:<28} {self.n:>7} exec  test {self.test:8.1f} s  timeout {self.timeout:7.1f} s  "
            f"(own time {self.own:8.1f} s)  >{SLOW_S:g} s: {self.slow_n} ({self.slow_s:.1f} s)"
        )


def _benchmarks(run: Path) -> dict[str, str]:
    try:
        listing = json.loads((run / "tasks.json").read_text())["tasks"]
    except (OSError, ValueError, KeyError):
        return {}
    return {t["task_id"]: t["benchmark"] for t in listing}


def tally_stage(path: Path, benchmarks: dict[str, str]) -> tuple[Tally, dict[str, Tally], dict[str, Tally]]:
    """The stage's distinct executions: in total, per benchmark, per kind."""
    total, by_bench, by_kind = Tally(), defaultdict(Tally), defaultdict(Tally)
    seen: set[str] = set()
    for record in checkpoint_records(path):
        bench = record.get("benchmark") or benchmarks.get(record.get("task_id", ""), "?")
        for kind, outcome in outcomes_of(record, "benchmark"):
            key = json.dumps(outcome, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            for tally in (total, by_bench[bench], by_kind[kind]):
                tally.add(outcome)
    return total, by_bench, by_kind


def execution_costs(log: Path) -> list[float]:
    """Per test execution, the seconds of its job's wall time on its worker (as the pool saw it) outside the own
    time of the job's tests, shared equally by them (the run's ``executions/<stage>.jsonl``)."""
    costs: list[float] = []
    for line in logfiles.read_text(log).splitlines():
        try:
            entry = json.loads(line)
            job_s, tests = float(entry["job_s"]), entry["tests"]
        except (ValueError, KeyError, TypeError):
            continue
        if tests:
            outside = max(0.0, job_s - sum(float(t[1]) for t in tests))
            costs += [outside / len(tests)] * len(tests)
    return costs


def execution_calls(log: Path) -> dict[str, tuple[int, int, float, float, float | None]]:
    """Per sandbox call (``call`` of each line: the batch's description, e.g. ``reference reruns``; runs logged
    before the field existed have none): jobs, test executions, the tests' own seconds, the median cost outside
    them per execution and the seconds its jobs waited for a core and a worker before they were sent (``queue_s``;
    None in runs logged before it existed, whose ``job_s`` included that wait)."""
    rows: dict[str, list[Any]] = defaultdict(lambda: [0, 0, 0.0, [], None])
    for line in logfiles.read_text(log).splitlines():
        try:
            entry = json.loads(line)
            call, job_s, tests = entry.get("call"), float(entry["job_s"]), entry["tests"]
            queue = entry.get("queue_s")
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if not call or not tests:
            continue
        own = sum(float(t[1]) for t in tests)
        row = rows[call]
        row[0], row[1], row[2] = row[0] + 1, row[1] + len(tests), row[2] + own
        row[3] += [max(0.0, job_s - own) / len(tests)] * len(tests)
        if queue is not None:
            row[4] = (row[4] or 0.0) + float(queue)
    return {call: (r[0], r[1], r[2], statistics.median(r[3]), r[4]) for call, r in rows.items()}


def files_by_stage(run: Path, ends: list[tuple[str, float]]) -> dict[str, tuple[int, int]]:
    """Files (count, bytes) per stage: a stage's logs by their names (``artifacts/<stage>.jsonl.gz``,
    ``checkpoints/<checkpoint>.jsonl.gz``...) once a run's logs are compressed (their times are then those of the
    compression), else by modification time (after the previous stage's end); other files by time too."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    order = sorted(ends, key=lambda e: e[1])
    by_checkpoint = {checkpoint: stage for stage, checkpoint in stage_checkpoints()}
    compressed = any((run / "checkpoints").glob("*.jsonl.gz"))
    for dirpath, _dirs, files in os.walk(run):
        for name in files:
            st = os.stat(os.path.join(dirpath, name))
            folder = os.path.relpath(dirpath, run)
            if compressed and folder in LOG_DIRS:
                log = name.removesuffix(".gz").removesuffix(".jsonl")
                stage = by_checkpoint.get(log, log) if folder == "checkpoints" else log
            elif compressed:
                stage = "other files"
            else:
                stage = next((s for s, end in order if st.st_mtime <= end), "after the stages")
            out[stage][0] += 1
            out[stage][1] += st.st_size
    return {k: (v[0], v[1]) for k, v in out.items()}


def largest_files(run: Path, n: int = 10) -> list[tuple[int, str]]:
    """The ``n`` largest files of the run directory: (bytes, run-relative path), largest first."""
    sizes = [
        (os.stat(os.path.join(dirpath, name)).st_size, os.path.relpath(os.path.join(dirpath, name), run))
        for dirpath, _dirs, files in os.walk(run)
        for name in files
    ]
    return sorted(sizes, reverse=True)[:n]


def results_composition(path: Path) -> list[tuple[int, str]]:
    """``results.json``'s bytes per top-level key (the value as written without indentation), largest first."""
    data = json.loads(read_results_bytes(path).decode("utf-8"))
    return sorted(((len(json.dumps(v, separators=(",", ":"))), k) for k, v in data.items()), reverse=True)


def notebook_lines(run: Path, stage_total: float, top: int = 3) -> list[str]:
    """Per executed notebook of the run (``notebooks/*.ipynb``, papermill's timings): its seconds from its first cell
    to its end, how long its kernel started before that (started ahead of its turn, its imports loaded, in ``tfr
    run``), and its ``top`` slowest cells (their first line), then the notebooks' total against the stages' (what
    the series spends around its stages: kernel starts, loading records, analysis, figures). Empty when no notebook
    ran into the run."""
    lines, total, spans = [], 0.0, []
    for path in sorted((run / "notebooks").glob("*.ipynb")):
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        meta = nb.get("metadata", {}).get("papermill") or {}
        seconds = float(meta.get("duration") or 0.0)
        ahead = ""
        first_cell = next(
            (c for c in nb.get("cells", []) if (c.get("metadata", {}).get("papermill") or {}).get("start_time")), None
        )
        if first_cell is not None and meta.get("start_time") and meta.get("end_time"):
            # a kernel started ahead of its turn (tfr run): the notebook's own time runs from its first cell
            turn = datetime.fromisoformat(first_cell["metadata"]["papermill"]["start_time"])
            kernel = (turn - datetime.fromisoformat(meta["start_time"])).total_seconds()
            seconds = (datetime.fromisoformat(meta["end_time"]) - turn).total_seconds()
            ahead = f"  (kernel started {kernel:.1f} s before its first cell)"
        total += seconds
        if meta.get("start_time") and meta.get("end_time"):
            spans.append((datetime.fromisoformat(meta["start_time"]), datetime.fromisoformat(meta["end_time"])))
        cells = []
        for cell in nb.get("cells", []):
            took = (cell.get("metadata", {}).get("papermill") or {}).get("duration")
            source = "".join(cell.get("source", [])).strip().splitlines()
            first = next((ln for ln in source if ln and not ln.startswith(("#", "from ", "import "))), "")
            if took:
                cells.append((float(took), first[:70]))
        lines.append(f"  {path.stem:<36} {seconds:8.1f} s{ahead}")
        lines += [f"      cell {took:8.1f} s  {first}" for took, first in sorted(cells, reverse=True)[:top]]
    if not lines:
        return []
    # notebooks may run beside each other: the series' span (first start to last end), not their sum, is its time
    span = (max(e for _, e in spans) - min(b for b, _ in spans)).total_seconds() if spans else total
    beside = f" (their own times add up to {total:.1f} s: some ran at once)" if total > span + 1 else ""
    head = (
        f"\n## notebooks: {span:.1f} s from the first start to the last end{beside}, "
        f"{span - stage_total:.1f} s of it around the stages' {stage_total:.1f} s"
    )
    return [head, *lines]


def profile_run(run: Path, workers: int | None = None) -> list[str]:
    """The report's lines for a finished run directory."""
    config = json.loads((run / "config.json").read_text()).get("config", {})
    workers = workers or (config.get("concurrency") or {}).get("sandbox_workers") or os.cpu_count() or 1
    seconds = json.loads((run / "stage_seconds.json").read_text()) if (run / "stage_seconds.json").exists() else {}
    cpu = json.loads((run / "stage_cpu.json").read_text()) if (run / "stage_cpu.json").exists() else {}
    benchmarks = _benchmarks(run)
    ends = []
    lines = [f"# {run}: {workers} sandbox workers; stage wall {sum(seconds.values()):.1f} s"]
    for stage, name in stage_checkpoints():
        path = run / "checkpoints" / f"{name}.jsonl"
        where = logfiles.stored(path)
        if where is None:
            continue
        ends.append((stage, where.stat().st_mtime))
        total, by_bench, by_kind = tally_stage(path, benchmarks)
        wall = float(seconds.get(stage, 0.0))
        lines.append(f"\n## {stage}: wall {wall:.1f} s")
        if total.n:
            outside = wall * workers - total.test - total.timeout
            lines.append(
                f"  executions {total.n}; test {total.test:.1f} s; timeout {total.timeout:.1f} s (own time of both "
                f"{total.own:.1f} s: less the waits for a CPU); outside "
                f"{outside:.1f} worker-s = {1000 * outside / total.n:.1f} ms per execution (mean)"
            )
            log = run / "executions" / f"{stage}.jsonl"
            if logfiles.exists(log) and (costs := execution_costs(log)):
                q = statistics.quantiles(costs, n=4) if len(costs) > 1 else [costs[0]] * 3
                lines.append(
                    f"  outside per execution on its worker: median {1000 * q[1]:.2f} ms, quartiles "
                    f"{1000 * q[0]:.2f}-{1000 * q[2]:.2f} ms, mean {1000 * statistics.fmean(costs):.2f} ms"
                )
                calls = execution_calls(log)
                lines += [
                    f"  call {call:<36} {jobs:>6} jobs {n:>7} exec  own time {own:8.1f} s  outside median "
                    f"{1000 * median:.2f} ms" + ("" if queue is None else f"  waited to be sent {queue:8.1f} s")
                    for call, (jobs, n, own, median, queue) in sorted(calls.items(), key=lambda kv: -kv[1][1])
                ]
            lines += [t.line(f"benchmark {b}") for b, t in sorted(by_bench.items())]
            lines += [t.line(f"kind {k}") for k, t in sorted(by_kind.items())]
        if stage in cpu:
            c = cpu[stage]
            lines.append(
                f"  CPU user {c['user_s']:.1f} s, system {c['system_s']:.1f} s "
                f"({100 * c['system_s'] / max(1e-9, c['user_s'] + c['system_s']):.0f}% system)"
            )
    lines += notebook_lines(run, sum(seconds.values()))
    files = files_by_stage(run, ends)
    lines.append("\n## files written" + (" (a stage's: its logs; other files apart)" if "other files" in files else ""))
    for stage, (n, size) in sorted(files.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"  {stage:<28} {n:>7} files {size / 1e6:9.1f} MB")
    n_all, size_all = sum(v[0] for v in files.values()), sum(v[1] for v in files.values())
    lines.append(f"  {'all':<28} {n_all:>7} files {size_all / 1e6:9.1f} MB")
    lines.append("\n## largest files")
    lines += [f"  {rel:<52} {size / 1e6:9.1f} MB" for size, rel in largest_files(run)]
    if (file := results_file(run)) is not None:
        lines.append(f"\n## {file.name} ({file.stat().st_size / 1e6:.1f} MB) by key, uncompressed")
        lines += [f"  {key:<52} {size / 1e6:9.1f} MB" for size, key in results_composition(file)[:8]]
    return lines
