"""How a Profile reads its cache: before a query runs, the cache files of what it reads are built if missing,
attached read-only, and put behind the compat views and the decoded views' names."""

from __future__ import annotations

from . import layout
from .store import ProfileCache


class CacheReader:
    """The cache files attached to one DuckDB connection for one profile (`pcache` None: no cache)."""

    def __init__(self, con, pcache: ProfileCache | None, catalog: str = "memory"):
        self.con = con
        self.pcache = pcache
        self.catalog = catalog
        self.attached: dict[str, str] = {}  # part -> catalog name

    def prepare(self, query: str, objects: list[str], build: bool = True) -> None:
        """Put cache files behind the raw tables `query` and the views `objects` (about to be created) read."""
        if self.pcache is None:
            return
        from ..schema_objects import body

        tables = set(layout.tables_named(query))
        decoded = []
        for name in objects:
            if name in layout.MATERIALIZED:
                decoded.append(name)
            else:
                tables |= layout.tables_named(body(name))
        wanted = [p for p in (*sorted(tables), *decoded) if p not in self.attached]
        if not build:
            wanted = [p for p in wanted if self.pcache.file(p).exists()]
        for part, path in self.pcache.ensure(wanted).items():
            self._attach(part, path)

    def _attach(self, part: str, path) -> None:
        from ..database import _quote

        alias = f"nsys_cache_{part}"
        self.con.execute(f'ATTACH {_quote(str(path))} AS "{alias}" (READ_ONLY)')
        self.attached[part] = alias
        if part not in layout.MATERIALIZED:
            # The kernel table's compat view filters invalid rows out of compat._all_kernels (profile.py): the
            # cached copy goes under that filter.
            view = "_all_kernels" if part == "CUPTI_ACTIVITY_KIND_KERNEL" else part
            self.con.execute(f'CREATE OR REPLACE VIEW "{self.catalog}".compat."{view}" AS '
                             f'SELECT * FROM "{alias}".compat."{part}"')

    def decodes(self, name: str) -> bool:
        """Whether the cache stores this view as a table (then what it reads need not be created)."""
        return self.pcache is not None and name in layout.MATERIALIZED

    def body(self, name: str) -> str | None:
        """A read of the decoded table for a view the cache holds, else None."""
        if name in layout.MATERIALIZED and name in self.attached:
            return f'SELECT * FROM "{self.attached[name]}".{layout.DECODED}.{name}'
        return None
