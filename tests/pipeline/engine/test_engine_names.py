"""The engine names no stage, arm, benchmark or stage-specific configuration key: what it needs to know of a stage
it asks the stage's declaration (its inputs, its items' units), of a benchmark its registry entry.

The words checked are the engine's code: its names, attributes, string literals and comments (not its docstrings,
which may explain by example)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

import tfr_helpers.pipeline.engine as engine
from tfr_helpers.benchmarks import benchmark_names
from tfr_helpers.notebooks.parameters import config_fields
from tfr_helpers.pipeline.arms.declaration import registered_arms
from tfr_helpers.pipeline.study import STAGES

ENGINE_KEYS = {
    "run_name": "the run directory's default name",
    "benchmarks": "task selection (engine/tasks.py), the tasks every stage receives",
    "tasks": "task selection",
    "models": "the credentials check and the model client",
    "sampling": "the model client's requests",
    "model_settings": "the model client's requests",
    "seed": "the sandbox limits and the model client's requests",
    "replay_datasets": "the model client (replayed generations)",
    "concurrency": "chunk sizes and the executor",
    "sandbox": "the sandbox limits",
    "budget_usd": "the model client's spending cap",
}
"""Configuration keys the engine reads itself, and why: every other key belongs to a stage or an arm."""


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    for parent in ast.walk(tree):
        body = getattr(parent, "body", None)
        if isinstance(body, list):
            for prev, stmt in zip(body, body[1:], strict=False):
                if (
                    isinstance(prev, (ast.Assign, ast.AnnAssign))
                    and isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)
                ):
                    lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return lines


def code_words(source: str) -> set[str]:
    """Every word of ``source``'s names, string literals and comments, outside its docstrings."""
    skip = _docstring_lines(ast.parse(source))
    words: set[str] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.start[0] in skip and tok.type == tokenize.STRING:
            continue
        if tok.type in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(
            tokenize, "FSTRING_MIDDLE", -1
        ):
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", tok.string))
    return words


def config_keys_read(source: str) -> set[str]:
    """The configuration keys ``source`` reads: ``<...>config.<key>`` (or ``experiment.<key>``) and string literals
    naming a key (``"refinement"``, ``"refinement.rounds"``: a fingerprint part)."""
    keys = set(config_fields())
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in keys:
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
            if name in ("config", "experiment"):
                found.add(node.attr)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.split(".")[0] in keys:
            found.add(node.value.split(".")[0])
    return found


NAMED_ELSEWHERE = {
    ("seed_dirs.py", "seeds"): "the directory of a multi-seed run's seeds, not the key (read by pipeline/seeds.py)",
    ("tables.py", "screening"): "the table of the screening decisions in results.json, not the key",
}
"""A key's word the engine uses for something else, and what."""


def forbidden_words() -> dict[str, str]:
    """Word -> what it names: the stages, the arms (name and ``Results`` field) and the benchmarks."""
    out = {name: "a stage" for name in STAGES}
    for arm in registered_arms():
        out[arm.name] = out[arm.field] = "an arm"
    out.update({name: "a benchmark" for name in benchmark_names()})
    return out


def engine_names() -> list[str]:
    """What each engine module names that it should not."""
    words = forbidden_words()
    found = []
    for path in sorted(Path(engine.__file__).parent.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {w} ({words[w]})" for w in sorted(code_words(source) & set(words))]
        keys = config_keys_read(source) - set(ENGINE_KEYS)
        found += [f"{path.name}: configuration key {k}" for k in sorted(keys) if (path.name, k) not in NAMED_ELSEWHERE]
    return found


def test_the_engine_names_no_stage_arm_benchmark_or_stage_key() -> None:
    words = forbidden_words()
    assert {"generate_codes", "finalize_results", "trajectories", "oracle", "bigcodebench", "mbpp"} <= set(words)
    assert not engine_names(), "the engine names: " + "; ".join(engine_names())


@pytest.mark.parametrize(
    ("source", "word"),
    [
        ('if "bigcodebench" in config.benchmarks:\n    pass\n', "bigcodebench"),
        ("INDEPENDENT = frozenset({'generate_codes'})\n", "generate_codes"),
        ("x = config.trajectories  # the arm\n", "trajectories"),
        ("def f():\n    return 1  # evaluate_refined_codes\n", "evaluate_refined_codes"),
    ],
)
def test_the_check_finds_a_name_in_code_or_a_comment(source: str, word: str) -> None:
    assert word in code_words(source)


def test_the_check_finds_a_configuration_key_read() -> None:
    assert config_keys_read("n = ctx.config.refinement.rounds\nm = experiment.screening\n") == {"refinement", "screening"}
    assert config_keys_read('parts = ("trajectories", "refinement.oracle_repair")\n') == {"trajectories", "refinement"}
    assert not config_keys_read("n = results.screening\nfor refinement in results.refinements:\n    pass\n")


def test_the_check_leaves_docstrings_alone() -> None:
    source = 'def f():\n    """Like ``generate_codes``."""\n    return 1\n\nX = 1\n"""Read by ``screen_feedback``."""\n'
    assert not {"generate_codes", "screen_feedback"} & code_words(source)
