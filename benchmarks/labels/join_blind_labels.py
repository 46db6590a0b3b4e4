"""Join two readers' blind labels with the classifier's: check both readers' files, then print Cohen's kappa between
the readers and each reader's agreement and kappa with the classifier (95% cluster-bootstrap intervals over tasks),
overall and per stratum, and list every disagreement with its reasons.

Usage (after both readers committed ``reader_a.jsonl`` and ``reader_b.jsonl`` in the sample's directory):
``uv run python benchmarks/labels/join_blind_labels.py --items docs/labels/blind --key KEY.jsonl [--markdown]
[--adjudication FILE.jsonl]``; a reader checks a file alone with ``--check a`` (no key read, nothing about any other
label printed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from blind_agreement import LABELS, Agreement, agreement, fmt

from tfr_helpers.errors import DataError, TfrError
from tfr_helpers.records import Cause

READERS = ("a", "b")
CONFIDENCE = ("low", "medium", "high")
CAUSES = get_args(Cause)
SHOWN = 3
"""Problems named in one error line."""


@dataclass(frozen=True)
class Label:
    """One rater's label of one item."""

    label: str
    cause: str | None
    confidence: str = ""
    reason: str = ""

    def text(self) -> str:
        """``unreliable/wrong_expected_value (high)``."""
        out = self.label + (f"/{self.cause}" if self.cause else "")
        return out + (f" ({self.confidence})" if self.confidence else "")


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The lines of a JSON-lines file with their numbers (blank lines skipped).

    Raises:
        DataError: the file is missing or a line is not a JSON object.
    """
    if not path.is_file():
        raise DataError(f"{path} does not exist")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise DataError(f"{path}:{number}: not a JSON object")
        rows.append((number, row))
    return rows


def read_items(directory: Path) -> dict[str, dict[str, Any]]:
    """The sample's items by id (``items.jsonl``)."""
    items = {row["item"]: row for _, row in read_jsonl(directory / "items.jsonl")}
    if not items:
        raise DataError(f"{directory / 'items.jsonl'} holds no item")
    return items


def _problem(label: Label, require_reader: bool) -> str | None:
    if label.label not in LABELS:
        return f"label {label.label!r} is not one of {list(LABELS)}"
    if label.cause is not None and label.cause not in CAUSES:
        return f"cause {label.cause!r} is not in the fixed list"
    if label.label == "reliable" and label.cause is not None:
        return "a reliable label takes no cause (null)"
    if require_reader and label.confidence not in CONFIDENCE:
        return f"confidence {label.confidence!r} is not one of {list(CONFIDENCE)}"
    if require_reader and not label.reason.strip():
        return "the reason is empty"
    return None


def read_labels(path: Path, items: dict[str, Any], *, reader: bool = True, complete: bool = True) -> dict[str, Label]:
    """One rater's labels by item, checked: known items, each once, known labels, causes and confidences, a reason
    (``reader``), and every item labelled (``complete``).

    Raises:
        DataError: one line naming the file and the first problems found.
    """
    labels: dict[str, Label] = {}
    problems = []
    for number, row in read_jsonl(path):
        item = row.get("item")
        if item not in items:
            problems.append(f"line {number}: unknown item {item!r}")
            continue
        if item in labels:
            problems.append(f"line {number}: item {item} labelled twice")
            continue
        fields = ["label", "cause", "confidence", "reason"] if reader else ["label", "cause"]
        missing = [f for f in fields if f not in row]
        if missing:
            problems.append(f"line {number}: item {item} lacks {missing}")
            continue
        label = Label(row["label"], row["cause"] or None, row.get("confidence") or "", row.get("reason") or "")
        problem = _problem(label, reader)
        if problem:
            problems.append(f"line {number}: item {item}: {problem}")
            continue
        labels[item] = label
    absent = sorted(set(items) - set(labels)) if complete else []
    if absent and not problems:
        problems.append(f"{len(absent)} of {len(items)} items not labelled: {', '.join(absent[:SHOWN])}")
    if problems:
        more = f" (and {len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
        raise DataError(f"{path}: " + "; ".join(problems[:SHOWN]) + more)
    return labels


@dataclass
class Joined:
    """Every rater's label of every item."""

    items: dict[str, dict[str, Any]]
    strata: dict[str, str]
    """Item -> stratum (from the key)."""
    raters: dict[str, dict[str, Label]]
    """``A``, ``B``, ``classifier`` (and ``adjudicated`` when given) -> item -> label."""


def join(directory: Path, key: Path, adjudication: Path | None = None) -> Joined:
    """Read and check the items, both readers' files, the key and an optional adjudication file."""
    items = read_items(directory)
    raters = {r.upper(): read_labels(directory / f"reader_{r}.jsonl", items) for r in READERS}
    raters["classifier"] = read_labels(key, items, reader=False)
    strata = {row["item"]: row.get("stratum") or row["task_id"] for _, row in read_jsonl(key)}
    if adjudication is not None:
        raters["adjudicated"] = read_labels(adjudication, items, reader=False, complete=False)
        undecided = [i for i in disagreements(raters, "A", "B") if i not in raters["adjudicated"]]
        if undecided:
            raise DataError(f"{adjudication}: the readers' disagreements {undecided[:SHOWN]} are not adjudicated")
    return Joined(items, strata, raters)


def disagreements(raters: dict[str, dict[str, Label]], x: str, y: str) -> list[str]:
    """Items where raters ``x`` and ``y`` give different labels, in item order."""
    return [i for i in sorted(raters[x]) if raters[x][i].label != raters[y][i].label]


COMPARISONS = (("A", "B"), ("A", "classifier"), ("B", "classifier"))


def reference_labels(j: Joined) -> dict[str, str]:
    """The reference label of each item: the readers' common label, or the adjudicated one where they differ."""
    adj = j.raters.get("adjudicated", {})
    return {i: (adj[i].label if i in adj else j.raters["A"][i].label) for i in j.items}


def table(j: Joined, n_resamples: int, seed: int) -> list[tuple[str, str, Agreement]]:
    """(group, comparison, agreement) for every group (all items, then each stratum) and comparison."""
    groups = {"all": sorted(j.items)} | {
        s: sorted(i for i in j.items if j.strata[i] == s) for s in sorted(set(j.strata.values()))
    }
    comparisons: list[tuple[str, Callable[[str], str], Callable[[str], str]]] = [
        (f"{x} vs {y}", lambda i, x=x: j.raters[x][i].label, lambda i, y=y: j.raters[y][i].label) for x, y in COMPARISONS
    ]
    if "adjudicated" in j.raters:
        ref = reference_labels(j)
        comparisons.append(("classifier vs adjudicated", lambda i: j.raters["classifier"][i].label, ref.__getitem__))
    rows = []
    for group, ids in groups.items():
        tasks = [j.items[i]["task_id"] for i in ids]
        for name, fx, fy in comparisons:
            rows.append(
                (
                    group,
                    name,
                    agreement([fx(i) for i in ids], [fy(i) for i in ids], tasks, n_resamples=n_resamples, seed=seed),
                )
            )
    return rows


def _line(j: Joined, i: str) -> str:
    rater_text = "; ".join(
        f"{r}: {lab.text()}" + (f": {lab.reason}" if lab.reason else "")
        for r, lab in ((r, j.raters[r][i]) for r in j.raters if i in j.raters[r])
    )
    return f"{i} {j.items[i]['task_id']} ({j.strata[i]}): {rater_text}"


def report(j: Joined, n_resamples: int, seed: int) -> str:
    """The plain-text report."""
    rows = table(j, n_resamples, seed)
    out = [
        f"Blind label validation: {len(j.items)} items; 95% intervals: task bootstrap ({n_resamples} resamples, seed {seed})"
    ]
    out.append(f"{'group':<16} {'comparison':<26} {'items':>5} {'tasks':>5}  {'agreement':<22} kappa")
    for group, name, ag in rows:
        out.append(f"{group:<16} {name:<26} {ag.items:>5} {ag.tasks:>5}  {fmt(ag.agreement):<22} {fmt(ag.kappa)}")
    for x, y in COMPARISONS:
        found = disagreements(j.raters, x, y)
        out.append(f"\n{x} and {y} disagree on {len(found)} items:")
        out.extend(f"  {_line(j, i)}" for i in found)
    return "\n".join(out)


def markdown(j: Joined, n_resamples: int, seed: int) -> str:
    """The results for the blind-validation section of docs/labels.md."""
    rows = table(j, n_resamples, seed)
    out = [
        "### Results",
        "",
        f"{len(j.items)} items, each labelled by both readers. Agreement and Cohen's kappa, with 95% task-bootstrap",
        f"intervals ({n_resamples} resamples, seed {seed}; `join_blind_labels.py --markdown`):",
        "",
        "| group | comparison | items | tasks | agreement | kappa |",
        "|---|---|---|---|---|---|",
    ]
    out += [f"| {g} | {n} | {a.items} | {a.tasks} | {fmt(a.agreement)} | {fmt(a.kappa)} |" for g, n, a in rows]
    found = sorted({i for x, y in COMPARISONS for i in disagreements(j.raters, x, y)})
    adj = j.raters.get("adjudicated", {})
    out += ["", f"Disagreements ({len(found)} items; adjudicated: the label after reading both reasons):", ""]
    out += ["| item | task | reader A | reader B | classifier | adjudicated |", "|---|---|---|---|---|---|"]
    for i in found:
        a, b, c = (j.raters[r][i] for r in ("A", "B", "classifier"))
        decided = adj[i].text() if i in adj else ("(readers agree)" if a.label == b.label else "pending")
        out.append(
            f"| {i} | {j.items[i]['task_id']} | {a.text()}: {a.reason} | {b.text()}: {b.reason} | {c.text()} | {decided} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    """Check the files, then print the report (or the markdown section)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=Path, required=True, help="the sample's directory (items.jsonl, reader_*.jsonl)")
    parser.add_argument("--key", type=Path, help="the key written by draw_blind_sample.py")
    parser.add_argument("--check", choices=READERS, help="check one reader's file alone (no key read)")
    parser.add_argument("--disagreements", action="store_true", help="list the readers' disagreements (no key read)")
    parser.add_argument("--adjudication", type=Path, help="JSON lines {item, label, cause} for the disagreements")
    parser.add_argument("--markdown", action="store_true", help="print the section for docs/labels.md")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        if args.check:
            path = args.items / f"reader_{args.check}.jsonl"
            labels = read_labels(path, read_items(args.items))
            print(f"{path}: {len(labels)} items, each labelled once: complete")
            return
        if args.disagreements:
            items = read_items(args.items)
            readers = {r.upper(): read_labels(args.items / f"reader_{r}.jsonl", items) for r in READERS}
            found = disagreements(readers, "A", "B")
            print(f"The readers disagree on {len(found)} of {len(items)} items:")
            strata = {i: str(items[i].get("source", "")) for i in items}
            print("\n".join(f"  {_line(Joined(items, strata, readers), i)}" for i in found))
            return
        if args.key is None:
            raise TfrError("--key is required (or --check a|b to check one reader's file)")
        joined = join(args.items, args.key, args.adjudication)
        print((markdown if args.markdown else report)(joined, args.resamples, args.seed))
    except TfrError as exc:
        sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
