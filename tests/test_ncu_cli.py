"""`nsys-analytics ncu` and `nsys-analytics sql` on Nsight Compute reports, end to end."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import read_csv
from .test_ncu_fixtures import NCU, NSYS_PROFILE, open_report, raw_csv, report_path

BASIC = "matmul_basic"


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result.output


def oracle_column(name: str, metric: str, base: bool) -> list[float]:
    rows = read_csv(raw_csv(name, base))
    i = rows[0].index(metric)
    return [float(r[i].replace(",", "")) for r in rows[2:]]


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def basic() -> str:
    return str(report_path(BASIC))


def test_default_table_has_the_headline_metrics(basic):
    text = run("ncu", basic)
    header = text.splitlines()[0].split()
    for column in ("id", "kernel", "nvtx_range", "grid", "block", "duration_us", "sm_throughput_pct",
                   "memory_throughput_pct", "achieved_occupancy_pct", "registers_per_thread"):
        assert column in header
    assert len(text.splitlines()) == 2 + 40


def test_csv_in_base_units_equals_ncu(basic):
    rows = csv_rows(run("ncu", basic, "--units", "base", "--format", "csv"))
    assert [float(r["duration_ns"]) for r in rows] == oracle_column(BASIC, "gpu__time_duration.sum", base=True)
    assert [float(r["registers_per_thread"]) for r in rows] == oracle_column(BASIC, "launch__registers_per_thread",
                                                                          base=True)


def test_json_in_ncu_units_equals_ncu(basic):
    records = json.loads(run("ncu", basic, "--format", "json", "--units", "auto"))
    expected = oracle_column(BASIC, "gpu__time_duration.sum", base=False)  # us, as ncu prints them
    assert [r["duration_us"] for r in records] == pytest.approx(expected, abs=5e-7)
    sm = oracle_column(BASIC, "sm__throughput.avg.pct_of_peak_sustained_elapsed", base=False)
    assert [r["sm_throughput_pct"] for r in records] == pytest.approx(sm, abs=5e-7)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_files_keep_duration_ns_and_every_digit(basic, fmt):
    """CSV and JSON default to base units and full precision: `duration_ns` whatever the magnitudes (it was
    `duration_us` rounded to 0.1 us in CSV), each value as ncu's base-unit CSV has it."""
    text = run("ncu", basic, "--format", fmt)
    rows = csv_rows(text) if fmt == "csv" else json.loads(text)
    assert [float(r["duration_ns"]) for r in rows] == oracle_column(BASIC, "gpu__time_duration.sum", base=True)
    sm = oracle_column(BASIC, "sm__throughput.avg.pct_of_peak_sustained_elapsed", base=True)  # ncu prints 2 decimals
    ours = [float(r["sm_throughput_pct"]) for r in rows]
    assert ours == pytest.approx(sm, abs=0.005 + 1e-9)
    assert sum(v != round(v, 1) for v in ours) > len(ours) // 2  # the digits the one-decimal CSV lost


def test_chosen_metrics_keep_their_names_and_show_units(basic):
    text = run("ncu", basic, "--metrics", "gpu__time_duration.sum,launch__registers_per_thread,"
               "device__attribute_display_name", "--format", "csv")
    header = text.splitlines()[0]
    assert header == ("id,kernel,nvtx_range,grid,block,gpu__time_duration.sum (ns),"
                      "launch__registers_per_thread (register/thread),device__attribute_display_name")
    assert csv_rows(text)[0]["device__attribute_display_name"] == "NVIDIA H200"


def test_group_by_kernel_sums(basic):
    rows = csv_rows(run("ncu", basic, "--group-by", "kernel", "--agg", "sum", "--units", "base", "--format", "csv"))
    assert sum(int(r["kernels"]) for r in rows) == 40
    total = sum(oracle_column(BASIC, "gpu__time_duration.sum", base=True))
    assert sum(float(r["duration_ns"]) for r in rows) == pytest.approx(total)


def test_nvtx_groups_with_combine_and_derived_tflops(basic):
    records = json.loads(run("ncu", basic, "--group-by", "nvtx", "--combine", "sum", "--metrics", "duration_ns",
                             "--derive", "tflops=2*M*N*K/gpu__time_duration.sum/1e3", "--units", "base",
                             "--format", "json"))
    by_key = {(r["annotation"], r["M"]): r for r in records}
    big = by_key[("matmul", 1024)]
    assert (big["N"], big["K"], big["kernels"]) == (1024, 1024, 2)
    durations = open_report(BASIC).df(
        "SELECT duration_ns FROM ncu_summary WHERE nvtx_range = 'matmul[M=1024,N=1024,K=1024]'")["duration_ns"]
    assert big["duration_ns"] == pytest.approx(durations.mean())
    assert big["tflops"] == pytest.approx((2 * 1024 ** 3 / durations / 1e3).mean())
    small = by_key[("matmul", 256)]  # two kernels per matmul: combined per range instance, then averaged
    assert small["kernels"] == 4
    assert by_key[("(no NVTX range)", None)]["kernels"] == 14


def test_normalize_against_a_baseline(basic):
    records = json.loads(run("ncu", basic, "--normalize-against", "matmul", "--metrics", "duration_ns",
                             "--combine", "sum", "--speedup", "--format", "json"))
    for r in records:
        if r["annotation"] == "matmul":
            assert r["duration_ns"] == pytest.approx(1.0)
        elif r["annotation"] == "matmul_bf16":
            assert r["duration_ns"] > 1  # bf16 tensor cores beat fp32 FFMA
        elif r["annotation"] == "mlp":
            assert r["duration_ns"] < 1  # a matmul and a ReLU take longer than the matmul
        else:
            assert r["duration_ns"] is None  # no matmul at these configurations
    assert "speedups over matmul" in run("ncu", basic, "--normalize-against", "matmul", "--speedup")


def test_plot_writes_a_png(basic, tmp_path):
    png = tmp_path / "tflops.png"
    result = CliRunner().invoke(cli, ["ncu", basic, "--plot", str(png), "--combine", "sum",
                                      "--derive", "tflops=2*M*N*K/gpu__time_duration.sum/1e3"])
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {png}: tflops against M, 3 annotation(s)" in result.output


def test_join_with_the_nsys_profile_of_the_same_program(basic):
    rows = csv_rows(run("ncu", basic, "--nsys", NSYS_PROFILE, "--units", "base", "--format", "csv"))
    assert all(r["nsys_duration_ns"] for r in rows)
    from nsys_analytics import open as open_any

    with open_any(NSYS_PROFILE) as p:
        nsys = p.df("SELECT duration_ns FROM kernels ORDER BY start_ns")["duration_ns"].tolist()
    # one ncu launch per nsys launch, in the same order
    assert [float(r["nsys_duration_ns"]) for r in rows] == [float(d) for d in nsys]
    assert "matched 40 of 40 ncu kernels to nsys kernels by mangled names" in run("ncu", basic, "--nsys", NSYS_PROFILE)


def test_join_from_a_csv_export_matches_by_function_name():
    text = run("ncu", NCU / "matmul_basic_raw.csv", "--nsys", NSYS_PROFILE, "--match", "softmax")
    assert "matched 40 of 40 ncu kernels to nsys kernels by function names" in text


def test_list_metrics(basic):
    rows = csv_rows(run("ncu", basic, "--list-metrics", "--format", "csv"))
    units = {r["metric"]: r["unit"] for r in rows}
    assert units["gpu__time_duration.sum"] == "ns" and units["launch__shared_mem_per_block"] == "byte/block"
    assert len(rows) == 563


def test_match_filter_and_markdown(basic):
    text = run("ncu", basic, "--match", "softmax", "--format", "markdown")
    assert text.count("softmax_warp_forward") == 4


@pytest.mark.parametrize("args,message", [
    (["--plot", "x.png", "--group-by", "kernel"], "use them with --group-by nvtx"),
    (["--nsys", "x.sqlite", "--group-by", "nvtx"], "without --group-by"),
    (["--derive", "x=open('f')"], "Call is not allowed"),
    (["--plot", "x.png", "--plot-y", "nope"], "--plot-y 'nope'"),
    (["--match", "["], "not a regular expression"),
])
def test_usage_errors(basic, args, message):
    assert message in run("ncu", basic, *args, code=2)


def test_sql_on_a_report_and_on_its_csv(basic):
    query = ("SELECT count(DISTINCT kernel_id) AS n, sum(value) FILTER (WHERE metric = 'gpu__time_duration.sum') AS t "
             "FROM ncu_metrics")
    a = csv_rows(run("sql", basic, query, "--format", "csv"))[0]
    b = csv_rows(run("sql", NCU / "matmul_basic_raw.csv", query, "--format", "csv"))[0]
    assert a == b
    text = run("sql", basic, "SELECT count(*) AS n FROM ncu_metric_instances WHERE kernel_id = 0", "--format", "csv")
    assert int(csv_rows(text)[0]["n"]) > 0  # read on first use


def test_sql_attaches_an_ncu_report_to_an_nsys_profile(basic):
    text = run("sql", NSYS_PROFILE, "-a", f"ncu={basic}", "--format", "csv",
               "SELECT (SELECT count(*) FROM kernels) AS nsys, (SELECT count(*) FROM ncu.ncu_kernels) AS ncu")
    assert csv_rows(text) == [{"nsys": "40", "ncu": "40"}]


def test_at_80_columns_the_metrics_asked_for_stay(monkeypatch):
    """`ncu --metrics duration_ns,registers_per_thread` at 80 columns showed id, kernel and nvtx_range and left out
    the two metrics asked for; the kernel, duration and the metrics stay, ids and shapes go first."""
    from nsys_analytics.capabilities.ncu.analysis import Options, analyze
    from nsys_analytics.capabilities.ncu.table import for_format
    from nsys_analytics.output.render import to_table
    from nsys_analytics.output.terminal import laid_out

    analysis = analyze(open_report("matmul_full"), Options(metrics=("duration_ns", "registers_per_thread")))
    with laid_out(80):
        header = to_table(for_format(analysis, "table")).splitlines()[0].split()
    assert {"kernel", "duration_us", "registers_per_thread"} <= set(header), header


def test_combine_sum_adds_amounts_and_averages_shares():
    """`--combine sum` (the --help example) added the kernels' occupancy, throughput percentages and clock
    frequencies: 181.2 % occupancy, 4.4 GHz. Time and cycles add up; shares, frequencies and per-thread figures are
    the kernels' mean, and the note names them. Checked against the per-kernel rows (themselves equal to ncu's CSV,
    test_ncu_oracle.py), grouped here by hand into range instances."""
    from nsys_analytics.capabilities.ncu.analysis import Options, analyze

    per_kernel = analyze(open_report(BASIC), Options()).frame
    combined = analyze(open_report(BASIC), Options(combine="sum"))
    row = combined.frame[combined.frame["kernels"] > 1].iloc[0]  # an instance: consecutive results, ids in a row
    first = per_kernel[(per_kernel["id"] >= row["id"]) & (per_kernel["id"] < row["id"] + row["kernels"])]
    assert len(first) == row["kernels"] and first["nvtx_range"].nunique() == 1
    assert row["duration_ns"] == pytest.approx(first["duration_ns"].sum())
    assert row["elapsed_cycles"] == pytest.approx(first["elapsed_cycles"].sum())
    for share in ("theoretical_occupancy_pct", "sm_frequency_hz", "registers_per_thread"):
        assert row[share] == pytest.approx(first[share].mean()), share
    assert "averaged instead: " in combined.notes[-1] and "theoretical_occupancy_pct" in combined.notes[-1]
