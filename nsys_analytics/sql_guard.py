"""What `nsys-analytics sql` may run: read-only statements over the opened profiles.

Allowed: SELECT in all its forms (WITH, FROM-first, VALUES, DESCRIBE, SUMMARIZE, SHOW, PRAGMA table_info and other
pragmas that only return rows) and EXPLAIN of those; reading files the query names (read_csv, read_parquet, ...).
Refused, with exit code 2: anything that writes (COPY, EXPORT, CREATE, INSERT, ...), attaches or detaches a
database, installs or loads an extension, or changes a setting, and the table functions below. The statement types
come from DuckDB's own parser; after setup the configuration is locked (`lock_configuration`).
"""

from __future__ import annotations

import re

import duckdb

from .errors import QueryError

_READ_ONLY = {duckdb.StatementType.SELECT}
# Table functions with effects beyond their rows: logs and profiles written to files, checkpoints, databases
# attached, and SQL run from a string, which this check could not see into.
REFUSED_FUNCTIONS = ("enable_logging", "disable_logging", "truncate_duckdb_logs", "enable_profiling",
                     "disable_profiling", "checkpoint", "force_checkpoint", "sqlite_attach", "query",
                     "json_execute_serialized_sql")
_CALL = re.compile(r'(?<![\w$.])"?(' + "|".join(REFUSED_FUNCTIONS) + r')"?\s*\(', re.IGNORECASE)
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?:\([^)]*\)\s*)?(?:ANALY[SZ]E\s+)?", re.IGNORECASE)
WHAT = "`sql` runs read-only statements (SELECT, WITH, DESCRIBE, SUMMARIZE, SHOW, EXPLAIN)"


def check_read_only(query: str) -> None:
    """QueryError unless every statement of `query` only reads."""
    for statement in _statements(query):
        if statement.type == duckdb.StatementType.EXPLAIN:
            check_read_only(_EXPLAIN.sub("", statement.query, count=1))
        elif statement.type not in _READ_ONLY:
            word = (statement.query.split() or ["?"])[0].upper()
            raise QueryError(f"{WHAT}; {word} is refused: it would write, attach, install or load an extension, or "
                             "change a setting (write results with --format csv -o FILE)")
    called = _CALL.search(query)
    if called:
        raise QueryError(f"{WHAT}; {called.group(1)}() is refused: it acts beyond returning rows")


def _statements(query: str) -> list:
    try:
        return duckdb.extract_statements(query)
    except duckdb.Error as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise QueryError(f"SQL error: {message}") from None


def lock(con: duckdb.DuckDBPyConnection) -> None:
    """No statement can change the connection's settings any more (extensions, file access, temp folder)."""
    con.execute("SET lock_configuration = true")
