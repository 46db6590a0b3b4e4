"""Print the README's headline table (markdown) from a run's ``analysis/summary.json``, each row with its population.

    uv run python benchmarks/readme_headlines.py --run-dir runs/default
    uv run python benchmarks/readme_headlines.py --rq2 --run-dir runs/trajectories

``--rq2``: the README's "Real RQ2" paragraph instead, from the run's replayed trajectory sets (every set of the
run, none selected): the range of P(Pass->Fail | passed) over the judged steps across the sets, the judged
fractions, and the conditional contrast (after unreliable against after reliable feedback, among steps whose code
passed) wherever both sides have a step.

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
import textwrap
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


RQ2_WIDTH = 118
"""The README's line width."""


def _set_name(row: dict[str, Any]) -> str:
    """``o3-mini `valtest-60```: the model and its run's name without the protocol and the model
    (``reflexion-o3mini-bcb-valtest-60``)."""
    name = row["dataset"].removeprefix("reflexion-")
    name = name.split("-", 1)[1] if "-" in name else name
    return f"{row['model']} `{name.removeprefix('bcb-')}`"


def _rate(row: dict[str, Any], prefix: str) -> str:
    return f"**{row[f'{prefix}pct']}%** ({row[f'{prefix}k']}/{row[f'{prefix}n']})"


def _p(p: float) -> str:
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def dose_response_sentence(summary: dict[str, Any]) -> str | None:
    """The valtest series' dose-response from summary.json's ``rq2_dose`` section (per-task dose, per 10 points of
    valid tests, GEE clustered by task, Holm p) and the extremes' paired contrast; None without the section or
    without a fitted series."""
    dose = summary.get("rq2_dose")
    if not dose:
        return None
    series = set(dose.get("series", {}).get("sets", []))
    lists = [r for r in dose["doses"]["rows"] if series & {x.strip() for x in r["sets"].split(",")}]
    measured = sorted((r for r in lists if r.get("valid_pct") is not None), key=lambda r: r["valid_pct"])
    shares = ", ".join(f"`{r['test_list']}` {r['valid_pct']}%" for r in measured)
    rows = {r["outcome"]: r for r in dose["dose_response"]["rows"] if r["dose"] == "dose_task" and r.get("estimate")}
    if not rows:
        return f"The fixed test lists' measured valid share: {shares}; too few lists in this run for a dose-response."
    names = {"final_passed": "final code passes", "ever_broken": "passing code ever broken", "steps": "steps taken"}
    slopes = "; ".join(
        f"{names[o]} {rows[o]['estimate']:+.3f} {rows[o]['scale']} [{rows[o]['low']:+.3f}, {rows[o]['high']:+.3f}], "
        f"p {_p(rows[o]['p_holm'])}"
        for o in names
        if o in rows
    )
    first = next(iter(rows.values()))
    text = (
        f"**The dose series** (o3-mini, the same {first['tasks']} BigCodeBench tasks judged in each of "
        f"{first['lists']} runs, each refining against a fixed test list whose validity tfr measured on the "
        f"reference: {shares}): per 10 points more valid tests, {slopes} (GEE clustered by task, Holm)."
    )
    ext = {r["outcome"]: r for r in dose.get("extremes", {}).get("rows", []) if r.get("status") == "tested"}
    if "ever_broken" in ext and "final_passed" in ext:
        e, f = ext["ever_broken"], ext["final_passed"]
        a, b = dose["extremes"]["lists"]
        text += (
            f" `{a}` against `{b}`, paired by task: passing code broken in {100 * e['treated_mean']:.1f}% against "
            f"{100 * e['control_mean']:.1f}% of tasks (p {_p(e['p_holm'])}), final code passes "
            f"{100 * f['treated_mean']:.1f}% against {100 * f['control_mean']:.1f}% (p {_p(f['p_holm'])})."
        )
    return text


def rq2_paragraph(summary: dict[str, Any]) -> str:
    """The README's "Real RQ2" paragraph from a parsed summary.json with a ``trajectories`` section."""
    section = summary.get("trajectories")
    if not section:
        raise SystemExit("summary.json has no 'trajectories' section: analyse a run that replays trajectory sets")
    heads = section["headline"]["rows"]
    rated = [r for r in heads if r.get("pass_fail_n")]
    if not rated:
        raise SystemExit("no trajectory set has a judged step whose code passed before: nothing to report")
    low = min(rated, key=lambda r: (r["pass_fail_pct"], -r["pass_fail_n"]))
    high = max(rated, key=lambda r: (r["pass_fail_pct"], r["pass_fail_n"]))
    judged = [r["judged_pct"] for r in heads if r.get("judged_pct") is not None]
    unrated = [_set_name(r) for r in heads if not r.get("pass_fail_n")]
    text = (
        f"**Real RQ2** (all {len(heads)} replayed Reflexion runs, none left out, [docs/replay.md](docs/replay.md); the "
        f"judged steps, {min(judged)}-{max(judged)}% of a run's): P(Pass->Fail | passed) ranges from "
        f"{_rate(low, 'pass_fail_')} ({_set_name(low)}) to {_rate(high, 'pass_fail_')} ({_set_name(high)})"
    )
    text += f"; {', '.join(unrated)}: no such step." if unrated else "."
    both = [r for r in section.get("contrast", {}).get("rows", []) if r["status"] == "both sides"]
    if both:
        parts = [
            f"{_set_name(r)} {r['unreliable_k']}/{r['unreliable_n']} vs {r['reliable_k']}/{r['reliable_n']}" for r in both
        ]
        text += f" Given passing code, after unreliable vs reliable feedback: {'; '.join(parts)}; other runs: a side empty."
    else:
        text += " No run has passing code after both unreliable and reliable feedback: no contrast."
    dose = dose_response_sentence(summary)
    if dose:
        text += f" {dose}"
    return textwrap.fill(text, width=RQ2_WIDTH, break_on_hyphens=False, break_long_words=False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", type=Path, required=True, help="a run directory analysed by `tfr analyze`")
    parser.add_argument("--rq2", action="store_true", help="print the Real RQ2 paragraph (replayed trajectory sets)")
    args = parser.parse_args(argv)
    path = args.run_dir / "analysis" / "summary.json"
    if not path.is_file():
        raise SystemExit(f"no {path}: run `uv run tfr analyze --run-dir {args.run_dir}` first")
    summary = json.loads(path.read_text())
    if args.rq2:
        print(rq2_paragraph(summary))
        return
    if summary.get("simulated") and not any(s.get("source") == "replayed" for s in summary.get("model_sources", [])):
        raise SystemExit("the run holds no replayed model: a simulated run has no headline numbers")
    print("\n".join(headline_rows(summary)))


if __name__ == "__main__":
    main(sys.argv[1:])
