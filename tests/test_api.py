"""The Python API: open, kernel_summary as a DataFrame, SQL over the views, version independence."""

from __future__ import annotations

import json
import re
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


# -- the API's own bad input: one UsageError or QueryError that names the mistake, never an internal one ----------
@pytest.mark.parametrize("call, words", [
    (lambda p: p.nvtx_gpu_summary(attribution="bogus"), "attribution 'bogus'"),   # was a NameError
    (lambda p: p.nvtx_kernel_summary(attribution="bogus"), "attribution 'bogus'"),
    (lambda p: p.kernel_summary(start_ns="1s"), "start_ns='1s'"),                # was "the file is damaged"
    (lambda p: p.kernel_summary(limit=0), "limit=0"),                            # was an empty frame
    (lambda p: p.kernel_summary(limit=-1), "limit=-1"),                          # was DuckDB's Binder Error
    (lambda p: p.kernel_summary(limit="5"), "limit='5'"),                        # was a ValueError
    (lambda p: p.kernel_summary(limt=5), "unknown filter 'limt'"),              # was a TypeError on KernelFilter
    (lambda p: (p.attach(PROFILES / "gpt_forward.sqlite", "b"), p.attach(PROFILES / "gpt_forward.sqlite", "b")),
     "the alias 'b' is taken"),                                                 # was DuckDB's BinderException
])
def test_a_wrong_argument_is_a_usage_error_naming_it(call, words):
    from nsys_analytics.core.errors import UsageError

    with nsys_analytics.open(TRAIN) as p, pytest.raises(UsageError, match=re.escape(words)):
        call(p)


def test_df_runs_the_users_query_read_only_and_blames_the_query(tmp_path):
    """df() is the user's door: the `sql` command's guard (a COPY onto the profile replaced it; INSTALL went to the
    network), and a conversion in the query is the query's error, not "the file is damaged"."""
    import hashlib
    import shutil

    from nsys_analytics.core.errors import QueryError

    copy = tmp_path / "copy.sqlite"
    shutil.copy(TRAIN, copy)
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    with nsys_analytics.open(copy) as p:
        for query in (f"COPY (SELECT 1 AS x) TO '{copy}' (FORMAT csv)", "INSTALL httpfs",
                      f"ATTACH '{tmp_path / 'new.duckdb'}' AS n", "SELECT * FROM query('SELECT 42')"):
            with pytest.raises(QueryError, match="refused"):
                p.df(query)
        with pytest.raises(QueryError, match="Conversion Error"):
            p.df("SELECT 'abc'::INT")
        assert p.df("SELECT count(*) AS n FROM kernels WHERE duration_ns > $d", {"d": 0})["n"][0] > 0
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before and not (tmp_path / "new.duckdb").exists()


def test_kernel_summary_takes_graphs_and_keeps_the_notes():
    """`kernels --graphs` in Python: the rows the command prints with and without it (graphs_whole traced its 16
    graph executions whole), and without it the command's note that they are left out."""
    from click.testing import CliRunner

    from nsys_analytics.cli.main import cli

    path = PROFILES / "graphs_whole.sqlite"
    cli_rows = {g: len(json.loads(CliRunner().invoke(cli, ["kernels", str(path), "--format", "json",
                                                           *(["--graphs"] if g else [])]).output)) for g in (0, 1)}
    with nsys_analytics.open(path) as p:
        plain, graphs = p.kernel_summary(), p.kernel_summary(graphs=True)
    assert (len(plain), len(graphs)) == (cli_rows[0], cli_rows[1]) and len(graphs) > len(plain)
    assert any("whole CUDA graph executions" in n for n in plain.attrs["notes"])
