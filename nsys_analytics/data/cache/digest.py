"""Digests of a file's bytes, remembered in the cache folder under the file's facts (identity.facts).

The run catalog names a profile by the sha256 of its bytes (`sha256_of`). Every identity (identity.py) holds
`content_digest`: the 128-bit XXH3 of the 128-bit XXH3 digests of the file's 64 MiB blocks, in order, so that the
blocks are hashed on every core at once (XXH3 releases the GIL). It costs a read of the file and little more (1.9 GB
with the page cache warm, on two cores: 0.13 s, against 0.25 s for one XXH3 of the whole file and 1.47 s for
sha256), and the first command on a large export pays it. The next time a command asks
for the same version of the file, a digest is read back from `digests/<key>.<algorithm>` in the cache folder, for
about a millisecond. The key is the file's facts: device, inode, size,
modification and change time, SQLite's header facts and the -wal file's; any write to the file changes its change
time (which `touch -r` cannot put back), so a file rewritten, replaced, edited in place or touched is hashed again.
`--no-cache` (NSYS_ANALYTICS_NO_CACHE=1) hashes every time and remembers nothing. Nothing is written beside the file.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import xxhash

from .facts import facts
from .folder import cache_dir, enabled
from .memo import recalled

SALT = "digest-v4"
BLOCK = 64 * 2**20  # the content digest's block: 30 blocks at 10 M kernels (1.9 GB), a 4 M-byte export one
KEEP = 4096  # digests remembered per algorithm; the least recently written go first (64 bytes each)
_ALGORITHMS = {"sha256": (hashlib.sha256, re.compile(r"[0-9a-f]{64}")),
               "xxh3_128": (xxhash.xxh3_128, re.compile(r"[0-9a-f]{32}")),
               "xxh3_blocks": (xxhash.xxh3_128, re.compile(r"[0-9a-f]{32}"))}


def sha256_of(path: str | Path) -> str:
    """sha256 of the file's bytes (hex), from the cache folder when this version of the file was hashed before."""
    return _digest(Path(path), "sha256")


def content_digest(path: str | Path) -> str:
    """The 128-bit XXH3 of the XXH3-128 digests of the file's BLOCK-byte blocks (hex), from the cache folder when
    this version was hashed before."""
    return _digest(Path(path), "xxh3_blocks")


def _digest(path: Path, algorithm: str) -> str:
    if not enabled():
        return hash_file(path, algorithm)
    key = hashlib.sha256(f"{SALT}\0{algorithm}\0{path.resolve()}\0{facts(path)}".encode()).hexdigest()[:32]
    memo = cache_dir() / "digests" / f"{key}.{algorithm}"
    pattern = _ALGORITHMS[algorithm][1]

    def known(text: str) -> str | None:
        return text.strip() if pattern.fullmatch(text.strip()) else None

    return recalled(path, memo, lambda: hash_file(path, algorithm), known, lambda digest: digest + "\n", KEEP)


def hash_file(path: Path, algorithm: str) -> str:
    """The digest of the file's bytes (a folder: of its files' names and digests), read now, remembered nowhere."""
    new = _ALGORITHMS[algorithm][0]
    if path.is_dir():  # an nsys parquetdir/arrowdir export: its files' names and bytes, in name order
        h = new()
        for p in sorted(q for q in path.iterdir() if q.is_file()):
            h.update(f"{p.name}\0{hash_file(p, algorithm)}\0".encode())
        return h.hexdigest()
    if algorithm == "xxh3_blocks":
        return _blocks_digest(path)
    with open(path, "rb") as f:
        return hashlib.file_digest(f, new).hexdigest()


def _blocks_digest(path: Path) -> str:
    """XXH3-128 of the XXH3-128 digests (16 bytes each) of the file's BLOCK-byte blocks, hashed on every core."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        starts = range(0, max(size, 1), BLOCK)
        workers = min(len(starts), os.cpu_count() or 1, 8)  # beyond 8, memory bandwidth bounds it
        if workers == 1:
            digests = [_block(fd, start, size) for start in starts]
        else:
            from concurrent.futures import ThreadPoolExecutor  # not at import: a replayed answer hashes nothing

            with ThreadPoolExecutor(workers) as pool:
                digests = list(pool.map(lambda start: _block(fd, start, size), starts))
    finally:
        os.close(fd)
    return xxhash.xxh3_128(b"".join(digests)).hexdigest()


def _block(fd: int, start: int, size: int) -> bytes:
    """The XXH3-128 digest of the bytes [start, start + BLOCK) of the open file (positioned reads: no shared offset)."""
    h = xxhash.xxh3_128()
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    end = min(start + BLOCK, size)
    while start < end:
        got = os.preadv(fd, [view[:min(len(buffer), end - start)]], start)
        if got == 0:  # the file shrank while it was read: what was read is hashed; its facts have changed
            break
        h.update(view[:got])
        start += got
    return h.digest()
