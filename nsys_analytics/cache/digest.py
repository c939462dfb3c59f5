"""A file's sha256, remembered in the cache folder under the file's identity (identity.py).

The run catalog names a profile by the sha256 of its bytes. Hashing 200 MB costs about 0.13 s of CPU; the second
time a command asks for the same file (a `runs gate` after `runs add` in CI, the same profile added to another
catalog) the digest is read back from `digests/<identity>.sha256` in the cache folder, for about a millisecond. The
identity is what the columnar cache already trusts to decide that a profile is unchanged (path, size, modification
time, inode and sampled bytes): a file rewritten, replaced or touched gets a new identity and is hashed again.
`--no-cache` (NSYS_ANALYTICS_NO_CACHE=1) hashes every time and remembers nothing. Nothing is written beside the file.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from .folder import cache_dir, enabled

SALT = "sha256-v1"
KEEP = 4096  # digests remembered; the least recently written go first (64 bytes each)
_HEX = re.compile(r"[0-9a-f]{64}")


def sha256_of(path: str | Path) -> str:
    """sha256 of the file's bytes (hex), from the cache folder when this file's present content was hashed before."""
    path = Path(path)
    if not enabled():
        return _hash(path)
    from .identity import identity, stat_key

    memo = cache_dir() / "digests" / f"{identity(path, SALT)}.sha256"
    try:
        known = memo.read_text().strip()
        if _HEX.fullmatch(known):
            return known
    except OSError:
        pass
    before = stat_key(path)
    digest = _hash(path)
    if stat_key(path) == before:  # not changed while it was read
        _remember(memo, digest)
    return digest


def _hash(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _remember(memo: Path, digest: str) -> None:
    """Write the digest whole (a temporary file renamed into place); a cache folder that cannot be written is no
    error: the next command hashes again."""
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo.parent, prefix=".tmp-", suffix=".sha256")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w") as f:
            f.write(digest + "\n")
        os.replace(tmp, memo)
        _bound(memo.parent)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def _bound(folder: Path) -> None:
    names = [p for p in folder.iterdir() if p.suffix == ".sha256" and not p.name.startswith(".")]
    if len(names) <= KEEP:
        return
    names.sort(key=lambda p: p.stat().st_mtime_ns)
    for old in names[: len(names) - KEEP]:
        old.unlink(missing_ok=True)
