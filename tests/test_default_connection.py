"""The package never runs anything on DuckDB's module-wide default connection (README, Python): a program's own
queries there, from any thread, and ours do not meet. tests/test_sql_read_only.py shows what sharing it did."""

from __future__ import annotations

import re

from .conftest import ROOT

# The module-level functions that touch no connection, and connect(), which makes one of ours.
CONNECTIONLESS = {"connect", "tokenize"}
_CALL = re.compile(r"\bduckdb\.([a-z_]+)\s*\(")


def test_no_module_level_duckdb_call_runs_on_the_default_connection():
    calls = {(path.relative_to(ROOT).as_posix(), name)
             for path in sorted((ROOT / "nsys_analytics").rglob("*.py"))
             for name in _CALL.findall(path.read_text(encoding="utf-8"))}
    assert calls, "the pattern finds no call at all"
    assert sorted(c for c in calls if c[1] not in CONNECTIONLESS) == []
