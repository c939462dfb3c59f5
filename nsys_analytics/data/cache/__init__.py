"""The columnar cache: a profile's event tables, copied once into Parquet files that later commands read.

    reader = cache.reader(con, sqlite_path, raw_columns)   # what a Profile asks before each query
    cache.entries(), cache.evict(), cache.clear(path)       # the cache folders (`nsys-analytics cache ...`)

A profile's cache is a folder named by its identity (identity.py): a profile that changes or is replaced gets a
new folder and never reads the old one. Inside, one Parquet file per raw table and per decoded view (layout.py),
each built when a first query needs it (build.py), so a command copies only what it reads. Small profiles are
read directly. A process reading a folder holds its lease (lease.py): eviction and `cache clear` leave it alone.
See docs/cache.md.
"""

from __future__ import annotations

from pathlib import Path

from .folder import cache_dir, disable, enabled
from .layout import NOT_CACHED, PROJECTED, reads_launch_columns, tables_named
from .reader import CacheReader
from .store import ProfileCache, clear, entries, evict, for_profile, size_of

__all__ = ["NOT_CACHED", "PROJECTED", "reads_launch_columns", "CacheReader", "ProfileCache", "cache_dir", "clear", "disable", "enabled", "entries", "evict",
           "for_profile", "reader", "size_of", "tables_named"]


def reader(con, sqlite_path: Path, raw_columns: dict[str, set[str]], use: bool = True,
           decoded: bool = True) -> CacheReader:
    """A CacheReader for a Profile's connection (it reads nothing when `use` is false or there is no cache;
    no decoded view unless `decoded`)."""
    return CacheReader(con, for_profile(sqlite_path, raw_columns) if use else None, decoded)
