"""Leases: a process that reads a profile's cache folder or a WAL copy holds a shared lock (flock) on it, and
eviction, `cache clear` and the cleaning of older versions remove only what they can lock exclusively, so nothing in
use is ever removed. The lock goes with the process: one killed holds nothing.

    lease = hold(folder / LEASE)        # a reader; lease.release() when done (or the process ends)
    with unused(folder / LEASE) as free:
        if free: shutil.rmtree(folder)  # no reader now, and none can start until the block ends
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LEASE = "lease"  # the lock file in a profile's cache folder (empty)


class Lease:
    """A shared lock held on one file until release()."""

    def __init__(self, fd: int):
        self.fd: int | None = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def hold(path: Path, create: bool = True) -> Lease | None:
    """A shared lock on `path` (created, with its folder, when `create`); None where it cannot be had (a read-only
    folder, a file gone). A remover that took the file away meanwhile is noticed (another inode): taken again."""
    for _ in range(100):
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDONLY | (os.O_CREAT if create else 0), 0o644)
        except FileNotFoundError:
            if not create:
                return None
            continue  # the folder was removed between mkdir and open
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a remover holds it (a removal)
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except OSError:
            same = False
        if same:
            return Lease(fd)
        os.close(fd)
    return None


@contextmanager
def unused(path: Path) -> Iterator[bool]:
    """Whether no process holds a lease on `path`; while the block runs none can take one, so what it removes was
    in nobody's use. A missing lease file is created first (a reader may be about to create it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    except FileNotFoundError:
        yield True
        return
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)
