"""The registered trajectory sets (published Reflexion runs) and loading any set by name or directory.

Each shipped set is one Reflexion-format log at a pinned commit of its upstream repository, resolved like every
replay dataset (:func:`tfr_helpers.replay.resolve.resolve_dataset`: package -> ``$TFR_REPLAY_DIR`` -> cache ->
verified download of the raw file) and checked against its sha256. Below the override directory and the cache
the logs live in ``trajectories/<folder>/<file>`` under the names of the shared snapshot (several upstream logs
share one base name). A run that refined against a fixed test list (the valtest series, GPT-4o's BigCodeBench runs)
has that list as a second file, role ``tests`` (:mod:`.fixed_lists`; :func:`fixed_list_of`). A directory is a set
too: it holds ``trajectories.jsonl`` (the import format) or Reflexion-format ``*.jsonl`` logs, and an optional
``meta.json`` (``model``, ``protocol``, ``license``, ``name``).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Literal

from tfr_helpers.benchmarks.files import file_sha256
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.launch import resolve
from tfr_helpers.replay.datasets import DatasetSpec, ReplayFile
from tfr_helpers.replay.resolve import resolve_dataset, verify_file
from tfr_helpers.replay.trajectories.build import benchmarks_of
from tfr_helpers.replay.trajectories.fixed_lists import TEST_LISTS, TestList, list_name_of, read_test_list
from tfr_helpers.replay.trajectories.imported import IMPORT_FILE, read_trajectory_import
from tfr_helpers.replay.trajectories.logged import Trajectory, TrajectorySet, UnusableStep
from tfr_helpers.replay.trajectories.reflexion_log import is_reflexion_log, read_reflexion_log

REFLEXION_PROTOCOL = "Reflexion: feedback -> verbal self-reflection -> new code"
"""The protocol of every Reflexion log: the next attempt follows a reflection on the feedback, not the bare feedback."""

_BCB = ("iAmmarTahir/reflexion", "02b1f725bba96ef5683b029f4fe228d88be57924", "MIT (reflexion-bcb/LICENSE)")
_DEEPSEEK = ("CRay2005/Reflexion-DeepSeek", "4a004d15c742001760f15026f95105f8d0d51907", "MIT (reflexion-deepseek/LICENSE)")
_PAPER = "Reflexion: Language Agents with Verbal Reinforcement Learning (Shinn et al., NeurIPS 2023), a fork's runs"


def _set(
    name: str,
    benchmark: str,
    model: str,
    upstream: tuple[str, str, str],
    folder: str,
    file: ReplayFile,
    protocol: str,
    test_list: str | None = None,
) -> DatasetSpec:
    """A registered set: its log and, for a run given a fixed test list, that list (role ``tests``)."""
    repo, commit, license_ = upstream
    return DatasetSpec(
        name=name,
        benchmark=benchmark,
        model=model,
        folder=f"trajectories/{folder}",
        repo=repo,
        commit=commit,
        license=license_,
        paper=_PAPER,
        sampling=f"{REFLEXION_PROTOCOL}; {protocol}",
        adapter="reflexion_log",
        files=(file, TEST_LISTS[test_list]) if test_list else (file,),
    )


def _log(path: str, sha256: str, lines: int, local: str) -> ReplayFile:
    return ReplayFile("log", f"programming_runs/root/{path}", sha256, lines, local_name=local)


_BCB_RUN = "{} on BigCodeBench, at most {} iterations; feedback: unittest output of {} (the row's test_cases)"
TRAJECTORY_SETS: dict[str, DatasetSpec] = {
    s.name: s
    for s in (
        _set(
            "reflexion-gpt4o-bcb",
            "bigcodebench",
            "GPT-4o",
            _BCB,
            "reflexion-bcb",
            _log(
                "bigcodebench-v2-gpt4o-10-iters/bigcodebench._reflexion_10_gpt-4o_pass_at_k_1_py.jsonl",
                "bf47fe0e697041a9a2083310d49ae0f5bc11bf909ed4ef31dac8abf8c4cfe70b",
                148,
                "gpt4o-10-iters.jsonl",
            ),
            _BCB_RUN.format("GPT-4o", 10, "a fixed list of LLM-written unittest cases (valtest)"),
            "valtest",
        ),
        _set(
            "reflexion-gpt4o-bcb-no-unit",
            "bigcodebench",
            "GPT-4o",
            _BCB,
            "reflexion-bcb",
            _log(
                "bigcodebench-v2-gpt4o-10-iters-no-unit/bigcodebench._reflexion_10_gpt-4o_pass_at_k_1_py.jsonl",
                "24d4a098ac2a06fbcaa21f17f390a6ed5e3183c5afebe95cc80d80f3862af9ff",
                148,
                "gpt4o-10-iters-no-unit.jsonl",
            ),
            "GPT-4o on BigCodeBench, at most 10 iterations, labelled no-unit upstream; feedback: assert-format lines "
            "(single statements lifted from the valtest list's unittest cases, many not standalone), or a harness fault",
            "valtest",
        ),
        *(
            _set(
                f"reflexion-o3mini-bcb-valtest-{suffix}",
                "bigcodebench",
                "o3-mini",
                _BCB,
                "reflexion-bcb",
                _log(f"bigcodebench-valtest-{path}", sha, 148, f"o3-mini-valtest-{local}-iters.jsonl"),
                _BCB_RUN.format("o3-mini", iterations, f"a fixed list of LLM-written unittest cases ({test_list})"),
                test_list,
            )
            for suffix, test_list, iterations, local, path, sha in (
                *(
                    (
                        n,
                        f"variable-{n}",
                        5,
                        f"{n}-5",
                        f"{n}-gpt-o3-mini-5-iters/bigcodebench_{n}._reflexion_5_gpt-o3-mini_pass_at_k_1_py.jsonl",
                        sha,
                    )
                    for n, sha in (
                        ("60", "bb52939b35425b0b067ca8282bfcabcb0a005dd083320d90c577fbef31275146"),
                        ("70", "a4b2fb9c0d68309486a59d5c9a2f90b3cb2a406df5e56ab635b48a414d522fd3"),
                        ("80", "e28e1e80baa261e0589d2c09f76da9023aacdb4d8fd7df68d3d6c5ea431ecc0c"),
                        ("90", "488b5a709a695949ed29d0fdd5e66942ade75e26d5f3d1f60e56803b16c9a197"),
                        ("100", "44d35dc897d5d4a52a3eee2b59149ffd22de55fa577a30f169a797bcd9ec8729"),
                    )
                ),
                *(
                    (
                        n,
                        n,
                        5,
                        f"{n}-5",
                        f"{n}-gpt-o3-mini-5-iters/bigcodebench._reflexion_5_gpt-o3-mini_pass_at_k_1_py.jsonl",
                        sha,
                    )
                    for n, sha in (
                        ("correct", "2320c43549eb212e4936a5d8b5edadb8b59e8d4de683605ba56b8640f08ba5bb"),
                        ("regenerated", "66eeba7679a302929c24cf78fd7d8876a3c2012ecd7fc62ebd477144d6bfa44b"),
                    )
                ),
                (
                    "10iters",
                    "valtest",
                    10,
                    "10",
                    "gpt-o3-min-10-iters/bigcodebench._reflexion_10_gpt-o3-mini_pass_at_k_1_py.jsonl",
                    "8d44d3c2146ad39a7b76b4d91f1e4263d6a9ebddda36fd14e13e0ddca5f6d317",
                ),
            )
        ),
        _set(
            "reflexion-gpt4o-bcb-curated",
            "bigcodebench",
            "GPT-4o",
            _BCB,
            "reflexion-bcb",
            _log(
                "bigcodebench-valtest-curated-gpt4o-10-iters/bigcodebench._reflexion_10_gpt-4o_pass_at_k_1_py.jsonl",
                "f5ae0d0335a161cb2c9708851ca11bad0ee9d1990fcb8e9ecbcb6760df9a6ae2",
                148,
                "gpt4o-valtest-curated-10-iters.jsonl",
            ),
            _BCB_RUN.format("GPT-4o", 10, "a fixed list of LLM-written unittest cases (curated)"),
            "curated",
        ),
        _set(
            "reflexion-gpt4-humaneval-2iters",
            "humaneval",
            "GPT-4",
            _BCB,
            "reflexion-bcb",
            _log(
                "test_reflexion/humaneval-py._reflexion_2_gpt-4_pass_at_k_1_py.jsonl",
                "6891bd56cc1b0959f3326f6c5c76c0b610846bd98229dee6ea1ba58a7c1c7737",
                161,
                "humaneval-gpt-4-2-iters.jsonl",
            ),
            "GPT-4 on HumanEval (MultiPL-E prompts), at most 2 iterations; feedback: GPT-4's own asserts",
        ),
        _set(
            "reflexion-deepseek-humaneval-sp5",
            "humaneval",
            "DeepSeek-Coder",
            _DEEPSEEK,
            "reflexion-deepseek",
            _log(
                "reflexion_deepseek_coder_t1_sp5/humaneval-py._reflexion_2_deepseek_pass_at_k_1_py.jsonl",
                "06e8a909c128854d52687995f674e2233f7f804e1814d735aeacfdd34c72f13e",
                161,
                "reflexion_deepseek_coder_t1_sp5.jsonl",
            ),
            "DeepSeek-Coder on HumanEval (MultiPL-E prompts), run t1_sp5, 2 iterations; feedback: its own asserts",
        ),
        _set(
            "reflexion-deepseek-humaneval-mi4",
            "humaneval",
            "DeepSeek-Coder",
            _DEEPSEEK,
            "reflexion-deepseek",
            _log(
                "reflexion_deepseek_coder_t1_sp1_mi4/humaneval-py._reflexion_4_deepseek_pass_at_k_1_py.jsonl",
                "aae6e008e24aac0d6abd64ff1f9dd3994b1adbdb8b51463792c9494e89590941",
                161,
                "reflexion_deepseek_coder_t1_sp1_mi4.jsonl",
            ),
            "DeepSeek-Coder on HumanEval (MultiPL-E prompts), run t1_sp1_mi4, at most 4 iterations; "
            "feedback: its own asserts",
        ),
    )
}
"""Every shipped trajectory set, by name (``replay:<name>`` in ``trajectories``)."""

RULES_VERSION = "2"
"""Version of the trajectory readers' rules; bump when a loaded step could change."""

_MEMORY: dict[tuple[object, ...], TrajectorySet] = {}
_LISTS: dict[tuple[object, ...], TestList] = {}
_LOCK = threading.Lock()


def set_name(entry: str) -> str:
    """A ``trajectories`` entry without its optional ``replay:`` prefix."""
    return entry.removeprefix("replay:")


def _meta(directory: Path) -> dict[str, str]:
    path = directory / "meta.json"
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f'{path} is not valid JSON ({exc}); write {{"model": "<model name>"}}') from exc
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise DataError(f"{path} must be a JSON object of strings (model, protocol, license, name)")
    return meta


ORIGINS = ("published", "hand-written")
"""The values of a directory's ``meta.json`` ``origin`` (default ``published``)."""


def _origin(meta: dict[str, str], directory: Path) -> Literal["published", "hand-written"]:
    origin = meta.get("origin", "published")
    if origin == "hand-written":
        return "hand-written"
    if origin != "published":
        raise DataError(f'{directory / "meta.json"}: origin {origin!r}: write "published" or "hand-written"')
    return "published"


def directory_files(directory: Path) -> list[Path]:
    """The trajectory files of a directory: its ``trajectories.jsonl``, else its Reflexion-format logs.

    Raises:
        DataError: The directory holds neither.
    """
    if (directory / IMPORT_FILE).is_file():
        return [directory / IMPORT_FILE]
    logs = [p for p in sorted(directory.glob("*.jsonl")) if is_reflexion_log(p)]
    if not logs:
        raise DataError(
            f"{directory} holds no {IMPORT_FILE} and no Reflexion-format log (*.jsonl rows with implementations "
            "and test_feedback); see docs/replay.md for both formats"
        )
    return logs


def is_trajectory_dir(directory: Path) -> bool:
    """Whether a directory holds trajectories (``trajectories.jsonl`` or a Reflexion-format log)."""
    try:
        return directory.is_dir() and bool(directory_files(directory))
    except DataError:
        return False


def _read(files: list[Path], name: str) -> tuple[list[Trajectory], list[UnusableStep]]:
    trajectories: list[Trajectory] = []
    unusable: list[UnusableStep] = []
    for path in files:
        reader = read_trajectory_import if path.name == IMPORT_FILE else read_reflexion_log
        found, left = reader(path, name)
        trajectories += found
        unusable += left
    return trajectories, unusable


def _stamp(paths: list[Path]) -> tuple[object, ...]:
    return tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)


def _load_directory(directory: Path) -> TrajectorySet:
    files = directory_files(directory)
    meta = _meta(directory)
    key = ("dir", _stamp(files + [directory / "meta.json"] * (directory / "meta.json").is_file()))
    if key not in _MEMORY:
        name = meta.get("name", directory.name)
        trajectories, unusable = _read(files, name)
        _MEMORY[key] = TrajectorySet(
            name=name,
            benchmark=benchmarks_of(trajectories, str(directory)),
            model=meta.get("model", "unspecified"),
            protocol=meta.get("protocol", REFLEXION_PROTOCOL if files[0].name != IMPORT_FILE else "unspecified"),
            source=str(directory),
            license=meta.get("license", "unknown"),
            origin=_origin(meta, directory),
            trajectories=trajectories,
            unusable=unusable,
        )
    return _MEMORY[key]


def _load_registered(spec: DatasetSpec, replay_dir: Path | None) -> TrajectorySet:
    found = resolve_dataset(spec, replay_dir)
    path = found["log"].path
    key = ("registered", spec.name, _stamp([path]))
    if key not in _MEMORY:
        verify_file(spec, spec.file("log"), path, found["log"].origin)
        trajectories, unusable = _read([path], spec.name)
        _MEMORY[key] = TrajectorySet(
            name=spec.name,
            benchmark=spec.benchmark,
            model=spec.model,
            protocol=spec.sampling,
            source=spec.source,
            license=spec.license,
            trajectories=trajectories,
            unusable=unusable,
        )
    return _MEMORY[key]


def load_trajectories(entry: str, replay_dir: Path | None = None) -> TrajectorySet:
    """Load a trajectory set: a registered name or a directory (with or without ``replay:``).

    Args:
        entry: ``reflexion-gpt4o-bcb``, ``replay:reflexion-gpt4o-bcb`` or ``replay:path/to/dir``.
        replay_dir: Override directory of registered sets (default ``$TFR_REPLAY_DIR``).

    Returns:
        The set (loaded once per process while its files are unchanged).

    Raises:
        ConfigError: Neither a registered name nor an existing directory.
        DataError: A file is missing and not downloadable, its sha256 differs, or the import file is malformed.
    """
    name = set_name(entry)
    with _LOCK:
        if name in TRAJECTORY_SETS:
            return _load_registered(TRAJECTORY_SETS[name], replay_dir)
        if resolve(name).is_dir():
            return _load_directory(resolve(name))
    raise ConfigError(
        f"unknown trajectory set {name!r}; registered sets: {', '.join(TRAJECTORY_SETS)} "
        "(or name a directory holding a Reflexion-format log or trajectories.jsonl, e.g. replay:./my_logs)"
    )


def check_entry(entry: str) -> None:
    """Raise ConfigError unless ``entry`` names a registered set or an existing directory (no file is read)."""
    name = set_name(entry)
    if name not in TRAJECTORY_SETS and not resolve(name).is_dir():
        load_trajectories(entry)  # raises the ConfigError listing the registered sets


def trajectory_hashes(entry: str) -> dict[str, str]:
    """Hashes of what a set's records depend on, for a run's fingerprint (pinned ones for registered sets), as
    parts under ``trajectories.`` (the key the stages other than the trajectory arm's are unaffected by)."""
    name = set_name(entry)
    if name in TRAJECTORY_SETS:
        parts = {f"trajectories.{name}.{f.name}": f.sha256[:16] for f in TRAJECTORY_SETS[name].files}
    else:
        directory = resolve(name)
        files = directory_files(directory) + [directory / "meta.json"] * (directory / "meta.json").is_file()
        parts = {f"trajectories.{name}.{p.name}": file_sha256(p)[:16] for p in files}
    return parts | {f"trajectories.{name}.rules": RULES_VERSION}


def clear_trajectory_cache() -> None:
    """Forget every set loaded in this process (tests use it)."""
    with _LOCK:
        _MEMORY.clear()
        _LISTS.clear()


def describe(found: TrajectorySet) -> str:
    """One line for ``tfr replay list``: model, benchmark, protocol, tasks, usable and unusable steps."""
    tasks = sum(1 for t in found.trajectories if t.usable_steps)
    return (
        f"{found.name}: trajectories of {found.model} on {found.benchmark}, {tasks} tasks with steps, "
        f"{found.steps} steps ({len([u for u in found.unusable if u.step >= 0])} unusable); protocol {found.protocol}"
    )


def fixed_list_of(entry: str, replay_dir: Path | None = None) -> TestList | None:
    """The fixed test list a registered set's run refined against, resolved with the set's log and verified by
    sha256; None for a set that wrote its own tests (or a directory).

    Raises:
        DataError: The list file is missing and not downloadable, its sha256 differs, or it is malformed.
    """
    spec = TRAJECTORY_SETS.get(set_name(entry))
    if spec is None or not any(f.role == "tests" for f in spec.files):
        return None
    file = spec.file("tests")
    found = resolve_dataset(spec, replay_dir)["tests"]
    key = ("list", file.name, _stamp([found.path]))
    with _LOCK:
        if key not in _LISTS:
            verify_file(spec, file, found.path, found.origin)
            _LISTS[key] = read_test_list(found.path, list_name_of(file), file.repo_path)
        return _LISTS[key]


def trajectory_source(entry: str, replay_dir: Path | None = None) -> str:
    """Where a set's files come from (``override /x/trajectories/reflexion-bcb``), or the directory itself."""
    name = set_name(entry)
    if name not in TRAJECTORY_SETS:
        return f"directory {resolve(name)}"
    found = resolve_dataset(TRAJECTORY_SETS[name], replay_dir)
    return "; ".join(sorted({f"{f.origin} {f.path.parent}" for f in found.values()}))
