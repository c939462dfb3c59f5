"""The Python API: `nsys_analytics.open()` on ncu input, `NcuReport`, `analyze()`, parallel reading."""

from __future__ import annotations

import pytest

import nsys_analytics
from nsys_analytics.core.errors import ProfileError, UsageError
from nsys_analytics.capabilities.ncu.analysis import Options, analyze
from nsys_analytics.capabilities.ncu.report import NcuReport, NotAnNsysProfile

from .conftest import PROFILES
from .test_ncu_fixtures import NCU, NSYS_PROFILE, open_report, report_path


def test_open_dispatches_on_ncu_input():
    with nsys_analytics.open(report_path("matmul_full")) as r:
        assert isinstance(r, NcuReport)
        assert r.num_kernels == 4
        assert repr(r).endswith("kernels=4)")
        assert r.df("SELECT count(*) AS n FROM ncu_kernels")["n"][0] == 4
    assert isinstance(nsys_analytics.open(NCU / "matmul_full_raw.csv"), NcuReport)
    assert type(nsys_analytics.open(PROFILES / "no_nvtx.sqlite")).__name__ == "Profile"


def test_tables_and_info():
    r = open_report("matmul_full")
    kernels = r.df("SELECT * FROM ncu_kernels ORDER BY id")
    assert kernels["workload_type"].tolist() == ["kernel"] * 4
    assert kernels["nvtx_start_end"].tolist() == ["ncu_fixture@fixture"] * 4
    assert kernels["nvtx_range"][0] == "matmul[M=256,N=256,K=256]"
    assert kernels["mangled_name"][0].startswith("_Z") or kernels["mangled_name"][0] == kernels["function"][0]
    info = dict(r.sql("SELECT key, value FROM ncu_info").rows)
    assert info["tool_version"].startswith("2025.3.1.0") and info["format_version"] == "7"
    assert "--set full" in info["command_line"]


def test_wide_pivot_and_summary():
    r = open_report("matmul_full")
    wide = r.wide(["duration_ns", "launch__registers_per_thread", "launch__func_cache_config"])
    assert list(wide.columns[-3:]) == ["gpu__time_duration.sum", "launch__registers_per_thread",
                                      "launch__func_cache_config"]
    summary = r.summary()
    assert wide["gpu__time_duration.sum"].tolist() == summary["duration_ns"].tolist()
    assert wide["launch__func_cache_config"][0] == "CachePreferNone"
    with pytest.raises(UsageError, match="closest: gpu__time_duration.sum"):
        r.wide(["gpu__time_duraton.sum"])


def test_instances_are_read_on_first_use():
    import ncu_report

    r = NcuReport(report_path("matmul_full"))
    assert not r._instances_read
    got = r.sql("SELECT count(*) FROM ncu_metric_instances WHERE kernel_id = 0 "
                "AND metric = 'launch__occupancy_per_register_count'").rows[0][0]
    action = ncu_report.load_report(str(report_path("matmul_full"))).range_by_idx(0).action_by_idx(0)
    assert got == action.metric_by_name("launch__occupancy_per_register_count").num_instances() > 1
    r.close()


def test_parallel_read_gives_the_same_tables():
    one = NcuReport(report_path("matmul_basic"), workers=1)
    two = NcuReport(report_path("matmul_basic"), workers=2)
    for table in ("ncu_kernels", "ncu_nvtx", "ncu_metrics"):
        query = f"SELECT * FROM {table} ORDER BY ALL"
        assert one.sql(query).rows == two.sql(query).rows


def test_analyze_with_a_python_function():
    analysis = analyze(open_report("matmul_basic"), Options(
        metrics=["gpu__time_duration.sum"], group_by="nvtx", combine="sum",
        derive={"gflops": lambda row: 2 * row["M"] * row["N"] * row["K"] / row["gpu__time_duration.sum"]},
    ))
    frame = analysis.frame.set_index(["annotation", "M"])
    assert frame.loc[("matmul", 1024), "gflops"] > 10_000
    assert analysis.params == ["M", "N", "K", "R", "C"]


def test_nsys_only_operations_say_so():
    r = open_report("matmul_full")
    assert not hasattr(r, "kernel_summary")
    with pytest.raises(ProfileError, match="is an Nsight Compute report"):
        r.kernel_summary()
    with pytest.raises(NotAnNsysProfile):
        r.sql("SELECT * FROM kernels")
    with pytest.raises(UsageError, match="attach the report"):
        r.attach(NSYS_PROFILE, "nsys")


def test_attach_another_ncu_report():
    r = NcuReport(NCU / "matmul_full_raw.csv")
    r.attach(report_path("matmul_full"), "rep")
    diff = r.sql("SELECT max(abs(a.value - b.value) / greatest(abs(b.value), 1e-9)) FROM ncu_metrics a "
                 "JOIN rep.ncu_metrics b USING (kernel_id, metric) WHERE a.metric = 'gpu__time_duration.sum'").rows
    assert diff[0][0] < 1e-9
    r.close()


@pytest.mark.parametrize("name", ["ncu_kernels", "ncu_nvtx", "ncu_metrics", "ncu_metric_instances", "ncu_info",
                                  "ncu_summary"])
def test_every_column_is_documented(name):
    from nsys_analytics.data import sql_files

    r = open_report("matmul_full")
    documented = [c.name for c in sql_files.read("ncu", name).columns]
    actual = [d[0] for d in r.con.execute(f"SELECT * FROM {name} LIMIT 0").description]
    assert documented == actual
    assert all(c.doc for c in sql_files.read("ncu", name).columns)


@pytest.mark.parametrize("name,params", [("kernel_identity", {}), ("metric_catalog", {}),
                                         ("metric_values", {"metrics": "gpu__time_duration.sum"})])
def test_every_column_of_the_queries_is_documented(name, params):
    from nsys_analytics.data import sql_files

    result = open_report("matmul_full").run_file("ncu", name, params)
    assert [c.name for c in sql_files.read("ncu", name).columns] == result.columns
