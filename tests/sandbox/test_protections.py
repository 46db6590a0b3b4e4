"""Each protection the README's Sandbox section lists, checked the same way as root and as an unprivileged user.

``uv run pytest tests/sandbox/test_protections.py -v`` (root: programs run as a per-worker uid) and
``.ci/nonroot.sh tests/sandbox/test_protections.py -v`` (not root: user, network, mount and pid namespaces)
are the measurements behind the README table.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

FAST = Limits(timeout_s=3.0, nproc=32)


def _pids_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def test_fork_bomb_is_stopped_by_the_process_limit(sandbox: Sandbox) -> None:
    src = (
        "import os, time\nforks = 0\n"
        "for _ in range(200):\n"
        "    try:\n        pid = os.fork()\n    except OSError:\n        break\n"
        "    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    forks += 1\n"
        "print(forks)"
    )
    run = sandbox.run("", [TestSpec("bomb", src)], FAST)
    assert run.outcomes[0].status == "passed", run.outcomes[0]
    assert int(run.outcomes[0].stdout or "0") < FAST.nproc  # RLIMIT_NPROC held (root is exempt from it)


def test_setsid_escapes_do_not_outlive_the_program(sandbox: Sandbox) -> None:
    marker = "tfr-escape-" + secrets.token_hex(6)
    src = f"import os\nif os.fork() == 0:\n    os.setsid()\n    os.execv('/bin/sh', ['sh', '-c', 'sleep 120; : {marker}'])\n"
    run = sandbox.run("", [TestSpec("escape", src + "assert True")], FAST)
    assert run.passed, run.outcomes
    assert sandbox.run("", [TestSpec("next", "assert True")], FAST).passed  # cleanup runs after each program
    assert _pids_with(marker) == []


def test_program_cannot_kill_its_worker(sandbox: Sandbox) -> None:
    src = "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept PermissionError:\n    pass\n"
    run = sandbox.run("", [TestSpec("kill", src), TestSpec("after", "assert True")], FAST)
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes  # same child, worker alive


def test_parent_environment_is_unreadable(sandbox: Sandbox) -> None:
    read = f"data = open('/proc/{os.getpid()}/environ', 'rb').read()"
    src = f"try:\n    {read}\nexcept OSError:\n    data = b''\nassert not data"
    run = sandbox.run("", [TestSpec("environ", src)], FAST)
    assert run.passed, run.outcomes


def test_no_capabilities_and_no_way_back(sandbox: Sandbox) -> None:
    src = (
        "status = open('/proc/self/status').read()\n"
        "caps = {k: v for k, v in (ln.split(':\\t') for ln in status.splitlines() if ln.startswith('Cap'))}\n"
        "assert all(int(caps[k], 16) == 0 for k in ('CapInh', 'CapPrm', 'CapEff', 'CapAmb')), caps\n"
        "assert 'NoNewPrivs:\\t1' in status\n"
        "import subprocess\n"
        "out = subprocess.run(['/bin/grep', 'CapEff', '/proc/self/status'], capture_output=True, text=True).stdout\n"
        "assert out.split()[1] == '0000000000000000', out\n"
    )
    run = sandbox.run("", [TestSpec("caps", src)], FAST)
    assert run.passed, run.outcomes
    assert run.isolation.capabilities == []
