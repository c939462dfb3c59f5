"""Each DuckDB connection spills into a folder of its own under the cache folder, removed when it is closed: two
instances spilling into one folder (diff reads its two sides at once) overwrote each other's files and crashed."""

from __future__ import annotations

from pathlib import Path

from nsys_analytics.data import database


def test_two_connections_spill_apart_and_clean_up(cache_folder):
    a, b = database.connect(), database.connect()
    folders = [Path(c.execute("SELECT current_setting('temp_directory')").fetchone()[0]) for c in (a, b)]
    assert folders[0] != folders[1] and all(f.name.startswith(".duckdb-tmp-") for f in folders)
    for con in (a, b):  # make each spill: an in-memory table of 80 MB in a 20 MB pool
        con.execute("SET memory_limit = '20MB'")
        con.execute("SET threads = 1")
        con.execute("CREATE TABLE t AS SELECT i FROM range(10000000) r(i)")
    assert all(f.is_dir() for f in folders)
    database.close(a)
    database.close(b)
    assert not any(f.exists() for f in folders)
