"""The cache folders of profiles: found by identity, built part by part, bounded, listed and cleared.

    c = cache.for_profile(sqlite_path, raw_columns)   # None: read the export itself (small, or --no-cache)
    c.ensure(["CUPTI_ACTIVITY_KIND_KERNEL", "kernels"]) -> {name: cache file}   # built now where missing

A profile's cache is a folder named by its identity (identity.py): a profile that changes or is replaced gets a
new folder and never reads the old one. Inside, one file per raw table (`compat.<TABLE>`, typed as the compat
layer types it) and per decoded view (`decoded.<VIEW>`, layout.MATERIALIZED), each built when a first query
needs it, so a command copies only what it reads. See docs/cache.md.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from . import layout
from .folder import columnar_dir, enabled, max_size, min_size
from .identity import path_prefix
from .memo import forget

SUFFIX = ".duckdb"
_DAMAGE = re.compile(r"malformed|not a database|disk I/O error|SQLite", re.IGNORECASE)


class ProfileCache:
    """The cache folder of one profile's present content."""

    def __init__(self, sqlite_path: Path, raw_columns: dict[str, set[str]], folder: Path):
        self.sqlite_path = sqlite_path
        self.raw_columns = raw_columns
        self.folder = folder
        self.broken = False  # a build failed: read the export directly from now on

    def file(self, name: str) -> Path:
        return self.folder / f"{name}{SUFFIX}"

    def ensure(self, names, whole_kernels: bool = False) -> dict[str, Path]:
        """The cache files of these raw tables and decoded views, built first where missing (those that could
        not be built are left out: read them from the export). The kernel table's file is its core copy
        (layout.CORE) unless the whole table is cached already or `whole_kernels` asks for it."""
        found = {}
        for name in names:
            part = name
            if name == layout.KERNEL_TABLE and not whole_kernels and not self.file(name).exists():
                part = layout.CORE
                if not self.broken and not self.file(part).exists() and not self._build(part):
                    part = name  # no core copy (rows may repeat): the whole table
            if not self.broken and (self.file(part).exists() or self._build(part)):
                found[name] = self.file(part)
        return found

    def is_core(self, path: Path) -> bool:
        return path == self.file(layout.CORE)

    def _build(self, name: str) -> bool:
        from .build import build_table

        new_folder = not self.folder.exists()
        try:
            if name in layout.MATERIALIZED:
                import duckdb

                try:
                    if not self._build_view(name, inline=name in layout.INLINE_FIRST):
                        return False
                except duckdb.OutOfMemoryException:
                    if name not in layout.INLINE_FIRST:
                        raise
                    # too large to join and group at once: store the join first, then group what it stored
                    if not self._build_view(name, inline=False):
                        return False
            elif name == layout.CORE:
                build_table(self.sqlite_path, self.raw_columns, layout.KERNEL_TABLE, self.file(name), core=True)
            else:
                build_table(self.sqlite_path, self.raw_columns, name, self.file(name))
        except Exception as e:  # noqa: BLE001 - a cache that cannot be written must not stop the command
            import duckdb

            if not isinstance(e, (OSError, duckdb.Error)):
                raise
            self.broken = True
            if not _DAMAGE.search(str(e)):  # a damaged profile: the direct read reports it, as without a cache
                print(f"note: cannot cache {self.sqlite_path.name} ({str(e).splitlines()[0]}); reading it "
                      "directly", file=sys.stderr)
            return False
        if new_folder:
            _forget_older(self.folder)
        evict(keep=self.folder)
        return self.file(name).exists()

    def _build_view(self, name: str, inline: bool) -> bool:
        """Build a decoded view; False where a raw table it reads cannot be cached. The stored views it reads are
        built first (their joins are then not held in memory beside its own), or, `inline`, read only where they
        are built already, and the raw tables its filters prune (layout.INLINE_FIRST) are read from the export."""
        from .build import build_decoded

        if inline:
            decoded = {n: self.file(n) for n in layout.stored_inputs(name) if self.file(n).exists()}
        else:
            decoded = self.ensure(layout.stored_inputs(name))
        tables = layout.build_plan(name, frozenset(decoded))[1]
        pruned = [t for t in layout.INLINE_FIRST.get(name, ()) if inline and t in tables and not self.file(t).exists()]
        tables = [t for t in tables if t not in pruned]
        inputs = self.ensure(tables, whole_kernels=layout.needs_whole_kernels(name))
        if len(inputs) < len(tables):
            return False
        build_decoded(name, inputs, self.file(name), decoded, from_export=(self.sqlite_path, self.raw_columns, pruned))
        return True


def for_profile(sqlite_path: Path, raw_columns: dict[str, set[str]]) -> ProfileCache | None:
    """The cache of this profile, or None when it is read directly (too small to gain, or caching is off)."""
    if not enabled() or sqlite_path.stat().st_size < min_size():
        return None
    from .identity import identity

    folder = columnar_dir() / f"{path_prefix(sqlite_path)}{identity(sqlite_path, layout.salt())}"
    if folder.exists():
        _touch(folder)
    return ProfileCache(sqlite_path, raw_columns, folder)


def _forget_older(folder: Path) -> None:
    """Remove the caches of what this path held before (a changed or replaced profile)."""
    prefix = folder.name[: folder.name.rfind("-") + 1]
    for old in folder.parent.glob(f"{glob_escape(prefix)}*"):
        if old != folder and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _touch(path: Path) -> None:
    """Mark a cache as just used: its mtime orders the least-recently-used eviction."""
    try:
        os.utime(path)
    except OSError:
        pass


def entries() -> list[Path]:
    """Profile cache folders, least recently used first."""
    root = columnar_dir()
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "duckdb-tmp"]
    return sorted(found, key=_mtime)


def size_of(folder: Path) -> int:
    total = 0
    for f in folder.glob("*"):
        try:
            total += f.stat().st_size
        except OSError:
            pass
    return total


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def evict(keep: Path | None = None, bound: int | None = None) -> list[Path]:
    """Remove the least recently used caches until the folder is under its size bound; return what went."""
    bound = max_size() if bound is None else bound
    folders = entries()
    sizes = {f: size_of(f) for f in folders}
    total = sum(sizes.values())
    removed = []
    for f in folders:
        if total <= bound:
            break
        if f == keep:
            continue
        total -= sizes[f]
        shutil.rmtree(f, ignore_errors=True)
        removed.append(f)
    return removed


def clear(sqlite_path: Path | None = None) -> list[Path]:
    """Remove every cache (or those of one profile path), what killed builds left and the results remembered
    beside the caches (memo.py); return the cache folders that went."""
    from .build import remove_orphans

    folders = entries()
    prefix = path_prefix(sqlite_path) if sqlite_path is not None else ""
    folders = [f for f in folders if f.name.startswith(prefix)]
    for f in folders:
        shutil.rmtree(f, ignore_errors=True)
    for f in entries():
        remove_orphans(f)
    forget(prefix)
    return folders
