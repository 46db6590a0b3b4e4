"""The README of a blind sample: where it comes from, and what each reader does."""

from __future__ import annotations

from typing import Any, get_args

from blind_population import ALLOCATION, PER_TASK, STRATA

from tfr_helpers.records import Cause

CAUSES = {
    "wrong_expected_value": "the test's expected value (or the truth it asserts) is not what the task asks for",
    "invalid_input": "the test calls the function with an input outside the task's stated format or preconditions",
    "wrong_exception": "the test expects an exception the task does not call for (or none where it does)",
    "test_code_error": "the test is broken on its own: a placeholder, an undefined name, a bad call in the test code",
    "property_falsified": "a property-based test states a property the task does not guarantee",
    "timeout_or_resource": "the test's call cannot finish within the time or memory limit, so it cannot judge any code",
    "nondeterministic": "the test's verdict depends on chance (random draws, ordering the task leaves open)",
    "harness_unsupported": "the test needs pytest machinery (fixtures, parametrize) that a plain call does not give",
    "reference_not_run": "the test could not be run at all for a reason outside it",
}
"""The fixed list of causes (docs/labels.md), worded for a reader."""
assert set(CAUSES) == set(get_args(Cause)), "the reader's causes are the classifier's"


def _table(prov: dict[str, Any]) -> str:
    head = (
        "stratum",
        "source",
        "allocated",
        "drawn items",
        "drawn tasks",
        "population units",
        "population tasks",
        "instances",
    )
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s, label in STRATA.items():
        (units, tasks), drawn = prov["population"][s], prov["drawn"][s]
        cells = (f"`{s}`", label, prov["allocation"][s], *drawn, units, tasks, prov["instances"][s])
        rows.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(rows)


def readme(prov: dict[str, Any]) -> str:
    """The README text for the provenance ``prov`` (see ``draw_blind_sample.write``)."""
    causes = "\n".join(f"  - `{c}`: {text}" for c, text in CAUSES.items())
    others = ", ".join(prov["other_models"]) or "none"
    alloc = ", ".join(f"{s} {k}" for s, k in ALLOCATION.items())
    note = f"\n\n{prov['note']}" if prov["note"] else ""
    runs = "\n".join(
        f"- Run `{r['dir']}` (run name `{r['name']}`, configuration hash `{r['config_hash']}`), "
        f"made at commit `{r['commit']}`."
        for r in prov["runs"]
    )
    return f"""# Blind label validation: the sample

Each item below is one **test-fail feedback instance of real, replayed data** (a test a model wrote, which the
code a model wrote fails). Two readers label every item, each alone, from the task, the test, the code and what the
reference does on the test's calls. Their labels are then joined with the classifier's (`docs/labels.md`).

## Provenance

{runs}
- Drawn at commit `{prov["draw_commit"]}`.{note}
- Command:

  ```bash
  {prov["command"]}
  ```

- Seed {prov["seed"]}, {prov["n"]} items. Strata are the sources, never the label. Allocation (stated in
  `benchmarks/labels/blind_population.py`, for 120 items: {alloc}): CodeT's and Reflexion's real solutions
  about equally, and a small share for Reflexion's empty published solutions (a protocol artefact).
- Population: every replayed test-fail instance labelled `reliable` or `unreliable` by the run
  ({prov["indeterminate"]} instances whose verdict depends on the machine were left out); identical (task, code,
  test) executions are one unit. Models not drawn from: {others}.
- Draw: per stratum, the tasks in random order, one random unit of each task per round, at most {PER_TASK} rounds
  (at most {PER_TASK} items per task and stratum); the items are then shuffled together and numbered.
- The reference's calls: the test ran once more on the task's reference in the sandbox, with each of the
  reference's functions that the test calls wrapped to record its arguments and what it returned or raised; the
  calls share {0.7 * prov["budget_s"]:g} s of CPU time (the study's budget is {prov["budget_s"]:g} s per test).

Units: distinct (task, code, test) executions; instances: test-fail feedback instances before merging.

{_table(prov)}

## Reader instructions

You are reader **A** or **B**. Work alone.

**Do not open**: the other reader's file; the key (it is kept outside the repository); any run directory
(`runs/`, results files, checkpoints); `tests/labels/hand_checked.yaml` and the hand-checked or blind-validation
sections of `docs/labels.md`; the task's reference solution or benchmark tests (in the benchmark files or through
`tfr_helpers`). Do not run the study, the classifier or the sandbox. You may reason with small Python snippets of
your own (for example, working out what a correct function returns on the test's input).

Each line of `items.jsonl` is one item:

| field | what |
|---|---|
| `item` | the item's id |
| `source` | which published generations it comes from |
| `task_id`, `entry_point` | the HumanEval task and its function |
| `prompt` | the task prompt as the model saw it (CodeT's prompt has no docstring examples) |
| `task_description` | the full HumanEval prompt, with its examples, where it differs from `prompt` (else null) |
| `code` | the generated program under test |
| `test` | the generated test |
| `failure` | the code's failure on the test, as the refiner saw it |
| `reference_calls` | each call the test makes to a function of the task, with what the reference returns \
(`returns`, a repr) or raises (`raises`); a `note` when a call did not come back or no call was made |

For each item decide, **from the task description**, whether the test's expectation is correct:

- `label`: `reliable` when the test is correct for the task (a valid input, the right expected value, exception or
  property) and so the code really is wrong on it; `unreliable` when the test itself is wrong: a wrong expected
  value, an input outside the task's preconditions, a wrong exception expectation, an error in the test code, a
  wrong property, or a call the limits make unjudgeable (a timeout or resource limit).
- The reference's behaviour is evidence, not the answer: a reference can be wrong. Where the task description and
  the reference disagree, follow the task description and say so in the reason. Where the description leaves the
  case open, decide whether a reasonable reading of the task supports the test, and lower your confidence.
- `cause`: for `unreliable`, one of the fixed list below (or null if none fits); null for `reliable`.
{causes}
- `confidence`: `low`, `medium` or `high`.
- `reason`: one sentence (what the task requires on this input, and how the test compares).

Write `reader_a.jsonl` (reader A) or `reader_b.jsonl` (reader B) in this directory, one line per item, every item
exactly once:

```json
{{"item": "B001", "label": "unreliable", "cause": "wrong_expected_value", "confidence": "high", "reason": "..."}}
```

Check your file (completeness, duplicates, known values; it prints nothing about other labels), then commit it on
its own before any join:

```bash
uv run python benchmarks/labels/join_blind_labels.py --items docs/labels/blind --check a   # or b
git add docs/labels/blind/reader_a.jsonl && git commit -m "Blind labels: reader A"
```

## After both readers

1. Check both files: `--check a`, `--check b` (above).
2. Adjudicate, still without the key: for every item the readers label differently (list them with
   `uv run python benchmarks/labels/join_blind_labels.py --items docs/labels/blind --disagreements`), a third reading
   with both reasons in view decides. Write `adjudication.jsonl` here, one line per such item:
   `{{"item": "B001", "label": "...", "cause": ..., "reason": "..."}}`, and commit it.
3. Join with the key and print the report, then the section for `docs/labels.md`:

```bash
uv run python benchmarks/labels/join_blind_labels.py --items docs/labels/blind --key KEY.jsonl \\
    --adjudication docs/labels/blind/adjudication.jsonl
uv run python benchmarks/labels/join_blind_labels.py --items docs/labels/blind --key KEY.jsonl \\
    --adjudication docs/labels/blind/adjudication.jsonl --markdown
```
"""
