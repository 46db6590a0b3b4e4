"""The filesystem view: programs see the interpreter, the packages and their own directories, nothing else."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tfr_helpers
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

FAST = Limits(timeout_s=5.0)
PROJECT = Path(tfr_helpers.__file__).resolve().parents[1]
READ = "def read(path):\n    with open(path) as fh:\n        return fh.read()\n"


@pytest.fixture
def secret_files(tmp_path: Path) -> Iterator[tuple[str, list[Path]]]:
    """A 0644 file holding a fresh secret in the project's .env, the user cache dir and the host's /tmp."""
    import platformdirs

    secret = "tfr-sandbox-secret-" + secrets.token_hex(8)
    env = PROJECT / ".env"
    cache = Path(platformdirs.user_cache_dir("tfr")) / f"sandbox-secret-{os.getpid()}.txt"
    host_tmp = tmp_path / "secret.txt"
    made = [host_tmp, cache] + ([] if env.exists() else [env])
    cache.parent.mkdir(parents=True, exist_ok=True)
    for path in list(made):
        try:
            path.write_text(f"TFR_SANDBOX_TEST_SECRET={secret}\n")
        except PermissionError:  # .ci/nonroot.sh: the project is not the test user's to write
            made.remove(path)
            continue
        path.chmod(0o644)
    tmp_path.chmod(0o755)
    try:
        yield secret, [env, cache, host_tmp]
    finally:
        for path in made:
            path.unlink(missing_ok=True)


def test_secrets_outside_the_view_are_unreadable(sandbox: Sandbox, secret_files: tuple[str, list[Path]]) -> None:
    secret, paths = secret_files
    tests = [TestSpec(f"read_{i}", f"print(read({str(p)!r}))") for i, p in enumerate(paths)]
    run = sandbox.run(READ, tests, FAST)
    for path, outcome in zip(paths, run.outcomes, strict=True):
        assert outcome.status == "error" and outcome.exc_type in ("FileNotFoundError", "PermissionError"), (path, outcome)
        assert secret not in run.model_dump_json(), path
    assert run.isolation.filesystem == "view" and run.isolation.capabilities == []


def test_package_files_are_read_only(sandbox: Sandbox) -> None:
    import hypothesis

    hypothesis_init = str(Path(hypothesis.__file__ or "").resolve())
    own = str(Path(tfr_helpers.__file__).resolve())
    before = {p: Path(p).read_bytes() for p in (hypothesis_init, own)}
    tests = [TestSpec(f"write_{i}", f"open({p!r}, 'a').write('# tampered')") for i, p in enumerate(before)]
    tests.append(TestSpec("write_bin", f"open({sys.executable!r} + '-x', 'w')"))
    run = sandbox.run("import hypothesis", tests, FAST)
    for outcome in run.outcomes:
        assert outcome.status == "error" and outcome.exc_type in ("PermissionError", "OSError"), outcome
    assert {p: Path(p).read_bytes() for p in before} == before


def test_imports_work_and_no_capability_is_left(sandbox: Sandbox) -> None:
    src = (
        "import fractions, decimal, statistics, sqlite3, csv, email.mime.text, xml.dom.minidom, hypothesis\n"
        "status = dict(line.split(':\\t') for line in open('/proc/self/status').read().splitlines() if ':\\t' in line)\n"
        "assert all(int(status[k], 16) == 0 for k in ('CapInh', 'CapPrm', 'CapEff', 'CapAmb')), status\n"
    )
    run = sandbox.run("import os", [TestSpec("t", src)], FAST)
    assert run.passed, run.outcomes


def test_tmp_is_private_writable_and_emptied_between_programs() -> None:
    name = "left-" + secrets.token_hex(6)
    write = TestSpec("w", f"open('/tmp/{name}', 'w').write('x')\nopen('/dev/shm/{name}', 'w').write('x')")
    look = TestSpec("r", f"import os\nassert not os.path.exists('/tmp/{name}') and not os.path.exists('/dev/shm/{name}')")
    with Sandbox(FAST, workers=1, preload=("unittest",)) as sb:  # one worker: the second program follows the first
        assert sb.run("", [write]).passed
        assert sb.run("", [look]).passed
    assert not Path(f"/tmp/{name}").exists() and not Path(f"/dev/shm/{name}").exists()


def test_view_is_recorded(sandbox: Sandbox) -> None:
    iso = sandbox.isolation
    assert iso.filesystem == "view", iso.warnings
    hidden = set(iso.hidden)
    assert {"/tmp", str(PROJECT)} <= hidden and ("/root" in hidden or os.path.expanduser("~") in hidden)
    assert os.path.realpath(sys.prefix) in iso.read_only_binds
    assert set(iso.writable) == {"/tmp", "/dev/shm"}
