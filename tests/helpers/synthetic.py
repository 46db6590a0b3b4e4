"""A complete, internally consistent synthetic run directory for tests of analysis, views and notebooks.

``make_synthetic_run(root)`` writes the run directory's layout (docs/architecture.md) (config.json, tasks.json, checkpoints/,
``<model_dir>/<task_dir>/`` artifacts and ``results.json``) without calling a model or the sandbox.
Outcomes are
drawn with a seeded RNG but cycled so that every run covers all four cases, every unreliable cause, every
benchmark transition (including ``no_code``) and accept/reject/undecided for the judges, across two models and
two benchmarks. Every ``*_path`` field of the records points to a file that exists.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import get_args

from tfr_helpers.records import (
    BenchmarkVerdict,
    Case,
    Cause,
    Feedback,
    GeneratedCode,
    GeneratedTest,
    Isolation,
    ModelCallRecord,
    PairEvaluation,
    ProgramRun,
    RefinedEvaluation,
    Refinement,
    Results,
    ScreeningDecision,
    TestKind,
    TestOutcome,
    Transition,
)

MODELS = ("sim:default", "sim:alt")
"""The two (simulated) models of the synthetic run."""
STRATEGIES = ("accept_all", "llm_judge", "llm_judge_reasoning")
"""Screening strategies recorded for every feedback."""
ISOLATION = Isolation(network="netns", uid_drop=True, rlimits=["AS", "CPU", "NPROC"], warnings=[])

_EBT_CAUSES: tuple[Cause, ...] = tuple(c for c in get_args(Cause) if c != "property_falsified")


def model_dir(model: str) -> str:
    """Directory name of a model (``sim:default`` -> ``sim_default``)."""
    return model.replace(":", "_").replace("/", "_")


def task_dir(task_id: str) -> str:
    """Directory name of a task (``HumanEval/3`` -> ``HumanEval_3``)."""
    return task_id.replace("/", "_")


def _write(run: Path, rel: str, text: str) -> str:
    path = run / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return rel


def _call(
    run: Path, base: str, model: str, role: str, stage: str, template: str, prompt: str, response: str
) -> ModelCallRecord:
    return ModelCallRecord(
        model=model,
        role=role,
        stage=stage,
        template=template,
        template_version="1",  # type: ignore[arg-type]
        prompt_path=_write(run, f"{base}_prompt.md", prompt),
        response_path=_write(run, f"{base}_response.md", response),
    )


def _outcome(name: str, status: str, **kw: object) -> TestOutcome:
    return TestOutcome(name=name, status=status, **kw)  # type: ignore[arg-type]


def _reference_outcome(name: str, case: Case, cause: Cause | None) -> tuple[TestOutcome, TestOutcome | None]:
    """Reference outcome (and rerun) consistent with the case and the unreliable cause."""
    if case in ("pass_pass", "fail_pass"):
        return _outcome(name, "passed"), None
    if case == "pass_fail":
        return _outcome(name, "failed", exc_type="AssertionError", expected="1", actual="2"), None
    failed = {
        "wrong_expected_value": _outcome(name, "failed", exc_type="AssertionError", expected="5", actual="4"),
        "invalid_input": _outcome(name, "error", exc_type="ValueError", message="bad input", in_code_under_test=True),
        "wrong_exception": _outcome(name, "failed", exc_type="AssertionError", message="DID NOT RAISE"),
        "test_code_error": _outcome(name, "error", exc_type="NameError", message="name 'x' is not defined"),
        "property_falsified": _outcome(name, "failed", exc_type="AssertionError", message="Falsifying example"),
        "timeout_or_resource": _outcome(name, "timeout", message="wall-clock limit"),
        "nondeterministic": _outcome(name, "failed", exc_type="AssertionError", expected="1", actual="0"),
        "harness_unsupported": _outcome(name, "error", exc_type="TypeError", message="missing 1 required argument"),
        "reference_not_run": _outcome(name, "not_run", message="the program failed to load"),
    }[cause or "wrong_expected_value"]
    rerun = _outcome(name, "passed") if cause == "nondeterministic" else failed
    return failed, rerun


def _transitions(before: bool) -> tuple[Transition, ...]:
    return ("pass->pass", "pass->fail", "no_code") if before else ("fail->pass", "fail->fail", "no_code")


def make_synthetic_run(root: Path, *, seed: int = 0, n_tasks: int = 12) -> Path:
    """Write a complete synthetic run directory under ``root`` and return its path.

    Args:
        root: Parent directory; the run is written to ``root / "synthetic_<seed>"``.
        seed: Seed of the RNG that draws outcomes (same seed, same run).
        n_tasks: Number of tasks, split between HumanEval and MBPP (at least 4).

    Returns:
        The run directory (holding ``results.json``).

    Raises:
        ValueError: If ``n_tasks`` is below 4 (too few to cover every case).
    """
    if n_tasks < 4:
        raise ValueError("n_tasks must be at least 4 to cover every case; pass n_tasks=4 or more")
    rng = random.Random(seed)
    run = root / f"synthetic_{seed}"
    run.mkdir(parents=True, exist_ok=True)
    half = n_tasks // 2
    tasks = [f"HumanEval/{i}" for i in range(half)] + [f"MBPP/{i + 2}" for i in range(n_tasks - half)]
    bench = {t: ("humaneval" if t.startswith("HumanEval") else "mbpp") for t in tasks}
    config = {
        "run_name": run.name,
        "seed": seed,
        "models": {"coder": list(MODELS)},
        "simulated": True,
        "benchmarks": ["humaneval", "mbpp"],
        "strategies": list(STRATEGIES),
    }
    _write(run, "config.json", json.dumps(config, indent=2))
    _write(run, "tasks.json", json.dumps({"version": 1, "tasks": tasks}, indent=2))
    (run / "checkpoints").mkdir(exist_ok=True)

    # cycles guarantee coverage; the RNG varies the order per seed
    cases: list[Case] = [
        "pass_pass",
        "pass_fail",
        "fail_pass",
        "fail_fail",
        "fail_fail",
        "fail_pass",
        "pass_pass",
    ]
    rng.shuffle(cases)
    case_cycle = itertools.cycle(cases)
    ebt_causes = itertools.cycle(_EBT_CAUSES)
    trans_counter = itertools.count(rng.randrange(3))
    decision_cycle = itertools.cycle(["accept", "reject", "accept", "undecided", "reject"])
    pbt_falsified = itertools.cycle([True, False])

    codes, tests, verdicts, pairs, screening, refinements, refined = [], [], [], [], [], [], []
    for m_index, model in enumerate(MODELS):
        for t_index, task_id in enumerate(tasks):
            base = f"{model_dir(model)}/{task_dir(task_id)}"
            code = f"def f(x):\n    return x + {t_index % 3}\n"
            call = _call(
                run,
                f"{base}/codegen",
                model,
                "coder",
                "generate_codes",
                "codegen",
                f"Write f for {task_id}",
                f"```python\n{code}```",
            )
            codes.append(
                GeneratedCode(
                    model=model,
                    task_id=task_id,
                    code=code,
                    call=call,
                    code_path=_write(run, f"{base}/code.py", code),
                )
            )
            before = (t_index + m_index) % 2 == 0
            run_rec = ProgramRun(outcomes=[_outcome("check", "passed" if before else "failed")], isolation=ISOLATION)
            verdicts.append(
                BenchmarkVerdict(
                    model=model,
                    task_id=task_id,
                    subject="generated",
                    passed=before,
                    run=run_rec,
                    run_path=_write(run, f"{base}/benchmark_run.json", run_rec.model_dump_json(indent=2)),
                )
            )
            kinds: list[TestKind] = ["ebt", "ebt", "pbt"]
            for kind, index in [(k, kinds[:i].count(k)) for i, k in enumerate(kinds)]:
                name = f"test_{kind}_{index}"
                test_id = f"{model}|{task_id}|{kind}|{index}"
                source = f"def {name}():\n    assert f(1) == {rng.randint(1, 4)}\n"
                tcall = _call(
                    run,
                    f"{base}/{kind}gen",
                    model,
                    "tester",
                    "generate_tests",
                    kind,
                    f"Write {kind} tests for {task_id}",
                    f"```python\n{source}```",
                )
                tests.append(
                    GeneratedTest(
                        test_id=test_id,
                        model=model,
                        task_id=task_id,
                        kind=kind,
                        index=index,
                        name=name,
                        source=source,
                        call=tcall,
                        test_path=_write(run, f"{base}/tests/{kind}_{index}.py", source),
                    )
                )
                case = next(case_cycle)
                cause: Cause | None = None
                if case == "fail_fail":
                    cause = "property_falsified" if kind == "pbt" and next(pbt_falsified) else next(ebt_causes)
                gen = (
                    _outcome(name, "passed")
                    if case.startswith("pass")
                    else _outcome(name, "failed", exc_type="AssertionError", expected="3", actual="2")
                )
                ref, rerun = _reference_outcome(name, case, cause)
                feedback = None
                reliability = None
                if case.startswith("fail"):
                    reliability = "reliable" if case == "fail_pass" else "unreliable"
                    feedback = Feedback(
                        feedback_id=test_id,
                        test_id=test_id,
                        text=f"{source}\nAssertionError: expected 3, got 2",
                    )
                stem = f"{base}/{kind}_{index}"
                pair = PairEvaluation(
                    test_id=test_id,
                    model=model,
                    task_id=task_id,
                    benchmark=bench[task_id],  # type: ignore[arg-type]
                    kind=kind,
                    generated=gen,
                    reference=ref,
                    reference_rerun=rerun,
                    case=case,
                    reliability=reliability,
                    cause=cause,
                    feedback=feedback,
                    isolation=ISOLATION,  # type: ignore[arg-type]
                    record_path=f"{base}/executions/{kind}_{index}.json",
                )
                _write(run, pair.record_path or "", pair.model_dump_json(indent=2))
                pairs.append(pair)
                if feedback is None:
                    continue
                _write(run, f"{base}/feedback/{kind}_{index}.md", feedback.text)
                for strategy in STRATEGIES:
                    decision = "accept" if strategy == "accept_all" else next(decision_cycle)
                    scall = (
                        None
                        if strategy == "accept_all"
                        else _call(
                            run,
                            f"{base}/screening/{strategy}/{kind}_{index}",
                            model,
                            "judge",
                            "screen_feedback",
                            "judge" if strategy == "llm_judge" else "judge_reasoning",
                            feedback.text,
                            decision.capitalize(),
                        )
                    )
                    rec = ScreeningDecision(
                        feedback_id=test_id,
                        strategy=strategy,
                        decision=decision,  # type: ignore[arg-type]
                        reasoning="looks plausible" if strategy.endswith("reasoning") else None,
                        call=scall,
                    )
                    rec = rec.model_copy(
                        update={
                            "decision_path": _write(
                                run,
                                f"{base}/screening/{strategy}/{kind}_{index}.json",
                                rec.model_dump_json(indent=2),
                            )
                        }
                    )
                    screening.append(rec)
                allowed = _transitions(before)
                transition = allowed[next(trans_counter) % len(allowed)]
                new_code = None if transition == "no_code" else f"def f(x):\n    return x + {rng.randint(0, 2)}\n"
                rcall = _call(
                    run,
                    f"{stem}_refine",
                    model,
                    "refiner",
                    "refine_codes",
                    "refine",
                    f"Fix the code given:\n{feedback.text}",
                    "I cannot help" if new_code is None else f"```python\n{new_code}```",
                )
                refinements.append(
                    Refinement(
                        feedback_id=test_id,
                        model=model,
                        task_id=task_id,
                        code=new_code,
                        call=rcall,
                        parse_error="no code block" if new_code is None else None,
                        code_path=None if new_code is None else _write(run, f"{base}/refined/{kind}_{index}.py", new_code),
                    )
                )
                after = None if transition == "no_code" else transition.endswith("pass")
                gen_after = None if new_code is None else _outcome(name, rng.choice(["passed", "passed", "failed"]))
                brun = None
                if after is not None:
                    brun_rec = ProgramRun(outcomes=[_outcome("check", "passed" if after else "failed")], isolation=ISOLATION)
                    brun = _write(
                        run,
                        f"{base}/refined/{kind}_{index}_benchmark.json",
                        brun_rec.model_dump_json(indent=2),
                    )
                refined.append(
                    RefinedEvaluation(
                        feedback_id=test_id,
                        model=model,
                        task_id=task_id,
                        benchmark_before=before,
                        benchmark_after=after,
                        generated_test_after=gen_after,
                        transition=transition,
                        benchmark_run_path=brun,
                    )
                )

    results = Results(
        run_name=run.name,
        simulated=True,
        config=config,
        tasks=tasks,
        task_benchmarks=bench,  # type: ignore[arg-type]
        generated_codes=codes,
        generated_tests=tests,
        benchmark_verdicts=verdicts,
        pair_evaluations=pairs,
        screening=screening,
        refinements=refinements,
        refined_evaluations=refined,
    )
    _write(run, "results.json", results.model_dump_json(indent=2))
    return run
