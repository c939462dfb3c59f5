"""How a Profile reads its cache: before a query runs, the cache files of what it reads are built if missing and
attached read-only; the Profile then puts them behind the compat views and the decoded views' names."""

from __future__ import annotations

from ..bad_rows import BadRows
from . import layout, parts
from .store import ProfileCache, damaged


class CacheReader:
    """The cache files attached to one DuckDB connection for one profile (`pcache` None: no cache)."""

    def __init__(self, con, pcache: ProfileCache | None, decoded: bool = True):
        self.con = con
        self.pcache = pcache
        self.decoded = decoded  # False: raw tables only (a profile that keeps some rows of each)
        self.attached: dict[str, str] = {}  # part -> the FROM item that reads it
        self.paths: dict = {}  # part -> the file attached
        self.core = False  # the kernel table attached is its core copy (layout.CORE)

    def prepare(self, tables, decoded, build: bool = True, whole_kernels: bool = False) -> None:
        """Attach the cache files of these raw tables and decoded views (built first where missing, unless not
        `build`); what cannot be cached is left out: the Profile reads it from the export. The kernel table is
        its core copy unless `whole_kernels` (or the whole table is cached already)."""
        if self.pcache is None:
            return
        wanted = [p for p in (*sorted(tables), *decoded) if p not in self.attached]
        if not build:
            wanted = [p for p in wanted if self.pcache.file(p).exists() or (
                p == layout.KERNEL_TABLE and self.pcache.file(layout.CORE).exists())]
        for part, path in self.pcache.ensure(wanted, whole_kernels).items():
            self._attach(part, path)

    def _attach(self, part: str, path) -> None:
        """Read `part` from the file `path` from now on (the store checked its digest)."""
        # a core kernel copy is removed once the whole table is copied (by a view built since, or another process)
        if self.pcache.is_core(path) and not path.exists():
            whole = self.pcache.ensure([part], whole_kernels=True).get(part)
            if whole is None:  # it could not be copied: the kernels are read from the export
                return
            path = whole
        self.attached[part] = parts.source(self.con, path)
        self.paths[part] = path
        if part == layout.KERNEL_TABLE:
            self.core = self.pcache.is_core(path)

    def whole_kernels(self) -> bool:
        """Replace an attached core kernel copy by the whole table (copied now), or, where it cannot be copied (a
        full disk), by nothing: the kernels are then read from the export. False if no core copy was attached."""
        if self.pcache is None or not self.core:
            return False
        found = self.pcache.ensure([layout.KERNEL_TABLE], whole_kernels=True)
        if found.get(layout.KERNEL_TABLE) == self.pcache.file(layout.KERNEL_TABLE):
            self._attach(layout.KERNEL_TABLE, found[layout.KERNEL_TABLE])
        else:
            del self.attached[layout.KERNEL_TABLE], self.paths[layout.KERNEL_TABLE]
            self.core = False
        return True

    def core_gone(self) -> bool:
        """Whether the core kernel copy read is gone: another process copied the whole table and removed it."""
        return self.core and not self.paths[layout.KERNEL_TABLE].exists()

    def heal(self, error: Exception) -> bool:
        """After a query failed on a damaged cache file (truncated, overwritten, a block whose checksum fails):
        each attached part that cannot be read whole is removed, built again and attached under its alias, with
        a one-line note; True if one was, then the query can run again."""
        if self.pcache is None or not damaged(error):
            return False
        healed = False
        for part, path in list(self.paths.items()):
            problem = self._unreadable(path)
            if problem is not None:
                self._rebuild(path, problem)
                self._attach(part, path)
                healed = True
        return healed

    def _unreadable(self, path) -> Exception | None:
        """The error reading every value of a part raises, or None (none does)."""
        from ...core.duckdb_engine import duckdb

        try:
            parts.read_whole(self.con, path)
        except duckdb.Error as e:
            return e if damaged(e) else None
        return None

    def _rebuild(self, path, problem: Exception) -> None:
        import sys

        name = path.name[: -len(parts.SUFFIX)]
        self.pcache.drop(name)
        note = str(problem).splitlines()[0][:160]
        print(f"note: the cache of {self.pcache.sqlite_path.name} had a damaged part ({path.name}: {note}); "
              "built it again", file=sys.stderr)
        if name not in self.pcache.ensure_parts([name]):
            raise problem

    def close(self) -> None:
        """Release the cache folder's lease (Profile.close)."""
        if self.pcache is not None:
            self.pcache.close()

    def select(self, name: str) -> str | None:
        """A SELECT of the cached copy of a raw table, or None when it is not attached."""
        if name in layout.MATERIALIZED or name not in self.attached:
            return None
        if name == layout.KERNEL_TABLE and self.core:
            return layout.core_select(self.attached[name])
        return f"SELECT * FROM {self.attached[name]}"

    def bad_rows(self, part: str = layout.KERNEL_TABLE) -> BadRows | None:
        """The bad kernel rows the cached kernel table was stored without (its build counted them), from an
        attached part made from it; None for a part that reads no kernel."""
        reads = part == layout.KERNEL_TABLE or (part in layout.MATERIALIZED and
                                                layout.KERNEL_TABLE in layout.tables_of(part))
        if part not in self.attached or not reads:
            return None
        meta = parts.meta(self.con, self.paths[part])
        return BadRows(**{k: int(meta.get(f"bad_{k}", 0)) for k in BadRows.__dataclass_fields__})

    def rows(self, name: str) -> int | None:
        """The rows of the cached copy of a raw table (every sound row of the export's), or None when it is not
        attached."""
        if name in layout.MATERIALIZED or name not in self.attached:
            return None
        return parts.row_count(self.con, self.paths[name])

    def decodes(self, name: str) -> bool:
        """Whether the cache stores this view as a table (then what it reads need not be created)."""
        return self.pcache is not None and self.decoded and name in layout.MATERIALIZED

    def body(self, name: str) -> str | None:
        """A read of the decoded table for a view the cache holds, else None."""
        if name in layout.MATERIALIZED and name in self.attached:
            return f"SELECT * FROM {self.attached[name]}"
        return None
