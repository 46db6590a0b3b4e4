"""Hostile programs: none may yield ``passed``, the batch continues, nothing changes outside the workdir."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

FAST = Limits(timeout_s=2.0)
BATCH = Limits(timeout_s=2.0, nproc=4)
"""The hostile batch's limits: the fork bomb's processes spin (a fork refused, then tried again) until the bomb's own
time reaches the budget. At the default 64 processes on 2 cores its own time crept so slowly that the 40 s
wall-clock guard fired first, while its processes took the machine's cores from every other process; at 4 it
meets the same process limit and ends on its own time in about 10 s."""
OK = TestSpec("ok", "assert 1 + 1 == 2")


def _not_passed(run) -> list[str]:  # noqa: ANN001
    return [o.status for o in run.outcomes if o.status == "passed" and o.name != "ok"]


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A root-owned, world-readable file outside any sandbox workdir."""
    tmp_path.chmod(0o755)
    path = tmp_path / "canary.txt"
    path.write_text("intact")
    path.chmod(0o644)
    return path


HOSTILE = {
    "infinite_loop": ("", "while True:\n    pass"),
    "fork_bomb": ("import os", "while True:\n    try:\n        os.fork()\n    except OSError:\n        pass"),
    "alloc_10gb": ("", "x = bytearray(10 * 1024 ** 3)\nassert len(x) > 0"),
    "write_2gb": (
        "",
        "with open('big', 'wb') as f:\n    for _ in range(2048):\n        f.write(b'x' * 2 ** 20)",
    ),
    "sys_exit_in_test": ("import sys", "sys.exit(0)"),
    "output_100mb": ("", "for _ in range(100):\n    print('x' * 2 ** 20)\nassert False"),
    "deep_recursion": ("def f(n):\n    return f(n + 1)", "f(0)"),
    "sigalrm_ignored": (
        "import signal",
        "signal.signal(signal.SIGALRM, signal.SIG_IGN)\nsignal.alarm(1)\nwhile True:\n    pass",
    ),
    "patched_builtins": (
        "import builtins\nbuiltins.AssertionError = type('Fake', (Exception,), {})\n"
        "builtins.isinstance = lambda *a: True\nbuiltins.print = lambda *a, **k: None",
        "import builtins\nbuiltins.AssertionError = Exception\nassert 1 == 2",
    ),
    "kill_worker": ("import os", "os.kill(os.getppid(), 9)\nassert False"),
    "setsid_escape": (
        "import os, time",
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nassert False",
    ),
}


@pytest.mark.slow
def test_hostile_batch_contained(sandbox: Sandbox, canary: Path) -> None:
    jobs = [(prog, [TestSpec(name, src), OK]) for name, (prog, src) in HOSTILE.items()]
    jobs.append((f"import os\nos.remove({str(canary)!r})", [OK]))
    jobs.append((f"import posix\nposix.unlink({str(canary)!r})", [OK]))
    jobs.append(("import os\nos._exit(0)", [TestSpec("never", "assert True"), OK]))
    runs = sandbox.run_many(jobs, limits=BATCH)
    for (name, _), run in zip(HOSTILE.items(), runs[: len(HOSTILE)], strict=True):
        first = run.outcomes[0]
        assert first.name == name and first.status != "passed", (name, first)
        assert run.outcomes[1].status == "passed", (name, run.outcomes[1])  # the batch continues
    # the canary is in the host's /tmp: hidden by the filesystem view, else protected by the uid drop
    refused = "FileNotFoundError" if sandbox.isolation.filesystem == "view" else "PermissionError"
    assert runs[-3].load_error is not None and runs[-3].load_error.exc_type == refused
    assert runs[-2].load_error is not None and runs[-2].load_error.exc_type == refused
    assert runs[-1].load_error is not None and runs[-1].load_error.status == "crashed"
    assert [o.status for o in runs[-1].outcomes] == ["not_run", "not_run"]
    assert canary.read_text() == "intact"
    # the sandbox still works afterwards (fork-bomb leftovers reaped, killed worker replaced)
    assert sandbox.run("def f():\n    return 1", [TestSpec("t", "assert f() == 1")], FAST).passed
    uids = {h.uid for h in sandbox._all if h.uid is not None}
    assert _uid_processes(uids) == []  # fork bomb and setsid leftovers were killed


def test_expected_statuses(sandbox: Sandbox) -> None:
    cases = {
        "alloc_10gb": "MemoryError",
        "write_2gb": "OSError",
        "sys_exit_in_test": "SystemExit",
        "deep_recursion": "RecursionError",
        "output_100mb": "OSError",
    }
    runs = sandbox.run_many([(HOSTILE[n][0], [TestSpec(n, HOSTILE[n][1])]) for n in cases], limits=FAST)
    for (name, exc_type), run in zip(cases.items(), runs, strict=True):
        assert run.outcomes[0].status == "error" and run.outcomes[0].exc_type == exc_type, (
            name,
            run.outcomes[0],
        )


def test_patched_assertion_error_is_a_failure(sandbox: Sandbox) -> None:
    prog, src = HOSTILE["patched_builtins"]
    run = sandbox.run(prog, [TestSpec("t", src)], FAST)
    assert run.outcomes[0].status == "failed" and run.outcomes[0].exc_type == "AssertionError"


def test_no_network(sandbox: Sandbox) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    accepted: list[object] = []
    server.settimeout(3)
    thread = threading.Thread(target=lambda: accepted.append(_accept(server)))
    thread.start()
    port = server.getsockname()[1]
    run = sandbox.run("import socket", [TestSpec("t", f"socket.create_connection(('127.0.0.1', {port}), 1)")], FAST)
    thread.join()
    server.close()
    assert run.outcomes[0].status == "error" and run.outcomes[0].exc_type in {
        "OSError",
        "ConnectionRefusedError",
    }
    assert accepted == [None]
    assert run.isolation.network == ("netns" if sandbox.isolation.network == "netns" else "none")


def _accept(server: socket.socket) -> object:
    try:
        return server.accept()
    except OSError:
        return None


def test_environment_scrubbed_and_workdir_fresh(sandbox: Sandbox) -> None:
    src = (
        "assert not [k for k in os.environ if 'KEY' in k or 'TOKEN' in k]\n"
        "assert os.environ['HOME'] == os.getcwd()\n"
        "assert sorted(os.listdir()) == ['.tfr_stderr', '.tfr_stdout', 'solution.py', 'test_0.py']"
    )
    run = sandbox.run("import os", [TestSpec("t", src)], FAST)
    assert run.passed, run.outcomes[0]


def _uid_processes(uids: set[int]) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        uid_line = next((ln for ln in status.splitlines() if ln.startswith("Uid:")), "")
        if uid_line and int(uid_line.split()[1]) in uids:
            pids.append(int(entry))
    return pids


def test_isolation_recorded(sandbox: Sandbox) -> None:
    iso = sandbox.isolation
    assert {"AS", "CPU", "NPROC", "FSIZE", "NOFILE"} <= set(iso.rlimits)
    if os.geteuid() == 0:
        assert iso.uid_drop
    else:
        assert not iso.uid_drop and iso.warnings


def test_lines_written_to_the_result_channel_do_not_hold_off_the_timeout(sandbox: Sandbox) -> None:
    # a line without the run's nonce is not a message: it must not start a new phase of the own-time clock
    src = (
        "import os, time\nwhile True:\n    for fd in range(3, 64):\n        try:\n            os.write(fd, b'\\n')\n"
        "        except OSError:\n            pass\n    time.sleep(0.01)"
    )
    run = sandbox.run("", [TestSpec("flood", src), OK], Limits(timeout_s=1.0))
    assert run.outcomes[0].status == "timeout", run.outcomes[0]
    assert "of its own time" in (run.outcomes[0].message or ""), run.outcomes[0].message
    assert run.outcomes[1].status == "passed", run.outcomes[1]


def test_the_workers_warm_up_leaves_a_program_nothing_of_its_own(sandbox: Sandbox) -> None:
    # each worker runs a known program through the runner before it forks (runner.warm_up): a program must see
    # neither that program's module, names and files, nor its lines in a traceback
    src = (
        "import linecache, os, sys\n"
        "assert not hasattr(sys.modules['solution'], 'f')\n"
        "assert sys.path[0] == os.getcwd() and sys.path.count(os.getcwd()) == 1\n"
        "assert not [k for k in linecache.cache if 'warm' in k], list(linecache.cache)\n"
        "assert not os.path.exists(os.path.join(os.path.dirname(os.getcwd()), 'warm'))\n"
    )
    run = sandbox.run("x = 1\n", [TestSpec("clean", src), TestSpec("fails", "assert x == 2\n")], FAST)
    assert run.outcomes[0].status == "passed", run.outcomes[0]
    failed = run.outcomes[1]
    assert failed.status == "failed" and failed.traceback is not None, failed
    assert "assert x == 2" in failed.traceback and "f(2)" not in failed.traceback, failed.traceback
