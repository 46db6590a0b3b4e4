"""``tfr analyze`` and ``tfr cases`` on a finished run of every shipped params file that needs no key.

Each file runs once (a module-scoped run) on a few tasks: ``tasks: 1`` (the worked example keeps its three), no
BigCodeBench beside other benchmarks, two seeds where it sets seeds, and the trajectory arm on the small Reflexion
log of the replay tests where it replays trajectories; files whose small studies are the same run one study. The
studies share one cache (responses and executions), so a program or test that several files' studies run on the same
first task executes once. A file
whose models need a key is not collected for a run; it is listed instead, with the key it needs in the test id, by a
test that checks the key is the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from tests.helpers.env import replay_dir
from tfr_helpers.cli.apps import app
from tfr_helpers.models.provider_table import provider_entry
from tfr_helpers.pipeline import load_config, run_study

pytestmark = pytest.mark.slow  # one small study per params file: about two minutes in all on two cores

ROOT = Path(__file__).resolve().parents[2]
PARAMS = sorted((ROOT / "papermill_params").glob("*.yaml"))
TRAJECTORY_LOG = ROOT / "tests" / "replay" / "data" / "reflexion_log"


def _specs(node: Any) -> list[str]:
    """Every ``provider:model`` string under a params file's ``models``."""
    if isinstance(node, str):
        return [node] if ":" in node else []
    if isinstance(node, dict):
        return [spec for key, value in node.items() if key != "benchmarks" for spec in _specs(value)]
    if isinstance(node, list):
        return [spec for value in node for spec in _specs(value)]
    return []


def key_needed(path: Path) -> str | None:
    """The environment variable holding the key the file's models need (None: every model runs without one)."""
    models = yaml.safe_load(path.read_text(encoding="utf-8")).get("models", {})
    for spec in _specs(models):
        entry = provider_entry(spec.partition(":")[0])
        if entry is not None and entry.key_env is not None:
            return entry.key_env
    return None


KEYLESS = [p for p in PARAMS if key_needed(p) is None]
KEYED = [pytest.param(p, id=f"{p.stem}-needs-{key_needed(p)}") for p in PARAMS if key_needed(p) is not None]


def small(path: Path) -> dict[str, Any]:
    """The overrides that make a params file's study a few tasks, keeping every arm it turns on."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    overrides: dict[str, Any] = {}
    if not isinstance(data.get("tasks"), dict) or all(isinstance(v, int | str) for v in data["tasks"].values()):
        overrides["tasks"] = 1
    if len(data.get("benchmarks", [])) > 1 and "bigcodebench" in data["benchmarks"]:  # its sandbox runs are the slowest
        overrides["benchmarks"] = [b for b in data["benchmarks"] if b != "bigcodebench"]
    if data.get("seeds"):
        overrides["seeds"] = data["seeds"][:2]
    if data.get("trajectories"):
        overrides["trajectories"] = [f"replay:{TRAJECTORY_LOG}"]
    return overrides


def small_study(path: Path) -> str:
    """The file's small study (:func:`small`), its run name aside: two files with the same one run once."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) | small(path)
    data.pop("run_name", None)
    return yaml.safe_dump(data, sort_keys=True)


SAME_STUDY: dict[str, list[Path]] = {}
for _path in KEYLESS:
    SAME_STUDY.setdefault(small_study(_path), []).append(_path)
STUDIES = list(SAME_STUDY.values())
"""The keyless files grouped by their small study (``default`` and ``full`` differ only in their tasks, which
:func:`small` replaces): each group runs one study, named for every file in it."""


@pytest.fixture(scope="module")
def studies_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cache every small study of this module reads and fills (empty when the module starts)."""
    return tmp_path_factory.mktemp("params-files-cache")


@pytest.fixture(scope="module", params=STUDIES, ids=["+".join(p.stem for p in paths) for paths in STUDIES])
def finished_run(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    shared_benchmarks: Path,
    studies_cache: Path,
) -> Iterator[Path]:
    """Every stage of one params file on a few tasks, in its own run directory, with the module's cache (for a group
    of files with the same small study: the first, after checking that each file of the group gives its config)."""
    path, *same = request.param
    replay = replay_dir()
    tmp = tmp_path_factory.mktemp(path.stem)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # the worked example names its files relative to the project
        patch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        patch.setenv("TFR_REPLAY_DIR", str(replay))
        patch.setenv("TFR_CACHE_DIR", str(studies_cache))
        config = load_config(path, small(path))
        for other in same:
            other_config = load_config(other, small(other))
            assert other_config.model_copy(update={"run_name": config.run_name}) == config, other.stem
        run_study(config, tmp / "run", progress=False)
        yield tmp / "run"


def test_analyze_succeeds(finished_run: Path) -> None:
    result = CliRunner().invoke(app, ["analyze", "--run-dir", str(finished_run)])
    assert result.exit_code == 0, result.output
    assert "summary: " in result.output and (finished_run / "analysis" / "summary.json").is_file()
    lines = result.output.splitlines()
    if (finished_run / "seeds").is_dir():  # a multi-seed run: the numbers over seeds, then each seed's RQ1 lines
        assert lines[0].startswith("seeds: ") and any(x.startswith("seed 0 rq1: ") for x in lines), result.output
    else:
        assert lines[0].startswith("rq1: "), result.output


def test_cases_succeeds(finished_run: Path) -> None:
    result = CliRunner().invoke(app, ["cases", "--run-dir", str(finished_run)])
    assert result.exit_code == 0, result.output
    written = Path(result.output.strip().splitlines()[-1])
    assert written.is_file() and written.read_text(encoding="utf-8").strip()


@pytest.mark.parametrize("path", KEYED)
def test_a_file_left_out_names_a_model_that_needs_a_key(path: Path) -> None:
    config = load_config(path)
    entries = [provider_entry(spec.partition(":")[0]) for spec in config.models.all_specs()]
    assert any(entry is not None and entry.key_env for entry in entries)
