"""nsys' columnar exports: the folders `nsys export --type parquetdir` and `--type arrowdir` write (nsys 2024.2+).

A folder holds one file per table, named after the table and with the same columns as the SQLite export
(`CUPTI_ACTIVITY_KIND_KERNEL.parquet`, `StringIds.parquet`, ...). They are read in place: each file is a view
`raw.<TABLE>`, and the compat layer and every view above it are the same as for an SQLite export. A table has
no SQLite rowid here; `rowid` is the row's position in its file, from 1, as nsys numbers the rows of an SQLite
export. Parquet is read by DuckDB itself; Arrow IPC files through pyarrow (memory-mapped, not copied).
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import ProfileError

SUFFIXES = (".parquet", ".arrow")
HINT = "pass the folder `nsys export --type parquetdir` (or arrowdir) wrote, with one .parquet/.arrow file per table"


def is_export_dir(path: Path) -> bool:
    """A folder with at least one table file in it."""
    return path.is_dir() and any(p.suffix in SUFFIXES for p in path.iterdir())


def table_files(folder: Path) -> dict[str, Path]:
    """{table: its file}; a folder mixing the two formats is refused."""
    files = {p.stem: p for p in sorted(folder.iterdir()) if p.suffix in SUFFIXES and p.is_file()}
    if len({p.suffix for p in files.values()}) > 1:
        raise ProfileError(f"{folder}: holds both .parquet and .arrow files; {HINT}")
    if not files:
        raise ProfileError(f"{folder}: holds no .parquet or .arrow file; {HINT}")
    return files


def attach(con, folder: Path, raw: str) -> dict[str, set[str]]:
    """Views `raw.<TABLE>` over the folder's files in catalog `raw`; return {table: its columns}."""
    con.execute(f'ATTACH \':memory:\' AS "{raw}"')
    columns = {}
    for table, path in table_files(folder).items():
        if path.suffix == ".parquet":
            scan = f"read_parquet({_quote(str(path))}, file_row_number = true)"
            select = f"SELECT * EXCLUDE (file_row_number), file_row_number + 1 AS rowid FROM {scan}"
        else:
            name = f"_arrow_{raw}_{table}"
            con.register(name, _arrow_table(path))
            select = f"SELECT * FROM {name}"
        con.execute(f'CREATE VIEW "{raw}".main."{table}" AS {select}')
        columns[table] = {row[0] for row in con.execute(f'DESCRIBE "{raw}".main."{table}"').fetchall()}
    return columns


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _arrow_table(path: Path):
    """An Arrow IPC file (file or stream format), memory-mapped, with `rowid` 1..n appended."""
    try:  # a dependency of nsys-analytics, imported here only: opening other profiles never pays for it
        import pyarrow as pa
        import pyarrow.ipc as ipc
    except ImportError as e:
        raise ProfileError(f"{path.parent}: reading an arrowdir export needs pyarrow, which is missing; reinstall "
                           "nsys-analytics (pip install -e .) or export with `nsys export --type parquetdir`") from e
    source = pa.memory_map(str(path), "r")
    try:
        table = ipc.open_file(source).read_all()
    except pa.ArrowInvalid:
        source.seek(0)
        table = ipc.open_stream(source).read_all()
    return table.append_column("rowid", pa.array(range(1, table.num_rows + 1), pa.int64()))
