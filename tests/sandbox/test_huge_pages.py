"""A worker's memory backed by huge pages before it forks (preload.collapse_huge_pages): same bytes, same mappings."""

from __future__ import annotations

import hashlib
import os
import random

from tfr_helpers.sandbox.preload import collapse_huge_pages


def _mappings() -> list[tuple[str, str]]:
    """Every mapping's address range and permissions."""
    with open("/proc/self/maps") as fh:
        return [(f[0], f[1]) for f in (line.split() for line in fh)]


def _huge_kib() -> int:
    with open("/proc/self/smaps_rollup") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("AnonHugePages:"))


def test_collapse_keeps_bytes_and_mappings_for_the_worker_and_its_children() -> None:
    pid = os.fork()
    if pid == 0:  # in a child of pytest: the collapse acts on the whole process
        code = 1
        try:
            data = bytearray(random.Random(7).randbytes(12 << 20))  # written anonymous memory, several 2 MiB ranges
            digest = hashlib.sha256(data).hexdigest()
            huge0, maps = _huge_kib(), _mappings()
            collapsed = collapse_huge_pages()
            assert (_huge_kib() > huge0) == bool(collapsed)  # a range it reports collapsed is backed by a huge page
            assert _mappings() == maps and hashlib.sha256(data).hexdigest() == digest
            grandchild = os.fork()
            if grandchild == 0:  # a child writes its copy: the parent's bytes stay
                data[: 1 << 20] = bytes(1 << 20)
                os._exit(0 if hashlib.sha256(data).hexdigest() != digest else 1)
            _, status = os.waitpid(grandchild, 0)
            again = collapse_huge_pages(collapsed)  # the worker's collapse after each child: the same ranges
            assert again == collapsed and _mappings() == maps
            assert collapse_huge_pages(min_ranges=1 << 40) == []  # a small worker's memory is left as it is
            code = 0 if status == 0 and hashlib.sha256(data).hexdigest() == digest else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
