"""Where a command leaves the machine's cores idle: runs it while sampling ``/proc/stat`` and the run's progress.

Every 0.5 s it records the share of the machine's cores in use (all processes, so run it on an otherwise idle
machine; with ``--tree``, the CPU of the command and its descendants alone, for a machine other jobs share), the
stage running in the run directory (``progress.json``) and the notebooks being executed (their
``.ipynb`` files written in the last 2 s), then prints, per (notebooks, stage) in the order first seen, the seconds
sampled, the cores in use on average and the idle core-seconds (``seconds x cores - CPU``), and the totals.

``uv run python benchmarks/perf/cpu_timeline.py --run-dir runs/default [--tree] [--tsv FILE] -- uv run tfr run``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

STEP_S = 0.5


def cpu_ticks() -> tuple[int, int]:
    """(all ticks, idle ticks) of the machine so far."""
    with open("/proc/stat", encoding="ascii") as fh:
        fields = [int(v) for v in fh.readline().split()[1:]]
    return sum(fields), fields[3] + fields[4]


def tree_ticks(root: int) -> int:
    """CPU ticks of ``root`` and its descendants so far: each live process's own and its reaped children's (so a
    process that ended counts once, in its parent's; one reparented away from the tree is lost)."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grown = bool(more)
    return sum(ticks.get(pid, 0) for pid in tree)


def where(run_dir: Path) -> str:
    """``<notebooks being written> | <stage running or (between stages)>`` in the run directory now."""
    try:
        progress = json.loads((run_dir / "progress.json").read_text(encoding="utf-8"))
        stage = progress["stage"] if progress.get("running") else "(between stages)"
    except (OSError, ValueError, KeyError):
        stage = "(no stage yet)"
    now = time.time()
    notebooks = sorted(
        p.stem.split("_")[0] for p in (run_dir / "notebooks").glob("*.ipynb") if now - p.stat().st_mtime < 2.0
    )
    return f"{'+'.join(notebooks) or '-'} | {stage}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-dir", type=Path, required=True, help="The run directory the command writes.")
    parser.add_argument(
        "--tree", action="store_true", help="Count the CPU of the command and its descendants, not of the machine."
    )
    parser.add_argument("--tsv", type=Path, help="Also write every sample (seconds, cores in use, where).")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="The command, after --.")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    cores = os.cpu_count() or 1
    samples: list[tuple[float, float, str]] = []
    start = time.perf_counter()
    before = cpu_ticks()
    process = subprocess.Popen(command)
    hertz, mine, last = os.sysconf("SC_CLK_TCK"), 0, time.perf_counter()
    while process.poll() is None:
        time.sleep(STEP_S)
        if args.tree:  # this command's share: its ticks over the seconds elapsed
            ticks, now_s = tree_ticks(process.pid), time.perf_counter()
            used = max(0, ticks - mine) / hertz / max(now_s - last, 1e-9)
            mine, last = max(mine, ticks), now_s
        else:
            now = cpu_ticks()
            total, idle = now[0] - before[0], now[1] - before[1]
            before = now
            used = cores * (total - idle) / max(total, 1)
        samples.append((time.perf_counter() - start, used, where(args.run_dir)))
    wall = time.perf_counter() - start
    if args.tsv:
        args.tsv.write_text("".join(f"{t:.1f}\t{c:.2f}\t{w}\n" for t, c, w in samples), encoding="utf-8")
    parts: dict[str, list[float]] = {}  # where -> [seconds, busy core-seconds], in the order first seen
    for _, used, at in samples:
        part = parts.setdefault(at, [0.0, 0.0])
        part[0] += STEP_S
        part[1] += used * STEP_S
    shown = " ".join(command).replace("\n", "\\n")
    counted = "the command's process tree" if args.tree else "the machine"
    print(f"# exit {process.returncode}, {wall:.1f} s wall on {cores} cores (CPU of {counted}): {shown}")
    print(f"{'notebooks | stage':60s} {'wall s':>8s} {'cores':>6s} {'idle core-s':>12s}")
    for at, (seconds, busy) in parts.items():
        print(f"{at[:60]:60s} {seconds:8.1f} {busy / seconds:6.2f} {cores * seconds - busy:12.1f}")
    seconds_all, busy_all = sum(p[0] for p in parts.values()), sum(p[1] for p in parts.values())
    print(f"{'all':60s} {seconds_all:8.1f} {busy_all / max(seconds_all, 1e-9):6.2f} {cores * seconds_all - busy_all:12.1f}")
    sys.exit(process.returncode)


if __name__ == "__main__":
    main()
