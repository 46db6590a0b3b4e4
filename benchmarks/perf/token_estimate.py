"""How far off are ``tfr estimate``'s input tokens? Count the planned prompts with a real BPE tokenizer.

The estimate divides a prompt's characters by ``CHARS_PER_TOKEN`` (no tokenizer works offline in the package:
tiktoken downloads its encodings). This script renders the prompts ``tfr estimate`` plans for a params file
and counts them with ``bpe-openai`` (the o200k / cl100k tables compiled into the wheel, so it runs offline once
installed), printing per template the true characters per token and how the estimate's point and range compare::

    uv run --with bpe-openai python benchmarks/perf/token_estimate.py papermill_params/openai.yaml

The reference solutions are counted too (``reference_code``), as a proxy for code in replies and in prompts.
"""

from __future__ import annotations

import statistics
import sys


def main(params: str) -> None:
    """Print the comparison for one params file."""
    import bpe_openai

    from tfr_helpers.pipeline import load_config
    from tfr_helpers.pipeline.engine.tasks import select_tasks
    from tfr_helpers.pipeline.estimate.dry_run import CHARS_PER_TOKEN, plan_calls

    config = load_config(params)
    planned, _, _ = plan_calls(config)
    texts = [(p.job.template, "".join(m.content for m in p.request.messages)) for p in planned]
    texts += [("reference_code", t.reference) for t in select_tasks(config).values()]
    low, point, high = CHARS_PER_TOKEN
    for name in ("o200k_base", "cl100k_base"):
        enc = bpe_openai.get_encoding(name)
        print(f"{name}: template, prompts, true chars/token (mean, min-max), estimate/true (mean, min-max), in range")
        by: dict[str, list[tuple[int, int]]] = {}
        for template, text in texts:
            by.setdefault(template, []).append((len(text), len(enc.encode(text))))
        for template, counts in by.items():
            ratio = [c / n for c, n in counts]
            error = [c / point / n for c, n in counts]
            inside = sum(c / low <= n <= c / high for c, n in counts)
            print(
                f"  {template:16} {len(counts):4}  {statistics.mean(ratio):.2f} ({min(ratio):.2f}-{max(ratio):.2f})  "
                f"{statistics.mean(error):.2f} ({min(error):.2f}-{max(error):.2f})  {inside}/{len(counts)}"
            )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "papermill_params/openai.yaml")
