"""The house by concept: a folder of ``tfr_helpers`` holds one concept and says which in its ``__init__.py``, every
module says what it holds, the folder map of ``docs/architecture.md`` draws every folder (and no other), and
``tests/`` mirrors the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tfr_helpers

PACKAGE_DIR = Path(tfr_helpers.__file__).parent
REPO = PACKAGE_DIR.parent
TESTS_DIR = REPO / "tests"
ARCHITECTURE = REPO / "docs" / "architecture.md"

# Test folders that test no single package folder, each for its stated reason (docs/testing.md, Layout).
NOT_MIRRORED = {
    "browser": "the offline case browser driven in Chromium, across views and analysis",
    "helpers": "shared test helpers (synthetic runs, fakes), no tests",
    "labels": "the hand-checked RQ1 labels against the whole pipeline",
}


def package_folders(root: Path) -> list[Path]:
    """Every folder under ``root`` (itself included) holding Python modules."""
    return sorted({p.parent for p in root.rglob("*.py") if "__pycache__" not in p.parts})


def concept(folder: Path) -> str:
    """The summary paragraph of ``folder/__init__.py``'s docstring: the folder's concept ("" when there is none)."""
    init = folder / "__init__.py"
    if not init.is_file():
        return ""
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n")[0].split())


def folders_without_concept(root: Path) -> list[str]:
    """The folders under ``root`` whose ``__init__.py`` is missing, has no docstring, or names only the package."""
    missing = []
    for folder in package_folders(root):
        stated = concept(folder)
        dotted = ".".join(folder.relative_to(root.parent).parts)
        if not stated or stated.rstrip(".:") in {dotted, folder.name}:
            missing.append(str(folder.relative_to(root.parent)))
    return missing


def modules_without_docstring(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root.parent))
        for p in root.rglob("*.py")
        if "__pycache__" not in p.parts and not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    )


def drawn_folders(markdown: str) -> set[str]:
    """The folders the first fenced block of ``markdown`` draws, as paths below its root (``pipeline/arms/oracle``).

    A folder entry is a name ending in ``/`` at an indentation of two spaces per level; a name may hold a slash
    (``arms/oracle/`` under ``pipeline/``). Files and continuation lines are not entries."""
    block = markdown.split("```")[1]
    stack: list[tuple[int, str]] = []
    drawn = set()
    for line in block.splitlines():
        match = re.match(r"^( {0,16})([A-Za-z_][\w/]*/)(\s|$)", line)
        if not match:
            continue
        indent, name = len(match.group(1)), match.group(2).rstrip("/")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = f"{stack[-1][1]}/{name}" if stack else ""
        stack.append((indent, path))
        if path:
            drawn.add(path.lstrip("/"))
    return drawn


def unmirrored_test_folders(tests: Path, package: Path, allowed: set[str]) -> list[str]:
    """The folders under ``tests`` holding test modules with no folder of the same path under ``package``."""
    folders = {p.parent.relative_to(tests) for p in tests.rglob("test_*.py")}
    return sorted(
        str(f) for f in folders if f.parts and f.parts[0] not in allowed and not (package / f / "__init__.py").is_file()
    )


def test_every_folder_states_its_one_concept() -> None:
    assert len(package_folders(PACKAGE_DIR)) > 40
    missing = folders_without_concept(PACKAGE_DIR)
    assert not missing, f"give each folder's __init__.py a docstring whose first paragraph states its concept: {missing}"


def test_every_module_states_what_it_holds() -> None:
    missing = modules_without_docstring(PACKAGE_DIR)
    assert not missing, f"modules without a docstring saying what they hold: {missing}"


def test_the_architecture_map_draws_every_folder_and_no_other() -> None:
    drawn = drawn_folders(ARCHITECTURE.read_text(encoding="utf-8"))
    folders = {str(f.relative_to(PACKAGE_DIR)) for f in package_folders(PACKAGE_DIR) if f != PACKAGE_DIR}
    assert {"analysis", "arms/trajectories/report", "arms/oracle", "models/sim/tester"} <= drawn
    assert not folders - drawn, f"folders missing from docs/architecture.md's map: {sorted(folders - drawn)}"
    stale = sorted(f for f in drawn if not (PACKAGE_DIR / f).is_dir())
    assert not stale, f"docs/architecture.md's map draws folders that do not exist: {stale}"


def test_tests_mirror_the_package() -> None:
    unmirrored = unmirrored_test_folders(TESTS_DIR, PACKAGE_DIR, set(NOT_MIRRORED))
    assert not unmirrored, f"test folders with no package folder of the same path (move the tests): {unmirrored}"
    assert (TESTS_DIR / "analysis" / "inference" / "test_stats.py").is_file()
    assert all((TESTS_DIR / name).is_dir() for name in NOT_MIRRORED)


def test_a_folder_without_its_concept_is_reported(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    for room, init in {"": '"""The package."""', "named": '"""pkg.named"""', "bare": "", "good": '"""Rooms."""'}.items():
        (pkg / room).mkdir(parents=True, exist_ok=True)
        (pkg / room / "__init__.py").write_text(init)
    (pkg / "loose").mkdir()
    (pkg / "loose" / "m.py").write_text('"""A module."""')
    assert folders_without_concept(pkg) == ["pkg/bare", "pkg/loose", "pkg/named"]
    assert modules_without_docstring(pkg) == ["pkg/bare/__init__.py"]


def test_the_map_reader_follows_indentation_and_slashed_names() -> None:
    text = (
        "```\nroot/\n  a/           the a\n    b/         the b, continued\n"
        "                       over/ a line\n    c/d/       nested\n    e.py       a file\n  f/\n```\n"
    )
    assert drawn_folders(text) == {"a", "a/b", "a/c/d", "f"}


def test_a_test_folder_without_its_package_folder_is_reported(tmp_path: Path) -> None:
    for folder in ("pkg/a", "tests/a", "tests/z", "tests/extra", "tests/a/deeper"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / "pkg/a/__init__.py").write_text("")
    for test in ("tests/test_top.py", "tests/a/test_a.py", "tests/z/test_z.py", "tests/extra/test_e.py"):
        (tmp_path / test).write_text("")
    (tmp_path / "tests/a/deeper/test_d.py").write_text("")
    assert unmirrored_test_folders(tmp_path / "tests", tmp_path / "pkg", {"extra"}) == ["a/deeper", "z"]
