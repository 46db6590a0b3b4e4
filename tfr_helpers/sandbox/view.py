"""The filesystem a sandboxed program sees: only the interpreter, the installed packages and its own directories.

Inside a worker's private mount namespace (``unshare -m``) the worker, before it forks any program:

1. remounts every mount it inherited read-only (a per-mount flag: the host's mounts stay as they are),
   except ``/proc``, ``/sys`` and ``/dev``;
2. covers the *hidden* directories with empty tmpfs: home directories (``/root``, ``/home``), the project
   directory, the launching directory, every directory holding a ``.env`` above the launching directory or the
   project, the response and benchmark cache (``$TFR_CACHE_DIR``, the user cache) and the host's ``/tmp``; a
   ``.env`` whose directory cannot be covered (``/``, a system directory) is covered by an empty file;
3. binds back, read-only, only what imports need (:func:`import_roots`): the interpreter's prefixes, the
   virtual environment, the ``site-packages`` directories on ``sys.path`` and the ``tfr_helpers`` package
   directory, never a directory that is or holds a *protected* one (the project root, ``runs/``, a cache, a
   ``.env`` directory, the launching directory), wherever the project lives (``/tmp`` included: the binds then
   sit inside the private ``/tmp``);
4. mounts a private, size-capped, writable tmpfs on ``/tmp`` (the programs' working directories live there)
   and on ``/dev/shm``;
5. drops from ``sys.path`` every entry the view hides (the project root an editable install adds).

Programs then run as an unprivileged uid with no capabilities: they can read what every user can read in
``/usr``, ``/etc``... and the bound trees, and write only their working directory, ``/tmp`` and ``/dev/shm``.
Both are emptied after every program by :func:`sweep`, which stays on their own file system: it never
descends into a bind mount, so its cost does not depend on the size of the project or of ``runs/``. A view
rather than a permission (``CAP_DAC_READ_SEARCH``) is used because that capability would let a program read
every file on the machine (``docs/sandbox.md``).
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import platformdirs

import tfr_helpers
from tfr_helpers.launch import cache_root, launch_dir

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


def _project_root() -> str | None:
    """The source checkout holding this package (an editable install), or None for an installed wheel."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../tfr_helpers
    project = os.path.dirname(package)
    return project if os.path.exists(os.path.join(project, "pyproject.toml")) else None


def _env_files(start: str) -> list[str]:
    """Every ``.env`` file in ``start`` and the directories above it (where a credentials loader looks)."""
    found, here = [], start
    while True:
        if os.path.isfile(os.path.join(here, ".env")):
            found.append(os.path.join(here, ".env"))
        parent = os.path.dirname(here)
        if parent == here:
            return found
        here = parent


def _coverable(path: str, below_system: bool = True) -> bool:
    """A directory the view may cover: never ``/`` nor a system directory or one above a system directory.

    ``below_system=False`` also refuses a directory below a system directory (``/usr/lib``: a launching
    directory there is left visible, while a project or a ``.env`` directory there is covered).
    """
    real = os.path.realpath(path)
    if real == "/" or any(_under(s, real) for s in (*SYSTEM_DIRS, *LIVE_TREES)):
        return False
    return below_system or not any(_under(real, s) for s in SYSTEM_DIRS)


def hidden_paths(cwd: str | None = None) -> list[str]:
    """What to hide from programs, computed in the parent process (which knows the user's environment).

    Args:
        cwd: The current directory (default: the current one); the launching directory
            (:func:`~tfr_helpers.launch.launch_dir`) is hidden too.

    Returns:
        Absolute real paths, sorted: directories to cover (each also *protected*: never bound back, nor any
        directory holding it) and ``.env`` files whose directory cannot be covered. Never ``/`` nor a system
        directory (``/usr``, ``/etc``...); directories below a system directory (``/var/tmp/<clone>``) are
        hidden like any other.
    """
    cwd = os.path.realpath(cwd or os.getcwd())
    launch = os.path.realpath(launch_dir())
    must = ["/root", "/home", "/tmp", os.path.expanduser("~")]
    project = _project_root()
    envs = _env_files(cwd) + _env_files(launch) + (_env_files(project) if project else [])
    if project:
        must += [project, os.path.join(project, "runs")]
    must += [os.path.dirname(e) for e in envs]
    must.append(platformdirs.user_cache_dir("tfr"))
    must.append(str(cache_root()))
    dirs = {os.path.realpath(p) for p in must if p and os.path.isdir(p) and _coverable(p)}
    dirs |= {d for d in (cwd, launch) if _coverable(d, below_system=False)}
    files = {os.path.realpath(e) for e in envs if os.path.dirname(os.path.realpath(e)) not in dirs}
    return sorted(dirs | files)


def import_roots(hidden: list[str]) -> list[str]:
    """What imports need and ``hidden`` covers, outermost first.

    Candidates: the interpreter's prefixes and its directory, the virtual environment, the ``site-packages``
    (and other) directories on ``sys.path`` and the ``tfr_helpers`` package directory. A candidate is left out
    when it is, or holds, one of ``hidden`` (the project root that an editable install puts on ``sys.path``, a
    launching directory, a directory with a ``.env``): only what it holds that imports need is bound back.
    """
    roots = [sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix]
    roots.append(os.path.dirname(os.path.realpath(sys.executable)))
    roots.extend(p for p in sys.path if p and os.path.isdir(p))
    roots.append(os.path.dirname(os.path.abspath(tfr_helpers.__file__)))
    protected = [os.path.realpath(h) for h in hidden]
    real = {os.path.realpath(r) for r in roots}
    fine = [
        r
        for r in real
        if any(_under(r, h) for h in protected)
        and not any(_under(h, r) for h in protected)
        and not os.path.exists(os.path.join(r, ".env"))
    ]
    return _outermost(fine)


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


def _bind_read_only(libc: ctypes.CDLL, source: str, target: str) -> None:
    _mount(libc, source, target, None, MS_BIND | MS_REC)
    _mount(libc, None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def mount_view(libc: ctypes.CDLL, hidden: list[str], tmpfs_mb: int) -> View:
    """Build the view described in the module docstring in this process's (private) mount namespace.

    Args:
        libc: libc with ``use_errno=True``.
        hidden: Directories to cover and ``.env`` files to blank (:func:`hidden_paths` of the parent).
        tmpfs_mb: Size of the private ``/tmp`` (and ``/dev/shm``), MiB.

    Returns:
        What is hidden, bound read-only and writable; ``errors`` lists steps that failed (the caller decides).
    """
    view = View()
    files = sorted({os.path.realpath(p) for p in hidden if os.path.isfile(p)})
    dirs = [p for p in hidden if os.path.isdir(p)]
    covers = _outermost([*dirs, *[p for p in PRIVATE_TMPFS if os.path.isdir(p)]])
    keep = import_roots([*dirs, *covers])
    fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY) for k in keep}  # reachable after the cover
    files = [f for f in files if not any(_under(f, c) for c in covers)]

    def step(what: Callable[..., object], *args: object) -> bool:  # a failed step is reported; the rest still run
        try:
            what(*args)
            return True
        except OSError as exc:
            view.errors.append(str(exc))
            return False

    try:
        _remount_read_only(libc, covers, view)
        for path in covers:
            private = path in PRIVATE_TMPFS
            opts = f"size={tmpfs_mb}m,mode=1777" if private else "size=1m,mode=0755"
            if step(_mount, libc, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts):
                (view.writable if private else view.hidden).append(path)
                if private and path == "/tmp":
                    view.hidden.append(path)
        made: list[str] = []  # directories created on a cover to hold a bind: nobody may write in them
        for path in keep:
            parent = os.path.dirname(path)
            while not os.path.exists(parent):
                made.append(parent)
                parent = os.path.dirname(parent)
            if step(os.makedirs, path, 0o755, True) and step(_bind_read_only, libc, f"/proc/self/fd/{fds[path]}", path):
                view.read_only_binds.append(path)
        for path in made:
            step(os.chmod, path, 0o555)
        for path in files:  # a .env whose directory stays visible: an empty file over it
            if step(_bind_read_only, libc, os.devnull, path):
                view.hidden.append(path)
        for path in view.hidden:  # the empty covers themselves become read-only too
            if path not in view.writable and path not in files:
                step(_mount, libc, None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        for fd in fds.values():
            os.close(fd)
    os.chdir("/")
    _prune_sys_path(view)
    return view


def _prune_sys_path(view: View) -> None:
    """Drop the ``sys.path`` entries the view hides (the project root of an editable install, say)."""
    gone = [h for h in view.hidden if os.path.isdir(h)]
    sys.path[:] = [
        p
        for p in sys.path
        if not (
            p
            and any(_under(os.path.realpath(p), h) for h in gone)
            and not any(_under(os.path.realpath(p), b) for b in view.read_only_binds)
        )
    ]
    sys.path_importer_cache.clear()


def sweep(keep: str) -> None:
    """Empty the private ``/tmp`` and ``/dev/shm`` after a program, keeping the worker's own root ``keep``.

    Stays on each one's own file system (``find -xdev`` semantics): a mount point below it (the read-only
    binds of a project cloned under ``/tmp``) is neither entered nor removed.
    """
    for top in PRIVATE_TMPFS:
        try:
            dev = os.lstat(top).st_dev
        except OSError:
            continue
        _empty(top, dev, keep)


def _empty(path: str, dev: int, keep: str) -> None:
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        if entry.path == keep:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_dev != dev:  # a mount point: not ours to empty
            continue
        if stat.S_ISDIR(st.st_mode):
            _empty(entry.path, dev, keep)
            try:
                os.rmdir(entry.path)
            except OSError:  # holds a mount point (kept, empty of anything else)
                pass
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
