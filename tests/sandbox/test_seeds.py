"""Repeatable runs: a fixed string-hash seed in every worker, and RNGs seeded per (run seed, test), never per program."""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

WORDS = [f"w{i:02d}" for i in range(24)]
SHOW_SET = TestSpec("show", f"import sys\nprint(sys.flags.hash_randomization, sorted(set()), {set(WORDS)!r})")
RANDOM_PROG = "import random\nDRAWN_AT_LOAD = random.random()\ndef coin():\n    return random.random()\n"
DRAW = TestSpec("draw", "print(DRAWN_AT_LOAD, coin(), coin())")


def stdout(sandbox: Sandbox, program: str, test: TestSpec, limits: Limits | None = None) -> str:
    run = sandbox.run(program, [test], limits)
    assert run.outcomes[0].status == "passed", run.outcomes
    return run.outcomes[0].stdout or ""


def test_set_order_is_the_same_in_every_worker_start() -> None:
    # two sandboxes = four separately started worker interpreters; 24 strings in a set: a random hash seed
    # would print them in another order (the MBPP/7 feedback showed {'Jing', 'Tech'} vs {'Tech', 'Jing'})
    outputs = set()
    for _ in range(2):
        with Sandbox(Limits(timeout_s=5.0), workers=2, preload=("unittest",)) as sb:
            outputs |= {stdout(sb, "", SHOW_SET) for _ in range(3)}
    assert len(outputs) == 1, outputs
    assert outputs.pop().startswith("0 [] "), "hash randomization is on in the sandboxed program"


def test_random_draws_repeat_for_the_same_seed_and_test(sandbox: Sandbox) -> None:
    limits = Limits(timeout_s=3.0, seed=7)
    first = stdout(sandbox, RANDOM_PROG, DRAW, limits)
    assert {stdout(sandbox, RANDOM_PROG, DRAW, limits) for _ in range(3)} == {first}
    other_test = TestSpec("draw", "print(DRAWN_AT_LOAD, coin(), coin())  # another test")
    assert stdout(sandbox, RANDOM_PROG, other_test, limits) != first


def test_one_test_draws_the_same_on_two_equivalent_programs(sandbox: Sandbox) -> None:
    # the draws come from the test, not the program: a test such as ``assert x < 0.725`` must not pass on one
    # program and fail on another that behaves exactly like it (the reference)
    limits = Limits(timeout_s=3.0, seed=7)
    equivalent = "import random as _r\n\n\ndef coin():\n    # same behaviour, other text\n    return _r.random()\n"
    draw = TestSpec("draw", "print(coin(), coin())")
    assert stdout(sandbox, RANDOM_PROG, draw, limits) == stdout(sandbox, equivalent, draw, limits)
    assert stdout(sandbox, RANDOM_PROG + "# another program\n", DRAW, limits) == stdout(sandbox, RANDOM_PROG, DRAW, limits)


def test_another_seed_gives_other_draws_so_flaky_programs_show(sandbox: Sandbox) -> None:
    # a nondeterministic "reference": passes or fails depending on its draw; each seed repeats its verdict,
    # and across seeds both verdicts appear (what the pipeline's rerun with another seed relies on)
    flaky = TestSpec("flaky", "assert coin() < 0.5")
    verdicts = {}
    for seed in range(12):
        limits = Limits(timeout_s=3.0, seed=seed)
        runs = [sandbox.run(RANDOM_PROG, [flaky], limits).outcomes[0].status for _ in range(2)]
        assert runs[0] == runs[1], (seed, runs)
        verdicts[seed] = runs[0]
    assert set(verdicts.values()) == {"passed", "failed"}, verdicts


def test_numpy_global_rng_is_seeded_when_loaded(sandbox: Sandbox) -> None:
    prog = "import numpy as np\n"
    test = TestSpec("np", "print(np.random.rand(3).tolist(), np.random.randint(0, 10**9))")
    limits = Limits(timeout_s=10.0, seed=3)
    first = stdout(sandbox, prog, test, limits)
    assert stdout(sandbox, prog, test, limits) == first
    assert stdout(sandbox, prog, test, Limits(timeout_s=10.0, seed=4)) != first


def test_pipeline_reruns_the_reference_with_another_seed() -> None:
    from tfr_helpers.pipeline import load_config
    from tfr_helpers.pipeline.engine.context import RunContext

    params = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"
    ctx = RunContext(config=load_config(params, {"seed": 5}), store=None, tasks={})  # type: ignore[arg-type]
    first, rerun = ctx.limits(generated=True), ctx.limits(generated=True, rerun=True)
    assert first.seed == 5 and rerun.seed != first.seed
    assert ctx.limits(generated=False).seed == 5
