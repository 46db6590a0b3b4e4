"""Trajectory sets: feedback formats read per feedback, the Reflexion log adapter, the import format, the registry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.replay.conftest import LoopbackServer
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.replay.resolve import resolve_dataset
from tfr_helpers.replay.trajectories.build import native_id
from tfr_helpers.replay.trajectories.feedback import detect_format, failing, parse_feedback
from tfr_helpers.replay.trajectories.fixed_lists import read_test_list
from tfr_helpers.replay.trajectories.sets import (
    TRAJECTORY_SETS,
    clear_trajectory_cache,
    fixed_list_of,
    load_trajectories,
    trajectory_hashes,
)

LOG_DIR = Path(__file__).parent / "data" / "reflexion_log"


def test_assert_feedback_gives_passing_and_failing_asserts_with_their_output() -> None:
    text = "Tested passed:\nassert f(1) == 1\n\nTests failed:\nassert f(2) == 3 # output: 4\nassert f(0) == 1 # output: 0"
    fmt, tests = parse_feedback(text)
    assert fmt == "asserts"
    assert [(t.source, t.logged_status, t.logged_output) for t in tests] == [
        ("assert f(1) == 1", "passed", None),
        ("assert f(2) == 3", "failed", "4"),
        ("assert f(0) == 1", "failed", "0"),
    ]


def test_unittest_feedback_names_methods_of_the_rows_test_cases() -> None:
    cases = ["import unittest\nclass TestA(unittest.TestCase):\n    def test_x(self): pass\n", "class TestB: pass\n"]
    text = (
        "TEST OUTPUT: \ntest_x (builtins.TestA) ... FAIL\ntest_y (builtins.TestB) ... ok\n"
        "test_z (builtins.TestC) ... ERROR\n"
        "\n======================================================================\nFAIL: test_x (builtins.TestA)\n"
        "----------------------------------------------------------------------\nTraceback...\nAssertionError: 1 != 2\n"
        "\nFAILED TESTS: \ntest_x (builtins.TestA)test_z (builtins.TestC)"
    )
    fmt, tests = parse_feedback(text, cases)
    assert fmt == "unittest"
    # TestC is in no module of test_cases: it cannot be run again and is left out
    assert [(t.name, t.logged_status, t.source == cases[i]) for i, t in enumerate(tests)] == [
        ("TestA.test_x", "failed", True),
        ("TestB.test_y", "passed", True),
    ]
    assert failing(tests)[0].logged_output == "AssertionError: 1 != 2"


def test_harness_fault_and_empty_feedback_are_told_apart() -> None:
    fault = "Tested passed:\n\nTests failed:\nself.assertEqual(f(1), 2) # output: 'Expr' object has no attribute 'test'"
    assert detect_format(fault) == "harness_fault"
    assert detect_format("Tested passed:\nassert f(1) == 1\n\nTests failed:\n") == "none"


def test_task_identity_from_benchmark_and_multipl_e_names() -> None:
    assert native_id("BigCodeBench/13") == "BigCodeBench/13"
    assert native_id("HumanEval_85_add") == "HumanEval/85"
    assert native_id("mbpp_3_is_not_prime") == "MBPP/3"


def test_a_reflexion_log_alone_in_a_directory_is_a_set() -> None:
    found = load_trajectories(f"replay:{LOG_DIR}")
    assert (found.name, found.benchmark, found.model) == ("reflexion_log", "bigcodebench+humaneval", "unspecified")
    assert found.protocol.startswith("Reflexion: feedback -> verbal self-reflection -> new code")
    assert found.steps == 7 and len(found.trajectories) == 8
    (body,) = found.unusable
    assert (body.task, body.step) == ("HumanEval/35", 0) and "not a whole function" in body.reason
    formats = {t.task_id: t.attempts[0].feedback_format for t in found.trajectories}
    assert formats["HumanEval/55"] == "unittest" and formats["HumanEval/13"] == "harness_fault"


def test_a_bad_line_or_a_wrong_entry_point_loses_only_its_own_steps(tmp_path: Path) -> None:
    rows = (LOG_DIR / "run._reflexion_2_model_pass_at_k_1_py.jsonl").read_text().splitlines()
    wrong = json.loads(rows[1]) | {"entry_point": "not_strlen"}
    (tmp_path / "log.jsonl").write_text("\n".join([rows[0], "{not json", json.dumps(wrong), *rows[2:]]) + "\n")
    found = load_trajectories(str(tmp_path))
    reasons = sorted(u.reason.split(" ")[0] for u in found.unusable)
    assert found.steps == 6 and reasons == ["attempt", "bad", "the"]
    assert any("entry point 'not_strlen'" in u.reason for u in found.unusable)


def test_an_attempt_runs_after_the_prompts_imports_as_the_benchmark_runs_a_completion(tmp_path: Path) -> None:
    # MultiPL-E's prompt imports the typing names of its signature; the second attempt relies on that import
    prompt = 'from typing import List\n\ndef add(lst: List[int]) -> int:\n    """Sum the even elements."""\n'
    first = "from typing import List\n\ndef add(lst: List[int]) -> int:\n    return sum(lst)\n"
    second = (
        "from __future__ import annotations\ndef add(lst: List[int]) -> int:\n    return sum(x for x in lst if x % 2 == 0)\n"
    )
    row = {
        "name": "HumanEval_85_add",
        "prompt": prompt,
        "implementations": [first, second],
        "test_feedback": ["Tested passed:\n\nTests failed:\nassert add([1, 2]) == 2 # output: 3", ""],
    }
    (tmp_path / "log.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (trajectory,) = load_trajectories(str(tmp_path)).trajectories
    assert trajectory.preamble == "from typing import List"
    assert trajectory.attempts[1].code == second  # the logged code itself is kept as logged
    program = trajectory.program(1)
    assert program.startswith("from __future__ import annotations\nfrom typing import List\n")  # future first
    namespace: dict[str, object] = {}
    exec(compile(program, "attempt-1", "exec", dont_inherit=True), namespace)  # noqa: S102 (the test's own program)
    assert namespace["add"]([1, 2, 4]) == 6  # type: ignore[operator]
    with pytest.raises(NameError):  # the logged code alone: the NameError an evaluation without the prompt met
        alone = second.replace("from __future__ import annotations\n", "")
        exec(compile(alone, "alone", "exec", dont_inherit=True), {})  # noqa: S102


def test_import_format_takes_given_tests_and_rejects_a_bad_line(tmp_path: Path) -> None:
    line = {
        "task_id": "HumanEval/23",
        "attempts": [
            {
                "code": "def strlen(string):\n    return 0\n",
                "feedback": "wrong length",
                "tests": [{"kind": "assert", "source": "assert strlen('a') == 1", "outcome": "failed", "output": "0"}],
            },
            {"code": "def strlen(string):\n    return len(string)\n"},
        ],
    }
    (tmp_path / "trajectories.jsonl").write_text(json.dumps(line) + "\n")
    (tmp_path / "meta.json").write_text(json.dumps({"model": "m", "protocol": "bare feedback -> code"}))
    found = load_trajectories(str(tmp_path))
    (trajectory,) = found.trajectories
    assert (found.model, found.protocol, trajectory.usable_steps) == ("m", "bare feedback -> code", [0])
    assert trajectory.attempts[0].feedback_format == "asserts" and trajectory.attempts[0].tests[0].logged_output == "0"
    (tmp_path / "trajectories.jsonl").write_text(json.dumps({"task_id": "HumanEval/23"}) + "\n")
    clear_trajectory_cache()
    with pytest.raises(DataError, match=r"trajectories.jsonl:1: attempts: Field required"):
        load_trajectories(str(tmp_path))


def test_an_unknown_set_names_the_registered_ones() -> None:
    with pytest.raises(ConfigError, match="reflexion-gpt4o-bcb"):
        load_trajectories("replay:no-such-set")


EXPECTED_STEPS = {
    "reflexion-gpt4o-bcb": 249,
    "reflexion-gpt4o-bcb-no-unit": 366,
    "reflexion-o3mini-bcb-valtest-60": 266,
    "reflexion-o3mini-bcb-valtest-100": 46,
    "reflexion-o3mini-bcb-valtest-correct": 76,
    "reflexion-o3mini-bcb-valtest-70": 223,
    "reflexion-o3mini-bcb-valtest-80": 174,
    "reflexion-o3mini-bcb-valtest-90": 145,
    "reflexion-o3mini-bcb-valtest-regenerated": 92,
    "reflexion-o3mini-bcb-valtest-10iters": 184,
    "reflexion-gpt4o-bcb-curated": 204,
    "reflexion-gpt4-humaneval-2iters": 22,
    "reflexion-deepseek-humaneval-sp5": 68,
    "reflexion-deepseek-humaneval-mi4": 79,
}


def test_the_shipped_sets_load_from_the_override(replay_env: Path) -> None:
    assert set(TRAJECTORY_SETS) == set(EXPECTED_STEPS)
    for name, steps in EXPECTED_STEPS.items():
        found = load_trajectories(f"replay:{name}")
        assert found.steps == steps and found.source.startswith("github.com/")
        assert set(trajectory_hashes(name)) == {
            *(f"trajectories.{name}.{f.name}" for f in TRAJECTORY_SETS[name].files),  # the log, and its list if any
            f"trajectories.{name}.rules",
        }


EXPECTED_LISTS = {
    "reflexion-o3mini-bcb-valtest-60": ("variable-60", 500),
    "reflexion-o3mini-bcb-valtest-70": ("variable-70", 500),
    "reflexion-o3mini-bcb-valtest-80": ("variable-80", 500),
    "reflexion-o3mini-bcb-valtest-90": ("variable-90", 500),
    "reflexion-o3mini-bcb-valtest-100": ("variable-100", 500),
    "reflexion-o3mini-bcb-valtest-correct": ("correct", 1070),
    "reflexion-o3mini-bcb-valtest-regenerated": ("regenerated", 403),
    "reflexion-o3mini-bcb-valtest-10iters": ("valtest", 403),
    "reflexion-gpt4o-bcb-curated": ("curated", 418),
    "reflexion-gpt4o-bcb": ("valtest", 403),
    "reflexion-gpt4o-bcb-no-unit": ("valtest", 403),
}


def test_each_set_knows_the_list_it_ran_on_and_the_list_is_the_one_in_its_rows(replay_env: Path) -> None:
    for name in TRAJECTORY_SETS:
        found = fixed_list_of(name)
        if name not in EXPECTED_LISTS:
            assert found is None  # wrote its own tests
            continue
        assert found is not None and (found.name, found.tests, len(found.tasks)) == (*EXPECTED_LISTS[name], 147)
        log = replay_env / TRAJECTORY_SETS[name].rel_path(TRAJECTORY_SETS[name].files[0])
        rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        same = sum(1 for r in rows if tuple(r.get("test_cases") or ()) == found.tasks.get(r.get("task_id") or r["name"]))
        assert same == 147  # every task of the list: the row's own test_cases are the list's


def test_a_list_whose_bytes_differ_from_the_pinned_sha256_is_refused(replay_env: Path, tmp_path: Path) -> None:
    spec = TRAJECTORY_SETS["reflexion-o3mini-bcb-valtest-60"]
    override = tmp_path / "replay"
    log, listed = (override / spec.rel_path(f) for f in spec.files)
    listed.parent.mkdir(parents=True)
    shutil.copyfile(replay_env / spec.rel_path(spec.files[0]), log)
    text = (replay_env / spec.rel_path(spec.files[1])).read_text(encoding="utf-8")
    listed.write_text(text.replace("assertEqual", "assertNotEqual", 1), encoding="utf-8")  # one test changed
    clear_trajectory_cache()
    with pytest.raises(DataError, match="sha256"):
        fixed_list_of("reflexion-o3mini-bcb-valtest-60", override)


def test_a_malformed_list_line_names_the_file_the_line_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "list.jsonl"
    good = {"name": "BigCodeBench/13", "test_cases": json.dumps(["import unittest"])}
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({"name": "BigCodeBench/14", "test_cases": "[oops"}) + "\n")
    with pytest.raises(DataError, match=r"list\.jsonl:3: test_cases is not a JSON list .*fetch it again"):
        read_test_list(path, "mine", "upstream")
    path.write_text(json.dumps(good) + "\n" + json.dumps({"name": "BigCodeBench/14"}) + "\n")
    with pytest.raises(DataError, match=r"list\.jsonl:2 needs a task id \(name\) and test_cases"):
        read_test_list(path, "mine", "upstream")
    path.write_text(json.dumps(good) + "\n")
    assert read_test_list(path, "mine", "upstream").tasks == {"BigCodeBench/13": ("import unittest",)}


def test_a_shipped_set_downloads_verified_into_the_cache(
    shared_replay: Path, isolated_replay: Path, loopback_server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = TRAJECTORY_SETS["reflexion-gpt4-humaneval-2iters"]
    target = loopback_server.root / spec.rel_path(spec.files[0])
    target.parent.mkdir(parents=True)
    target.write_text("corrupt\n")
    monkeypatch.setenv("TFR_REPLAY_MIRROR", loopback_server.url(""))
    with pytest.raises(DataError, match="sha256"):
        resolve_dataset(spec)
    assert not (isolated_replay / "replay" / spec.rel_path(spec.files[0])).exists()
    shutil.copy(shared_replay / spec.rel_path(spec.files[0]), target)
    assert resolve_dataset(spec)["log"].origin == "download"
    assert load_trajectories(spec.name).steps == EXPECTED_STEPS[spec.name]


PARAMS = Path(__file__).resolve().parents[2] / "papermill_params"


def test_the_main_job_replays_three_sets_and_the_trajectories_file_every_one(replay_env: Path) -> None:
    from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
    from tfr_helpers.models.provider_table import is_simulated
    from tfr_helpers.pipeline import load_config

    main = yaml.safe_load((PARAMS / "default.yaml").read_text())["trajectories"]  # (validated by the main job's test)
    assert {"replay:reflexion-gpt4o-bcb", "replay:reflexion-gpt4-humaneval-2iters"} <= set(main)
    assert any("deepseek" in entry for entry in main)
    every = load_config(PARAMS / "trajectories.yaml")
    assert sorted(e.removeprefix("replay:") for e in TRAJECTORIES.settings(every).trajectories) == sorted(TRAJECTORY_SETS)
    assert not any(is_simulated(spec) for spec in every.models.all_specs())  # nothing in that run is a demo
    assert "trajectories.reflexion-gpt4o-bcb.rules" in every.fingerprint()
    assert not any(part.startswith("trajectories") for part in load_config(PARAMS / "smoke.yaml").fingerprint())
    with pytest.raises(ConfigError, match="unknown trajectory set 'nope'"):
        load_config(PARAMS / "trajectories.yaml", {"trajectories": ["replay:nope"]})


def test_replay_list_shows_each_set_and_a_log_directory(replay_env: Path) -> None:
    from typer.testing import CliRunner

    from tfr_helpers.cli import app

    result = CliRunner().invoke(app, ["replay", "list", str(LOG_DIR)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[4].startswith("reflexion_log: trajectories of unspecified on bigcodebench+humaneval, 7 tasks")
    gpt4o = next(i for i, line in enumerate(lines) if line.startswith("reflexion-gpt4o-bcb:"))
    assert lines[gpt4o] == (
        "reflexion-gpt4o-bcb: trajectories of GPT-4o on bigcodebench, 53 tasks with steps, 249 steps (22 unusable); "
        "protocol Reflexion: feedback -> verbal self-reflection -> new code; GPT-4o on BigCodeBench, at most 10 "
        "iterations; feedback: unittest output of a fixed list of LLM-written unittest cases (valtest) (the row's "
        "test_cases)"
    )
    logs = replay_env / "trajectories" / "reflexion-bcb"
    assert lines[gpt4o + 1].endswith(f"files: override {logs}; override {logs / 'valtest-tests'}")  # the log, its list


def test_adding_sets_to_a_finished_run_keeps_every_other_stages_records(replay_env: Path) -> None:
    from tfr_helpers.pipeline import load_config
    from tfr_helpers.pipeline.config.fingerprint import changed_parts
    from tfr_helpers.pipeline.engine.stage import blocking_stages
    from tfr_helpers.pipeline.study import RUN_ORDER

    before = load_config(PARAMS / "trajectories.yaml", {"trajectories": []}).fingerprint()
    after = load_config(PARAMS / "trajectories.yaml").fingerprint()
    parts = changed_parts(before, after)
    assert parts and all(p.startswith("trajectories") for p in parts)
    blocked = blocking_stages(parts, RUN_ORDER, lambda checkpoint: True)
    assert {stage for stages in blocked.values() for stage in stages} <= {
        "evaluate_trajectory_steps",
        "screen_trajectory_steps",
        "judge_trajectory_outcomes",
        "measure_test_lists",
        "generate_round_tests",
        "evaluate_round_suites",
        "backprompt_rounds",
    }
