"""The filesystem a sandboxed program sees: only the interpreter, the installed packages and its own directories.

Inside a worker's private mount namespace (``unshare -m``) the worker, before it forks any program:

1. remounts every mount it inherited read-only (a per-mount flag: the host's mounts stay as they are),
   except ``/proc``, ``/sys`` and ``/dev``;
2. covers the *hidden* directories with empty tmpfs: home directories (``/root``, ``/home``), the project
   directory, the launching directory and any ``.env`` directory above it, the response and benchmark cache
   (``$TFR_CACHE_DIR``, the user cache) and the host's ``/tmp``;
3. binds back, read-only, only what imports need: the interpreter's prefixes, the virtual environment, the
   other ``sys.path`` entries and the ``tfr_helpers`` package (reached through ``O_PATH`` descriptors
   opened before step 2);
4. mounts a private, size-capped, writable tmpfs on ``/tmp`` (the programs' working directories live there)
   and on ``/dev/shm``.

Programs then run as an unprivileged uid with no capabilities: they can read what every user can read in
``/usr``, ``/etc``... and the bound trees, and write only their working directory, ``/tmp`` and ``/dev/shm``
(both swept after every program). See ``../shared/notes/sandbox.md`` section 6 for why a view and not a
permission (CAP_DAC_READ_SEARCH) is used.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass, field

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_RELATIME = 1 << 21
_KEPT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
}
LIVE_TREES = ("/proc", "/sys", "/dev")
"""Kernel filesystems left as they are (device nodes must stay writable; /proc and /sys are per-namespace)."""
SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/var", "/srv", "/mnt")
PRIVATE_TMPFS = ("/tmp", "/dev/shm")
"""Writable, private to one worker, swept after every program."""


@dataclass
class View:
    """What was done (reported to the parent and recorded in :class:`~tfr_helpers.records.Isolation`)."""

    hidden: list[str] = field(default_factory=list)
    read_only_binds: list[str] = field(default_factory=list)
    writable: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _outermost(paths: list[str]) -> list[str]:
    """Existing directories among ``paths`` (real paths), without those inside another one, sorted."""
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.isdir(p)})
    return [p for p in real if not any(q != p and _under(p, q) for q in real)]


def hidden_paths(cwd: str | None = None) -> list[str]:
    """Directories to hide from programs, computed in the parent process (which knows the user's environment).

    Args:
        cwd: The launching directory (default: the current one).

    Returns:
        Absolute real paths; never ``/`` nor a system directory (``/usr``, ``/etc``...).
    """
    cwd = os.path.realpath(cwd or os.getcwd())
    candidates = ["/root", "/home", "/tmp", os.path.expanduser("~")]
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../tfr_helpers
    project = os.path.dirname(package)
    if os.path.exists(os.path.join(project, "pyproject.toml")):  # a source checkout (editable install)
        candidates.append(project)
    candidates.append(cwd)
    here = cwd
    while True:  # a .env anywhere above the launching directory (where the credentials loader looks)
        if os.path.isfile(os.path.join(here, ".env")):
            candidates.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    try:
        import platformdirs

        candidates.append(platformdirs.user_cache_dir("tfr"))
    except ImportError:
        pass
    candidates.append(os.environ.get("TFR_CACHE_DIR", ""))
    safe = [
        p
        for p in candidates
        if p and os.path.realpath(p) != "/" and not any(_under(os.path.realpath(p), s) for s in SYSTEM_DIRS)
    ]
    return _outermost(safe)


def import_roots(hidden: list[str]) -> list[str]:
    """What imports need and ``hidden`` covers: interpreter prefixes, the venv, ``sys.path``, ``tfr_helpers``.

    A root that is (or contains) a hidden directory itself, such as the project directory that an editable
    install puts on ``sys.path``, is left out: only the package inside it is bound back.
    """
    import tfr_helpers

    roots = [sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix]
    roots.append(os.path.dirname(os.path.realpath(sys.executable)))
    roots.extend(p for p in sys.path if p and os.path.isdir(p))
    roots.append(os.path.dirname(os.path.abspath(tfr_helpers.__file__)))
    real = [os.path.realpath(r) for r in roots]
    return _outermost([r for r in real if any(_under(r, h) for h in hidden) and not any(_under(h, r) for h in hidden)])


def _mount(libc: ctypes.CDLL, source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    if libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data) if data else None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as ``\\ooo``."""
    return field.encode().decode("unicode_escape") if "\\" in field else field


def _mounts() -> list[tuple[str, int]]:
    """Mount points of this namespace with the per-mount flags to keep on remount, outermost first."""
    out = []
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            parts = line.split()
            flags = sum(_KEPT_FLAGS.get(o, 0) for o in parts[5].split(","))
            out.append((_unescape(parts[4]), flags))
    return out


def _remount_read_only(libc: ctypes.CDLL, hidden: list[str], view: View) -> None:
    for point, flags in _mounts():
        if any(_under(point, t) for t in LIVE_TREES) or any(_under(point, h) for h in hidden):
            continue
        try:
            _mount(libc, None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        except OSError as exc:
            view.errors.append(str(exc))


def mount_view(libc: ctypes.CDLL, hidden: list[str], tmpfs_mb: int) -> View:
    """Build the view described in the module docstring in this process's (private) mount namespace.

    Args:
        libc: libc with ``use_errno=True``.
        hidden: Directories to cover (:func:`hidden_paths` of the parent).
        tmpfs_mb: Size of the private ``/tmp`` (and ``/dev/shm``), MiB.

    Returns:
        What is hidden, bound read-only and writable; ``errors`` lists steps that failed (the caller decides).
    """
    view = View()
    hidden = _outermost([*hidden, *[p for p in PRIVATE_TMPFS if os.path.isdir(p)]])
    keep = import_roots(hidden)
    fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY) for k in keep}  # reachable after the cover
    try:
        _remount_read_only(libc, hidden, view)
        for path in hidden:
            private = path in PRIVATE_TMPFS
            opts = f"size={tmpfs_mb}m,mode=1777" if private else "size=1m,mode=0755"
            _mount(libc, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts)
            (view.writable if private else view.hidden).append(path)
            if private and path == "/tmp":
                view.hidden.append(path)
        for path in keep:
            os.makedirs(path, mode=0o755, exist_ok=True)
            _mount(libc, f"/proc/self/fd/{fds[path]}", path, None, MS_BIND | MS_REC)
            _mount(libc, None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
            view.read_only_binds.append(path)
        for path in view.hidden:  # the empty covers themselves become read-only too
            if path not in view.writable:
                _mount(libc, None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    except OSError as exc:
        view.errors.append(str(exc))
    finally:
        for fd in fds.values():
            os.close(fd)
    os.chdir("/")
    return view


def sweep(keep: str) -> None:
    """Empty the private ``/tmp`` and ``/dev/shm`` after a program, keeping the worker's own root ``keep``."""
    import shutil

    for top in PRIVATE_TMPFS:
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            if entry.path == keep:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
