"""What `nsys-analytics cache list|info` show: each profile's cache, its size, when it was last used, whether it
is still current."""

from __future__ import annotations

import time
from pathlib import Path

from . import derived
from .folder import cache_dir, max_size, min_size
from .facts import facts
from .store import SUFFIX, entries, size_of, wal_entries, whole


def cache_rows() -> tuple[list[str], list[tuple]]:
    """One row per profile cache, most recently used first, then one per report export (status `export`)."""
    rows = []
    for folder in reversed(entries()):
        profile = _profile_of(folder)
        parts = sorted(p.name[: -len(SUFFIX)] for p in folder.glob(f"*{SUFFIX}"))
        rows.append((profile or "?", _status(folder, profile), len(parts), round(size_of(folder) / 2**20, 1),
                     time.strftime("%Y-%m-%d %H:%M", time.localtime(folder.stat().st_mtime)), folder.name))
    for export in reversed(sorted(derived.exports(), key=_mtime)):
        rows.append((str(export), "export", 1, round(derived.size([export]) / 2**20, 1),
                     time.strftime("%Y-%m-%d %H:%M", time.localtime(_mtime(export))),
                     f"{derived.EXPORTS}/{export.name}"))
    return ["profile", "status", "parts", "size_mib", "last_used", "folder"], rows


def summary() -> dict:
    """The folder, its size (everything derived from profiles: what `cache clear` removes) and settings."""
    folders, copies, exports = entries(), wal_entries(), derived.exports()
    copies_size, exports_size = sum(size_of(f) for f in copies), derived.size(exports)
    others = [f for f in derived.files() if f.parent.name != derived.EXPORTS]
    spills = derived.dead_spills()
    total = sum(size_of(f) for f in folders) + copies_size + derived.size(derived.files()) + _tree_size(spills)
    return {"folder": str(cache_dir()), "profiles": len(folders), "size_mib": round(total / 2**20, 1),
            "wal_copies": len(copies), "wal_copies_mib": round(copies_size / 2**20, 1),
            "exports": len(exports), "exports_mib": round(exports_size / 2**20, 1),
            "remembered": len(others), "remembered_mib": round(derived.size(others) / 2**20, 1),
            "dead_spills": len(spills),
            "bound_mib": round(max_size() / 2**20, 1), "min_profile_mib": round(min_size() / 2**20, 1)}


def _tree_size(folders: list[Path]) -> int:
    return sum(derived.size([p for p in f.rglob("*") if p.is_file()]) for f in folders)


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _profile_of(folder: Path) -> str | None:
    """The profile path recorded in the first raw-table file of a cache folder."""
    from ...core.duckdb_engine import duckdb
    from .parts import meta

    con = duckdb.connect()
    try:
        for f in sorted(folder.glob(f"*{SUFFIX}")):
            try:
                profile = meta(con, f).get("profile")
            except duckdb.Error:
                continue
            if profile:
                return profile
    finally:
        con.close()
    return None


def _status(folder: Path, profile: str | None) -> str:
    """current: the profile is there and unchanged; changed: it was rewritten or replaced; missing: gone; damaged:
    a part cannot be read whole (its next use builds it again)."""
    if _damaged(folder):
        return "damaged"
    if profile is None:
        return "unknown"
    path = Path(profile)
    if not path.exists():
        return "missing"
    from .identity import identity, path_prefix
    from .layout import salt

    return "current" if folder.name == f"{path_prefix(path)}{identity(path, salt())}" else "changed"



VERIFIED = "verified"  # in a cache folder: {part: its facts when it was last read whole}


def _damaged(folder: Path) -> bool:
    """Whether a part of the folder cannot be read whole. A part read whole before and unchanged since (the same
    facts: inode, size, mtime, ctime) is not read again: a part is never written once in place, so `cache list` reads
    each once (about 8 s per GB)."""
    import json

    try:
        known = json.loads((folder / VERIFIED).read_text())
    except (OSError, ValueError):
        known = {}
    sound, bad = {}, False
    for part in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            key = facts(part)
        except OSError:
            continue
        if (isinstance(known, dict) and known.get(part.name) == key) or whole(part):
            sound[part.name] = key
        else:
            bad = True
    if sound != known:
        _write(folder / VERIFIED, json.dumps(sound))
    return bad


def _write(path: Path, text: str) -> None:
    """`text` to `path` whole, in a folder that exists (one being removed: nothing is written)."""
    import os

    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
