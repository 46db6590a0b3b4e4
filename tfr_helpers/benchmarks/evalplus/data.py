"""HumanEval+, its Mini variant and MBPP+ (EvalPlus, Apache-2.0): the same problems with corrected references
and many more test inputs.

Mapping to :class:`~tfr_helpers.records.Task`:

- task ids: ``HumanEval+/<n>``, ``HumanEval+Mini/<n>`` (EvalPlus writes ``HumanEval/<n>``, which here names the
  original HumanEval task: samples files may use it, see ``id_aliases``) and ``Mbpp/<n>`` (EvalPlus's own);
- HumanEval+: description, signature and entry point as HumanEval's; reference = prompt + EvalPlus's corrected
  ``canonical_solution`` (what EvalPlus runs for its expected outputs; the ``contract`` is not part of it);
  tests: the ``test`` field (``check`` format; for Mini, which has none, HumanEval's own ``check``);
- MBPP+: description assembled as MBPP's (the prompt's text, the function's name and signature, the prompt's
  example assert); tests: the ``assertion`` lines (``asserts`` format, their imports as ``test_imports``);
- the benchmark tests that decide a verdict are the inputs, at two tiers (base: ``base_input``; plus: base and
  ``plus_input``), judged by differential testing against the reference's outputs
  (:mod:`tfr_helpers.benchmarks.evalplus.benchmark`, which registers the three benchmarks). :func:`plus_data` holds each
  task's inputs (MBPP+ inputs deserialised as EvalPlus does: tuples, sets and complex numbers that JSON cannot
  hold), ``atol`` and ``contract``. Contracts state which inputs are valid; as in EvalPlus's evaluation, they
  take no part in a verdict.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tfr_helpers.benchmarks._code import function_header, imported_modules
from tfr_helpers.benchmarks.files import read_records
from tfr_helpers.benchmarks.mbpp import DESCRIPTION_TEMPLATE
from tfr_helpers.benchmarks.resolve import resolve_file
from tfr_helpers.benchmarks.sources import HUMANEVAL, HUMANEVAL_PLUS, HUMANEVAL_PLUS_MINI, MBPP_PLUS, DataSource
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task

Dataset = Literal["humaneval", "mbpp"]


@dataclass(frozen=True)
class PlusData:
    """The differential-testing data of one EvalPlus task."""

    task_id: str
    benchmark: str
    dataset: Dataset
    """Which EvalPlus dataset: selects its special oracles."""
    entry_point: str
    reference: str
    base_input: list[Any]
    plus_input: list[Any]
    atol: float
    contract: str


_PLUS: dict[str, PlusData] = {}


def plus_data(task_id: str) -> PlusData:
    """The inputs, ``atol`` and contract of a loaded EvalPlus task.

    Raises:
        DataError: The task's benchmark was not loaded in this process (load its tasks first).
    """
    try:
        return _PLUS[task_id]
    except KeyError:
        raise DataError(f"no EvalPlus data for {task_id!r}; load its benchmark's tasks first (load_tasks)") from None


def loaded(benchmark: str) -> list[PlusData]:
    """The EvalPlus data of every task of ``benchmark`` loaded in this process, in load order."""
    return [d for d in _PLUS.values() if d.benchmark == benchmark]


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def mbpp_deserialize_inputs(task_id: str, inputs: list[Any]) -> list[Any]:
    """EvalPlus's restoration of MBPP+ input types that JSON cannot hold (``evalplus/data/mbpp.py``, v0.3.1)."""
    n = int(task_id.split("/")[-1])
    if n in (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809):
        return [[tuple(lst) for lst in inp] for inp in inputs]
    if n in (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780):
        return [[[tuple(lst) for lst in lst_lst] for lst_lst in inp] for inp in inputs]
    if n in (75, 413, 444, 753):
        return [[[tuple(lst) for lst in inp[0]]] + [inp[1]] for inp in inputs]
    if n in (106, 750):
        return [[inp[0]] + [tuple(inp[1])] for inp in inputs]
    if n == 115:
        return [[[set(item) if isinstance(item, list) and len(item) else {} for item in inp[0]]] for inp in inputs]
    if n == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if n in (250, 405, 446, 617, 720, 763, 808):
        return [[tuple(inp[0])] + [inp[1]] for inp in inputs]
    if n in (259, 401, 445):
        nested = [[[tuple(lst) for lst in lst_lst] for lst_lst in inp] for inp in inputs]
        return [[tuple(lst) for lst in inp] for inp in nested]
    if n == 278:
        first = [[[tuple(item) if isinstance(item, list) else item for item in inp[0]]] for inp in inputs]
        return [[tuple(lst) for lst in inp] for inp in first]
    if n == 307:
        return [[tuple(inp[0])] + [inp[1], inp[2]] for inp in inputs]
    if n == 722:
        return [[{key: tuple(value) for key, value in inp[0].items()}] + inp[1:] for inp in inputs]
    if n == 252:
        return [[complex(inp[0])] for inp in inputs]
    if n in (580, 615, 791):
        return [_tuples(inp) for inp in inputs]
    return inputs


def _header(reference: str, entry_point: str, task_id: str) -> str:
    try:
        return function_header(reference, entry_point)
    except (SyntaxError, LookupError) as exc:
        raise ValueError(f"{task_id}: cannot find the header of {entry_point!r} ({exc})") from exc


def _humaneval_checks() -> dict[str, str]:
    """HumanEval's own ``check`` sources by task number (the Mini file has no tests of its own)."""
    found = resolve_file(HUMANEVAL, None)
    return {r["task_id"].split("/")[-1]: r["test"] for r in read_records(found.path, HUMANEVAL)}


def _humaneval_plus_task(record: dict[str, Any], benchmark: str, prefix: str, check: str) -> Task:
    number = record["task_id"].split("/")[-1]
    reference = record["prompt"] + record["canonical_solution"]
    task_id = f"{prefix}{number}"
    _PLUS[task_id] = PlusData(
        task_id,
        benchmark,
        "humaneval",
        record["entry_point"],
        reference,
        record["base_input"],
        record["plus_input"],
        float(record["atol"]),
        record["contract"],
    )
    return Task(
        task_id=task_id,
        benchmark=benchmark,
        description=record["prompt"],
        entry_point=record["entry_point"],
        signature=_header(reference, record["entry_point"], task_id),
        reference=reference,
        tests=check,
        test_format="check",
        libraries=imported_modules(reference),
    )


def _mbpp_plus_task(record: dict[str, Any]) -> Task:
    task_id, entry_point = record["task_id"], record["entry_point"]
    reference = record["prompt"] + record["canonical_solution"]
    prompt_lines = ast.literal_eval(record["prompt"].strip()).strip().splitlines()
    text = "\n".join(line for line in prompt_lines if not line.lstrip().startswith("assert "))
    example = next((line for line in prompt_lines if line.lstrip().startswith("assert ")), "")
    lines = [line for line in record["assertion"].splitlines() if line.strip()]
    imports = [line for line in lines if line.startswith(("import ", "from "))]
    asserts = [line for line in lines if line not in imports]
    signature = _header(reference, entry_point, task_id)
    _PLUS[task_id] = PlusData(
        task_id,
        "mbpp_plus",
        "mbpp",
        entry_point,
        reference,
        mbpp_deserialize_inputs(task_id, record["base_input"]),
        mbpp_deserialize_inputs(task_id, record["plus_input"]),
        float(record["atol"]),
        record["contract"],
    )
    return Task(
        task_id=task_id,
        benchmark="mbpp_plus",
        description=DESCRIPTION_TEMPLATE.format(
            prompt=text, entry_point=entry_point, signature=signature, example=example or asserts[0]
        ),
        entry_point=entry_point,
        signature=signature,
        reference=reference,
        examples=[example or asserts[0]],
        tests="\n".join(asserts),
        test_format="asserts",
        test_imports=imports,
        libraries=sorted(set(imported_modules(reference)) | set(imported_modules("\n".join(imports)))),
    )


def _load(path: Path, source: DataSource) -> list[Task]:
    records = read_records(path, source)
    try:
        if source is MBPP_PLUS:
            return [_mbpp_plus_task(r) for r in records]
        prefix = "HumanEval+Mini/" if source is HUMANEVAL_PLUS_MINI else "HumanEval+/"
        checks = _humaneval_checks() if source is HUMANEVAL_PLUS_MINI else {}
        return [
            _humaneval_plus_task(r, source.benchmark, prefix, r.get("test") or checks[r["task_id"].split("/")[-1]])
            for r in records
        ]
    except (ValueError, TypeError, KeyError, SyntaxError) as exc:
        raise DataError(f"{source.benchmark} data file {path}: {exc}") from exc


def load_humaneval_plus(path: Path) -> list[Task]:
    """Load the 164 HumanEval+ tasks (``HumanEvalPlus.jsonl.gz``)."""
    return _load(path, HUMANEVAL_PLUS)


def load_humaneval_plus_mini(path: Path) -> list[Task]:
    """Load the 164 HumanEval+ Mini tasks (``HumanEvalPlus-Mini.jsonl.gz``: fewer plus inputs)."""
    return _load(path, HUMANEVAL_PLUS_MINI)


def load_mbpp_plus(path: Path) -> list[Task]:
    """Load the 378 MBPP+ tasks (``MbppPlus.jsonl.gz``)."""
    return _load(path, MBPP_PLUS)
