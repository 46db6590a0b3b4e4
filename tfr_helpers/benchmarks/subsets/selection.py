"""The BigCodeBench subset used in experiments.

A deterministic rule, stored in ``benchmarks/bigcodebench_selection.json``.

Stage 1 (here, static):

1. ``libraries``: every library in ``libs`` is in the standard library of the running Python
   (``sys.stdlib_module_names``) or is a scientific dependency of this project
   (:data:`PROJECT_LIBRARIES`), and none is a network or GUI library (:data:`NETWORK_LIBRARIES`,
   :data:`GUI_LIBRARIES`);
2. ``network``: neither the reference nor the tests contain a network call pattern
   (:data:`NETWORK_PATTERNS`, e.g. ``requests.get``, ``urlopen``, ``socket.``, a literal ``http(s)://`` URL in
   the reference);
3. ``sample``: to keep the full simulated study within budget, the tasks passing 1-2 are ranked by the
   sha256 of their task id (hex, ascending) and the first :data:`SAMPLE_SIZE` are kept; the rest are
   excluded with reason ``sample``. The hash makes the cut independent of task order and content.

Stage 2 (added by the sandbox layer): the reference passes its own tests 3/3 in the sandbox and runs fast;
its exclusions are passed to :func:`build_selection` as ``extra_exclusions`` and applied after the sample.

Regenerate with ``python -m tfr_helpers.benchmarks.subsets.selection`` (keeps stage-2 exclusions already in the file).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tfr_helpers.benchmarks.load import load_tasks
from tfr_helpers.benchmarks.selection_file import Selection, load_selection, selection_path
from tfr_helpers.benchmarks.verify import reference_failures
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.records import Task

if TYPE_CHECKING:
    from tfr_helpers.sandbox import Sandbox

SAMPLE_SIZE = 380
"""Tasks kept after stage 1 (stage 2 then removes the ones whose reference fails; aim: 300-400)."""

PROJECT_LIBRARIES = frozenset({"numpy", "pandas", "matplotlib", "seaborn", "scipy", "sklearn", "pytz", "dateutil"})
"""Third-party libraries this project installs (pyproject dependencies) that tasks may use."""

NETWORK_LIBRARIES = frozenset(
    {
        "requests",
        "urllib",
        "urllib3",
        "socket",
        "smtplib",
        "http",
        "ssl",
        "ftplib",
        "mechanize",
        "bs4",
        "flask",
        "flask_mail",
        "flask_restful",
        "flask_login",
        "flask_wtf",
        "django",
        "email",
        "select",
        "socketserver",
        "xmlrpc",
        "imaplib",
        "poplib",
        "telnetlib",
        "cgi",
        "wikipedia",
        "geopy",
        "python_http_client",
        "sendgrid",
        "pyquery",
    }
)
"""Libraries whose use implies the network (or a server), excluded even when installed or stdlib."""

GUI_LIBRARIES = frozenset({"turtle", "tkinter"})
"""Libraries that need a display."""

NETWORK_PATTERNS = (
    re.compile(r"requests\.(get|post|put|delete|head|request|Session)\b"),
    re.compile(r"\burlopen\b|\burlretrieve\b|urllib\.request"),
    re.compile(r"\bsocket\."),
    re.compile(r"\bhttp\.client\b|\bHTTPConnection\b"),
)
"""Code patterns that fetch over the network (checked in the reference and the tests)."""

URL_IN_REFERENCE = re.compile(r"https?://")
"""A literal URL in the reference solution (a fetched resource)."""

RULE = (
    "stage 1: keep tasks whose libs are all stdlib (Python {py}) or in {{{proj}}} "
    "and none a network/GUI library, "
    "whose reference and tests call no network API (requests.*, urlopen/urlretrieve/urllib.request, socket., "
    "http.client) and whose reference holds no http(s):// URL; "
    "of those, the first {n} by sha256(task_id) hex; "
    "stage 2 (sandbox): the reference passes its own tests 3/3 and runs fast"
)

STAGE1_PREFIXES = ("library:", "network:", "sample:")
"""Reason prefixes written by stage 1 and the sample; any other reason is a stage-2 exclusion."""


def _hash_rank(task_id: str) -> str:
    return hashlib.sha256(task_id.encode("utf-8")).hexdigest()


def stage1_reason(task: Task) -> str | None:
    """Return why stage 1 excludes a task (``library: ...`` / ``network: ...``), or None when it is eligible.

    Args:
        task: A BigCodeBench task.

    Returns:
        The reason, or None.
    """
    stdlib = sys.stdlib_module_names
    for lib in task.libraries:
        if lib in NETWORK_LIBRARIES:
            return f"network: uses library {lib}"
        if lib in GUI_LIBRARIES:
            return f"library: {lib} needs a display"
        if lib not in stdlib and lib not in PROJECT_LIBRARIES:
            return f"library: {lib} is neither stdlib nor a project dependency"
    for pattern in NETWORK_PATTERNS:
        match = pattern.search(task.reference) or pattern.search(task.tests)
        if match:
            return f"network: code calls {match.group(0)!r}"
    if URL_IN_REFERENCE.search(task.reference):
        return "network: the reference holds an http(s):// URL"
    return None


def build_selection(
    tasks: Sequence[Task],
    *,
    sample_size: int = SAMPLE_SIZE,
    extra_exclusions: Mapping[str, str] | None = None,
) -> Selection:
    """Apply the selection rule (module docstring) to all BigCodeBench tasks.

    Args:
        tasks: All 1140 tasks, in benchmark order.
        sample_size: How many stage-1 survivors to keep (by sha256 of the task id).
        extra_exclusions: Stage-2 exclusions (task id -> reason), applied after the sample.

    Returns:
        The selection; every task id is either selected or excluded with a reason.
    """
    excluded: dict[str, str] = {}
    eligible: list[Task] = []
    for task in tasks:
        reason = stage1_reason(task)
        if reason is None:
            eligible.append(task)
        else:
            excluded[task.task_id] = reason
    ranked = sorted(eligible, key=lambda t: _hash_rank(t.task_id))
    for task in ranked[sample_size:]:
        excluded[task.task_id] = f"sample: beyond the first {sample_size} stage-1 tasks by sha256(task_id)"
    for task_id, reason in (extra_exclusions or {}).items():
        if task_id not in excluded:
            excluded[task_id] = reason
    selected = [t.task_id for t in tasks if t.task_id not in excluded]
    proj = ", ".join(sorted(PROJECT_LIBRARIES))
    rule = RULE.format(py=f"{sys.version_info.major}.{sys.version_info.minor}", proj=proj, n=sample_size)
    order = {t.task_id: i for i, t in enumerate(tasks)}
    ordered_excluded = dict(sorted(excluded.items(), key=lambda kv: order.get(kv[0], len(order))))
    return Selection(rule=rule, benchmark_version="v0.1.0", selected=selected, excluded=ordered_excluded)


def stage2_exclusions(selection: Selection) -> dict[str, str]:
    """Return the exclusions of an existing selection that stage 1 and the sample did not make."""
    return {k: v for k, v in selection.excluded.items() if not v.startswith(STAGE1_PREFIXES)}


def write_selection(selection: Selection, path: Path | None = None) -> Path:
    """Write the selection file atomically (indented JSON, one id per line).

    Args:
        selection: What to write.
        path: Target (default :func:`selection_path`).

    Returns:
        The path written.
    """
    path = path or selection_path()
    return atomic_write_text(path, json.dumps(selection.model_dump(), indent=1) + "\n")


STAGE2_RUNS = 3
"""Stage 2: sandbox runs of each reference; it must pass every one."""


def sandbox_exclusions(
    tasks: Sequence[Task], sandbox: "Sandbox", *, runs: int = STAGE2_RUNS, progress: bool = False
) -> dict[str, str]:
    """Stage 2 of the rule: run each reference against its own tests ``runs`` times in the sandbox.

    Added by the sandbox layer. A task whose reference fails any run is excluded with the reason
    ``sandbox: run i/runs: <test>: <status> <exception>: <message>`` (the first failing outcome).

    Args:
        tasks: The stage-1 survivors (after the sample).
        sandbox: A started :class:`tfr_helpers.sandbox.Sandbox` (limits decide the per-test timeout).
        runs: How many runs each reference must pass.
        progress: Show a progress bar.

    Returns:
        Task id -> reason for every task to exclude.
    """

    failures = reference_failures(tasks, sandbox, runs=runs, progress=progress, desc="stage 2")
    return {task_id: f"sandbox: run {f.run}/{runs}: {f.problem}" for task_id, f in failures.items()}


def regenerate_with_stage2(sandbox: "Sandbox", *, runs: int = STAGE2_RUNS, progress: bool = False) -> Selection:
    """Rebuild the whole selection (stage 1 + sample + stage 2 in ``sandbox``) and write the file.

    Args:
        sandbox: A started sandbox.
        runs: Stage-2 runs per reference.
        progress: Show progress bars.

    Returns:
        The selection written to :func:`selection_path`.
    """

    tasks = load_tasks("bigcodebench", selected=False)
    stage1 = build_selection(tasks)
    survivors = [t for t in tasks if t.task_id in set(stage1.selected)]
    extra = sandbox_exclusions(survivors, sandbox, runs=runs, progress=progress)
    selection = build_selection(tasks, extra_exclusions=extra)
    write_selection(selection)
    return selection


def main() -> None:
    """Regenerate the selection file from all BigCodeBench tasks, keeping recorded stage-2 exclusions."""

    path = selection_path()
    extra = stage2_exclusions(load_selection(path)) if path.is_file() else {}
    selection = build_selection(load_tasks("bigcodebench", selected=False), extra_exclusions=extra)
    write_selection(selection, path)
    sys.stdout.write(f"{path}: {len(selection.selected)} selected, {len(selection.excluded)} excluded\n")


if __name__ == "__main__":
    main()
