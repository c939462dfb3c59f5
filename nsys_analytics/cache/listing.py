"""What `nsys-analytics cache list|info` show: each profile's cache, its size, when it was last used, whether it
is still current."""

from __future__ import annotations

import time
from pathlib import Path

from .folder import cache_dir, max_size, min_size
from .store import SUFFIX, entries, size_of, wal_entries, whole


def cache_rows() -> tuple[list[str], list[tuple]]:
    """One row per profile cache, most recently used first."""
    rows = []
    for folder in reversed(entries()):
        profile = _profile_of(folder)
        parts = sorted(p.name[: -len(SUFFIX)] for p in folder.glob(f"*{SUFFIX}"))
        rows.append((profile or "?", _status(folder, profile), len(parts), round(size_of(folder) / 2**20, 1),
                     time.strftime("%Y-%m-%d %H:%M", time.localtime(folder.stat().st_mtime)), folder.name))
    return ["profile", "status", "parts", "size_mib", "last_used", "folder"], rows


def summary() -> dict:
    """The folder, its size (the profiles' caches and the WAL copies: what the bound counts) and settings."""
    folders, copies = entries(), wal_entries()
    copies_size = sum(size_of(f) for f in copies)
    return {"folder": str(cache_dir()), "profiles": len(folders),
            "size_mib": round((sum(size_of(f) for f in folders) + copies_size) / 2**20, 1),
            "wal_copies": len(copies), "wal_copies_mib": round(copies_size / 2**20, 1),
            "bound_mib": round(max_size() / 2**20, 1), "min_profile_mib": round(min_size() / 2**20, 1)}


def _profile_of(folder: Path) -> str | None:
    """The profile path recorded in the first raw-table file of a cache folder."""
    import duckdb

    from .layout import META

    for f in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            con = duckdb.connect(str(f), read_only=True)
            try:
                row = con.execute(f"SELECT value FROM {META} WHERE key = 'profile'").fetchone()
            finally:
                con.close()
        except duckdb.Error:
            continue
        if row:
            return row[0]
    return None


def _status(folder: Path, profile: str | None) -> str:
    """current: the profile is there and unchanged; changed: it was rewritten or replaced; missing: gone; damaged:
    a part cannot be read whole (its next use builds it again)."""
    if any(not whole(f) for f in folder.glob(f"*{SUFFIX}")):
        return "damaged"
    if profile is None:
        return "unknown"
    path = Path(profile)
    if not path.exists():
        return "missing"
    from .identity import identity, path_prefix
    from .layout import salt

    return "current" if folder.name == f"{path_prefix(path)}{identity(path, salt())}" else "changed"

