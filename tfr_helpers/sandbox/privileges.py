"""Process-level protections applied in the forked child before any untrusted code runs.

As root the child drops to the worker's own unprivileged uid (so RLIMIT_NPROC is enforced and root-owned
files are protected) with no capability left: the worker's filesystem view (:mod:`.view`) binds the
interpreter and packages back world-traversable. Only when no view could be built (no private mount
namespace) does the child keep CAP_DAC_READ_SEARCH, including as an ambient capability for subprocesses,
because the interpreter may live under root's home (mode 700); ``docs/sandbox.md`` says what that capability
exposes, and the fallback is recorded in :class:`~tfr_helpers.records.Isolation`. ``PR_SET_NO_NEW_PRIVS`` stops
setuid binaries from regaining root. Each worker runs its programs as a uid of its own, locked for its lifetime
(:func:`acquire_uid`).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import resource
from typing import Any

from tfr_helpers.sandbox.spec import Limits

PR_SET_KEEPCAPS, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 8, 38, 47, 2
PR_SET_CHILD_SUBREAPER = 36
CAP_DAC_READ_SEARCH = 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
UID_RANGE = range(61000, 61256)
LOCK_DIR = "/tmp/tfr-sandbox-locks"


def _load_libc() -> ctypes.CDLL:
    """libc without ``ctypes.util``: that module imports subprocess and threading, and threading's
    at-fork hook alone costs every forked child ~120 copy-on-write page faults (~0.4 ms CPU) here."""
    for name in ("libc.so.6", None):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
            lib.prctl  # noqa: B018 - probe the symbol
            return lib
        except (OSError, AttributeError):
            continue
    from ctypes.util import find_library  # fallback only: workers never load ctypes.util otherwise

    return ctypes.CDLL(find_library("c") or "libc.so.6", use_errno=True)


_libc = _load_libc()


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def prctl(option: int, arg2: int = 0, arg3: int = 0) -> None:
    """Call prctl(2); raise OSError on failure."""
    if _libc.prctl(option, ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def set_subreaper() -> None:
    """Make this process adopt orphaned descendants (so the worker can reap what the program leaves)."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


# built once in the worker (not in every forked child: ctypes object creation costs page faults there)
_BIT = 1 << CAP_DAC_READ_SEARCH
_CAP_HEADER = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
_CAP_DATA = (_CapData * 2)(_CapData(_BIT, _BIT, _BIT), _CapData(0, 0, 0))
_CAP_ARGS = (ctypes.byref(_CAP_HEADER), _CAP_DATA)
_NO_CAPS = (ctypes.byref(_CAP_HEADER), (_CapData * 2)(_CapData(0, 0, 0), _CapData(0, 0, 0)))
_capset = _libc.capset


def drop_capabilities() -> None:
    """Clear every capability of this process (effective, permitted, inheritable; ambient follows).

    For a child that does not switch uid (the non-root path, where it is uid 0 of a user namespace): with
    ``PR_SET_NO_NEW_PRIVS`` set afterwards an ``execve`` (of a setuid binary, or as uid 0) cannot give them
    back, so the program cannot unmount the filesystem view.
    """
    if _capset(*_NO_CAPS) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def drop_to_uid(uid: int, keep_read_search: bool = False) -> None:
    """Switch to ``uid``/``gid=uid`` with no capabilities (the kernel clears them on the switch from root).

    Args:
        uid: The worker's sandbox uid.
        keep_read_search: Keep CAP_DAC_READ_SEARCH (effective, permitted, ambient): the fallback when no
            filesystem view hides the rest of the machine and the interpreter is unreadable otherwise.
    """
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    if not keep_read_search:
        os.setresuid(uid, uid, uid)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        return
    prctl(PR_SET_KEEPCAPS, 1)
    os.setresuid(uid, uid, uid)
    if _capset(*_CAP_ARGS) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH)
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def _set(kind: int, value: int) -> None:
    """setrlimit clamped to the current hard limit (avoids 'not allowed to raise maximum limit')."""
    _soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def apply_rlimits(limits: Limits, cpu_s: int) -> list[str]:
    """Apply the rlimits of ``limits`` to this process; return the names applied."""
    mib = 1024 * 1024
    _set(resource.RLIMIT_AS, limits.memory_mb * mib)
    _set(resource.RLIMIT_CPU, max(1, cpu_s))
    _set(resource.RLIMIT_NPROC, limits.nproc)
    _set(resource.RLIMIT_FSIZE, limits.fsize_mb * mib)
    _set(resource.RLIMIT_NOFILE, limits.nofile)
    _set(resource.RLIMIT_CORE, 0)
    return RLIMIT_NAMES


RLIMIT_NAMES = ["AS", "CPU", "NPROC", "FSIZE", "NOFILE", "CORE"]


def acquire_uid() -> tuple[int, Any]:
    """Lock a free sandbox uid for this worker's lifetime (one uid per worker, across all sandboxes)."""
    os.makedirs(LOCK_DIR, mode=0o755, exist_ok=True)
    for uid in UID_RANGE:
        # read-only: a file open for writing on a mount keeps the view from remounting it read-only (EBUSY)
        fd = os.open(os.path.join(LOCK_DIR, f"uid-{uid}.lock"), os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    raise RuntimeError(f"no free sandbox uid in {UID_RANGE}")


def kill_uid(uid: int) -> None:
    """SIGKILL every process whose real uid is ``uid`` (from a root worker, briefly taking that real uid)."""
    os.setresuid(uid, uid, 0)
    try:
        os.kill(-1, 9)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        os.setresuid(0, 0, 0)


def libc() -> ctypes.CDLL:
    """The libc handle (``use_errno=True``) the sandbox's system calls go through."""
    return _libc


def in_private_mount_ns() -> bool:
    """True when this process has a mount namespace of its own (the worker was started under ``unshare -m``)."""
    try:
        return os.readlink("/proc/self/ns/mnt") != os.readlink(f"/proc/{os.getppid()}/ns/mnt")
    except OSError:
        return False


def mount_tmpfs(path: str, size_mb: int) -> bool:
    """Mount a tmpfs of ``size_mb`` on ``path`` if this process has its own mount namespace (else no-op).

    Working directories on tmpfs make the per-program mkdir/write/rmtree ~50x cheaper than on ext4 here.
    """
    if not in_private_mount_ns():
        return False
    opts = f"size={size_mb}m,mode=0711".encode()
    return _libc.mount(b"tmpfs", path.encode(), b"tmpfs", ctypes.c_ulong(0), opts) == 0
