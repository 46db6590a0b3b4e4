"""Verdicts of the ``evalplus`` package's own harness (v0.3.1), run in an environment that has it.

Usage: ``<python with evalplus> evalplus_side.py <dataset: humaneval|mbpp> <EvalPlus data file> <samples.jsonl>
<out.json>``. Samples: rows of ``task_id`` (EvalPlus's ids) and ``solution``. Expected outputs come from
``evalplus.gen.util.trusted_exec`` on ``prompt + canonical_solution`` (with MBPP's output-not-None tasks), each
sample is judged by ``evalplus.eval.untrusted_check`` at both tiers with EvalPlus's default time limits,
exactly as ``evalplus.evaluate.check_correctness`` does. Writes ``{task_id: [[base, plus], ...]}`` of statuses.

``evalplus.data``'s package init imports Hugging Face ``datasets`` (for datasets this test does not use), so a
stand-in module is registered first; nothing of it is called.
"""

import gzip
import json
import sys
import types

sys.modules.setdefault("datasets", types.SimpleNamespace(load_dataset=None))  # type: ignore[arg-type]

from evalplus.config import DEFAULT_GT_TIME_LIMIT_FACTOR, DEFAULT_MIN_TIME_LIMIT  # noqa: E402
from evalplus.data.mbpp import mbpp_deserialize_inputs  # noqa: E402
from evalplus.eval import untrusted_check  # noqa: E402
from evalplus.eval._special_oracle import MBPP_OUTPUT_NOT_NONE_TASKS  # noqa: E402
from evalplus.gen.util import trusted_exec  # noqa: E402


def main() -> None:
    dataset, data_file, samples_file, out_file = sys.argv[1:5]
    with gzip.open(data_file, "rt") as fh:
        problems = {p["task_id"]: p for p in map(json.loads, fh)}
    samples = [json.loads(line) for line in open(samples_file) if line.strip()]
    wanted = {s["task_id"] for s in samples}
    not_none = MBPP_OUTPUT_NOT_NONE_TASKS if dataset == "mbpp" else []
    results: dict[str, list[list[str]]] = {}
    for task_id in sorted(wanted):
        problem = problems[task_id]
        if dataset == "mbpp":
            problem["base_input"] = mbpp_deserialize_inputs(task_id, problem["base_input"])
            problem["plus_input"] = mbpp_deserialize_inputs(task_id, problem["plus_input"])
        code = problem["prompt"] + problem["canonical_solution"]
        oracle = {}
        for tier in ("base", "plus"):
            oracle[tier], oracle[tier + "_time"] = trusted_exec(
                code,
                problem[f"{tier}_input"],
                problem["entry_point"],
                record_time=True,
                output_not_none=problem["entry_point"] in not_none,
            )
        for sample in (s for s in samples if s["task_id"] == task_id):
            statuses = []
            for tier in ("base", "plus"):
                status, _ = untrusted_check(
                    dataset,
                    sample["solution"],
                    problem[f"{tier}_input"],
                    problem["entry_point"],
                    expected=oracle[tier],
                    atol=problem["atol"],
                    ref_time=oracle[tier + "_time"],
                    fast_check=True,
                    min_time_limit=DEFAULT_MIN_TIME_LIMIT,
                    gt_time_limit_factor=DEFAULT_GT_TIME_LIMIT_FACTOR,
                )
                statuses.append(status)
            results.setdefault(task_id, []).append(statuses)
    with open(out_file, "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    main()
