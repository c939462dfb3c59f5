"""Values in a well-formed export that no report can use, on one handling path (README: Bad input).

Where a value cannot be right and the rows around it still can, the views skip it and count it (bad_rows.py: the
SKIPPED note). What is left surfaces as one of DuckDB's data errors while a query runs: a value of the wrong type
(text or a blob in an integer column, a blob in a text one), an arithmetic overflow, text that is not UTF-8 (or a
message quoting it that Python cannot read). Whichever query met it, the
file is refused: `value_error` turns the error into a ProfileError (exit 1) naming the file and, where it can be
found, the table and column; never an SQL error (exit 2) or an internal one (exit 3)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from ..core.duckdb_engine import duckdb
from ..core.errors import ProfileError
from .raw_schema import RAW_TABLES

_WRONG_TYPE = re.compile(r'Invalid type in column "([^"]+)"')
_TEXT = ("unicode", "utf-8", "utf8")


def is_value_error(e: BaseException) -> bool:
    """Whether DuckDB raised `e` over a value it read (not over the query itself)."""
    if isinstance(e, (duckdb.DataError, OverflowError)):  # conversion, overflow, a value of the wrong type
        return True
    if isinstance(e, UnicodeDecodeError):  # DuckDB quoted bytes that are not UTF-8 (a blob's) in its message
        return True
    if isinstance(e, RuntimeError) and "OverflowError" in str(e):  # a sum too large for the run catalog's integers
        return True
    text = str(e).lower()
    return isinstance(e, (duckdb.InvalidInputException, duckdb.FatalException)) and any(t in text for t in _TEXT)


def value_error(e: BaseException, paths: list[Path], found_only: bool = False) -> ProfileError | None:
    """A ProfileError naming the file (of `paths`, the profiles the query read) and where it can, the table, or
    None when `e` is not about a value. `found_only` (a user's own query): only when a table of the file is found
    to hold the wrong type; else the value error is the query's."""
    if not is_value_error(e):
        return None
    first: dict[Path, Path] = {}
    for p in paths:  # a path given and the file read for it: once
        first.setdefault(Path(p).resolve(), Path(p))
    paths = list(first.values())
    unreadable = isinstance(e, UnicodeDecodeError)
    message = "text that is not UTF-8" if unreadable else _first_line(e)
    wrong = _WRONG_TYPE.search(message)
    for path in paths:
        found = _wrong_type_table(path, wrong.group(1) if wrong else None) if wrong or unreadable else None
        if found:
            table, column, kind, expected = found
            return ProfileError(f"{path}: table {table}, column {column} holds {kind} where nsys writes {expected}; "
                                "the file is damaged or was not written by nsys: re-export it from its .nsys-rep")
    if found_only:
        return None
    where = str(paths[0]) if len(paths) == 1 else "one of " + ", ".join(map(str, paths)) if paths else "the profile"
    return ProfileError(f"{where}: holds a value no report can use ({message}); the file is damaged or was not "
                        "written by nsys: re-export it from its .nsys-rep")


_EXPECTED = {"BIGINT": "integers", "VARCHAR": "text"}  # declared type: what nsys writes there, in words


def _wrong_type_table(path: Path, column: str | None) -> tuple[str, str, str, str] | None:
    """(table, column, what it holds, what nsys writes there) of the first table of `path` whose integer or text
    `column` (None: any such column) holds something else."""
    from .source import connect_readonly

    try:
        con = connect_readonly(path)
    except (sqlite3.Error, OSError):
        return None
    try:
        present = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table, columns in RAW_TABLES.items():
            for name, declared in columns.items() if table in present else ():
                if declared not in _EXPECTED or column not in (None, name):
                    continue
                # a number in a text column reads as text: only a blob is wrong there
                wrong = "NOT IN ('integer', 'null')" if declared == "BIGINT" else "= 'blob'"
                row = con.execute(f'SELECT typeof("{name}") FROM "{table}" '  # names from RAW_TABLES, not the user
                                  f'WHERE typeof("{name}") {wrong} LIMIT 1').fetchone()
                if row:
                    kind = {"text": "text", "blob": "a blob", "real": "a real number"}.get(row[0], row[0])
                    return table, name, kind, _EXPECTED[declared]
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return None


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
