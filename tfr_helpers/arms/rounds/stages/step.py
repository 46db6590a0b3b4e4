"""One round of backprompting for a batch of chains: run the code on the round's suite, refine it with the
feedback of every failing test in one prompt (as Menet et al. backprompt), run the new code on the benchmark.

The refinement reuses the base study's ``refine`` template unchanged: the feedback variable holds the first
failing test's feedback (exactly the base study's text when one test failed) followed by the others under one
line that says how many more failed. The call's sample index is ``round - 1``: round 1 with one failing test is
the base study's own request (same cache entry), and a later round whose prompt repeats an earlier one's gets a
new sample, not the cached answer (a cache hit would fake a collision).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundAction, RoundStep
from tfr_helpers.arms.rounds.stages.chains import ChainJob, SuiteEntry
from tfr_helpers.models.jobs import CallJob, task_variables
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, call_fault
from tfr_helpers.pipeline.steps.code_reply import CodeReply, code_reply
from tfr_helpers.pipeline.steps.evalplus_tiers import tiers_of
from tfr_helpers.pipeline.steps.feedback import build_feedback
from tfr_helpers.pipeline.steps.labels import transition_of
from tfr_helpers.pipeline.steps.pair_runs import test_spec
from tfr_helpers.pipeline.steps.time_limits import run_benchmark
from tfr_helpers.records import ProgramRun, TierVerdicts, code_index_suffix


def normal_code(code: str) -> str:
    """The form in which two programs count as equal for collisions: ``ast.unparse`` (comments, blank lines
    and formatting dropped), or the stripped text when the code does not parse."""
    try:
        return ast.unparse(ast.parse(code))
    except (SyntaxError, ValueError):
        return code.strip()


def combine_feedback(texts: Sequence[str]) -> str:
    """The feedback of all failing tests of a round, for the ``refine`` template's ``feedback`` variable."""
    if len(texts) == 1:
        return texts[0]
    more = len(texts) - 1
    rest = "\n\n".join(f"Failing test {i} of {len(texts)}:\n\n{text}" for i, text in enumerate(texts[1:], start=2))
    return f"{texts[0]}\n\nIt also failed {more} more test{'s' if more > 1 else ''} of the same suite:\n\n{rest}"


@dataclass(frozen=True)
class ChainState:
    """Where a chain stands before a round: its current code and verdict, every code it has had."""

    code: str
    passed: bool
    seen: frozenset[str]
    """Normalised codes of rounds 0.. so far."""
    stopped: bool
    tiers: TierVerdicts | None = None
    """The current code's EvalPlus tiers (None: none recorded)."""


def state_of(item: ChainJob, steps: Sequence[RoundStep]) -> ChainState:
    """The chain's state after ``steps`` (its recorded rounds, in order)."""
    code, passed, seen, tiers = item.code, item.initial_passed, {normal_code(item.code)}, item.initial_tiers
    for step in steps:
        if step.action == "refined" and step.code is not None:
            code = step.code
            seen.add(normal_code(code))
        passed, tiers = step.benchmark_after, step.tiers_after
    return ChainState(code, passed, frozenset(seen), bool(steps) and steps[-1].action == "stopped", tiers)


Failure = tuple[SuiteEntry, str]
"""A failing test of a round's suite and its feedback text."""


def _failures(ctx: RunContext, items: Sequence[ChainJob], k: int, states: dict[str, ChainState]) -> dict[str, list[Failure]]:
    """Chain key -> each failing test of round k's suite with its feedback text (suite order)."""
    if k == 1:  # the generated code on round 1's suite: the RQ1 pair records
        return {
            item.key: [(e, e.pair.feedback.text) for e in item.suites[0] if e.pair and e.pair.feedback] for item in items
        }
    out: dict[str, list[Failure]] = {item.key: [] for item in items}
    runnable = [item for item in items if item.suites[k - 1]]
    jobs = [(states[i.key].code, [test_spec(e.test) for e in i.suites[k - 1]]) for i in runnable]
    runs = ctx.run_programs(jobs, desc=f"round {k}: suite", generated=True)
    for item, run in zip(runnable, runs, strict=True):
        for entry, outcome in zip(item.suites[k - 1], run.outcomes, strict=True):
            if outcome.status != "passed":
                text = build_feedback(entry.test.test_id, entry.test.source, outcome, run.load_error).text
                out[item.key].append((entry, text))
    return out


def run_round(
    ctx: RunContext, items: Sequence[ChainJob], k: int, states: dict[str, ChainState]
) -> dict[str, RoundStep | Undone]:
    """Round ``k`` for chains that have not stopped: chain key -> its step, or :class:`Undone` (no reply).

    Args:
        ctx: The run context.
        items: The chains to advance (each has recorded rounds 1..k-1 and did not stop).
        k: The round, 1..R.
        states: Chain key -> its state before round k.
    """

    failures = _failures(ctx, items, k, states)
    failing = [item for item in items if failures[item.key]]
    feedback = {item.key: combine_feedback([text for _, text in failures[item.key]]) for item in failing}
    replies = ctx.call_models(
        [
            CallJob(
                item.refiner,
                "refiner",
                "refine",
                {
                    **task_variables(item.task),
                    "code": states[item.key].code,
                    "feedback": feedback[item.key],
                },
                item.task,
                sample_index=k - 1,
            )
            for item in failing
        ],
        stage="backprompt_rounds",
    )
    out: dict[str, RoundStep | Undone] = {}
    refined: dict[str, CodeReply] = {}
    for item, result in zip(failing, replies, strict=True):
        fault = call_fault(result)
        if fault is not None:
            out[item.key] = Undone(item.key, fault)
            continue
        # the code is written with its benchmark run (_step)
        refined[item.key] = code_reply(
            ctx, item.model, item.task, result, f"r{k}_refine{code_index_suffix(item.code_index)}", None
        )
    with_code = [i for i in failing if i.key in refined and refined[i.key].code]
    jobs = [(refined[i.key].code or "", i.task) for i in with_code]
    bench = run_benchmark(ctx, jobs, f"round {k}: benchmark")  # under the run's time-limit policy
    tiers = tiers_of(ctx, jobs, bench, f"round {k}: EvalPlus tiers")
    runs = {i.key: (run, t) for i, run, t in zip(with_code, bench, tiers, strict=True)}
    for item in items:
        if item.key not in out:
            out[item.key] = _step(
                ctx, item, k, states[item.key], failures[item.key], refined.get(item.key), runs.get(item.key)
            )
    return out


def _step(
    ctx: RunContext,
    item: ChainJob,
    k: int,
    state: ChainState,
    failures: list[Failure],
    reply: CodeReply | None,
    judged: tuple[ProgramRun, TierVerdicts | None] | None,
) -> RoundStep:
    """The record of one chain's round k (``judged``: the refined code's benchmark run and tiers)."""
    suite = item.suites[k - 1]
    failed = [entry for entry, _ in failures]
    base = {
        "round": k,
        "suite_size": len(suite),
        "suite_reference_passed": sum(e.reference_passed for e in suite),
        "failed": [e.test.test_id for e in failed],
        "unreliable": [e.test.test_id for e in failed if not e.reference_passed],
        "benchmark_before": state.passed,
    }
    if reply is None:  # nothing failed
        action: RoundAction = "stopped" if suite and ARM.settings(ctx.config).stop_when_passing else "carried"
        return RoundStep(action=action, benchmark_after=state.passed, tiers_after=state.tiers, **base)  # type: ignore[arg-type]
    code = reply.code
    common = {**base, "feedback": combine_feedback([t for _, t in failures]), "call": reply.call}
    if not code or judged is None:
        return RoundStep(
            action="no_code",
            benchmark_after=state.passed,
            tiers_after=state.tiers,
            transition="no_code",
            parse_error=reply.parse_error or "no benchmark run",
            **common,  # type: ignore[arg-type]
        )
    run, tiers = judged
    suffix = code_index_suffix(item.code_index)
    tid = item.task.task_id
    code_path = ctx.store.artifact(item.model, tid, f"rounds/r{k}/code{suffix}.py", code)
    run_path = ctx.store.artifact(item.model, tid, f"rounds/r{k}/benchmark{suffix}.json", run.model_dump_json(indent=1))
    after = run.passed
    return RoundStep(
        action="refined",
        code=code,
        code_path=code_path,
        benchmark_after=after,
        transition=transition_of(state.passed, after),
        collision=normal_code(code) in state.seen,
        benchmark_run_path=run_path,
        tiers_after=tiers,
        **common,  # type: ignore[arg-type]
    )
