"""A toy arm added from outside the product: its package written here (settings key, record part, one stage, a report
with a headline row), registered through the arms' registry alone; a tiny study runs it end to end."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.analysis.answers import KINDS
from tfr_helpers.analysis.headlines import headline_numbers
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import load_results
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.records import present_arms
from tfr_helpers.records.arm_registry import arms, enabled_arms, register_arm, unregister_arm
from tfr_helpers.results_file import read_results_bytes, results_file

PACKAGE = {
    "__init__.py": '''
        """A toy arm: one note per generated code, counting ``refinement.toy_notes``."""
        from tfr_helpers.records.arm_registry import ArmDeclaration
        from toyarm.records import ToyResults
        from toyarm.settings import ToySettings

        ARM = ArmDeclaration(
            "toy",
            field="toy_part",
            part=ToyResults,
            settings_model=ToySettings,
            is_on=lambda settings: settings.toy_notes > 0,
            stages="toyarm.stages",
            report="toyarm.report",
            switch="refinement.toy_notes: 1",
        )
    ''',
    "settings.py": '''
        """The toy arm's key."""
        from tfr_helpers.records.arm_registry import ArmSettings

        class ToySettings(ArmSettings):
            toy_notes: int = 0
    ''',
    "records.py": '''
        """The toy arm's records."""
        from pydantic import Field
        from tfr_helpers.records import Record

        class ToyNote(Record):
            model: str
            task_id: str
            notes: int

        class ToyResults(Record):
            notes: list[ToyNote] = Field(default_factory=list)
    ''',
    "stages.py": '''
        """The toy arm's one stage: a note per generated code."""
        from dataclasses import dataclass
        from tfr_helpers.pipeline.engine.codec import register_record_type
        from tfr_helpers.pipeline.engine.stage import Inputs, Stage
        from tfr_helpers.records import GeneratedCode
        from toyarm import ARM
        from toyarm.records import ToyNote, ToyResults

        register_record_type(ToyNote)

        @dataclass(frozen=True)
        class Item:
            key: str
            unit: tuple[str, str]

        def items(ctx, inputs):
            codes = inputs.of(GeneratedCode)
            keys = dict.fromkeys((c.model, c.task_id) for c in codes)
            return [Item(f"{m}|{t}", (m, t)) for m, t in keys]

        def run(items, ctx):
            return [ToyNote(model=i.unit[0], task_id=i.unit[1], notes=ARM.settings(ctx.config).toy_notes) for i in items]

        STAGE = Stage(
            "toy_note", run, items, "toy_notes", output_key=lambda r: f"{r.model}|{r.task_id}",
            inputs=Inputs(records=(GeneratedCode,), settings=("refinement.toy_notes",)), produces=(ToyNote,),
        )
        STAGES = (STAGE,)

        def results(config, records):
            return ToyResults(notes=records.of(ToyNote))
    ''',
    "report.py": '''
        """The toy arm's report: a summary section and one headline number, a row per model."""
        from tfr_helpers.analysis.answers import AnswerKind, register_answer_kind
        from tfr_helpers.analysis.tables import headline_row
        from toyarm import ARM

        NAME = ARM.field

        def present(results):
            return results.has(ARM)

        def tables(results):
            return {}

        def figures(results):
            return {}

        def summary_section(results):
            return {NAME: {"notes": len(results.part(ARM).notes)}} if present(results) else {}

        def headline_rows(results):
            part = results.part(ARM)
            models = sorted({n.model for n in part.notes})
            return [
                headline_row(results, m, "toy_notes", sum(n.notes for n in part.notes if n.model == m), None, None, "none")
                for m in models
            ]

        HEADLINE_KINDS = (
            register_answer_kind(
                AnswerKind(
                    "toy_notes",
                    "rq2",
                    "notes the toy arm wrote",
                    "notes",
                    numbers=headline_rows,
                    definitions={"toy_notes": "Notes the toy arm wrote."},
                )
            ),
        )
    ''',
}

PARAMS = {
    "run_name": "toy",
    "benchmarks": ["humaneval"],
    "tasks": {"humaneval": 2},
    "models": {"coders": ["sim:default"]},
    "ebts_per_task": 1,
    "pbts_per_task": 0,
    "screening": [],
    "sandbox": {"timeout_s": 10, "generated_test_timeout_s": 10},
}


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """The toy package written under ``tmp_path`` and registered; removed again afterwards."""
    root = tmp_path / "src" / "toyarm"
    root.mkdir(parents=True)
    for name, text in PACKAGE.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())
    monkeypatch.syspath_prepend(str(root.parent))
    declaration = register_arm(importlib.import_module("toyarm").ARM)
    yield declaration
    unregister_arm("toy")
    for kind in getattr(sys.modules.get("toyarm.report"), "HEADLINE_KINDS", ()):
        KINDS.pop(kind.name, None)  # the headline kinds its report registered go with it
    for name in [m for m in sys.modules if m == "toyarm" or m.startswith("toyarm.")]:
        del sys.modules[name]


def test_the_toy_arm_owns_its_key(toy: object) -> None:
    assert "toy" in [a.name for a in arms()]
    on = config_from_dict({**PARAMS, "refinement": {"toy_notes": 2}})
    off = config_from_dict(PARAMS)
    assert [a.name for a in enabled_arms(on)] == ["toy"] and not enabled_arms(off)
    assert on.model_dump()["refinement"]["toy_notes"] == 2
    with pytest.raises(ConfigError, match=r"refinement\.toy_notes: Input should be a valid integer"):
        config_from_dict({**PARAMS, "refinement": {"toy_notes": "many"}})


STUDY = """
import json, sys
from importlib import import_module
from tfr_helpers.records.arm_registry import register_arm
register_arm(import_module("toyarm").ARM)  # the one product call: the registry
from tfr_helpers.pipeline import run_study
from tfr_helpers.pipeline.config.experiment import config_from_dict
run_study(config_from_dict(json.loads(sys.argv[1])), sys.argv[2], progress=False)
"""


@pytest.mark.slow
def test_a_tiny_study_runs_the_toy_arm_into_results_and_headlines(toy: object, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    params = json.dumps({**PARAMS, "refinement": {"toy_notes": 3}})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), *sys.path])}
    done = subprocess.run([sys.executable, "-c", STUDY, params, str(run_dir)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    path = results_file(run_dir)
    assert path is not None
    data = json.loads(read_results_bytes(path))
    assert [note["notes"] for note in data["toy_part"]["notes"]] == [3, 3]  # its part under its own key
    assert data["oracle_repair"] is None  # the study's arms keep their keys
    results = load_results(run_dir)
    assert [a.name for a in present_arms(results)] == ["toy"]
    assert build_summary(results)["toy_part"] == {"notes": 2}
    rows = headline_numbers(results)
    assert rows[rows["number"] == "toy_notes"]["value"].tolist() == [6.0]
