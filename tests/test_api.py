"""The Python API: open, kernel_summary as a DataFrame, SQL over the views, version independence."""

from __future__ import annotations

import sqlite3

import pytest

import nsys_analytics
from nsys_analytics.core.errors import ProfileError

from .conftest import PROFILES, oracle_csv, read_csv

TRAIN = PROFILES / "gpt_train.sqlite"


def test_kernel_summary_dataframe_matches_nsys():
    expected = read_csv(oracle_csv(TRAIN, "cuda_gpu_kern_sum_base"))
    with nsys_analytics.open(TRAIN) as p:
        df = p.kernel_summary(limit=5, name_kind="short")
    assert list(df.columns) == ["time_pct", "total_time_ns", "instances", "avg_ns", "med_ns", "min_ns",
                                "max_ns", "stddev_ns", "name"]
    assert df["name"].tolist() == [row[8] for row in expected[1:6]]
    assert df["avg_ns"].tolist() == [float(row[3]) for row in expected[1:6]]


def test_views_are_identical_across_versions(tmp_path):
    """A 2020-style export (no metadata, no mangledName, no PROCESSES) has the same columns, with NULLs."""
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as con:
        con.executescript("""
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO StringIds VALUES (1, 'void k<int>(int)'), (2, 'k');
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT,
                streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,
                gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
                (100, 150, 0, 1, 7, 5, 4660 << 24, 1, 2, 1, 1, 1, 32, 1, 1),
                (200, 230, 0, 1, 7, 6, 4660 << 24, 1, 2, 1, 1, 1, 32, 1, 1);
        """)
    with nsys_analytics.open(old) as p, nsys_analytics.open(TRAIN) as new:
        for view in ("kernels", "cuda_api", "nvtx_events", "memcpy", "session", "devices"):
            assert p.sql(f"SELECT * FROM {view} LIMIT 0").columns == new.sql(f"SELECT * FROM {view} LIMIT 0").columns
        row = p.sql("SELECT pid, duration_ns, name, short_name, mangled_name, launch_tid FROM kernels "
                    "ORDER BY start_ns").rows[0]
        assert row == (4660, 50, "void k<int>(int)", "k", None, None)
        # hand-checked: durations 50 and 30 -> total 80, mean 40, median 40, sample stddev sqrt(200) = 14.142...
        summary = p.kernel_summary()
        assert summary.iloc[0][["total_time_ns", "instances", "avg_ns", "med_ns", "stddev_ns"]].tolist() == \
            [80, 2, 40.0, 40.0, 14.1]
        assert p.sql("SELECT nsys_version, duration_ns FROM session").rows == [(None, 130)]


def test_open_rejects_bad_input(tmp_path):
    with pytest.raises(ProfileError, match="no such file"):
        nsys_analytics.open(tmp_path / "missing.sqlite")


def test_views_are_made_on_first_use_and_all_listed_to_catalog_queries():
    kernels_in = "SELECT count(*) FROM kernels_in('demangled', NULL, NULL, NULL, NULL, NULL, NULL{})"
    with nsys_analytics.open(PROFILES / "gpt_train.sqlite") as p:
        every = p.sql(kernels_in.format("")).rows
        # the plain kernel filter did not bind the NVTX attribution; a range filter then gets the real one
        assert "_op_ranges" not in p._created
        forward = p.sql(kernels_in.format(", range_name := 'forward'")).rows
        assert "_op_ranges" in p._created and 0 < forward[0][0] < every[0][0]
    with nsys_analytics.open(PROFILES / "gpt_train.sqlite") as p:
        listed = {name for (name,) in p.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").rows}
    assert {"kernels", "kernel_ranges", "nvtx_events", "_op_ranges"} <= listed
