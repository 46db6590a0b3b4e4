"""The memoised parses of the feature extractor give what a fresh parse gives, and fresh lists each call."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.screener import asserts, features, strategy
from tfr_helpers.screener.asserts import assert_pairs, prompt_examples
from tfr_helpers.screener.features import extract
from tfr_helpers.screener.strategy import PROVENANCE_FILE, _record_provenance
from tfr_helpers.screener.view import Failure, FeedbackView, OtherTest

PROMPT = 'def f(x):\n    """Double x.\n    >>> f(1)\n    2\n    f(3) -> 6\n    """\n'
TESTS = ("assert f(1) == 2\n", "assert f(1) == 3\nassert 6 == f(3)\n", "assert f(2) == 4.0\n", "assert (\n")


def _views() -> list[FeedbackView]:
    failure = Failure("assertion", "AssertionError", "assert 2 == 3", False, "3", "2")
    return [
        FeedbackView(
            feedback_id=f"m|T/0|{k}|0",
            source="m",
            task_id="T/0",
            benchmark="humaneval",
            prompt=PROMPT,
            entry_point="f",
            prompt_examples=("assert f(5) == 10",),
            code="def f(x):\n    return 2 * x\n",
            test_source=src,
            test_kind="ebt",
            failure=failure,
            other_tests=tuple(OtherTest(o, i % 2 == 0) for i, o in enumerate(TESTS) if o != src),
            test_share=0.5,
            n_code_samples=2,
            sample_fail_share=0.5,
        )
        for k, src in enumerate(TESTS)
    ]


def _execute(jobs):
    return [SimpleNamespace(load_error=None, outcomes=[SimpleNamespace(status="passed")] * len(specs)) for _, specs in jobs]


def test_memoised_parses_equal_fresh_ones_and_return_new_lists():
    for src in TESTS:
        first = assert_pairs(src, "f")
        assert first == list(asserts._assert_pairs.__wrapped__(src, "f"))
        first.append(None)  # a caller changing its list changes nobody else's
        assert None not in assert_pairs(src, "f")
    examples = prompt_examples(PROMPT, "f", ("assert f(5) == 10",))
    assert [e.call for e in examples] == ["f(1)", "f(3)", "f(5)"]
    examples.clear()
    assert prompt_examples(PROMPT, "f", ["assert f(5) == 10"]) == list(
        asserts._prompt_examples.__wrapped__(PROMPT, "f", ("assert f(5) == 10",))
    )


def test_features_with_the_memo_equal_the_features_without_it(monkeypatch):
    asserts._assert_pairs.cache_clear()
    asserts._prompt_examples.cache_clear()
    asserts.asserts_in.cache_clear()
    cold, warm = extract(_views(), _execute), extract(_views(), _execute)
    monkeypatch.setattr(asserts, "_assert_pairs", asserts._assert_pairs.__wrapped__)
    monkeypatch.setattr(asserts, "_prompt_examples", asserts._prompt_examples.__wrapped__)
    monkeypatch.setattr(features, "asserts_in", asserts.asserts_in.__wrapped__)
    plain = extract(_views(), _execute)
    assert np.array_equal(cold, plain) and np.array_equal(warm, plain)
    assert plain.shape == (len(TESTS), len(plain[0])) and plain.any()


def test_the_provenance_file_is_written_only_when_it_changes(tmp_path, monkeypatch):
    ctx = SimpleNamespace(store=RunStore(tmp_path))
    writes = []
    write_json = ctx.store.write_json
    monkeypatch.setattr(ctx.store, "write_json", lambda rel, data: writes.append(rel) or write_json(rel, data))
    for provenance in ({"sha256": "a", "features": ["x"]}, {"sha256": "a", "features": ["x"]}, {"sha256": "b"}):
        _record_provenance(ctx, provenance)  # type: ignore[arg-type]
    assert writes == [PROVENANCE_FILE, PROVENANCE_FILE]
    assert (tmp_path / PROVENANCE_FILE).read_text() == '{\n  "sha256": "b"\n}'
    (tmp_path / PROVENANCE_FILE).write_text("damaged")
    _record_provenance(ctx, {"sha256": "b"})  # type: ignore[arg-type]
    assert len(writes) == 3


@pytest.mark.parametrize("src", ["assert f(1) == 2", "assert (", "\x00"])
def test_a_test_that_does_not_parse_gives_no_pairs_every_time(src):
    assert assert_pairs(src, "f") == assert_pairs(src, "f") == list(asserts._assert_pairs.__wrapped__(src, "f"))
    assert asserts.asserts_in(src) == asserts.asserts_in(src) == asserts.asserts_in.__wrapped__(src)


class _Ctx:
    """What the examples runs use of a run context: its sandbox, here a stub that records each batch."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.config = SimpleNamespace(
            concurrency=SimpleNamespace(executor="local", sandbox_workers=2),
            sandbox=SimpleNamespace(timeout_s=10.0, generated_test_timeout_s=10.0),
        )

    def on_close(self, fn):
        pass

    def run_programs(self, jobs, desc="", budget_factor=1.0):
        self.batches.append([code for code, _ in jobs])
        return [SimpleNamespace(load_error=None, outcomes=[SimpleNamespace(status=code)]) for code, _ in jobs]


def _item(code: str, prompt: str = PROMPT) -> SimpleNamespace:
    task = SimpleNamespace(description=prompt, entry_point="f", examples=("assert f(5) == 10",))
    return SimpleNamespace(code=code, task=task)


def test_prepared_examples_runs_are_the_runs_a_chunk_would_make():
    from tfr_helpers.screener.features import example_job, example_key
    from tfr_helpers.screener.strategy import _run_examples, prepare

    items = [_item("a"), _item("b"), _item("a"), _item("c", prompt="no examples here")]
    jobs = [example_job(example_key(i.code, i.task.description, "f", i.task.examples)) for i in items[:2]]
    ctx, plain = _Ctx(), _Ctx()
    prepare(items, ctx)  # type: ignore[arg-type]
    ((_, started),) = strategy._PREPARED
    assert [run.result(30).outcomes[0].status for run in started.values()] == ["a", "b", "c"]
    assert sorted(ctx.batches) == [["a"], ["b"], ["c"]]  # each (program, examples) once; c has the shown example
    late = example_job(example_key("d", PROMPT, "f", ("assert f(5) == 10",)))
    got = _run_examples([*jobs, late], ctx)  # type: ignore[arg-type]
    assert ctx.batches[3:] == [["d"]]  # only the job not prepared runs now
    assert got == _run_examples([*jobs, late], plain)  # type: ignore[arg-type]
    assert _run_examples(jobs, plain) and plain.batches[-1] == ["a", "b"]  # another context: nothing prepared
