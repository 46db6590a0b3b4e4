"""Stage backprompt_rounds: every chain refined round after round, checkpointed per round.

The runner checkpoints a chain (``checkpoints/round_chains.jsonl``) once all its rounds are done. Inside a
chunk of chains the rounds advance together, and each round's steps are appended to
``checkpoints/round_steps_<config hash>.jsonl`` (key ``<chain id>|r<k>``) as soon as the round is done for the chunk, so a
run killed in round k resumes at round k with rounds 1..k-1 read back, never redone, never doubled. A chain
whose refinement call got no reply is left undone (its earlier rounds stay recorded) and retried by a rerun.
Steps are a function of the chain's earlier steps and its inputs, so a resumed chain equals an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundStep, RoundSuite, RoundTests
from tfr_helpers.arms.rounds.stages.chains import ChainJob, chain_items
from tfr_helpers.arms.rounds.stages.step import run_round, state_of
from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS, PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import decode_records, encode_records, register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone
from tfr_helpers.pipeline.engine.stage import Inputs, Stage
from tfr_helpers.records import BenchmarkVerdict, GeneratedCode, GeneratedTest, PairEvaluation

register_record_type(RoundChain)
register_record_type(RoundStep)


def step_checkpoint(ctx: RunContext) -> str:
    """Checkpoint of the steps of chains not yet complete: ``checkpoints/round_steps_<config hash>.jsonl``.

    Named by the configuration hash: a run directory rebound to another configuration (a changed ``screening``,
    say; :mod:`tfr_helpers.pipeline.config.fingerprint`) never resumes a chain from steps made under the old one.
    """
    return f"round_steps_{ctx.config.artifact_only.config_hash()[:12]}"


def _recorded_steps(ctx: RunContext, items: Sequence[ChainJob]) -> dict[str, list[RoundStep]]:
    """Chain key -> its rounds already in the step checkpoint, in round order (stopping at a gap)."""
    entries = {e["key"]: e["data"] for e in ctx.store.read_checkpoint(step_checkpoint(ctx))}
    out: dict[str, list[RoundStep]] = {}
    for item in items:
        steps: list[RoundStep] = []
        while f"{item.key}|r{len(steps) + 1}" in entries:
            steps += [r for r in decode_records(entries[f"{item.key}|r{len(steps) + 1}"]) if isinstance(r, RoundStep)]
        out[item.key] = steps
    return out


def backprompt_rounds(items: Sequence[ChainJob], ctx: RunContext) -> list[RoundChain | Undone]:
    """Advance each chain through rounds 1..R (fewer when it stops early).

    Args:
        items: One job per chain.
        ctx: The run context.

    Returns:
        One :class:`RoundChain` per job, or :class:`Undone` for a chain one of whose refinement calls got no
        reply (its completed rounds are kept in the step checkpoint).
    """
    steps, name = _recorded_steps(ctx, items), step_checkpoint(ctx)
    undone: dict[str, str] = {}
    for k in range(1, ARM.settings(ctx.config).rounds + 1):
        states = {i.key: state_of(i, steps[i.key]) for i in items}
        todo = [i for i in items if i.key not in undone and len(steps[i.key]) == k - 1 and not states[i.key].stopped]
        if not todo:
            continue
        done = run_round(ctx, todo, k, states)
        entries = []
        for item in todo:
            step = done[item.key]
            if isinstance(step, Undone):
                undone[item.key] = step.reason
                continue
            steps[item.key].append(step)
            entries.append((f"{item.key}|r{k}", encode_records([step])))
        ctx.store.append_many(name, entries)
    return [Undone(i.key, undone[i.key]) if i.key in undone else _chain(i, steps[i.key]) for i in items]


def _chain(item: ChainJob, steps: list[RoundStep]) -> RoundChain:
    return RoundChain(
        chain_id=item.key,
        model=item.model,
        refiner=item.refiner,
        task_id=item.task.task_id,
        benchmark=item.task.benchmark,
        code_index=item.code_index,
        round_tests=item.round_tests,
        initial_passed=item.initial_passed,
        initial_tiers=item.initial_tiers,
        steps=steps,
    )


# sandboxed: every round runs programs (and its items are outcomes, which ``tfr estimate`` does not project)
STAGE = Stage(
    "backprompt_rounds",
    backprompt_rounds,
    chain_items,
    "round_chains",
    lambda r: r.chain_id,
    sandboxed=True,
    inputs=Inputs(
        records=(GeneratedCode, GeneratedTest, PairEvaluation, BenchmarkVerdict, RoundTests, RoundSuite),
        settings=(
            "refinement.rounds",
            "refinement.round_tests",
            "refinement.stop_when_passing",
            "models.refiner",
            *MODEL_CALL_PARTS,
            *PROGRAM_RUN_PARTS,
            "template:refine",
        ),
    ),
    produces=(RoundChain,),
)
