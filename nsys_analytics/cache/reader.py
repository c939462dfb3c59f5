"""How a Profile reads its cache: before a query runs, the cache files of what it reads are built if missing and
attached read-only; the Profile then puts them behind the compat views and the decoded views' names."""

from __future__ import annotations

from ..bad_rows import BadRows
from . import layout
from .store import ProfileCache


class CacheReader:
    """The cache files attached to one DuckDB connection for one profile (`pcache` None: no cache)."""

    def __init__(self, con, pcache: ProfileCache | None, decoded: bool = True):
        self.con = con
        self.pcache = pcache
        self.decoded = decoded  # False: raw tables only (a profile that keeps some rows of each)
        self.attached: dict[str, str] = {}  # part -> catalog name

    def prepare(self, tables, decoded, build: bool = True) -> None:
        """Attach the cache files of these raw tables and decoded views (built first where missing, unless not
        `build`); what cannot be cached is left out: the Profile reads it from the export."""
        if self.pcache is None:
            return
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

    def table(self, name: str) -> str | None:
        """The cached copy of a raw table (`"catalog".compat."TABLE"`), or None when it is not attached."""
        if name in layout.MATERIALIZED or name not in self.attached:
            return None
        return f'"{self.attached[name]}".compat."{name}"'

    def bad_rows(self, part: str = layout.KERNEL_TABLE) -> BadRows | None:
        """The bad kernel rows the cached kernel table was stored without (its build counted them), from an
        attached part made from it; None for a part that reads no kernel."""
        reads = part == layout.KERNEL_TABLE or (part in layout.MATERIALIZED and
                                                layout.KERNEL_TABLE in layout.tables_of(part))
        if part not in self.attached or not reads:
            return None
        alias = self.attached[part]
        meta = dict(self.con.execute(f'SELECT key, value FROM "{alias}".{layout.META}').fetchall())
        return BadRows(**{k: int(meta.get(f"bad_{k}", 0)) for k in ("no_end", "negative", "duplicates")})

    def decodes(self, name: str) -> bool:
        """Whether the cache stores this view as a table (then what it reads need not be created)."""
        return self.pcache is not None and self.decoded and name in layout.MATERIALIZED

    def body(self, name: str) -> str | None:
        """A read of the decoded table for a view the cache holds, else None."""
        if name in layout.MATERIALIZED and name in self.attached:
            return f'SELECT * FROM "{self.attached[name]}".{layout.DECODED}.{name}'
        return None
