"""The replayed trajectories' outputs: the ``rq2_trajectories`` table, the ``trajectories`` section of summary.json,
and the lines ``tfr analyze`` prints per set. Numbers come from :mod:`.trajectories`; every row names its set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.answers import AnswerKind, register_answer_kind
from tfr_helpers.analysis.tables import share_cell
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.arms.trajectories.arm import ARM, part_in
from tfr_helpers.arms.trajectories.report import (
    dose_report,
    trajectory_figure,
    trajectory_rewards,
    trajectory_screening,
    trajectory_steps_report,
)
from tfr_helpers.arms.trajectories.report.trajectories import (
    JUDGED_GROUP,
    causes,
    faults,
    headline,
    present,
    rq2_rows,
    step_classes,
)
from tfr_helpers.arms.trajectories.report.trajectory_cases import (
    judges_offline,
    screening_of,
    screening_text,
    set_label,
    step_order,
    write_trajectory_cases,
)
from tfr_helpers.records import Results

NAME = ARM.field
"""The arm's configuration key (``trajectories``) and its section of ``summary.json``."""
HEADLINE_DEFINITIONS: dict[str, str] = {
    "trajectory_pass_to_fail:<class>": "Replayed self-repair trajectories (real): P(Pass->Fail | passed before) over "
    "a set's repair steps whose feedback is of the class (reliable, unreliable or mixed), percent with its 95% "
    "cluster-bootstrap interval over tasks; the row's model names the set.",
    "trajectory_fail_to_pass:<class>": "As trajectory_pass_to_fail:<class>, P(Fail->Pass | failed before).",
}
"""The arm's headline numbers (:func:`headline_rows`), split by the step class as the base study's are by feedback
reliability."""
TABLE = "rq2_trajectories"
"""File stem of the LaTeX table (written only for runs that replay trajectories)."""
REAL_NOTE = (
    "Real refinement trajectories replayed from published logs (not simulated); protocol Reflexion: feedback -> "
    "verbal self-reflection -> new code, not a bare one-step refinement."
)
CAPTION = (
    "RQ2 on real trajectories: per set (model and published run), step class and position (first step: attempt "
    "0 -> 1), the steps with a benchmark verdict, P(Pass->Fail | passed before) and P(Fail->Pass | failed before) "
    "in percent [95 percent cluster-bootstrap interval over tasks], and the generated-test diagnostic (misleading: the "
    "code after passes the feedback's reproduced failing tests but fails the benchmark)."
)
LATEX_CAPTION = (
    "RQ2 on real self-repair trajectories (published Reflexion logs, replayed; not simulated): per set, the steps "
    "whose logged failing tests tfr reproduced and judged (reliable, unreliable or mixed), k/n and percent "
    "[95 percent cluster-bootstrap interval over tasks]. Misleading: the code after passes the feedback's "
    "reproduced failing tests but fails the benchmark."
)
"""The two sentences of the ``.tex`` table's caption (the rest goes to ``%`` comments)."""
DEFINITIONS = {
    "step": "Attempt k, the feedback shown after it, attempt k + 1 (after Reflexion's verbal self-reflection).",
    "reliable / unreliable / mixed": "Every reproduced failing test of the feedback passes the reference / fails "
    "it / some of each (tfr's sandbox, the project's reference).",
    "indeterminate": "A failing test's verdict (on the code before, or on the reference) depends on the machine: it "
    "hit the sandbox's wall-clock guard or crashed, again when run alone with 3x the budget (RQ1's rule). Set aside, "
    "never counted as unreliable.",
    "not_reproduced": "A harness fault of the logging harness, a feedback naming no failing test that can be run "
    "again, or none of its failing tests fails the code before in tfr's run. Never counted as reliable or unreliable.",
    "not_evaluable": "The task cannot be judged offline (a BigCodeBench task the selection excluded for a library, "
    "the network or the sandbox, or whose reference fails its own benchmark tests in this run).",
    "unusable": "Steps the log reader could not use (a logged body instead of a whole function, no feedback, an "
    "unknown task or entry point), with the reason.",
    "intervals": "Cluster bootstrap with the task as the cluster (steps of one trajectory are not independent).",
}


def _rq2_display(rows: pd.DataFrame) -> pd.DataFrame:
    out = []
    for _, r in rows.iterrows():
        out.append(
            {
                "Set": r["dataset"],
                "Model": r["model"],
                "Steps": r["step_class"],
                "Position": r["position"],
                "n": int(r["steps"]),
                "Tasks": int(r["tasks"]),
                "P(Pass->Fail | passed)": f"{int(r['pass_fail_k'])}/{int(r['pass_fail_n'])} {share_cell(r, 'pass_fail_')}",
                "P(Fail->Pass | failed)": f"{int(r['fail_pass_k'])}/{int(r['fail_pass_n'])} {share_cell(r, 'fail_pass_')}",
                "Misleading": f"{int(r['misleading_k'])}/{int(r['misleading_n'])} {share_cell(r, 'misleading_')}",
            }
        )
    return pd.DataFrame(out)


def trajectories_table(results: Results) -> Styler:
    """The notebook's ``rq2_trajectories`` table: every set, step-class group and position."""
    return _rq2_display(rq2_rows(results)).style.set_caption(f"{REAL_NOTE} {CAPTION}")


TABLE_CLASSES = {
    JUDGED_GROUP: "judged (all three)",
    "reliable": "reliable",
    "unreliable": "unreliable",
    "mixed": "mixed",
    "indeterminate": "indeterminate",
    "not_reproduced": "not reproduced",
}
"""Step-class group of :func:`.trajectories.rq2_rows` -> its row label in :func:`rq2_table`."""
RQ2_TABLE_CAPTION = (
    "RQ2 on real self-repair trajectories (published logs, replayed; not simulated): per set and class of the "
    "feedback shown at the step, k/n and percent [95% cluster bootstrap over tasks]; first steps: attempt 0 -> 1 "
    "alone; misleading: the code after passes the feedback's reproduced failing tests but fails the benchmark."
)


def rq2_table(results: Results) -> Styler:
    """Notebook 02's real RQ2 table: one row per set and step class (:data:`TABLE_CLASSES`), every step position
    in one row with the first steps' P(Pass->Fail | passed) beside it."""
    rows = rq2_rows(results)
    out = []
    for dataset, mine in rows.groupby("dataset", sort=False):
        for group, label in TABLE_CLASSES.items():
            every = mine[(mine["step_class"] == group) & (mine["position"] == "all")]
            if every.empty:
                continue
            r = every.iloc[0]
            first = mine[(mine["step_class"] == group) & (mine["position"] == "first")]
            out.append(
                {
                    "Set": f"{r['model']} · {dataset}",
                    "Feedback": label,
                    "Steps (tasks)": f"{int(r['steps'])} ({int(r['tasks'])})",
                    "P(Pass->Fail | passed)": _share(r, "pass_fail_"),
                    "P(Fail->Pass | failed)": _share(r, "fail_pass_"),
                    "First steps: P(Pass->Fail | passed)": _share(first.iloc[0], "pass_fail_") if len(first) else "--",
                    "Misleading": _share(r, "misleading_"),
                }
            )
    frame = pd.DataFrame(out)
    frame = frame.set_index(["Set", "Feedback"]) if len(frame) else frame
    return frame.style.set_caption(RQ2_TABLE_CAPTION)


def _share(r: pd.Series, prefix: str) -> str:
    return f"{int(r[f'{prefix}k'])}/{int(r[f'{prefix}n'])} {share_cell(r, prefix)}" if r[f"{prefix}n"] else "--"


def provenance(results: Results) -> str:
    """Which published log each set is, by whom, under which license and protocol (for ``%`` comments)."""
    part = results.part(ARM)
    sets = "; ".join(f"{s.name}: {s.model}, {s.source}, {s.license}, {s.protocol}" for s in part.sets)
    return f"Sets (published logs): {sets}."


def latex_table(results: Results) -> Styler:
    """The ``rq2_trajectories.tex`` table, one row per set over its judged steps (set + six columns); its caption is
    :data:`LATEX_CAPTION` followed by the definitions and :func:`provenance`, which ``to_latex`` moves to ``%``
    comments."""
    rows = rq2_rows(results)
    judged = rows[rows["step_class"] == JUDGED_GROUP]
    out = []
    for dataset, mine in judged.groupby("dataset", sort=False):
        every, first = mine[mine["position"] == "all"], mine[mine["position"] == "first"]
        if every.empty:
            continue
        r = every.iloc[0]
        out.append(
            {
                "Set": dataset,
                "Model": r["model"],
                "Steps (tasks)": f"{int(r['steps'])} ({int(r['tasks'])})",
                "P(Pass->Fail | passed)": _share(r, "pass_fail_"),
                "P(Fail->Pass | failed)": _share(r, "fail_pass_"),
                "First steps: P(Pass->Fail | passed)": _share(first.iloc[0], "pass_fail_") if len(first) else "--",
                "Misleading": _share(r, "misleading_"),
            }
        )
    frame = pd.DataFrame(out).set_index("Set") if out else pd.DataFrame(columns=["Model"]).rename_axis("Set")
    definitions = " ".join(f"{k}: {v}" for k, v in DEFINITIONS.items())
    return frame.style.set_caption(f"{LATEX_CAPTION} {REAL_NOTE} {definitions} {provenance(results)}")


def interpretation(results: Results) -> str:
    """Notebook 02's reading of the real trajectories, the answer first: per step class, the range over sets of
    P(Pass->Fail | passed) (sets are never pooled) and how many sets' intervals lie above zero ("" without sets)."""
    trajectories = part_in(results)
    if trajectories is None:
        return ""
    rows = rq2_rows(results)
    rows = rows[(rows["position"] == "all") & rows["pass_fail_n"].fillna(0).gt(0)]
    parts = []
    for cls in ("unreliable", "reliable", "mixed"):
        mine = rows[rows["step_class"] == cls]
        if mine.empty:
            continue
        above = int((mine["pass_fail_low"].fillna(0) > 0).sum())
        low, high = mine["pass_fail_pct"].min(), mine["pass_fail_pct"].max()
        shown = f"{low}%" if low == high else f"{low}-{high}%"
        parts.append(f"after {cls} feedback in {shown} of such steps ({_sets(len(mine))}, {above} with an interval above 0)")
    if not parts:
        return ""
    return (
        f"On real self-repair ({_sets(len(trajectories.sets))} replayed, each its own population, never "
        f"pooled), a repair step broke code that passed the benchmark {'; '.join(parts)}. The figure and table give "
        "each set with its interval."
    )


def _sets(n: int) -> str:
    return f"{n} set{'' if n == 1 else 's'}"


LISTED_STEPS = 12
"""A set of at most this many steps (a worked example) is listed step by step in summary.json and by ``tfr analyze``."""


def listed_steps(results: Results) -> list[dict[str, Any]]:
    """Every step of each set with at most :data:`LISTED_STEPS` steps, in the study's layout: RQ1 (the step's class
    and the causes of its wrong tests), RQ2 (the transition on the benchmark tests), RQ3 (the reference-free
    screeners' decisions; the LLM judges need a model)."""
    part = results.part(ARM)
    steps = sorted(part.steps, key=step_order)
    sizes = {s.name: s.steps for s in part.sets}
    screened = screening_of(results)
    return [
        {
            "dataset": s.dataset,
            "task_id": s.task_id,
            "step": s.step,
            "rq1_class": s.step_class,
            "rq1_causes": sorted({v.cause for v in s.tests if v.cause}),
            "rq2_transition": s.transition,
            "rq3_offline": screening_text(screened.get((s.dataset, s.task_id, s.step))),
        }
        for s in steps
        if sizes.get(s.dataset, LISTED_STEPS + 1) <= LISTED_STEPS
    ]


def summary_section(results: Results) -> dict[str, Any]:
    """``{"trajectories": {...}}`` (sets, classes, faults, causes, RQ2 rows, headline) and, when steps were screened,
    ``{"trajectory_screening": {...}}`` (:mod:`.trajectory_screening`), when a fixed test list was measured
    ``{"rq2_dose": {...}}`` (:mod:`.dose_report`); ``{}`` without the arm."""
    if not present(results):
        return {}
    part = results.part(ARM)
    return {
        NAME: {
            "note": REAL_NOTE,
            "real": all(s.origin == "published" for s in part.sets),
            "definitions": DEFINITIONS,
            "sets": [s.model_dump() for s in part.sets],
            "step_classes": {"rows": frame_records(step_classes(results))},
            "faults": {"rows": frame_records(faults(results))},
            "causes": {"rows": frame_records(causes(results))},
            "rq2": {"rows": frame_records(rq2_rows(results))},
            "headline": {"rows": frame_records(headline(results))},
            "listed_steps": {"max_steps": LISTED_STEPS, "judges": judges_offline(results), "rows": listed_steps(results)},
            **trajectory_steps_report.summary_parts(results),
            TABLE: {"caption": f"{REAL_NOTE} {CAPTION}", "latex_caption": LATEX_CAPTION},
            "provenance": provenance(results),
        }
    } | _sections_beside(results)


def _sections_beside(results: Results) -> dict[str, Any]:
    """The sections of summary.json beside the arm's own: the screening's and the dose series'."""
    return trajectory_screening.summary_section(results) | dose_report.summary_section(results)


def _rate(row: dict[str, Any], prefix: str) -> str:
    """``pct% [low, high] (k/n, c tasks)``, or ``-- (0/0)`` with no step in the denominator."""
    k, n = row.get(f"{prefix}k") or 0, row.get(f"{prefix}n") or 0
    if not n:
        return f"-- ({k}/{n})"
    interval = f" [{row[f'{prefix}low']}, {row[f'{prefix}high']}]" if row.get(f"{prefix}low") is not None else ""
    return f"{row[f'{prefix}pct']}%{interval} ({k}/{n}, {row[f'{prefix}clusters']} tasks)"


RATE_LINES = [(JUDGED_GROUP, p) for p in ("all", "first", "later")]
RATE_LINES += [(c, "all") for c in ("reliable", "unreliable", "mixed", "indeterminate", "not_reproduced")]
RATE_LINES += [("all steps with a verdict", "all")]
"""The RQ2 rows ``tfr analyze`` prints per set: the judged steps (all, first steps, later steps: the population of
the answer rows, notebook 02's first rows), then each step class, then every step with a verdict (the judged steps
and the not reproduced ones together)."""
CLASSES = ("reliable", "unreliable", "mixed", "indeterminate", "not_reproduced", "not_evaluable")


def analyze_lines(summary: dict[str, Any]) -> list[str]:
    """The lines ``tfr analyze`` prints per set, from summary.json's ``trajectories`` section: the steps and their
    classes; P(Pass->Fail | passed) and P(Fail->Pass | failed) with their task-clustered intervals, over the judged
    steps (all, first steps, later steps), per step class and over every step with a verdict; and the steps each
    kind of fault removed; then the dose series' lines (:func:`.dose_report.lines`)."""
    section = summary.get("trajectories")
    if not section:
        return []
    rq2 = {(r["dataset"], r["step_class"], r["position"]): r for r in section["rq2"]["rows"]}
    lines = []
    for r in section["headline"]["rows"]:
        classes = ", ".join(f"{c} {r[c]}" for c in CLASSES)
        judged = f"{r['judged']} judged ({r['judged_pct']}%); " if "judged" in r else ""
        lines.append(
            f"{r['model']} {r['dataset']} [{_kind(r)}, {r['benchmark']}]: {r['steps']} steps ({r['unusable']} unusable "
            f"in the log); {judged}{classes}"
        )
        for group, position in RATE_LINES:
            row = rq2.get((r["dataset"], group, position))
            if row is None:
                continue
            label = f"{group}, {position} steps" if group == JUDGED_GROUP else group
            label = f"{label} steps" if group in CLASSES else label
            lines.append(
                f"  {label}: {row['steps']} steps, {row['tasks']} tasks; P(Pass->Fail | passed) "
                f"{_rate(row, 'pass_fail_')}; P(Fail->Pass | failed) {_rate(row, 'fail_pass_')}"
            )
        for f in section["faults"]["rows"]:
            if f["dataset"] == r["dataset"]:
                lines.append(f"  removed {f['steps']} steps as {f['removed_as']}: {f['fault']}")
        lines += trajectory_steps_report.set_lines(section, r["dataset"])
        lines += _step_lines(section.get("listed_steps", {}).get("rows", []), r["dataset"])
    return lines + dose_report.lines(summary)


def _kind(row: dict[str, Any]) -> str:
    """``real`` for a published log's set, ``hand-written, not evidence`` for a worked example's."""
    return "real" if row.get("origin", "published") == "published" else "hand-written, not evidence"


def _step_lines(rows: list[dict[str, Any]], dataset: str) -> list[str]:
    """A small set's steps, one line each in the study's layout (RQ1 class, RQ2 transition, RQ3 offline)."""
    lines = []
    for s in (s for s in rows if s["dataset"] == dataset):
        causes = f" ({', '.join(s['rq1_causes'])})" if s["rq1_causes"] else ""
        lines.append(
            f"  {s['task_id']} step {s['step']}: RQ1 feedback {s['rq1_class']}{causes}; RQ2 "
            f"{(s['rq2_transition'] or 'no verdict').replace('pass', 'Pass').replace('fail', 'Fail')}; RQ3 judges "
            f"need a model, {s['rq3_offline']}"
        )
    return lines


def tables(results: Results) -> dict[str, Styler]:
    """The arm's LaTeX table: :data:`TABLE` (:func:`latex_table`)."""
    return {TABLE: latex_table(results)}


def figures(results: Results) -> dict[str, tuple[Any, tuple[float, float]]]:
    """The arm's figures: RQ2's transitions by step class per set with the dose series (notebook 02's first), and own
    tests (r_obs) against the benchmark (r) per iteration, every set (Menet et al.'s Figure 3 from real logs)."""
    return {
        trajectory_figure.FIGURE: (trajectory_figure.plot_real_rq2, (12.0, 6.0)),
        trajectory_rewards.FIGURE: (trajectory_rewards.plot_rewards, (7.0, 4.0)),
    }


HEADLINE_SOURCE = "replayed (published self-repair log)"


def headline_rows(results: Results) -> list[dict[str, object]]:
    """Per set and judged step class, P(Pass->Fail | passed) and P(Fail->Pass | failed) with their intervals
    (:func:`tfr_helpers.analysis.headlines.headline_numbers`' columns; the steps counted in ``interval``)."""
    rows = rq2_rows(results)
    rows = rows[(rows["position"] == "all") & rows["step_class"].isin(["reliable", "unreliable", "mixed"])]
    out: list[dict[str, object]] = []
    for _, r in rows.iterrows():
        for prefix, number in (("pass_fail_", "trajectory_pass_to_fail"), ("fail_pass_", "trajectory_fail_to_pass")):
            if not r[f"{prefix}n"]:
                continue
            out.append(
                {
                    "model": f"{r['model']} · {r['dataset']}",
                    "source": HEADLINE_SOURCE,
                    "number": f"{number}:{r['step_class']}",
                    "value": r[f"{prefix}pct"],
                    "low": r[f"{prefix}low"],
                    "high": r[f"{prefix}high"],
                    "interval": f"95% {r[f'{prefix}method']} over tasks; {int(r[f'{prefix}k'])} of "
                    f"{int(r[f'{prefix}n'])} repair steps",
                }
            )
    return out


HEADLINE_KINDS: tuple[AnswerKind, ...] = (
    register_answer_kind(
        AnswerKind(
            "trajectories_numbers",
            "rq2",
            "P(Pass->Fail | passed) and P(Fail->Pass | failed) per replayed set and judged step class",
            "repair steps",
            numbers=headline_rows,
            definitions=HEADLINE_DEFINITIONS,
        )
    ),
)
"""The arm's headline numbers (registered; :func:`headline_rows` computes their rows, :data:`HEADLINE_DEFINITIONS`
defines them)."""


def record_counts(results: Results) -> str:
    """The run's replayed steps and sets, for the records line of ``tfr run``'s counts ("" without the arm)."""
    part = part_in(results)
    if part is None:
        return ""
    sets = f"{len(part.sets)} set{'' if len(part.sets) == 1 else 's'}"
    return f"{len(part.steps):,} replayed trajectory steps ({sets})"


def exclusion_lines(results: Results) -> list[str]:
    """Per replayed trajectory set, the steps left out of RQ2's judged classes: unusable in the log, not reproduced
    (no failing test ran again), not evaluable offline (none for a run without trajectories)."""
    part = part_in(results)
    if part is None:
        return []
    out = []
    for info in part.sets:
        counts = {
            "unusable in the log": sum(u.dataset == info.name and u.step >= 0 for u in part.unusable),
            "not reproduced": sum(s.dataset == info.name and s.step_class == "not_reproduced" for s in part.steps),
            "not evaluable": sum(s.dataset == info.name and s.step_class == "not_evaluable" for s in part.steps),
        }
        said = ", ".join(f"{n:,} {what}" for what, n in counts.items() if n)
        if said:
            out.append(f"  {info.model} · {info.name} trajectory steps: {said}")
    return out


def case_files(results: Results, directory: Path) -> str:
    """Write one ``trajectory_cases_<set>.md`` per replayed set into ``directory``; returns the section of
    ``refinement_cases.md`` that links them ("" without sets)."""
    written = write_trajectory_cases(results, directory)
    text = "\n## Replayed trajectory steps (real self-repair), one file per set\n\n" if written else ""
    for name, info, steps in written:
        text += f"- [{name}]({name}): {steps} steps of `{set_label(info.model, info.name)}` (real data, replayed)\n"
    return text
