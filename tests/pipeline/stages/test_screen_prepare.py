"""The screening stage hands each screener that declares a ``prepare`` all its pending items once, before its first chunk."""

from __future__ import annotations

from types import SimpleNamespace

from tfr_helpers.pipeline.screening.registry import STRATEGIES, Screener, Verdict
from tfr_helpers.pipeline.stages import screen_feedback as stage


def _job(strategy: str, feedback_id: str) -> stage.ScreenJob:
    return stage.ScreenJob(strategy, SimpleNamespace(feedback=SimpleNamespace(feedback_id=feedback_id)))  # type: ignore[arg-type]


def test_prepare_gets_the_pending_items_once(monkeypatch):
    seen: list[list[str]] = []

    def accept(items, ctx):
        return [Verdict("accept") for _ in items]

    prepare = lambda items, ctx: seen.append([i.feedback.feedback_id for i in items])  # noqa: E731
    monkeypatch.setitem(STRATEGIES, "test_prepared", Screener("test_prepared", accept, prepare=prepare))
    monkeypatch.setitem(STRATEGIES, "test_plain", Screener("test_plain", accept))
    jobs = [_job(s, f) for f in ("a", "b", "c") for s in ("test_prepared", "test_plain")]
    ctx = SimpleNamespace(store=SimpleNamespace(done_keys=lambda name: {"test_prepared|a"}))
    monkeypatch.setattr(stage, "_STAGE_JOBS", [])
    stage._STAGE_JOBS.append((lambda: ctx, jobs))  # what screen_items leaves for the stage
    stage._prepare(ctx)  # type: ignore[arg-type]
    stage._prepare(ctx)  # type: ignore[arg-type]  # a later chunk: nothing again
    assert seen == [["b", "c"]]  # the recorded item is not prepared again
    other = SimpleNamespace()
    stage._STAGE_JOBS.append((lambda: other, jobs))
    stage._prepare(ctx)  # type: ignore[arg-type]  # the jobs of another run context are not this stage's
    assert seen == [["b", "c"]] and stage._STAGE_JOBS == []
