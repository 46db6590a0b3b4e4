"""How a sandbox worker is started: its network (and mount, user, pid) namespaces and its environment, built from
scratch (no key of the caller's reaches a program)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tfr_helpers.sandbox.preload import TABLES_ENV


def _network_prefix() -> tuple[list[str], list[str]]:
    """Command prefix giving the workers a private network namespace, and warnings if impossible."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return [], ["no network isolation: `unshare` (util-linux) not found"]
    # As root: also a private mount namespace (the filesystem view, tmpfs workdirs). Not root: a user namespace
    # gives the same, plus a pid namespace (the worker is its init: a program cannot kill it, and the worker's
    # kill(-1) removes all a program leaves behind) with its own /proc (programs cannot list the user's other
    # processes); each of those is dropped, with a warning, where the kernel refuses it.
    # (Their environments are unreadable either way: ptrace checks fail across user namespaces.)
    if os.geteuid() == 0:
        candidates = [[unshare, "-n", "-m"], [unshare, "-n"]]
    else:
        full = [unshare, "-r", "-n", "-m", "-p", "--kill-child", "--mount-proc"]
        candidates = [full, full[:6], full[:4], full[:3]]
    lost = {
        "--mount-proc": "programs can list the user's other processes and their command lines in /proc",
        "-p": "no pid namespace: programs can kill their worker and setsid escapes outlive them",
        "-m": "no private mount namespace: no filesystem view",
    }
    for prefix in candidates:
        if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            relevant = {"-m"} if os.geteuid() == 0 else set(lost)  # as root the uid drop covers the others
            missing = [w for opt, w in lost.items() if opt in relevant and opt not in prefix]
            return prefix, missing
    return [], ["no network isolation: `unshare -n` is not permitted here (no user namespaces?)"]


def bytecode_dir() -> Path:
    """Where workers cache the bytecode of their preloads: ``bytecode`` beside the execution cache."""
    from tfr_helpers.sandbox.cache import default_dir  # cache hashes the sandbox's sources: not at import

    return default_dir().parent / "bytecode"


def _worker_env(warm: bool = False) -> dict[str, str]:
    """The environment of a worker, built from scratch.

    ``warm`` (``TFR_SANDBOX_POOLS=auto``): the worker may write the bytecode of its preloads under
    :func:`bytecode_dir` (``PYTHONPYCACHEPREFIX``), so later workers load numpy, pandas, scipy, sklearn and
    Hypothesis in ~2 s of CPU instead of compiling them for ~8 s when the environment sets
    ``PYTHONDONTWRITEBYTECODE`` (or the venv holds no bytecode), and keep Hypothesis's Unicode tables beside
    it (``preload.warm_unicode_tables``). Programs never write bytecode either way.
    """
    keep = ("PATH", "LANG", "LC_ALL", "TZ", "VIRTUAL_ENV")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(
        MPLBACKEND="Agg",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        MPLCONFIGDIR="/tmp/tfr-sandbox-mpl",
        PYTHONDONTWRITEBYTECODE="1",
        # string hashing is seeded once at interpreter start-up, so the worker itself must start with it:
        # set and dict order (and every message built from them) must not change between runs
        PYTHONHASHSEED=HASH_SEED,
    )
    if warm:
        del env["PYTHONDONTWRITEBYTECODE"]
        env["PYTHONPYCACHEPREFIX"] = str(bytecode_dir())
        env[TABLES_ENV] = str(bytecode_dir().parent / "hypothesis")
    return env


HASH_SEED = "0"
"""``PYTHONHASHSEED`` of every worker (and so of every forked program and its subprocesses)."""
