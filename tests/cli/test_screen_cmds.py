"""``tfr screen list``: every screener and what it declares, plugins' included."""

from __future__ import annotations

from collections.abc import Sequence

from typer.testing import CliRunner

from tfr_helpers.cli import app
from tfr_helpers.pipeline import STRATEGIES, ScreeningItem, Verdict, register_strategy


def test_the_list_gives_each_screener_s_declarations() -> None:
    @register_strategy("toy_listed", calls="judge", samples=3, abstains=True)
    def toy_listed(items: Sequence[ScreeningItem], ctx: object) -> list[Verdict]:
        return [Verdict("accept") for _ in items]

    try:
        result = CliRunner().invoke(app, ["screen", "list"])
    finally:
        STRATEGIES.pop("toy_listed")
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: " ".join(line.split()[1:]) for line in result.output.splitlines()}
    assert lines["toy_listed"] == "calls the judge, needs 3 code samples, no score, may abstain"
    assert lines["llm_judge"] == "calls the judge, no score, never abstains"
    assert lines["consensus_codet_top"] == "calls no model, needs 2 code samples, scores, may abstain"
    assert lines["learned_gold_free"] == (
        "calls no model, runs programs in the sandbox, reads learned_gold_free.json, scores, never abstains"
    )
    assert "consensus_dawid_skene@<arg>" in lines["also:"]
