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
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from . import layout, parts
from .parts import SUFFIX
from .folder import cache_dir, columnar_dir, enabled, max_size, min_size
from .identity import path_prefix
from .lease import LEASE, Lease, hold, unused

WAL_COPIES = "wal-copies"  # source.py: a folder per WAL-mode export's version, with its lease
KERNEL_CHECKS = "kernel-checks"  # the kernel rows' checks of profiles read directly (Profile._valid_kernels)
# What DuckDB says of a cache file that is not whole: overwritten, truncated, a page that fails to decompress or
# decode, or gone (removed by hand while a reader used it).
_DAMAGED = re.compile(r"parquet|magic bytes|too small|zstd|decompress|corrupt|checksum|Could not read enough bytes"
                      r"|No more data remaining|No files found|Thrift|out of range for|invalid .*encoding",
                      re.IGNORECASE)
_DAMAGE = re.compile(r"malformed|not a database|disk I/O error|SQLite", re.IGNORECASE)


class ProfileCache:
    """The cache folder of one profile's present content."""

    def __init__(self, sqlite_path: Path, raw_columns: dict[str, set[str]], folder: Path):
        self.sqlite_path = sqlite_path
        self.raw_columns = raw_columns
        self.folder = folder
        self.broken = False  # a build failed: read the export directly from now on
        self.lease: Lease | None = None  # held from the first use on: eviction leaves the folder alone
        self._fresh = False  # this process made the folder: the folders of older versions go at its first build

    def file(self, name: str) -> Path:
        return self.folder / f"{name}{SUFFIX}"

    def use(self) -> bool:
        """Take this folder's lease (made if missing) unless held already; False where it cannot be had."""
        if self.lease is None and not self.broken:
            self._fresh = not self.folder.exists()
            self.lease = hold(self.folder / LEASE)
            if self.lease is None:
                self.broken = True
            else:
                weakref.finalize(self, self.lease.release)
        return self.lease is not None

    def close(self) -> None:
        """Release the lease (the files attached stay readable: an evictor can remove them from now on)."""
        if self.lease is not None:
            self.lease.release()

    def _drop_damaged(self) -> bool:
        """Remove the parts that cannot be read whole, with a note; True if there was one."""
        dropped = [f for f in self.folder.glob(f"*{SUFFIX}") if not whole(f)]
        for f in dropped:
            parts.remove(f)
            print(f"note: the cache of {self.sqlite_path.name} had a damaged part ({f.name}); building it again",
                  file=sys.stderr)
        return bool(dropped)

    def drop(self, name: str) -> None:
        """Remove a damaged part (its next use builds it again)."""
        parts.remove(self.file(name))

    def _ready(self, name: str) -> bool:
        """Whether the part is there and whole (its digest matches); one that is not is removed, with a note."""
        path = self.file(name)
        if not path.exists():
            return False
        if parts.intact(path):
            return True
        parts.remove(path)
        print(f"note: the cache of {self.sqlite_path.name} had a damaged part ({path.name}: its bytes do not match "
              "their digest); building it again", file=sys.stderr)
        return False

    def ensure(self, names, whole_kernels: bool = False) -> dict[str, Path]:
        """The cache files of these raw tables and decoded views, built first where missing (those that could
        not be built are left out: read them from the export). The kernel table's file is its core copy
        (layout.CORE) unless the whole table is cached already or `whole_kernels` asks for it."""
        found = {}
        if not names or not self.use():  # nothing asked: no folder made for it
            return found
        for name in names:
            part = name
            if name == layout.KERNEL_TABLE and not whole_kernels and not self._ready(name):
                part = layout.CORE
                if not self.broken and not self._ready(part) and not self._build(part):
                    part = name  # no core copy (rows may repeat): the whole table
            if not self.broken and (self._ready(part) or self._build(part)):
                found[name] = self.file(part)
        return found

    def ensure_parts(self, names) -> list[str]:
        """Build these part files (named as their files are) where missing; return those that are there."""
        return [p for p in names if self.use() and not self.broken and (self._ready(p) or self._build(p))]

    def is_core(self, path: Path) -> bool:
        return path == self.file(layout.CORE)

    def _build(self, name: str, again: bool = True) -> bool:
        from .build import build_table

        try:
            if name in layout.MATERIALIZED:
                from ...core.duckdb_engine import duckdb

                threads = layout.THREADS.get(name)
                try:
                    built = self._build_view(name, inline=name in layout.INLINE_FIRST, threads=threads,
                                             pool=layout.POOL.get(name))
                except duckdb.OutOfMemoryException:
                    if threads == 1:  # built on one thread already: nothing leaner to try
                        raise
                    built = self._build_view_lean(name)
                if not built:
                    return False
            elif name == layout.CORE:
                build_table(self.sqlite_path, self.raw_columns, layout.KERNEL_TABLE, self.file(name), core=True)
            else:
                build_table(self.sqlite_path, self.raw_columns, name, self.file(name))
                if name == layout.KERNEL_TABLE and self.file(name).exists():
                    # the whole table holds every column of the core copy, which nothing reads from now on (a
                    # process that read it finds it gone at its next query and reads the whole table: reader.heal)
                    parts.remove(self.file(layout.CORE))
        except Exception as e:  # noqa: BLE001 - a cache that cannot be written must not stop the command
            from ...core.duckdb_engine import duckdb

            if not isinstance(e, (OSError, duckdb.Error)):
                raise
            if again and damaged(e) and self._drop_damaged():  # a part it read was damaged: built anew first
                return self._build(name, again=False)
            self.broken = True
            if not _DAMAGE.search(str(e)):  # a damaged profile: the direct read reports it, as without a cache
                print(f"note: cannot cache {self.sqlite_path.name} ({str(e).splitlines()[0]}); reading it "
                      "directly", file=sys.stderr)
            return False
        if self._fresh:
            self._fresh = False
            forget_older(self.folder)
        evict(keep=self.folder)
        return self.file(name).exists()

    def _build_view_lean(self, name: str) -> bool:
        """A view that ran out of memory, built again more leanly: one that joins the export inline stores the join
        first, then groups what it stored; then, if still out of memory, on one thread, whose hash tables are the
        only ones (nvtx_kernel_groups' groupings at 50 M kernels with --attribution gpu fit 1 GB on one or two
        threads, not on four: layout.THREADS). Both in the default pool, where a view of layout.POOL ran out in its
        larger one: DuckDB can run out under a larger limit where a smaller one spills (the whole cache build at
        50 M kernels did once under 1.5 GB, and not under 1 GB)."""
        from ...core.duckdb_engine import duckdb

        if name in layout.INLINE_FIRST:
            try:
                return self._build_view(name, inline=False)
            except duckdb.OutOfMemoryException:
                pass
        return self._build_view(name, inline=False, threads=1)

    def _build_view(self, name: str, inline: bool, threads: int | None = None, pool: str | None = None) -> bool:
        """Build a decoded view; False where a raw table it reads cannot be cached. The stored views it reads are
        built first (their joins are then not held in memory beside its own), or, `inline`, read only where they
        are built already, and the raw tables its filters prune (layout.INLINE_FIRST) are read from the export."""
        from .build import build_decoded

        if inline:
            decoded = {n: self.file(n) for n in layout.stored_inputs(name) if self._ready(n)}
        else:
            decoded = self.ensure(layout.stored_inputs(name))
        tables = layout.build_plan(name, frozenset(decoded))[1]
        pruned = [t for t in layout.INLINE_FIRST.get(name, ()) if inline and t in tables and not self.file(t).exists()]
        tables = [t for t in tables if t not in pruned]
        inputs = self.ensure(tables, whole_kernels=layout.needs_whole_kernels(name))
        if len(inputs) < len(tables):
            return False
        build_decoded(name, inputs, self.file(name), decoded, from_export=(self.sqlite_path, self.raw_columns, pruned),
                      threads=threads, pool=pool)
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


def forget_older(folder: Path) -> None:
    """Remove the caches of what this path held before (a changed or replaced profile)."""
    prefix = folder.name[: folder.name.rfind("-") + 1]
    for old in folder.parent.glob(f"{glob_escape(prefix)}*"):
        if old != folder and old.is_dir():
            remove(old)


def remove(folder: Path) -> bool:
    """Remove a cache folder (a profile's, or a WAL copy's with the profile caches made from it) unless a process
    holds its lease; False if one does."""
    with unused(folder / LEASE) as free:
        if free:
            shutil.rmtree(folder, ignore_errors=True)
    if free and folder.parent.name == WAL_COPIES:
        for copy_caches in columnar_dir().glob(f"{glob_escape(path_prefix(folder / _copy_name(folder)))}*"):
            remove(copy_caches)
    return free


def _copy_name(folder: Path) -> str:
    """The WAL copy's file name in its folder (`<stem>.sqlite`, the folder being `<stem>-<path hash>-<identity>`)."""
    return f"{folder.name.rsplit('-', 2)[0]}.sqlite"


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
    return _folders(columnar_dir())


def wal_entries() -> list[Path]:
    """The folders of WAL-mode exports' copies (source.py), least recently used first."""
    return _folders(cache_dir() / WAL_COPIES)


def _folders(root: Path) -> list[Path]:
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
    folders = sorted([*entries(), *wal_entries()], key=_mtime)
    sizes = {f: size_of(f) for f in folders}
    total = sum(sizes.values())
    removed = []
    for f in folders:
        if total <= bound:
            break
        if f == keep or not f.exists() or not remove(f):  # gone with its WAL copy, or in use: kept
            continue
        total -= sizes[f]
        removed.append(f)
    return removed


@dataclass
class Cleared:
    """What `clear` removed (and kept: in use), for `cache clear` to say."""

    caches: list[Path] = field(default_factory=list)  # profile cache folders and WAL copies
    exports: list[Path] = field(default_factory=list)  # reports' SQLite exports
    remembered: list[Path] = field(default_factory=list)  # per-profile results and digests
    spills: list[Path] = field(default_factory=list)  # killed processes' DuckDB spill folders
    kept: list[Path] = field(default_factory=list)
    bytes: int = 0


def clear(sqlite_path: Path | None = None) -> Cleared:
    """Remove every cache, WAL copy, report export and remembered result (or those of one profile path: of a
    report, its export's too), what killed builds, copies and connections left; return what went."""
    from . import derived

    prefix = path_prefix(sqlite_path) if sqlite_path is not None else ""
    done = Cleared()
    for export in derived.exports() if prefix else []:  # a report's export and what was derived from it
        if export.name.startswith(prefix):
            _clear_prefix(path_prefix(export), done)
    _clear_prefix(prefix, done)
    done.spills = derived.remove_dead_spills()
    return done


def _clear_prefix(prefix: str, done: Cleared) -> None:
    from . import derived
    from .build import remove_orphans
    from .orphans import remove_partials

    for f in [*wal_entries(), *entries()]:  # a WAL copy first: the caches made from it go with it
        if f.name.startswith(prefix) and f.exists():
            size = size_of(f)
            if remove(f):
                done.caches.append(f)
                done.bytes += size
            else:
                done.kept.append(f)
    for f in [*entries(), *wal_entries()]:
        remove_orphans(f)  # its parts' and their digests' temporary files, and killed copies
    for folder in derived.memo_folders():
        remove_partials(folder)  # killed copies, exports and memo writes
    if not prefix:  # WAL copies of an earlier release (files, not folders): nothing reads them any more
        for old in (cache_dir() / WAL_COPIES).glob("*.sqlite"):
            old.unlink(missing_ok=True)
    found = derived.files(prefix)
    done.bytes += derived.size(found)
    derived.remove(found)
    for f in found:
        (done.exports if f.parent.name == derived.EXPORTS else done.remembered).append(f)


def damaged(error: Exception) -> bool:
    """Whether DuckDB's error says a cache file is not whole."""
    return bool(_DAMAGED.search(str(error)))


def whole(part: Path) -> bool:
    """Whether every value of a part and its metadata can be read."""
    from ...core.duckdb_engine import duckdb

    if not parts.intact(part):
        return False
    con = duckdb.connect()
    try:
        parts.read_whole(con, part)
    except duckdb.Error:
        return False
    finally:
        con.close()
    return True
