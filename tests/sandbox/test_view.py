"""The filesystem view: programs see the interpreter, the packages and their own directories, nothing else.

Wherever the project lives: a copy of the project placed under ``/tmp`` (and under ``/var/tmp``), with its own
virtual environment, runs programs that can read none of its ``.env``, ``runs/`` or caches and write nowhere but
their scratch space; the clean-up after a program never enters a bind mount.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import tfr_helpers
from tests.helpers.env import missing
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
    assert "/tmp" in hidden and ("/root" in hidden or os.path.expanduser("~") in hidden)
    assert any(str(PROJECT) == h or str(PROJECT).startswith(h.rstrip("/") + "/") for h in hidden)  # also under /tmp
    assert os.path.realpath(sys.prefix) in iso.read_only_binds
    assert set(iso.writable) == {"/tmp", "/dev/shm"}


SECRET = "sk-placement-canary-0731"

PROBE = textwrap.dedent(
    """
    import glob, json, os, sys
    root = sys.argv[1]
    from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
    import tfr_helpers
    assert tfr_helpers.__file__.startswith(root), tfr_helpers.__file__

    def spec(name, body):
        return TestSpec(name, "def " + name + "():\\n" + "".join("    " + line + "\\n" for line in body.splitlines()),
                        kind="function")

    reads = {
        "env": root + "/.env",
        "parent_env": os.path.dirname(root) + "/.env",
        "launch_env": os.path.dirname(root) + "/launch/.env",
        "runs": root + "/runs/r1/results.json",
        "cache": os.environ["TFR_CACHE_DIR"] + "/responses/entry.json",
        "pyproject": root + "/pyproject.toml",
    }
    writes = {
        "package": root + "/tfr_helpers/planted.py",
        "project": root + "/planted.txt",
        "venv": root + "/.venv/planted.txt",
        "root_dir": "/planted.txt",
    }
    tests = [spec("test_read_" + k, f"open({p!r}).read()") for k, p in reads.items()]
    tests += [spec("test_write_" + k, f"open({p!r}, 'w').write('x')") for k, p in writes.items()]
    tests.append(spec("test_glob_runs", f"assert glob.glob({root + '/runs/*'!r}) == []"))
    tests.append(spec("test_sys_path", f"assert not any(p == {root!r} for p in sys.path), sys.path"))
    tests.append(spec("test_write_workdir", "open('scratch.txt', 'w').write('x')"))
    tests.append(spec("test_write_private_tmp", "open('/tmp/scratch.txt', 'w').write('x')"))
    tests.append(spec("test_import_hypothesis", "import hypothesis, tfr_helpers.records"))
    with Sandbox(Limits(timeout_s=5.0), workers=1, preload=("hypothesis", "unittest")) as sb:
        run = sb.run("import glob, os, sys\\n", tests)
        print(json.dumps({
            "outcomes": {o.name: [o.status, o.exc_type] for o in run.outcomes},
            "isolation": run.isolation.model_dump(),
            "dump": run.model_dump_json(),
        }))
    """
)


def _venv(root: Path) -> Path:
    """A virtual environment inside ``root`` whose ``site-packages`` points at the project copy, then at the
    packages of the running environment (nothing to download)."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(root / ".venv"), "platbase": str(root / ".venv")})["purelib"])
    purelib.mkdir(parents=True, exist_ok=True)
    deps = sysconfig.get_paths()["purelib"]
    (purelib / "_project_copy.pth").write_text(f"{root}\n{deps}\n")
    return root / ".venv" / "bin" / "python"


def _place(parent: Path) -> Path:
    """Copy the project's package and pyproject under ``parent/'tfr clone'`` and plant the secrets."""
    root = parent / "tfr clone"
    shutil.copytree(PROJECT / "tfr_helpers", root / "tfr_helpers", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(PROJECT / "pyproject.toml", root / "pyproject.toml")
    (parent / "launch").mkdir()
    for path in (root / ".env", parent / ".env", parent / "launch" / ".env"):
        path.write_text(f"OPENAI_API_KEY={SECRET}\n")
    (root / "runs" / "r1").mkdir(parents=True)
    (root / "runs" / "r1" / "results.json").write_text(SECRET)
    (root / ".cache" / "responses").mkdir(parents=True)
    (root / ".cache" / "responses" / "entry.json").write_text(SECRET)
    for path in [parent, *parent.rglob("*")]:  # readable by every user, as a clone is (.ci/nonroot.sh too)
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


@pytest.fixture(params=["/tmp", "/var/tmp", "~"])
def placed(request: pytest.FixtureRequest) -> Iterator[Path]:
    where = Path(request.param).expanduser()
    if not where.is_dir() or not os.access(where, os.W_OK):
        missing(f"{where} is not a writable directory")
    parent = Path(
        subprocess.run(
            ["mktemp", "-d", f"{where}/tfr-placement.XXXXXX"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    try:
        yield _place(parent)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def test_a_project_anywhere_shows_programs_nothing_of_itself(placed: Path) -> None:
    python = _venv(placed)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TFR_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(TFR_CACHE_DIR=str(placed / ".cache"), PWD=str(placed.parent / "launch"))
    done = subprocess.run(  # started from a directory beside the project, as `uv run --project` allows
        [str(python), "-c", PROBE, str(placed)],
        cwd=placed.parent / "launch",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    outcomes, iso = report["outcomes"], report["isolation"]
    assert iso["filesystem"] == "view", iso["warnings"]
    assert not [w for w in iso["warnings"] if w.startswith("filesystem view")], iso["warnings"]
    assert SECRET not in report["dump"]
    assert len(outcomes) == 15, outcomes
    for name, (status, exc_type) in outcomes.items():
        if name.startswith(("test_read_", "test_write_")) and name not in ("test_write_workdir", "test_write_private_tmp"):
            assert status == "error" and exc_type in ("FileNotFoundError", "PermissionError", "OSError"), (name, status)
        else:
            assert status == "passed", (name, status, exc_type)
    real = os.path.realpath(placed)
    binds = set(iso["read_only_binds"])
    assert f"{real}/tfr_helpers" in binds and f"{real}/.venv" in binds, binds
    assert not any(
        real == b or real.startswith(b.rstrip("/") + "/") and b != real + "/.venv" and not b.startswith(real + "/")
        for b in binds
    ), binds
    assert real not in binds and f"{real}/runs" not in binds and f"{real}/.cache" not in binds


SWEEP = textwrap.dedent(
    """
    import ctypes, os, sys
    from tfr_helpers.sandbox import view
    top, src = sys.argv[1], sys.argv[2]
    libc = ctypes.CDLL(None, use_errno=True)
    view._mount(libc, "tmpfs", top, "tmpfs", 0, "size=8m")
    os.makedirs(top + "/keep/x")
    os.makedirs(top + "/left/deep")
    open(top + "/left/deep/f", "w").write("x")
    open(top + "/file", "w").write("x")
    target = top + "/project/bound"
    os.makedirs(target)
    view._mount(libc, src, target, None, view.MS_BIND)
    view._mount(libc, None, target, None, view.MS_REMOUNT | view.MS_BIND | view.MS_RDONLY)
    calls = []
    for name in ("unlink", "rmdir", "scandir"):
        real = getattr(os, name)
        setattr(os, name, lambda p, _r=real, _n=name: (calls.append((_n, str(p))), _r(p))[1])
    view._empty(top, os.lstat(top).st_dev, top + "/keep")
    inside = [c for c in calls if c[1].startswith(target + "/") or (c[1] == target and c[0] != "rmdir")]
    print(sorted(os.listdir(top)), len(os.listdir(target)), len(inside))
    """
)


def test_sweep_never_enters_a_bind_mount(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    if unshare is None:
        missing("`unshare` (util-linux) not found")
    src = tmp_path / "src"
    src.mkdir()
    for i in range(300):
        (src / f"f{i}.py").write_text("x")
    top = tmp_path / "top"
    top.mkdir()
    cmd = [unshare, "-m"] if os.geteuid() == 0 else [unshare, "-r", "-m"]
    done = subprocess.run(
        [*cmd, sys.executable, "-c", SWEEP, str(top), str(src)], capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0 and "Operation not permitted" in done.stderr:
        missing(f"no private mount namespace here: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    listed, kept, touched = done.stdout.split("] ")[0] + "]", *done.stdout.split("] ")[1].split()
    assert listed == "['keep', 'project']" and kept == "300" and touched == "0", done.stdout
    assert len(list(src.iterdir())) == 300
