"""A profile's identity: what must match for anything derived from it (a cache folder, a remembered result, a WAL
copy) to be read instead of the profile.

identity = the resolved path, a 128-bit digest of the file's bytes (digest.py), SQLite's own header facts (file change
counter at offset 24, page count at 28, schema cookie at 40) and, where a `-wal` file is beside it, that file's size
and header (checkpoint sequence, salts). A file rewritten, edited in place (even with its size and mtime put back),
replaced or truncated gets another identity, hence fresh answers; a file only touched or copied back unchanged keeps
it. Hashing costs one read of the file (0.13 s for 1.9 GB in the page cache, on two cores); it is done once per
version of the file: the digest is remembered under the file's facts (facts.py), which change with every write
whatever the writer restores. The digest is XXH3, not a cryptographic hash: it tells versions of a file apart, it
does not vouch for them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .digest import content_digest
from .facts import sqlite_facts, wal_facts


def identity(path: Path, salt: str) -> str:
    """A hex digest naming what is derived from this file's present content (`salt`: the format of what is)."""
    path = Path(path).resolve()
    content = content_digest(path)
    h = hashlib.sha256(f"{salt}\0{path}\0{content}\0{sqlite_facts(path)}\0{wal_facts(path)}".encode())
    return h.hexdigest()[:32]


def path_prefix(path: Path) -> str:
    """'<stem>-<hash of the resolved path>-': every cache (and remembered summary) of one path starts with it."""
    where = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:8]
    return f"{Path(path).stem}-{where}-"
