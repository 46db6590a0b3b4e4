"""Print the README's headline table (markdown) from a run's ``analysis/summary.json``, each row with its population.

    uv run python benchmarks/readme_headlines.py --run-dir runs/default

One row per replayed model: the unreliable share of its test-fail feedback, with its 95% interval, the feedback
instances and the tasks they come from, and how many of the run's tasks have any generated test. Where a model's
feedback includes empty solutions (a function with only its docstring, e.g. Reflexion's fourteen empty published
solutions), the non-empty and the empty ones get rows of their own: an empty solution fails every correct assert,
so its feedback describes the protocol, not feedback on the model's code. Simulated models are left out (a demo,
never a headline).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SOLUTION_LABELS = {"all": "all solutions", "non_empty": "non-empty solutions", "empty": "empty solutions"}


def _interval(row: dict[str, Any]) -> str:
    def num(x: Any) -> str:
        return "--" if x is None else f"{x:.1f}"

    return f"**{num(row['pct'])}%** [{num(row['low'])}, {num(row['high'])}]"


def headline_rows(summary: dict[str, Any]) -> list[str]:
    """The table's markdown lines (header first) from a parsed summary.json."""
    labels = {s["model"]: s for s in summary.get("model_sources", [])}
    populations = summary.get("populations")
    if populations is None:
        raise SystemExit("summary.json has no 'populations' section: analyse the run with this version first")
    tasks = {r["model"]: r for r in populations["tasks"]["rows"]}
    by_solution: dict[str, dict[str, dict[str, Any]]] = {}
    for r in populations["rq1_by_solution"]["rows"]:
        by_solution.setdefault(r["model"], {})[r["solution"]] = r
    lines = [
        "| model (replayed) | test-fail feedback that is unreliable | population |",
        "|---|---|---|",
    ]
    for model, rows in sorted(by_solution.items()):
        source = labels.get(model, {})
        if source.get("source") != "replayed":
            continue
        t = tasks[model]
        tested = f"{t['tasks_with_tests']} of its {t['tasks']} tasks have any generated test"
        shown = ["all"]
        if rows.get("empty", {}).get("n"):
            shown += ["non_empty", "empty"]
        for solution in shown:
            r = rows[solution]
            if not r["n"]:
                continue
            who = source.get("producer") or model
            population = (
                f"{r['k']:,} of {r['n']:,} feedback instances on {SOLUTION_LABELS[solution]} "
                f"({r['codes']:,} code samples), from {r['clusters']} tasks; {tested}"
            )
            if solution == "empty":
                population += (
                    " (an empty program fails every correct assert: this row describes the protocol, not feedback on code)"
                )
            lines.append(f"| {who}, {SOLUTION_LABELS[solution]} | {_interval(r)} | {population} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", type=Path, required=True, help="a run directory analysed by `tfr analyze`")
    args = parser.parse_args(argv)
    path = args.run_dir / "analysis" / "summary.json"
    if not path.is_file():
        raise SystemExit(f"no {path}: run `uv run tfr analyze --run-dir {args.run_dir}` first")
    summary = json.loads(path.read_text())
    if summary.get("simulated") and not any(s.get("source") == "replayed" for s in summary.get("model_sources", [])):
        raise SystemExit("the run holds no replayed model: a simulated run has no headline numbers")
    print("\n".join(headline_rows(summary)))


if __name__ == "__main__":
    main(sys.argv[1:])
