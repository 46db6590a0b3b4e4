"""No folder of ``tfr_helpers`` holds more than 15 modules directly: a room that grows past that is split into
rooms named by what they hold (``__init__.py`` counts; a subpackage counts in its own folder, not its parent's)."""

from __future__ import annotations

from pathlib import Path

import tfr_helpers

PACKAGE_DIR = Path(tfr_helpers.__file__).parent
MAX_MODULES = 15


def modules_per_folder(root: Path) -> dict[str, int]:
    """Every folder under ``root`` holding Python modules -> how many ``.py`` files it holds directly."""
    folders = [root, *(p for p in root.rglob("*") if p.is_dir() and p.name != "__pycache__")]
    counts = {str(f.relative_to(root.parent)): sum(1 for _ in f.glob("*.py")) for f in folders}
    return {folder: n for folder, n in counts.items() if n}


def test_the_count_sees_every_module() -> None:
    counts = modules_per_folder(PACKAGE_DIR)
    assert sum(counts.values()) == sum(1 for _ in PACKAGE_DIR.rglob("*.py"))
    assert "tfr_helpers/analysis" in counts


def test_no_folder_holds_more_than_fifteen_modules() -> None:
    crowded = {folder: n for folder, n in modules_per_folder(PACKAGE_DIR).items() if n > MAX_MODULES}
    assert not crowded, f"folders over {MAX_MODULES} modules (split them into named rooms): {crowded}"


def test_a_crowded_folder_is_reported(tmp_path: Path) -> None:
    room = tmp_path / "pkg" / "room"
    room.mkdir(parents=True)
    for i in range(MAX_MODULES + 1):
        (room / f"m{i}.py").write_text("")
    (tmp_path / "pkg" / "__init__.py").write_text("")
    assert modules_per_folder(tmp_path / "pkg") == {"pkg": 1, "pkg/room": MAX_MODULES + 1}
