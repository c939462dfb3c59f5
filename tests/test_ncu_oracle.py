"""Golden: every metric of a report equals `ncu -i R --csv --page raw` (and `--print-units base`), cell for cell.

The comparison (nsys_analytics/capabilities/ncu/verify.py): each CSV cell in base units (by the CSV's unit row)
against the value read through ncu_report, within half a unit of the last digit ncu printed; text
cells equal; ncu's `nan` / `no data` = no value. The unit row is checked too: base units against the
report's, and ncu's per-column display units against ours.
"""

from __future__ import annotations

import math

import pytest

from nsys_analytics.capabilities.ncu.data import function_name
from nsys_analytics.capabilities.ncu.load_csv import _dims
from nsys_analytics.capabilities.ncu.report import NcuReport
from nsys_analytics.capabilities.ncu.verify import FIRST_METRIC_COLUMN, compare

from .conftest import read_csv
from .test_ncu_fixtures import SHARED_NCU, open_report, raw_csv, report_path

OWN_CASES = [(name, base) for name in ("matmul_basic", "matmul_full", "matmul_range") for base in (False, True)]


@pytest.mark.parametrize("name,base", OWN_CASES, ids=[f"{n}{'-base' if b else ''}" for n, b in OWN_CASES])
def test_report_values_equal_ncu_csv(name, base):
    result = compare(open_report(name), raw_csv(name, base), check_display_units=not base)
    assert result.mismatches == []
    expected_cells = sum(1 for row in read_csv(raw_csv(name, base))[2:] for c in row[FIRST_METRIC_COLUMN:] if c)
    assert result.matched == result.cells == expected_cells
    print(f"\n{name}{' (base units)' if base else ''}: {result.matched} cells equal "
          f"({result.numbers} numbers, {result.texts} texts, {result.no_values} without value), "
          f"{result.display_units} display units equal")


@pytest.mark.parametrize("name", ["matmul_basic", "matmul_full", "matmul_range"])
def test_kernel_columns_equal_ncu_csv(name):
    """ID, process, launch configuration, device, compute capability and kernel name of every row."""
    rows = read_csv(raw_csv(name))
    header, body = rows[0], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    kernels = {r["id"]: r for r in open_report(name).sql("SELECT * FROM ncu_kernels").to_records()}
    assert sorted(kernels) == [int(r[0]) for r in body]
    for row in body:
        k = kernels[int(row[0])]
        assert (k["pid"], k["process_name"], k["host"]) == (int(row[col["Process ID"]]), row[col["Process Name"]],
                                                            row[col["Host Name"]])
        assert (k["context"], k["stream"], k["device"], k["cc"]) == (
            _int(row[col["Context"]]), _int(row[col["Stream"]]), _int(row[col["Device"]]), row[col["CC"]])
        if "Grid Size" in col:  # range-replay results have no launch configuration
            assert (k["grid_x"], k["grid_y"], k["grid_z"]) == _dims(row[col["Grid Size"]])
            assert (k["block_x"], k["block_y"], k["block_z"]) == _dims(row[col["Block Size"]])
        else:
            assert k["workload_type"] == "range" and k["grid_x"] is None and k["block_x"] is None
        assert k["function"] == function_name(row[col["Kernel Name"]])


@pytest.mark.parametrize("name", ["matmul_basic", "matmul_full"])
def test_nvtx_state_equals_ncu_csv(name):
    """The push/pop stacks and start/end ranges read by ncu_report equal those ncu writes into the CSV."""
    query = "SELECT kernel_id, domain, kind, level, name FROM ncu_nvtx ORDER BY ALL"
    from_report = open_report(name).sql(query).rows
    from_csv = open_report(f"{name}_raw.csv").sql(query).rows
    assert from_report == from_csv
    assert len(from_report) > 0


@pytest.mark.parametrize("name", ["matmul_basic", "matmul_full", "matmul_range"])
@pytest.mark.parametrize("base", [False, True], ids=["auto-units", "base-units"])
def test_csv_input_gives_the_report_values(name, base):
    """The same tables from the CSV export as from the report, to the CSV's printed precision."""
    from_csv = open_report(raw_csv(name, base).name)
    assert compare(from_csv, raw_csv(name, base), check_display_units=False).mismatches == []
    report_rows = open_report(name).sql("SELECT * FROM ncu_summary").rows
    csv_rows = from_csv.sql("SELECT * FROM ncu_summary").rows
    assert len(report_rows) == len(csv_rows)
    for ours, theirs in zip(report_rows, csv_rows):
        for a, b in zip(ours, theirs):
            assert a == b or math.isclose(a, b, rel_tol=1e-4, abs_tol=0.006), (ours[0], a, b)


def _int(text: str) -> int | None:
    """ncu writes n/a where a value does not apply (the stream of a replayed range)."""
    return None if text == "n/a" else int(text)


SHARED_CASES = [
    ("gpt2l_forward_basic", "ncu_basic_raw.csv", True),
    ("gpt2l_forward_basic", "ncu_basic_raw_base.csv", False),
    ("gpt2l_softmax_full", "ncu_full_raw.csv", True),
]


@pytest.mark.shared
@pytest.mark.parametrize("name,oracle,auto_units", SHARED_CASES, ids=[c[1] for c in SHARED_CASES])
def test_shared_reports_equal_ncu_csv(name, oracle, auto_units):
    report = NcuReport(report_path(name, SHARED_NCU))
    result = compare(report, SHARED_NCU / oracle, check_display_units=auto_units)
    assert result.mismatches == []
    print(f"\n{name} vs {oracle}: {result.matched} cells equal, {result.display_units} display units equal")


@pytest.mark.shared
def test_shared_public_report_of_an_older_nsight_compute():
    """A report from Nsight Compute 2025.1 on an H100 (no NVTX): read, with its headline metrics."""
    path = SHARED_NCU.parent / "public" / "AlpriElse__cs599k__silu-pytorch" / "silu-pytorch.ncu-rep"
    with NcuReport(path) as report:
        assert report.info["tool_version"].startswith("2025.1.0.0")
        row = report.summary().iloc[0]
        assert row["kernel"] == "distribution_elementwise_grid_stride_kernel"
        assert row["duration_ns"] > 0 and 0 < row["achieved_occupancy_pct"] <= 100
        assert report.sql("SELECT count(*) FROM ncu_nvtx").rows == [(0,)]
