"""A screener is one object declaring what it is: the calls it makes, what it needs, whether it scores or abstains."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.pipeline.screening.test_strategies import item
from tfr_helpers.arms.trajectories.stages.screening_items import trajectory_strategies
from tfr_helpers.consensus.screening import SAMPLES
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import STRATEGIES, Screener, ScreeningItem, Verdict, register_strategy
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.screening.registry import resolve_strategy, too_few_samples
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.screener.artefact import DEFAULT_ARTEFACT

FAILED = Outcome(name="t", status="failed", exc_type="AssertionError")


def _items(*samples: int) -> list[ScreeningItem]:
    return [dataclasses.replace(item(FAILED), code_samples=n) for n in samples]


@pytest.fixture
def toys() -> Iterator[list[list[int]]]:
    """Two toy screeners, registered for the test: one compares samples, one asks the judge. Yields the batches
    (each item's code samples) their decide functions were given."""
    seen: list[list[int]] = []

    @register_strategy("toy_samples", samples=2, scores=True, abstains=True)
    def toy_samples(items: Sequence[ScreeningItem], ctx: object) -> list[Verdict]:
        seen.append([i.code_samples for i in items])
        return [Verdict("reject", "compared", score=0.9) for _ in items]

    @register_strategy("toy_judge", calls="judge")
    def toy_judge(items: Sequence[ScreeningItem], ctx: object) -> list[Verdict]:
        return [Verdict("accept") for _ in items]

    try:
        yield seen
    finally:
        STRATEGIES.pop("toy_samples")
        STRATEGIES.pop("toy_judge")


def test_the_decorator_registers_one_object_with_its_declarations(toys: list[list[int]]) -> None:
    judge, samples = resolve_strategy("toy_judge"), resolve_strategy("toy_samples")
    assert isinstance(judge, Screener) and judge is STRATEGIES["toy_judge"]
    assert (judge.calls, judge.calls_model, judge.samples, judge.scores) == ("judge", True, 1, False)
    assert (samples.calls_model, samples.samples, samples.scores, samples.abstains) == (False, 2, True, True)


def test_a_coder_with_too_few_samples_is_accepted_with_the_reason_without_asking_the_screener(
    toys: list[list[int]],
) -> None:
    verdicts = resolve_strategy("toy_samples")(_items(1, 3, 1, 2), None)
    assert toys == [[3, 2]]  # only the items of coders with two samples or more reach decide
    assert [v.decision for v in verdicts] == ["accept", "reject", "accept", "reject"]
    assert [v.abstained for v in verdicts] == [True, False, True, False]
    reason = "fewer than two programs: no consensus, accepted as accept_all would"
    assert verdicts[0].reasoning == too_few_samples(2) == reason
    assert verdicts[0].score is None and verdicts[1].score == 0.9


def test_one_sample_everywhere_never_calls_decide(toys: list[list[int]]) -> None:
    assert [v.abstained for v in resolve_strategy("toy_samples")(_items(1, 1), None)] == [True, True]
    assert toys == []


def test_screeners_that_call_a_model_are_left_out_of_the_replayed_trajectory_steps(toys: list[list[int]]) -> None:
    assert trajectory_strategies(["toy_judge", "toy_samples", "llm_judge", "reject_test_code_errors"]) == [
        "accept_all",
        "toy_samples",
        "reject_test_code_errors",
    ]


def test_the_built_in_screeners_declare_what_they_are() -> None:
    declared = {
        name: (s.calls, s.samples, s.sandbox, s.artefact, s.scores, s.abstains, s.prepare is not None)
        for name in ("accept_all", "reject_test_code_errors", "llm_judge", "llm_judge_reasoning")
        + ("consensus_codet_top", "consensus_b4", "consensus_dawid_skene@0.7", "learned_gold_free")
        for s in [resolve_strategy(name)]
    }
    rule = (None, 1, False, None, False, False, False)
    consensus = (None, SAMPLES, False, None, True, True, False)
    assert declared == {
        "accept_all": rule,
        "reject_test_code_errors": rule,
        "llm_judge": ("judge", *rule[1:]),
        "llm_judge_reasoning": ("judge", *rule[1:]),
        "consensus_codet_top": consensus,
        "consensus_b4": consensus,
        "consensus_dawid_skene@0.7": consensus,
        "learned_gold_free": (None, 1, True, DEFAULT_ARTEFACT, True, False, True),
    }
    assert resolve_strategy("consensus_dawid_skene@0.7").name == "consensus_dawid_skene@0.7"


@pytest.mark.parametrize(
    ("declared", "verdict", "message"),
    [
        ({}, Verdict("accept", score=0.5), "declares no score but a verdict has one: declare scores=True"),
        ({"scores": True}, Verdict("accept"), "declares scores but a verdict that does not abstain has none"),
        ({}, Verdict("accept", abstained=True), "never abstains but a verdict did: declare abstains=True"),
    ],
)
def test_a_verdict_its_declarations_rule_out_is_refused(declared: dict[str, bool], verdict: Verdict, message: str) -> None:
    screener = Screener("toy", lambda items, ctx: [verdict for _ in items], **declared)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=message):
        screener(_items(1), None)
    assert Screener("free", lambda items, ctx: [verdict for _ in items], scores=None, abstains=None)(_items(1), None)


def test_a_screener_must_give_one_verdict_per_item() -> None:
    with pytest.raises(ConfigError, match="gave 0 verdicts on 2 items; give one each"):
        Screener("toy", lambda items, ctx: [])(_items(1, 1), None)


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ({"samples": 2}, "compares 2 code samples, so it abstains on a coder with fewer: declare abstains=True"),
        ({"samples": 0}, "give a whole number >= 1"),
        ({"calls": "refiner"}, "calls 'refiner'; give one of: judge, None"),
    ],
)
def test_bad_declarations_are_refused_naming_the_fix(declared: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Screener("toy", lambda items, ctx: [], **declared)  # type: ignore[arg-type]


def test_a_declared_artefact_that_does_not_exist_fails_when_the_screener_is_named(tmp_path: Path) -> None:
    STRATEGIES["toy_learned"] = Screener("toy_learned", lambda items, ctx: [], artefact=tmp_path / "none.json")
    try:
        with pytest.raises(ConfigError, match="none.json, which does not exist; rebuild it with `tfr screen train"):
            resolve_strategy("toy_learned")
    finally:
        STRATEGIES.pop("toy_learned")


def test_unknown_names_still_error_clearly() -> None:
    with pytest.raises(ConfigError, match=r"unknown strategy 'no_such'; known: .*accept_all.*'package.module:function'"):
        resolve_strategy("no_such")


def test_a_coder_without_a_judge_skips_the_screening_only_when_a_screener_calls_a_model(toys: list[list[int]]) -> None:
    coder = {"model": "replay:reflexion-gpt4-humaneval", "code_samples": 1, "test_samples": 1}

    def no_judge(screening: list[str]) -> list[str]:
        config = config_from_dict({"benchmarks": ["humaneval"], "models": {"coders": [coder]}, "screening": screening})
        return [s.reason for s in scope.skipped_work(config, {}) if s.stage == "screen_feedback"]

    assert no_judge(["toy_judge"]) == [scope.NO_JUDGE]
    assert no_judge(["toy_samples", "reject_test_code_errors"]) == []
