"""A cache part on disk: one Parquet file (zstd, Parquet 2 encodings), its facts (layout.meta_rows, the bad kernel
rows it was stored without) in the file's key-value metadata.

Parquet 2's delta encodings store sorted timestamps and ids in a few bits each, and zstd takes the rest: the cache
of a 1 M-kernel export went from 99.8 MB as DuckDB files to under 10 MB (docs/cache.md, Size). A query reads a part
through `read_parquet`, which opens the file by its path each time: a part is never written in place (build.py
renames a whole file into place), so a reader sees the old file or the new one, never a mix."""

from __future__ import annotations

from pathlib import Path

from .digest import hash_file

SUFFIX = ".parquet"
_OPTIONS = "FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION v2"


# Parquet has no 128-bit integer (DuckDB writes a HUGEINT as a DOUBLE): such a column, a sum of durations, is
# stored as DECIMAL(38,0), its names in the metadata under this key, and read back as HUGEINT.
_HUGEINT = "hugeint_columns"


def source(con, path: Path) -> str:
    """The FROM item that reads a part, with the types it was written from."""
    from ..database import _ident, _quote

    read = f"read_parquet({_quote(str(path))})"
    wide = [c for c in meta(con, path).get(_HUGEINT, "").split(",") if c]
    if not wide:
        return read
    casts = ", ".join(f"CAST({_ident(c)} AS HUGEINT) AS {_ident(c)}" for c in wide)
    return f"(SELECT * REPLACE ({casts}) FROM {read})"


def write(con, select: str, target: Path, meta: dict[str, str], in_time_order: bool = False) -> None:
    """The rows of `select` to the file `target`, with `meta` as its key-value metadata; `in_time_order`: ordered by
    their `start_ns` where they have one. A decoded view comes out of parallel joins and groupings in no order, and
    its timestamps then differ by more from row to row: `_range_ops` at 10 M kernels took 241 MB unordered, 20 MB
    ordered (3.9 s to write instead of 2.5 s), and a scan of a time window skips the row groups outside it."""
    from ..database import _ident, _quote
    from ..sql_files import sql_literal

    columns = con.execute(f"DESCRIBE {select}").fetchall()
    wide = [name for name, kind, *_ in columns if kind == "HUGEINT"]
    if wide:
        casts = ", ".join(f"CAST({_ident(c)} AS DECIMAL(38, 0)) AS {_ident(c)}" for c in wide)
        select = f"SELECT * REPLACE ({casts}) FROM ({select})"
        meta = meta | {_HUGEINT: ",".join(wide)}
    if in_time_order and "start_ns" in [name for name, *_ in columns]:  # outermost: COPY keeps a top ORDER BY
        select = f"SELECT * FROM ({select}) ORDER BY start_ns"
    # Literals, not bound parameters: DuckDB's first parameter binding imports pandas (a quarter of a second).
    pairs = ", ".join(f"{sql_literal(k)}: {sql_literal(v)}" for k, v in meta.items())
    kv = f", KV_METADATA {{{pairs}}}" if pairs else ""
    con.execute(f"COPY ({select}) TO {_quote(str(target))} ({_OPTIONS}{kv})")


def meta(con, path: Path) -> dict[str, str]:
    """The key-value metadata a part was written with."""
    from ..database import _quote

    rows = con.execute(f"SELECT decode(key), decode(value) FROM parquet_kv_metadata({_quote(str(path))})").fetchall()
    return dict(rows)


def row_count(con, path: Path) -> int:
    """The rows a part holds, from its footer (nothing is decoded)."""
    from ..database import _quote

    return int(con.execute(f"SELECT sum(num_rows) FROM parquet_file_metadata({_quote(str(path))})").fetchone()[0])


def read_whole(con, path: Path) -> None:
    """Raise DuckDB's error where a value of the part cannot be read (a damaged page fails to decompress)."""
    con.execute(f"SELECT min(COLUMNS(*)) FROM {source(con, path)}").fetchall()  # source reads the metadata


# -- the seal: Parquet pages carry no checksum (a flipped byte reads as other numbers half the time), so each part
# has the XXH3-128 digest of its bytes beside it, `<part>.xxh3`, written before the part is renamed into place and
# checked once per process before the part is first read (about 1 ms per 10 MB).
_SEALED: dict[tuple, bool] = {}  # (path, its facts) -> intact


def seal_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.xxh3")


def seal(tmp: Path, target: Path) -> None:
    """Write the digest of `tmp`, about to be renamed to `target`, beside `target` (whole: renamed into place)."""
    import os

    text = hash_file(tmp, "xxh3_128")
    sealed = seal_path(target)
    partial = sealed.with_name(f".{sealed.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text)
        os.replace(partial, sealed)
    finally:
        partial.unlink(missing_ok=True)


def intact(path: Path) -> bool:
    """Whether the part's bytes have the digest written beside it. A mismatch is read again once after a moment:
    a second process that built the same part may be between writing its digest and renaming its part."""
    import time

    for attempt in range(2):
        key = _facts(path)
        if key is not None and key in _SEALED:
            return _SEALED[key]
        try:
            ok = seal_path(path).read_text() == hash_file(path, "xxh3_128")
        except OSError:
            ok = False
        if ok or attempt:
            if key is not None:
                _SEALED[key] = ok
            return ok
        time.sleep(0.05)
    return False


def remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    seal_path(path).unlink(missing_ok=True)


def _facts(path: Path) -> tuple | None:
    import os

    try:
        st = os.stat(path)
        sealed = os.stat(seal_path(path))
    except OSError:
        return None
    return (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, sealed.st_ino, sealed.st_mtime_ns)
