"""SimProvider: options, presets, determinism, and parseable answers for every role on real tasks."""

from __future__ import annotations

import ast

import pytest

from tests.models.sim.test_sim_support import ask, tasks
from tfr_helpers.benchmarks import BENCHMARKS
from tfr_helpers.errors import ConfigError
from tfr_helpers.models.parse import parse_code, parse_decision, parse_tests
from tfr_helpers.models.sim import PRESETS, SimProvider, SimRates
from tfr_helpers.models.sim.mutate import mutate
from tfr_helpers.prompts import TEMPLATES


def test_unknown_option_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="bug_rate"):
        SimProvider(bug_rate=0.3)


def test_bad_rate_value_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="coder_mutant"):
        SimProvider(coder_mutant=1.5)


def test_rates_of_one_group_must_sum_to_at_most_one() -> None:
    with pytest.raises(ConfigError, match="refine rates"):
        SimProvider(refine_overfit=0.7, refine_mutant=0.5)


def test_unknown_preset_is_a_config_error_listing_presets() -> None:
    with pytest.raises(ConfigError, match="sim:default"):
        ask(SimProvider(), "codegen", tasks("humaneval")[0], model="sim:nope")


def test_presets_are_valid_and_distinct() -> None:
    rates = {name: SimRates(**values) for name, values in PRESETS.items()}  # type: ignore[arg-type]
    assert rates["weak"].judge_error > rates["default"].judge_error > rates["strong"].judge_error
    assert rates["weak"].coder_mutant > rates["default"].coder_mutant > rates["strong"].coder_mutant


def test_request_without_task_answers_and_names_the_simulator() -> None:
    assert "simulated model sim:default" in ask(SimProvider(), "codegen", None)


@pytest.mark.parametrize("template", ["codegen", "ebt", "pbt"])
def test_same_seed_gives_same_text(template: str) -> None:
    for task in tasks("humaneval") + tasks("mbpp"):
        assert ask(SimProvider(seed=3), template, task) == ask(SimProvider(seed=3), template, task)


@pytest.mark.parametrize("template", ["codegen", "ebt", "pbt"])
def test_different_seed_changes_some_answers(template: str) -> None:
    pairs = [
        (ask(SimProvider(seed=1), template, t), ask(SimProvider(seed=2), template, t))
        for t in tasks("humaneval") + tasks("mbpp")
    ]
    assert any(a != b for a, b in pairs)


def test_sample_index_changes_some_answers() -> None:
    task_list = tasks("humaneval") + tasks("mbpp")
    assert any(ask(SimProvider(), "codegen", t) != ask(SimProvider(), "codegen", t, sample_index=1) for t in task_list)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_codegen_answers_parse_to_compiling_code_or_no_code(benchmark: str) -> None:
    kinds = set()
    for task in tasks(benchmark):
        for seed in range(4):
            text = ask(SimProvider(seed=seed, coder_no_code=0.2), "codegen", task)
            assert "simulated model sim:default" in text
            parsed = parse_code(text, task.entry_point)
            if parsed.code is None:
                kinds.add("none")
                continue
            compile(parsed.code, "<sim>", "exec")
            kinds.add("ref" if _same(parsed.code, task.reference) else "mutant")
    assert {"ref", "mutant"} <= kinds


@pytest.mark.parametrize("benchmark", BENCHMARKS)
@pytest.mark.parametrize("kind", ["ebt", "pbt"])
def test_test_answers_parse_into_compiling_tests(benchmark: str, kind: str) -> None:
    for task in tasks(benchmark):
        text = ask(SimProvider(), kind, task, n_tests=3)
        assert text.count("# simulated model sim:default (not an LLM)") == 1
        parsed = parse_tests(text, kind, task.entry_point)
        assert parsed.tests, (task.task_id, parsed.error)
        for test in parsed.tests:
            compile(test.source, test.name, "exec")
            if kind == "pbt":
                assert "@given" in test.source


def test_ebt_count_follows_n_tests() -> None:
    task = tasks("humaneval")[0]
    assert len(parse_tests(ask(SimProvider(), "ebt", task, n_tests=5), "ebt", task.entry_point).tests) == 5


@pytest.mark.parametrize("template", ["judge", "judge_reasoning"])
def test_judge_answers_parse_to_a_decision(template: str) -> None:
    task = tasks("mbpp")[0]
    decisions = set()
    for i in range(30):
        text = ask(SimProvider(seed=i, judge_undecided=0.2), template, task, feedback="no test here")
        assert "simulated model sim:default" in text
        parsed = parse_decision(text)
        decisions.add(parsed.decision)
        if template == "judge_reasoning" and parsed.decision != "undecided":
            assert text.startswith("Reasoning:")
    assert decisions == {"accept", "reject", "undecided"}


@pytest.mark.parametrize("benchmark", ["humaneval", "mbpp"])
def test_mutants_compile_and_differ_from_the_reference(benchmark: str) -> None:
    import random

    for task in tasks(benchmark, 40):
        found = mutate(task.reference, random.Random(task.task_id))
        assert found is not None, task.task_id
        compile(found[0], task.task_id, "exec")
        assert not _same(found[0], task.reference)


def _same(a: str, b: str) -> bool:
    norm = [ast.unparse(ast.parse(s)) for s in (a, b)]
    return norm[0] == norm[1]


def test_every_mutation_operator_is_reachable() -> None:
    import random

    source = (
        "def f(xs, n):\n    total = 0\n    for i in range(1, n):\n        if xs[i] < n and abs(xs[i]) >= 2:\n"
        "            total += xs[i] * 2\n    if total == 0 or n > 3:\n        return True\n"
        "    return total, n\n\ndef g(s):\n    return s.upper()\n"
    )
    names = {found[1] for seed in range(300) if (found := mutate(source, random.Random(seed)))}
    assert names >= {
        "arithmetic",
        "comparison",
        "flipped_comparison",
        "off_by_one",
        "range_bound",
        "boolean",
        "swapped_return",
        "dropped_return",
        "method_swap",
        "dropped_abs",
    }


@pytest.mark.parametrize("template", TEMPLATES)
def test_the_simulated_model_answers_every_prompt_template(template: str) -> None:
    """The templates are listed once (``prompts``): one added there without a behaviour here fails this test."""
    task = tasks("humaneval")[0]
    text = ask(SimProvider(), template, task, code=task.reference, feedback="AssertionError", n_tests="2")
    assert text.strip()


def test_a_template_the_prompts_do_not_know_is_refused_naming_theirs() -> None:
    with pytest.raises(ConfigError, match=", ".join(TEMPLATES)):
        ask(SimProvider(), "summarise", tasks("humaneval")[0])
