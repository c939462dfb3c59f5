"""A profile's identity: what must match for a cache to be read instead of the profile.

The path (resolved), size and modification time, and a hash of the file's first and last 64 KiB and of 4 KiB at
14 evenly spread offsets (SQLite's header, with its change counter, is in the first page). A file that is
rewritten, replaced, truncated or touched gets another identity, hence another cache; reading the samples costs
about a millisecond whatever the file's size.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

EDGE = 64 * 1024
SAMPLE = 4 * 1024
SAMPLES = 14


def identity(path: Path, salt: str) -> str:
    """A hex digest naming the cache of this file's present content (`salt`: the cache format)."""
    path = Path(path).resolve()
    st = path.stat()
    h = hashlib.sha256()
    h.update(f"{salt}\0{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0".encode())
    with open(path, "rb") as f:
        for offset in _offsets(st.st_size):
            f.seek(offset)
            h.update(f.read(EDGE if offset in (0, max(0, st.st_size - EDGE)) else SAMPLE))
    return h.hexdigest()[:32]


def _offsets(size: int) -> list[int]:
    inner = [size * (i + 1) // (SAMPLES + 1) for i in range(SAMPLES)] if size > 2 * EDGE else []
    return [0, *inner, max(0, size - EDGE)]


def stat_key(path: Path) -> tuple:
    """(size, mtime, inode) of a file, to tell whether it changed while a cache was being built."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ino


def path_prefix(path: Path) -> str:
    """'<stem>-<hash of the resolved path>-': every cache (and remembered summary) of one path starts with it."""
    where = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:8]
    return f"{Path(path).stem}-{where}-"
