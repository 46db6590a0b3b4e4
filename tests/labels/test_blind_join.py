"""The join of two readers' blind labels (``benchmarks/labels/join_blind_labels.py``) on a four-item fixture: kappa
against a hand computation, and a clear error for a missing, a duplicated or an unknown label."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "benchmarks" / "labels"
ITEMS = [("B001", "HumanEval/1"), ("B002", "HumanEval/1"), ("B003", "HumanEval/2"), ("B004", "HumanEval/3")]
READER_A = ["reliable", "unreliable", "unreliable", "unreliable"]
READER_B = ["reliable", "unreliable", "reliable", "unreliable"]
CLASSIFIER = ["reliable", "unreliable", "unreliable", "reliable"]


@pytest.fixture(scope="module")
def join(monkeypatch_module: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch_module.syspath_prepend(str(SCRIPTS))
    return importlib.import_module("join_blind_labels")


@pytest.fixture(scope="module")
def monkeypatch_module() -> object:
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _lines(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _reader(labels: list[str]) -> list[dict[str, object]]:
    return [
        {
            "item": i,
            "label": lab,
            "cause": None if lab == "reliable" else "wrong_expected_value",
            "confidence": "high",
            "reason": f"why {i}",
        }
        for (i, _), lab in zip(ITEMS, labels, strict=True)
    ]


@pytest.fixture
def sample(tmp_path: Path) -> tuple[Path, Path]:
    """items.jsonl and both readers' files in one directory, the key beside it."""
    blind = tmp_path / "blind"
    blind.mkdir()
    _lines(blind / "items.jsonl", [{"item": i, "task_id": t, "source": "s"} for i, t in ITEMS])
    _lines(blind / "reader_a.jsonl", _reader(READER_A))
    _lines(blind / "reader_b.jsonl", _reader(READER_B))
    key = tmp_path / "key.jsonl"
    _lines(
        key,
        [
            {
                "item": i,
                "label": lab,
                "cause": None if lab == "reliable" else "invalid_input",
                "stratum": "codet" if n < 2 else "reflexion",
            }
            for n, ((i, _), lab) in enumerate(zip(ITEMS, CLASSIFIER, strict=True))
        ],
    )
    return blind, key


def test_kappa_between_readers_matches_a_hand_computation(join: ModuleType, sample: tuple[Path, Path]) -> None:
    # A and B agree on 3 of 4: p_o = 3/4. A says reliable 1/4, B 2/4: p_e = 1/4 * 2/4 + 3/4 * 2/4 = 1/2.
    # kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.
    joined = join.join(*sample)
    rows = {(g, c): a for g, c, a in join.table(joined, n_resamples=50, seed=0)}
    ab = rows[("all", "A vs B")]
    assert (ab.items, ab.tasks) == (4, 3)
    assert ab.agreement.value == pytest.approx(0.75)
    assert ab.kappa.value == pytest.approx(0.5)
    assert ab.kappa.low <= 0.5 <= ab.kappa.high
    # A vs the classifier: agree on 3 of 4; A reliable 1/4, classifier 2/4: the same kappa, 1/2.
    assert rows[("all", "A vs classifier")].kappa.value == pytest.approx(0.5)
    # B vs the classifier: agree on 2 of 4, both reliable 2/4: p_e = 1/2, kappa 0.
    assert rows[("all", "B vs classifier")].kappa.value == pytest.approx(0.0)
    assert rows[("codet", "A vs B")].agreement.value == pytest.approx(1.0)


def test_the_report_lists_each_disagreement_with_its_reasons(join: ModuleType, sample: tuple[Path, Path]) -> None:
    text = join.report(join.join(*sample), n_resamples=50, seed=0)
    assert "A and B disagree on 1 items:" in text
    assert "B003 HumanEval/2 (reflexion): A: unreliable/wrong_expected_value (high): why B003; B: reliable (high)" in text
    assert "B and classifier disagree on 2 items:" in text
    section = join.markdown(join.join(*sample), n_resamples=50, seed=0)
    assert "| B003 | HumanEval/2 |" in section and "pending" in section


def test_an_adjudication_settles_the_readers_disagreement(
    join: ModuleType, sample: tuple[Path, Path], tmp_path: Path
) -> None:
    adjudication = tmp_path / "adjudication.jsonl"
    _lines(adjudication, [{"item": "B003", "label": "unreliable", "cause": "wrong_expected_value"}])
    joined = join.join(*sample, adjudication)
    rows = {(g, c): a for g, c, a in join.table(joined, n_resamples=50, seed=0)}
    assert rows[("all", "classifier vs adjudicated")].agreement.value == pytest.approx(0.75)
    _lines(adjudication, [{"item": "B004", "label": "unreliable", "cause": "wrong_expected_value"}])
    with pytest.raises(join.DataError, match=r"disagreements \['B003'\] are not adjudicated"):
        join.join(*sample, adjudication)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows[:3], r"1 of 4 items not labelled: B004"),
        (lambda rows: rows + rows[:1], r"line 5: item B001 labelled twice"),
        (lambda rows: [{**rows[0], "label": "maybe"}] + rows[1:], r"item B001: label 'maybe' is not one of"),
        (lambda rows: [{**rows[0], "item": "B999"}] + rows[1:], r"line 1: unknown item 'B999'"),
        (lambda rows: [{**rows[0], "reason": " "}] + rows[1:], r"item B001: the reason is empty"),
    ],
)
def test_a_bad_reader_file_is_a_clear_error(join: ModuleType, sample: tuple[Path, Path], edit: object, message: str) -> None:
    blind, key = sample
    _lines(blind / "reader_b.jsonl", edit(_reader(READER_B)))  # type: ignore[operator]
    with pytest.raises(join.DataError, match=rf"reader_b\.jsonl: .*{message}"):
        join.join(blind, key)
    with pytest.raises(SystemExit, match="^error: .*reader_b.jsonl"):
        join.main(["--items", str(blind), "--check", "b"])


def test_a_reader_checks_a_file_alone(
    join: ModuleType, sample: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    join.main(["--items", str(sample[0]), "--check", "a"])
    assert "4 items, each labelled once: complete" in capsys.readouterr().out


def test_the_readers_disagreements_are_listed_without_the_key(
    join: ModuleType, sample: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    join.main(["--items", str(sample[0]), "--disagreements"])
    out = capsys.readouterr().out
    assert "The readers disagree on 1 of 4 items:" in out and "B003 HumanEval/2" in out
    assert "classifier" not in out and "invalid_input" not in out
