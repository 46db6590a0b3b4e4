"""Draw the blind label-validation sample from a finished run: a seeded, stratified random sample of replayed
test-fail feedback instances, each written as a reading packet without the classifier's label.

Writes ``<out>/items.jsonl`` (one packet per item: the task prompt as the model saw it and the task's full
description, the entry point, the generated code, the generated test, the code's failure as the refiner saw it, and
what the reference returns or raises on each call the test makes), ``<out>/README.md`` (provenance and the readers'
instructions) and the key (item -> classifier label, cause, feedback id) at ``--key-out``, which must lie outside
the repository so that no reader can come across it.

Usage: ``TFR_BENCHMARK_DIR=... TFR_REPLAY_DIR=... uv run python benchmarks/labels/draw_blind_sample.py
--run-dir RUN --out docs/labels/blind --n 120 --seed 20261202 --key-out /tmp/labels-key/key.jsonl``
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

from blind_population import STRATA, Population, Unit, allocation, counts, draw, population
from blind_readme import readme
from reference_calls import CallJob, reference_calls

from tfr_helpers.benchmarks import get_task
from tfr_helpers.errors import TfrError
from tfr_helpers.records import Case, Cause, Reliability
from tfr_helpers.replay.load import load_replay
from tfr_helpers.sandbox import Limits

REPO = Path(__file__).resolve().parents[2]
LEAKS = re.compile(r"\b(" + "|".join(sorted({*get_args(Reliability), *get_args(Case), *get_args(Cause)})) + r")\b")
"""Words that would give a label away: the labels, the cases and the causes."""
PACKET_KEYS = (
    "item",
    "source",
    "task_id",
    "entry_point",
    "prompt",
    "task_description",
    "code",
    "test",
    "failure",
    "reference_calls",
)


def commit_of(path: Path) -> str:
    """The commit checked out where ``path`` lies (with ``+changes`` when the tree is dirty), or ``unknown``."""
    try:
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run(
            ["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not in a git checkout)"
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def run_settings(run_dir: Path) -> dict[str, Any]:
    """The run's resolved configuration (``config.json``)."""
    path = run_dir / "config.json"
    if not path.is_file():
        raise TfrError(f"{run_dir} has no config.json: not a run directory")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def packets(units: list[Unit], limits: Limits) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The items and the key, in the sample's order."""
    prompts = {}
    for model in {u.shown.model for u in units}:
        data = load_replay(model.removeprefix("replay:"))
        prompts[model] = {t: r.prompt for t, r in data.tasks.items()}
    jobs = []
    for u in units:
        task = get_task(u.task_id)
        jobs.append(CallJob(task.reference, task.entry_point, u.shown.generated.name, u.test))
    calls = reference_calls(jobs, limits)
    items, key = [], []
    for number, (u, job, behaviour) in enumerate(zip(units, jobs, calls, strict=True), start=1):
        p, task = u.shown, get_task(u.task_id)
        item = f"B{number:03d}"
        prompt = prompts[p.model].get(u.task_id) or task.description
        assert p.feedback is not None
        items.append(
            {
                "item": item,
                "source": STRATA[u.stratum],
                "task_id": u.task_id,
                "entry_point": task.entry_point,
                "prompt": prompt,
                "task_description": None if prompt == task.description else task.description,
                "code": u.code,
                "test": job.test_source,
                "failure": p.feedback.text,
                "reference_calls": behaviour,
            }
        )
        key.append(
            {
                "item": item,
                "label": p.reliability,
                "cause": p.cause,
                "feedback_id": p.pair_id,
                "stratum": u.stratum,
                "task_id": u.task_id,
                "instances": len(u.pairs),
            }
        )
    return items, key


def leaks(items: list[dict[str, Any]]) -> list[str]:
    """Where an item gives its label away: a key beyond :data:`PACKET_KEYS`, or a label, case or cause word."""
    found = []
    for it in items:
        extra = sorted(set(it) - set(PACKET_KEYS))
        if extra:
            found.append(f"{it['item']}: unexpected fields {extra}")
        words = sorted(set(LEAKS.findall(json.dumps(it))))
        if words:
            found.append(f"{it['item']}: {words}")
    return found


def command(argv: list[str]) -> str:
    """The command that drew the sample, its note left out (the README shows it)."""
    shown = []
    for arg in argv:
        shown.append("'(the note above)'" if shown and shown[-1] == "--note" else shlex.quote(arg))
    return "uv run python benchmarks/labels/draw_blind_sample.py " + " ".join(shown)


def main(argv: list[str] | None = None) -> None:
    """Draw the sample and write the items, the README and the key."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--run-dir",
        type=Path,
        action="append",
        required=True,
        help="a run with evaluate_code_test_pairs done (repeat for runs of different models)",
    )
    parser.add_argument("--out", type=Path, required=True, help="directory for items.jsonl and README.md")
    parser.add_argument("--key-out", type=Path, required=True, help="the key's file: outside the repository")
    parser.add_argument("--n", type=int, default=120)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--note", default="", help="a sentence for the provenance (how the run was made)")
    args = parser.parse_args(argv)
    try:
        key_out = args.key_out.resolve()
        if key_out.is_relative_to(REPO):
            raise TfrError(f"--key-out {args.key_out} lies inside the repository; put the key outside it")
        settings = [run_settings(r) for r in args.run_dir]
        pop = population(args.run_dir)
        sample = draw(pop, args.n, args.seed)
        sandbox = settings[0]["config"]["sandbox"]
        if any(s["config"]["sandbox"] != sandbox for s in settings):
            raise TfrError("the runs differ in their sandbox settings: draw from runs made with the same settings")
        limits = Limits(timeout_s=float(sandbox["generated_test_timeout_s"]), memory_mb=int(sandbox["memory_mb"]))
        items, key = packets(sample, limits)
        found = leaks(items)
        if found:
            raise TfrError("an item gives its label away: " + "; ".join(found[:5]))
    except TfrError as exc:
        sys.exit(f"error: {exc}")
    write(args, settings, pop, sample, items, key, limits)


def write(
    args: argparse.Namespace,
    settings: list[dict[str, Any]],
    pop: Population,
    sample: list[Unit],
    items: list[dict[str, Any]],
    key: list[dict[str, Any]],
    limits: Limits,
) -> None:
    """Write the items, the README and the key."""
    args.out.mkdir(parents=True, exist_ok=True)
    args.key_out.parent.mkdir(parents=True, exist_ok=True)
    (args.out / "items.jsonl").write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    args.key_out.write_text("".join(json.dumps(k) + "\n" for k in key), encoding="utf-8")
    drawn: dict[str, list[Unit]] = {s: [u for u in sample if u.stratum == s] for s in STRATA}
    provenance = {
        "runs": [
            {"dir": str(r), "name": s["config"].get("run_name"), "config_hash": s.get("config_hash"), "commit": commit_of(r)}
            for r, s in zip(args.run_dir, settings, strict=True)
        ],
        "draw_commit": commit_of(REPO),
        "seed": args.seed,
        "n": args.n,
        "allocation": allocation(args.n),
        "population": counts(pop.units),
        "instances": pop.instances,
        "indeterminate": pop.indeterminate,
        "other_models": pop.other_models,
        "drawn": counts(drawn),
        "budget_s": limits.timeout_s,
        "note": args.note,
        "command": command(sys.argv[1:]),
    }
    (args.out / "README.md").write_text(readme(provenance), encoding="utf-8")
    print(f"{len(items)} items -> {args.out / 'items.jsonl'}; key -> {args.key_out}")
    for s, (n, tasks) in provenance["drawn"].items():
        print(f"  {s}: {n} items over {tasks} tasks (population {provenance['population'][s][0]} distinct executions)")


if __name__ == "__main__":
    main()
