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

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from .folder import cache_dir, disable, enabled

if TYPE_CHECKING:
    from .layout import NOT_CACHED, PROJECTED, reads_launch_columns, tables_named
    from .cache_reader import CacheReader
    from .store import ProfileCache, clear, entries, evict, for_profile, size_of

__all__ = ["NOT_CACHED", "PROJECTED", "reads_launch_columns", "CacheReader", "ProfileCache", "cache_dir", "clear",
           "disable", "enabled", "entries", "evict", "for_profile", "reader", "size_of", "tables_named"]

# Imported on first use: a replayed answer (cli/replay.py) reads only the folder's settings, the identity and a
# remembered file, and importing the reader and the store (SQL files, bad-row checks) cost it a third of its time.
_LAZY = {"NOT_CACHED": "layout", "PROJECTED": "layout", "reads_launch_columns": "layout", "tables_named": "layout",
         "CacheReader": "cache_reader", "ProfileCache": "store", "clear": "store", "entries": "store", "evict": "store",
         "for_profile": "store", "size_of": "store"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def reader(con, sqlite_path: Path, raw_columns: dict[str, set[str]], use: bool = True,
           decoded: bool = True) -> "CacheReader":
    """A CacheReader for a Profile's connection (it reads nothing when `use` is false or there is no cache;
    no decoded view unless `decoded`)."""
    from .cache_reader import CacheReader
    from .store import for_profile

    return CacheReader(con, for_profile(sqlite_path, raw_columns) if use else None, decoded)
