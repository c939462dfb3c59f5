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
import re
from pathlib import Path

from .folder import cache_dir, enabled
from .memo import recalled

SALT = "sha256-v1"
KEEP = 4096  # digests remembered; the least recently written go first (64 bytes each)
_HEX = re.compile(r"[0-9a-f]{64}")


def sha256_of(path: str | Path) -> str:
    """sha256 of the file's bytes (hex), from the cache folder when this file's present content was hashed before."""
    path = Path(path)
    if not enabled():
        return _hash(path)
    from .identity import identity

    memo = cache_dir() / "digests" / f"{identity(path, SALT)}.sha256"
    return recalled(path, memo, lambda: _hash(path), _digest_in, lambda digest: digest + "\n", KEEP)


def _digest_in(text: str) -> str | None:
    known = text.strip()
    return known if _HEX.fullmatch(known) else None


def _hash(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
