"""A file's sha256, remembered in the cache folder under the file's facts (identity.facts).

The run catalog names a profile by the sha256 of its bytes, and every identity (identity.py) holds it. Hashing 200 MB
costs about 0.3 s; the next time a command asks for the same version of the file it is read back from
`digests/<key>.sha256` in the cache folder, for about a millisecond. The key is the file's facts: device, inode, size,
modification and change time, SQLite's header facts and the -wal file's; any write to the file changes its change
time (which `touch -r` cannot put back), so a file rewritten, replaced, edited in place or touched is hashed again.
`--no-cache` (NSYS_ANALYTICS_NO_CACHE=1) hashes every time and remembers nothing. Nothing is written beside the file.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .facts import facts
from .folder import cache_dir, enabled
from .memo import recalled

SALT = "sha256-v2"
KEEP = 4096  # digests remembered; the least recently written go first (64 bytes each)
_HEX = re.compile(r"[0-9a-f]{64}")


def sha256_of(path: str | Path) -> str:
    """sha256 of the file's bytes (hex), from the cache folder when this version of the file was hashed before."""
    path = Path(path)
    if not enabled():
        return _hash(path)
    key = hashlib.sha256(f"{SALT}\0{path.resolve()}\0{facts(path)}".encode()).hexdigest()[:32]
    memo = cache_dir() / "digests" / f"{key}.sha256"
    return recalled(path, memo, lambda: _hash(path), _digest_in, lambda digest: digest + "\n", KEEP)


def _digest_in(text: str) -> str | None:
    known = text.strip()
    return known if _HEX.fullmatch(known) else None


def _hash(path: Path) -> str:
    if path.is_dir():  # an nsys parquetdir/arrowdir export: its files' names and bytes, in name order
        h = hashlib.sha256()
        for p in sorted(q for q in path.iterdir() if q.is_file()):
            h.update(f"{p.name}\0{_hash(p)}\0".encode())
        return h.hexdigest()
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
